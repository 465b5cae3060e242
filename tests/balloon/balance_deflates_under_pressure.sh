#!/bin/sh
# shellcheck shell=dash
# Guest side of balance_deflates_a_guest_under_pressure_within_2s: the
# host runs "wsr-host balance --policy working-set", which configures the
# guest (report_ms 1000) and inflates the balloon, the guest's memory
# being mostly idle or free.  Once MemTotal has stayed put for 3 s, the
# guest says SQUEEZED and waits for the host's second balance (it sends
# other bins, the last one 120000), which requests no reports and polls
# no stats: only the guest's own reclaim reports can make it deflate.
# Then the guest starts workloads whose hot sets (touched every 100 ms)
# add up to 64 MiB more than the memory available: global reclaim,
# reclaim reports, and the host must deflate.  Eight memcgs with no
# limit, as in reclaim_reports.sh, so that reclaim ages several small
# lruvecs.
# shellcheck source=../guest/lib.sh
. /wsr/bin/tests/lib.sh
# shellcheck source=transport-lib.sh
. /host/transport-lib.sh

start_daemon
mark READY
wait_until 120 ws_at_least configs 1 || fail "no configuration from the host: $(ws_state)"
total=$(meminfo MemTotal)
mark "CONFIGURED report_ms=$(ws report_ms) MemTotal=$total"
wait_until 120 mem_at_most MemTotal $((total - 128 * 1024)) ||
	fail "balance did not inflate the balloon by 128 MiB: MemTotal $(meminfo MemTotal) kB of $total"
# settled: MemTotal the same for 3 s in a row (60 s at most)
last=0 same=0 n=0
while [ "$same" -lt 3 ] && [ "$n" -lt 60 ]; do
	cur=$(meminfo MemTotal)
	if [ "$cur" = "$last" ]; then same=$((same + 1)); else same=0; fi
	last=$cur n=$((n + 1))
	sleep 1
done
[ "$same" -ge 3 ] || fail "MemTotal still moving after 60 s: $(meminfo MemTotal) kB"
mark "SQUEEZED MemTotal=$(meminfo MemTotal) MemAvailable=$(meminfo MemAvailable)"
wait_until 120 intervals_are 1000,5000,10000,120000 ||
	fail "no second configuration from the host: $(ws_state)"
# the second balance's first request, answered and decided on
sleep 3
per=$(((($(meminfo MemAvailable) >> 10) + 64) / 8))
pids=""
for i in 1 2 3 4 5 6 7 8; do
	wsr-workload --hot "$per" --cold 0 --period-ms 100 \
		--cgroup "$(make_memcg "balance_ws$i")" >/dev/null &
	pids="$pids $!"
done
mark "PRESSURE-START sent=$(ws sent) MemTotal=$(meminfo MemTotal) hot=8x${per}MiB"
sleep 20
mark "PRESSURE-END sent=$(ws sent) MemTotal=$(meminfo MemTotal)"
# shellcheck disable=SC2086 # the pids, one word each
kill $pids
finish
