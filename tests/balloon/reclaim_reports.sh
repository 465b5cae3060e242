#!/bin/sh
# shellcheck shell=dash disable=SC2154 # $daemon: set by start_daemon (transport-lib.sh)
# Guest side of balloon_reclaim_reports_keep_report_ms_with_daemon_stopped:
# once the host has configured report_ms, the daemon is stopped, a
# workload's hot set of 288 MiB is touched every 100 ms, and the host
# inflates the balloon to leave the guest about 300 MiB: the hot set does
# not fit, so global reclaim (kswapd and direct reclaim, no memcg limit)
# goes on all along.  For 15 s of it, reports must keep reaching the host,
# made by the BPF programs alone.
. /wsr/bin/tests/lib.sh
. /host/transport-lib.sh

# pages written to the zram swap device: reclaim at work (this kernel has
# no vm event counters in /proc/vmstat)
swapouts() { awk '{ print $5 }' /sys/block/zram0/stat; }

start_daemon
mark READY
wait_until 120 ws_at_least configs 1 || fail "no configuration from the host: $(ws_state)"
kill -STOP "$daemon" || fail "cannot stop the daemon"
# touched in full before the balloon takes its share: fast, no reclaim yet
w=$(start_workload --hot 288 --cold 16 --period-ms 100)
mark "WORKLOAD MemTotal=$(meminfo MemTotal)"
wait_until 120 mem_at_most MemTotal 320000 ||
	fail "balloon not inflated: MemTotal $(meminfo MemTotal) kB"
k0=$(swapouts)
reclaiming() { [ "$(swapouts)" -gt $((k0 + 256)) ]; }
wait_until 60 reclaiming || fail "no reclaim under the balloon: swap-outs $k0, then $(swapouts)"
k0=$(swapouts)
mark "PRESSURE-START sent=$(ws sent)"
sleep 15
mark "PRESSURE-END sent=$(ws sent) dropped=$(ws dropped) swap-outs=+$(($(swapouts) - k0))"
kill "$w"
kill -CONT "$daemon"
finish
