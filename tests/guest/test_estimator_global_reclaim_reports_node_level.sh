# Global reclaim (a workload bound to node 0 asking for more than the
# node's 1 GiB, with no memcg limit) makes node-level reports on node 0,
# at most one per report_ms, and none for a memcg that has report_ms set
# but is not the target of any reclaim (the seed's report_wss()).
. "$(dirname "$0")/lib.sh"
wsr_start
cg=$(make_memcg est-global)
expect_ok wsr set intervals_ms 1000,10000,60000
expect_ok wsr set report_ms 1000
expect_ok wsr set --memcg /est-global intervals_ms 1000,10000,60000
expect_ok wsr set --memcg /est-global report_ms 1000
wsr watch --json >/tmp/global.node 2>/tmp/global.err &
wnode=$!
wsr watch --memcg /est-global --json >/tmp/global.cg 2>>/tmp/global.err &
wcg=$!
sleep 0.5
wsr-workload --hot 200 --cold 1000 --node 0 --cgroup "$cg" >/dev/null &
load=$!
# until 4 node-level reports (one more than the check below needs), 20 s
# at most: reclaim starts once the workload has filled node 0, and a
# report of the memcg, the bug checked last, comes with the first
# reclaim that would make one
nodes0() { [ "$(grep -c '"node":0' /tmp/global.node)" -ge 4 ]; }
wait_until 20 nodes0
kill "$load"
sleep 0.5
{ kill -0 "$wnode" && kill -0 "$wcg"; } || fail "a watcher exited: $(cat /tmp/global.err)"
kill "$wnode" "$wcg"
n=$(grep -c '"node":0' /tmp/global.node)
info "node-level reports on node 0 in at most 20 s of global reclaim: $n"
[ "$n" -ge 3 ] || fail "$n node-level reports on node 0, expected at least 3"
# each report's time, found by its key: a report without one has no gap
# to check
grep '"node":0' /tmp/global.node | grep -o '"time_ns":[0-9]*' | cut -d: -f2 >/tmp/global.times
[ "$(wc -l </tmp/global.times)" = "$n" ] || fail "$(wc -l </tmp/global.times) of $n reports have a time_ns"
awk 'NR > 1 && $1 - t < 1000000000 { printf "FAIL: reports %d ms apart\n", ($1 - t) / 1000000; bad = 1 }
	{ t = $1 } END { exit bad }' /tmp/global.times || fail "node-level reports closer than report_ms"
[ ! -s /tmp/global.cg ] || fail "global reclaim made a report for a memcg it did not target"
