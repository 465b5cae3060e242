#!/bin/sh
# shellcheck shell=dash disable=SC2154 # $daemon: set by start_daemon (transport-lib.sh)
# Guest side of balloon_reclaim_reports_keep_report_ms_with_daemon_stopped:
# once the host has configured report_ms, the daemon is stopped and the
# host inflates the balloon by 192 MiB; then workloads whose hot sets
# (touched every 100 ms) add up to 64 MiB more than the memory left
# available: global reclaim (kswapd and direct reclaim; no memcg limit)
# goes on all along.  They run in 8 memcgs with no limit, so that reclaim
# ages 8 small lruvecs per node, each on its own, rather than one large
# one: more agings per evicted page, which a slow (debug) kernel needs.
# For 15 s of it, reports must keep reaching the host, made by the BPF
# programs alone.
. /wsr/bin/tests/lib.sh
. /host/transport-lib.sh

# pages written to the zram swap device: reclaim at work (this kernel has
# no vm event counters in /proc/vmstat)
swapouts() { awk '{ print $5 }' /sys/block/zram0/stat; }

start_daemon
mark READY
wait_until 120 ws_at_least configs 1 || fail "no configuration from the host: $(ws_state)"
kill -STOP "$daemon" || fail "cannot stop the daemon"
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
