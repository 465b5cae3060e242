# shellcheck shell=bash
# A ws queue the device broke takes no answer, and none is asked for again.
#
# Alone: vmtests/run-test --kernel debug tests/balloon/balloon_broken_ws_queue_is_not_asked_again.sh
#
# Guest half of balloon_broken_ws_queue_is_not_asked_again: the device
# (x-ws-bad-used-id) follows each used buffer of the ws queue with one whose
# id is out of the ring, so the driver's next look at the queue marks it
# broken.  The first request's answer gets through; the second one's cannot
# (every add to a broken queue fails).  The driver must leave that request
# unanswered and stop asking for it: before, it re-armed the request work
# at once after each failed send, and the BPF hook's answer failed again,
# in a loop that only the hook's own wait slowed.  Over 10 s: at most 3
# reports dropped, the request still unanswered, and the guest's CPUs
# mostly idle.
guest_half() {
	# the host asks QEMU nothing after the last mark: power off at once
	# shellcheck disable=SC2034 # for finish
	FINISH_NOW=1
	# shellcheck source=../guest/lib.sh
	. /wsr/bin/tests/lib.sh
	# shellcheck source=transport-lib.sh
	. /host/transport-lib.sh

	# cpu_busy: the CPUs' time on anything but idle and iowait, in USER_HZ
	cpu_busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

	start_daemon
	mark READY
	wait_until 120 ws_at_least answered 1 || fail "the first request was not answered: $(ws_state)"
	# the used buffer with the bad id comes with the answer's: the driver
	# sees it when it next looks at the queue
	wait_until 60 sh -c 'dmesg | grep -q "out of range"' ||
		fail "the ws queue did not break: no 'out of range' in the kernel log"
	# the daemon gone, the BPF hook answers at once whenever it is fired
	kill -KILL "$daemon" || fail "cannot kill the daemon"
	wait "$daemon" 2>/dev/null
	mark ASK-AGAIN
	wait_until 60 ws_at_least requests 2 || fail "no second request: $(ws_state)"
	sleep 2
	d0=$(ws dropped) b0=$(cpu_busy)
	sleep 10
	d1=$(ws dropped) b1=$(cpu_busy)
	mark "BROKEN dropped=+$((d1 - d0)) busy_jiffies=$((b1 - b0)) $(ws_state)"
	[ $((d1 - d0)) -le 3 ] ||
		fail "the driver kept answering into the broken queue: $((d1 - d0)) reports dropped in 10 s"
	[ "$(ws requests)" != "$(ws answered)" ] ||
		fail "the second request counts as answered, though its answer cannot reach the device: $(ws_state)"
	# /proc/stat counts in USER_HZ (100): two CPUs for 10 s are 2000; a
	# kworker looping would hold one of them
	[ $((b1 - b0)) -lt 1000 ] ||
		fail "the CPUs were busy for $((b1 - b0)) of 2000 jiffies with nothing to do"
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

# The first request is answered (the host sees it); the second, sent once
# the queue is broken, is not, and the guest checks that its driver does
# not loop on it.
test_broken_queue() {
	guest_start working-set=on,working-set-bins=5,x-ws-bad-used-id=on || return
	wait_mark READY 200 || return
	retry 60 host config 1000,5000,20000,60000 0 1000 >/dev/null ||
		{ bad "working-set-config: $retry_err"; return; }
	timeout 60 "$HOST" --qmp "$G_EVENTS" request --count 1 --timeout-ms 30000 >"$tmp/answer" 2>&1 ||
		{ bad "the first request got no answer: $(tail -n 1 "$tmp/answer")"; return; }
	wait_mark ASK-AGAIN 120 || return
	qmp '{"execute":"working-set-request"}' >/dev/null || { bad "the second request was refused"; return; }
	wait_mark BROKEN 120 || return
	echo "    | $MARK" >&2
	guest_done 60
}

run_test balloon_broken_ws_queue_is_not_asked_again test_broken_queue
