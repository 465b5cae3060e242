# A reclaim report sums every lruvec of its subtree, as a read does:
# memcgs created while no daemon runs, 20 levels deep, are in it.  A daemon
# loaded with a walk too short for the subtree makes reports marked
# incomplete (JSON "incomplete":true) and says so once in its log.
. "$(dirname "$0")/lib.sh"
wsr_start
kill "$WSRD"
wait "$WSRD" 2>/dev/null
top=$(make_memcg est-deep)
d=$top
for i in $(seq 1 20); do
	echo +memory >"$d/cgroup.subtree_control" || fail "cannot enable memory at level $i"
	d=$d/l$i
	mkdir "$d" || fail "cannot create $d"
done
echo 24M >"$top/memory.max"
expect_ok wsr set --memcg /est-deep intervals_ms 1000,10000,60000
expect_ok wsr set --memcg /est-deep report_ms 500
# deep_reports OUT: four reports of /est-deep (both nodes) while a workload 20 levels
# down is held at the limit
deep_reports() {
	wsr watch --memcg /est-deep --json --count 4 >"$1" &
	w=$!
	sleep 0.5
	wsr-workload --hot 40 --cold 0 --node 0 --cgroup "$d" >/dev/null &
	load=$!
	i=0
	while kill -0 "$w" 2>/dev/null && [ $i -lt 120 ]; do sleep 0.5; i=$((i + 1)); done
	kill "$load" "$w" 2>/dev/null
	wait "$load" 2>/dev/null
	[ "$(wc -l <"$1")" = 4 ] || fail "$(wc -l <"$1") reports of /est-deep in 60 s of reclaim"
	grep -q '"node":0,' "$1" || fail "no report of /est-deep on node 0: $(cat "$1")"
}
deep_reports /tmp/deep.json
# reports are per node (a memcg's reclaim passes each node in turn): the
# workload's pages are on node 0
pages=$(grep '"node":0,' /tmp/deep.json | tail -n 1 | grep -o '"\(anon\|file\)":[0-9]*' | cut -d: -f2 |
	awk '{ s += $1 } END { print s + 0 }')
info "a report of /est-deep: $pages pages; $(grep -o '"incomplete":[a-z]*' /tmp/deep.json | tr '\n' ' ')"
{ [ "$pages" -ge 3072 ] && [ "$pages" -le 6400 ]; } ||
	fail "a report of /est-deep holds $pages pages, expected 3072-6400 (its 24 MiB limit)"
grep -q '"incomplete":true' /tmp/deep.json && fail "a complete walk was marked incomplete"
grep -q '"incomplete":false' /tmp/deep.json || fail "no report says whether it is complete: $(head -c 200 /tmp/deep.json)"

# a walk of 8 steps cannot cover 21 memcgs
wsr unload
wsr daemon --max-walk-steps 8 >/tmp/wsrd-short.log 2>&1 &
WSRD=$!
i=0
while [ ! -e /sys/fs/bpf/wsr/link_reclaim ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
expect_ok wsr set --memcg /est-deep intervals_ms 1000,10000,60000
expect_ok wsr set --memcg /est-deep report_ms 500
deep_reports /tmp/deep-short.json
grep -q '"incomplete":true' /tmp/deep-short.json || fail "a walk cut short was not marked incomplete"
# the daemon checks its limits between its other work (its own aging can
# take seconds here): wait for the warning, then for any second one
i=0
while ! grep -q 'ran out of its' /tmp/wsrd-short.log && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 1.5
n=$(grep -c 'ran out of its 8 steps' /tmp/wsrd-short.log)
[ "$n" = 1 ] || fail "the daemon said $n times that a walk ran out, expected once: $(cat /tmp/wsrd-short.log)"
kill "$WSRD"
