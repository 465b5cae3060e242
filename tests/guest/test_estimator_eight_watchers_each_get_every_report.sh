# Eight "wsr watch" at once each get every report (one ring each, wsr.h:
# WSR_MAX_WATCHERS); a ninth is refused with a clear error.
. "$(dirname "$0")/lib.sh"
wsr_start
cg=$(make_memcg est-watchers)
echo 24M >"$cg/memory.max"
expect_ok wsr set --memcg /est-watchers intervals_ms 1000,10000,60000
expect_ok wsr set --memcg /est-watchers report_ms 500
pids=""
for i in 1 2 3 4 5 6 7 8; do
	wsr watch --memcg /est-watchers --json --count 3 >/tmp/watch.$i 2>/tmp/watch.$i.err &
	pids="$pids $!"
done
sleep 1
if timeout 5 wsr watch --memcg /est-watchers --count 1 >/tmp/watch.9 2>/tmp/watch.9.err; then
	fail "a ninth watcher was accepted"
fi
grep -q "watcher slots are taken" /tmp/watch.9.err || fail "the ninth watcher got: $(cat /tmp/watch.9.err)"
wsr-workload --hot 40 --cold 0 --node 0 --cgroup "$cg" >/dev/null &
load=$!
i=0
for p in $pids; do
	while kill -0 "$p" 2>/dev/null && [ $i -lt 120 ]; do sleep 0.5; i=$((i + 1)); done
done
# shellcheck disable=SC2086 # a list of pids
kill "$load" $pids 2>/dev/null
for i in 1 2 3 4 5 6 7 8; do
	[ "$(wc -l </tmp/watch.$i)" = 3 ] ||
		fail "watcher $i got $(wc -l </tmp/watch.$i) reports, expected 3: $(cat /tmp/watch.$i.err)"
	cmp -s /tmp/watch.1 /tmp/watch.$i || fail "watchers 1 and $i saw different reports"
done
