# Shared body of the many-memcg tests: N memcgs, 2N lruvecs on the two
# nodes: a reclaim report of their parent walks them all (complete,
# holding the pages at its limit), and no map fills up (the walk keeps no
# per-lruvec state).  Making 10,000 memcgs takes over 2 minutes under
# emulation: make check runs 1,000, make check-long 10,000.
. "$(dirname "$0")/lib.sh"
n=${1:?usage: estimator_walk_many.sh N}
s0="" s1=""
last=$((n - 1))
wsr_start --seed-aging
top=$(make_memcg est-many)
echo +memory >"$top/cgroup.subtree_control" || fail "cannot enable memory in $top"
t0=$(date +%s)
seq 0 "$last" | sed "s|^|$top/m|" | xargs mkdir || fail "cannot create $n memcgs"
info "$n memcgs made in $(($(date +%s) - t0)) s"
echo 24M >"$top/memory.max"
expect_ok wsr set --memcg /est-many intervals_ms 1000,10000,60000
expect_ok wsr set --memcg /est-many report_ms 500
wsr watch --memcg /est-many --node 0 --json --count 2 >/tmp/many.json &
w=$!
sleep 0.5
wsr-workload --hot 40 --cold 0 --node 0 --cgroup "$top/m$last" >/dev/null &
load=$!
i=0
while kill -0 "$w" 2>/dev/null && [ $i -lt 240 ]; do sleep 0.5; i=$((i + 1)); done
kill "$load" "$w" 2>/dev/null
wait "$load" 2>/dev/null
[ "$(wc -l </tmp/many.json)" = 2 ] || fail "$(wc -l </tmp/many.json) reports of /est-many in 120 s"
pages=$(tail -n 1 /tmp/many.json | grep -o '"\(anon\|file\)":[0-9]*' | cut -d: -f2 |
	awk '{ s += $1 } END { print s + 0 }')
info "a report of /est-many: $pages pages"
grep -q '"incomplete":false' /tmp/many.json || fail "a report of $n memcgs is incomplete"
{ [ "$pages" -ge 3072 ] && [ "$pages" -le 6400 ]; } ||
	fail "the report holds $pages pages, expected 3072-6400 (its 24 MiB limit)"
t0=$(date +%s)
wsr show --memcg /est-many --json >/tmp/many.show || fail "wsr show failed"
info "a read of /est-many: $(($(date +%s) - t0)) s"
grep -q "ran out\|full" /tmp/wsrd.log && fail "a limit was reached: $(cat /tmp/wsrd.log)"
# a refresh of them all: more lru_gen commands than one read of the
# refresh iterator holds; each lruvec is aged once
for m in m0 "m$((n / 2))"; do s0="$s0 $(lru_gen_max_seq "$top/$m" 0) $(lru_gen_max_seq "$top/$m" 1)"; done
expect_ok wsr set --memcg /est-many refresh_ms 1
sleep 0.1
t0=$(date +%s)
wsr show --memcg /est-many >/dev/null 2>/tmp/many.err || fail "a refreshing read failed: $(cat /tmp/many.err)"
info "a refreshing read of /est-many: $(($(date +%s) - t0)) s"
for m in m0 "m$((n / 2))"; do s1="$s1 $(lru_gen_max_seq "$top/$m" 0) $(lru_gen_max_seq "$top/$m" 1)"; done
# four max_seq each: an lruvec missing from lru_gen reads as nothing,
# and two empty reads would compare equal
for s in "$s0" "$s1"; do
	[ "$(echo "$s" | wc -w)" = 4 ] || fail "max_seq of m0, m$((n / 2)) on nodes 0, 1: read '$s0' and '$s1'"
done
[ "$(echo "$s0" | awk '{ for (i = 1; i <= NF; i++) printf "%d ", $i + 1 }')" = "$(echo "$s1" | awk '{ for (i = 1; i <= NF; i++) printf "%d ", $i }')" ] ||
	fail "max_seq of m0, m$((n / 2)) on nodes 0, 1 went from$s0 to$s1, expected one aging each"
seq 0 "$last" | sed "s|^|$top/m|" | xargs rmdir 2>/dev/null
true
