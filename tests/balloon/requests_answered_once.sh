#!/bin/sh
# shellcheck shell=dash
# Guest side of the balloon_requests_answered_once_* tests: the host sends
# 100 REQUESTs with the daemon running, 100 with it stopped (SIGSTOP) and
# 100 with it killed; every one must get exactly one answer, from the
# daemon or from the BPF request hook.  Then, with a daemon again, 100 more
# while the host squeezes the guest with the balloon (global reclaim) and
# reconfigures it.  The guest moves on when the driver's "answered"
# counter says a phase is done, and the host checks the answers it saw.
# shellcheck source=../guest/lib.sh
. /wsr/bin/tests/lib.sh
# shellcheck source=transport-lib.sh
. /host/transport-lib.sh

# answered_all N: the driver answered N requests and has none waiting
# shellcheck disable=SC2317 # called by wait_until
answered_all() { [ "$(ws answered)" = "$1" ] && [ "$(ws requests)" = "$1" ]; }

# phase N NEXT-MARK: wait for N requests all answered, then mark
phase() {
	wait_until 240 answered_all "$1" ||
		fail "after phase $1: requests $(ws requests) answered $(ws answered)"
	mark "$2 answered=$(ws answered)"
}

start_daemon
start_workload --hot 16 --cold 48 >/dev/null
mark READY
phase 100 PHASE1-DONE
kill -STOP "$daemon" || fail "cannot stop the daemon"
mark DAEMON-STOPPED
phase 200 PHASE2-DONE
kill -KILL "$daemon" || fail "cannot kill the daemon"
wait "$daemon" 2>/dev/null
mark DAEMON-KILLED
phase 300 PHASE3-DONE
start_daemon
# pages written to the zram swap device: reclaim at work (this kernel has
# no vm event counters in /proc/vmstat)
swapouts() { awk '{ print $5 }' /sys/block/zram0/stat; }
# the host leaves about 300 MiB (MemTotal): a hot set of 288 MiB does
# not fit, so reclaim goes on all along; wait for the hot set to be
# touched in full, then for swap-outs to go on after that
wait_until 60 mem_at_most MemTotal 320000 || fail "balloon not inflated: MemTotal $(meminfo MemTotal) kB"
w=$(start_workload --hot 288 --cold 16 --period-ms 100)
k0=$(swapouts)
# shellcheck disable=SC2317 # called by wait_until
reclaiming() { [ "$(swapouts)" -gt $((k0 + 256)) ]; }
wait_until 120 reclaiming || fail "no reclaim under the balloon: swap-outs $k0, then $(swapouts)"
k0=$(swapouts)
mark RECLAIMING
phase 400 PHASE4-DONE
mark "SWAPOUTS $(($(swapouts) - k0))"
kill "$w"
finish
