#!/bin/sh
# shellcheck shell=dash
# Guest side of balloon_reclaim_reports_keep_report_ms_with_daemon_stopped:
# once the host has configured report_ms, the daemon is stopped; a memcg
# held at its memory.max for 8 s must make no balloon report; then the
# host inflates the balloon by 192 MiB; then workloads whose hot sets
# (touched every 100 ms) add up to 64 MiB more than the memory left
# available: global reclaim (kswapd and direct reclaim; no memcg limit)
# goes on all along.  They run in 8 memcgs with no limit, so that reclaim
# ages 8 small lruvecs per node, each on its own, rather than one large
# one: more agings per evicted page, which a slow (debug) kernel needs.
# For 15 s of it, reports must keep reaching the host, made by the BPF
# programs alone.
# shellcheck source=../guest/lib.sh
. /wsr/bin/tests/lib.sh
# shellcheck source=transport-lib.sh
. /host/transport-lib.sh

# pages written to the zram swap device: reclaim at work (this kernel has
# no vm event counters in /proc/vmstat)
swapouts() { awk '{ print $5 }' /sys/block/zram0/stat; }

start_daemon
mark READY
wait_until 120 ws_at_least configs 1 || fail "no configuration from the host: $(ws_state)"
kill -STOP "$daemon" || fail "cannot stop the daemon"
# first, reclaim within a memcg's limit: the host is not short of memory,
# so no balloon report may come of it
s0=$(ws sent)
k0=$(swapouts)
limited=$(make_memcg balloon_limited)
echo 24M >"$limited/memory.max"
wsr-workload --hot 40 --cold 0 --period-ms 20 --cgroup "$limited" >/dev/null &
w=$!
sleep 8
kill "$w"
[ "$(swapouts)" -gt $((k0 + 2048)) ] || fail "no reclaim within the memcg's limit: swap-outs $k0, then $(swapouts)"
[ "$(ws sent)" = "$s0" ] ||
	fail "reclaim within a memcg's limit made $(($(ws sent) - s0)) balloon reports"
total=$(meminfo MemTotal)
mark "SQUEEZE MemTotal=$total"
wait_until 120 mem_at_most MemTotal $((total - 190 * 1024)) ||
	fail "balloon not inflated: MemTotal $(meminfo MemTotal) kB"
per=$(((($(meminfo MemAvailable) >> 10) + 64) / 8))
pids=""
for i in 1 2 3 4 5 6 7 8; do
	wsr-workload --hot "$per" --cold 0 --period-ms 100 \
		--cgroup "$(make_memcg "balloon_ws$i")" >/dev/null &
	pids="$pids $!"
done
k0=$(swapouts)
# shellcheck disable=SC2317 # called by wait_until
reclaiming() { [ "$(swapouts)" -gt $((k0 + 2048)) ]; }
wait_until 120 reclaiming || fail "no reclaim under the balloon: swap-outs $k0, then $(swapouts)"
k0=$(swapouts)
mark "PRESSURE-START sent=$(ws sent) hot=8x${per}MiB"
sleep 15
mark "PRESSURE-END sent=$(ws sent) dropped=$(ws dropped) swap-outs=+$(($(swapouts) - k0))"
# shellcheck disable=SC2086 # the pids, one word each
kill $pids
kill -CONT "$daemon"
finish
