# report_ms: under sustained reclaim (a memcg held over its memory.max),
# reports arrive unasked, at every watcher at once, never closer together
# than report_ms per node, and holding the memcg's pages (about its
# memory.max); with report_ms 1, at most 3 a second (the seed's global
# limit); with report_ms 0 none arrive; nor, as the seed's report_wss(),
# with report_ms set and no intervals.
. "$(dirname "$0")/lib.sh"
wsr_start
cg=$(make_memcg est-report)
echo 24M >"$cg/memory.max"
expect_ok wsr set --memcg /est-report report_ms 700
# no intervals yet: 3 s of reclaim (memory.stat's pgscan) and no report
scanned() { awk '$1 == "pgscan" { print $2 }' "$cg/memory.stat"; }
wsr watch --memcg /est-report --count 1 >/tmp/w0 &
w0=$!
sleep 0.5
scan0=$(scanned)
wsr-workload --hot 40 --cold 0 --node 0 --cgroup "$cg" >/dev/null &
load=$!
sleep 3
kill -0 $w0 2>/dev/null || { wait $w0; fail "wsr watch without intervals stopped within 3 s (status $?): $(head -c 150 /tmp/w0)"; }
kill $w0
wait $w0
scan1=$(scanned)
[ ! -s /tmp/w0 ] || fail "report_ms without intervals produced a report: $(head -c 150 /tmp/w0)"
[ "$((scan1 - scan0))" -ge 1024 ] ||
	fail "pgscan went from $scan0 to $scan1 in the 3 s without intervals: no reclaim, nothing tested"
# both watchers in place before reports can come: they must see the same
wsr watch --memcg /est-report --json --count 4 >/tmp/w1 &
w1=$!
wsr watch --memcg /est-report --json --count 4 >/tmp/w2 &
w2=$!
sleep 0.5
expect_ok wsr set --memcg /est-report intervals_ms 1000,10000,60000
for _ in $(seq 1 120); do
	kill -0 $w1 2>/dev/null || kill -0 $w2 2>/dev/null || break
	sleep 0.5
done
kill $w1 $w2 2>/dev/null
# a watcher stops with status 0 after its count or on SIGTERM
wait $w1; s1=$?
wait $w2; s2=$?
{ [ "$s1" = 0 ] && [ "$s2" = 0 ]; } || fail "wsr watch failed: status $s1 and $s2"
info "reports seen by watcher 1:"; sed 's/^/    /' /tmp/w1 | cut -c1-150
n1=$(wc -l </tmp/w1)
[ "$n1" -ge 4 ] || fail "watcher 1 got $n1 reports in 60 s of reclaim, expected 4"
# node and time of each report, each found by its key wherever it is in
# the line; a report without both fails (it would have no gap to check)
fields() {
	awk '{
		if (!match($0, /"time_ns":[0-9]+/)) { print "no time_ns: " $0; exit 1 }
		t = substr($0, RSTART + 10, RLENGTH - 10)
		if (!match($0, /"node":[0-9]+/)) { print "no node: " $0; exit 1 }
		print substr($0, RSTART + 7, RLENGTH - 7), t
	}' "$1"
}
fields /tmp/w1 >/tmp/w1.fields || fail "a report of watcher 1 without node or time: $(tail -n 1 /tmp/w1.fields | cut -c1-200)"
sort -n -k1 -k2 /tmp/w1.fields | awk '
	$1 == n && $2 - t < 700000000 { printf "FAIL: node %d reports %d ms apart\n", $1, ($2 - t) / 1000000; bad = 1 }
	{ n = $1; t = $2 } END { exit bad }' || fail "reports closer than report_ms"
cmp -s /tmp/w1 /tmp/w2 || fail "the two watchers saw different reports"
# what a report holds: the memcg's pages on node 0, which reclaim keeps
# near memory.max (24 MiB = 6144 pages)
pages=$(grep '"node":0' /tmp/w1 | tail -n 1 | grep -o '"\(anon\|file\)":[0-9]*' |
	cut -d: -f2 | awk '{ s += $1 } END { print s + 0 }')
info "last node 0 report: $pages pages"
{ [ "$pages" -ge 3072 ] && [ "$pages" -le 6400 ]; } ||
	fail "a reclaim report holds $pages pages, expected 3072-6400 under a 24 MiB limit"

# report_ms 1: the seed's global limit, 3 reports a second, holds them back
expect_ok wsr set --memcg /est-report report_ms 1
wsr watch --memcg /est-report --json >/tmp/w4 &
w4=$!
# 3 s (5 s, with bounds 3-18, told the same)
sleep 3
kill $w4
wait $w4
n4=$(wc -l </tmp/w4)
info "report_ms 1: $n4 reports in 3 s"
# windows of 1 s from the first report: 4 at most touch 3 s (as 6 touch
# 5 s), 3 reports each
{ [ "$n4" -ge 2 ] && [ "$n4" -le 12 ]; } ||
	fail "$n4 reports in 3 s with report_ms 1, expected 2-12 (3 a second at most)"

expect_ok wsr set --memcg /est-report report_ms 0
# a watcher that runs 3 s under reclaim and sees nothing (at report_ms
# 700 above, reports came every 0.7 s): one that failed or stopped early
# saw nothing either
wsr watch --memcg /est-report --count 1 >/tmp/w3 &
w3=$!
sleep 3
kill -0 $w3 2>/dev/null || { wait $w3; fail "wsr watch with report_ms 0 stopped within 3 s (status $?): $(head -c 150 /tmp/w3)"; }
kill $w3
wait $w3 || fail "wsr watch with report_ms 0 failed (status $?)"
[ ! -s /tmp/w3 ] || fail "report_ms 0 still produced a report"
kill $load
