# Reports come from reclaim, on their own clock, as the seed's
# report_wss(): a memcg held at its memory.max reports about once per
# report_ms although a reader polls it every 200 ms (reads never move the
# report clock); that reclaim targets the memcg, so it makes no node-level
# report; proactive reclaim (memory.reclaim) makes no report at all.
. "$(dirname "$0")/lib.sh"
wsr_start
cg=$(make_memcg est-clock)
echo 24M >"$cg/memory.max"
expect_ok wsr set --memcg /est-clock intervals_ms 1000,10000,60000
expect_ok wsr set --memcg /est-clock report_ms 1000
expect_ok wsr set intervals_ms 1000,10000,60000
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
# until 6 memcg reports (one more than the check below needs), 15 s at
# most: reads that made reports would make them sooner, and closer
# together than report_ms, which the check of their gaps sees
cg_reports() { [ "$(wc -l </tmp/clock.cg)" -ge 6 ]; }
wait_until 15 cg_reports
kill "$load" "$reader"
sleep 0.5
{ kill -0 "$wcg" && kill -0 "$wnode"; } || fail "a watcher exited: $(cat /tmp/clock.*.err)"
n=$(wc -l </tmp/clock.cg)
info "memcg reports in at most 15 s with a reader every 200 ms: $n"
[ "$n" -ge 5 ] || fail "$n memcg reports in 15 s of reclaim at report_ms 1000, expected at least 5"
# never two of a node within report_ms (each found by its key): the
# reads, every 200 ms, would make reports closer together
awk '{
	if (!match($0, /"time_ns":[0-9]+/)) { print "no time_ns: " $0; exit 1 }
	t = substr($0, RSTART + 10, RLENGTH - 10)
	if (!match($0, /"node":[0-9]+/)) { print "no node: " $0; exit 1 }
	print substr($0, RSTART + 7, RLENGTH - 7), t
}' /tmp/clock.cg >/tmp/clock.times || fail "a memcg report without node or time: $(tail -n 1 /tmp/clock.times | cut -c1-200)"
sort -n -k1 -k2 /tmp/clock.times | awk '
	$1 == n && $2 - t < 1000000000 { printf "FAIL: node %d reports %d ms apart at report_ms 1000: reads make reports\n", $1, ($2 - t) / 1000000; exit 1 }
	{ n = $1; t = $2 }' || fail "memcg reports closer than report_ms"
[ ! -s /tmp/clock.node ] ||
	fail "reclaim within a memcg's limit made node-level reports: $(head -c 200 /tmp/clock.node)"
# proactive reclaim: nobody is short of memory
wsr-workload --hot 8 --cold 32 --node 0 --cgroup "$cg" >/dev/null &
load=$!
sleep 3
: >/tmp/clock.cg
# a reclaim that reclaimed nothing would report nothing either: at least
# one write must reclaim its 8 MiB (a write that reclaims less fails
# with EAGAIN: the hot set may be all that is left), seen in pgsteal
steal() { awk '$1 == "pgsteal" { print $2 }' "$cg/memory.stat"; }
steal0=$(steal)
ok=0
for _ in 1 2 3; do
	! echo 8M >"$cg/memory.reclaim" 2>/tmp/clock.reclaim || ok=$((ok + 1))
	sleep 1.1
done
steal1=$(steal)
# a watcher that died would have seen no report either
{ kill -0 "$wcg" && kill -0 "$wnode"; } || fail "a watcher exited: $(cat /tmp/clock.*.err)"
kill "$load" "$wcg" "$wnode"
[ "$ok" -ge 1 ] || fail "no memory.reclaim of 8 MiB succeeded: $(cat /tmp/clock.reclaim)"
{ [ -n "$steal0" ] && [ -n "$steal1" ] && [ "$((steal1 - steal0))" -ge 2048 ]; } ||
	fail "memory.stat's pgsteal went from '$steal0' to '$steal1' over the memory.reclaim writes, not 8 MiB (2048 pages) up"
[ ! -s /tmp/clock.cg ] || fail "memory.reclaim made a report: $(head -c 200 /tmp/clock.cg)"
