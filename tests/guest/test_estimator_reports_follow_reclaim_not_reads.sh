# Reports come from reclaim, on their own clock, as the seed's
# report_wss(): a memcg held at its memory.max reports about once per
# report_ms although a reader polls it every 200 ms (reads never move the
# report clock); that reclaim targets the memcg, so it makes no node-level
# report; proactive reclaim (memory.reclaim) makes no report at all.
. "$(dirname "$0")/lib.sh"
wsr_start
cg=$(make_memcg est-clock)
echo 24M >"$cg/memory.max"
expect_ok wsr set --memcg /est-clock report_ms 1000
expect_ok wsr set report_ms 1000
wsr watch --memcg /est-clock --json >/tmp/clock.cg 2>/tmp/clock.cg.err &
wcg=$!
wsr watch --json >/tmp/clock.node 2>/tmp/clock.node.err &
wnode=$!
sleep 0.5
(while :; do wsr show --memcg /est-clock >/dev/null 2>&1; sleep 0.2; done) &
reader=$!
wsr-workload --hot 40 --cold 0 --node 0 --cgroup "$cg" >/dev/null &
load=$!
sleep 15
kill "$load" "$reader"
sleep 0.5
{ kill -0 "$wcg" && kill -0 "$wnode"; } || fail "a watcher exited: $(cat /tmp/clock.*.err)"
n=$(wc -l </tmp/clock.cg)
info "memcg reports in 15 s with a reader every 200 ms: $n"
[ "$n" -ge 5 ] || fail "$n memcg reports in 15 s of reclaim at report_ms 1000, expected at least 5"
[ ! -s /tmp/clock.node ] ||
	fail "reclaim within a memcg's limit made node-level reports: $(head -c 200 /tmp/clock.node)"
# proactive reclaim: nobody is short of memory
wsr-workload --hot 8 --cold 32 --node 0 --cgroup "$cg" >/dev/null &
load=$!
sleep 3
: >/tmp/clock.cg
for _ in 1 2 3; do echo 8M >"$cg/memory.reclaim" 2>/dev/null; sleep 1.1; done
kill "$load" "$wcg" "$wnode"
[ ! -s /tmp/clock.cg ] || fail "memory.reclaim made a report: $(head -c 200 /tmp/clock.cg)"
