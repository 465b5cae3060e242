# shellcheck shell=bash
# The balloon kfuncs refuse NULL pointers and are safe when a tracing
# program calls them on every context switch under load.
#
# Alone: vmtests/run-test tests/balloon/balloon_kfuncs_are_safe_on_sched_switch_under_load.sh
#
# Guest half of balloon_kfuncs_refuse_null_pointers: a tracing program
# passes NULL (an unchecked lookup in an empty map) to both kfuncs, then a
# valid buffer to the config kfunc; the host judges the KFUNC-NULL mark
# (both NULL calls -EINVAL, not a fault; the valid one works).
#
# Then balloon_kfuncs_are_safe_on_sched_switch: under load (two
# CPU hogs and a task that sleeps 1 ms at a time), a tp_btf/sched_switch
# program reads the configuration and queues a report on every context
# switch, with the runqueue lock held, for SECS seconds while the host
# sends CONFIGs.  The guest must neither hang nor splat (the debug kernel
# has lockdep), the kfuncs may say -EBUSY, -ESTALE or (between a CONFIG
# and ...) nothing else, and reports must reach the device.
#
# guest half: SECS
guest_half() {
	# the host asks QEMU nothing after the last mark: power off at once
	# shellcheck disable=SC2034 # for finish
	FINISH_NOW=1
	# shellcheck source=transport-lib.sh
	. /host/transport-lib.sh
	secs=${1:-30}

	dev=$(balloon_dev) || fail "no virtio balloon device"
	wait_until 30 ws_is active 1 || fail "no active working_set/ in $dev"
	mark "KFUNC-NULL $(kfunc-probe null 2>&1)"
	mark "READY $(ws_state)"
	sent0=$(ws sent)
	(while :; do :; done) &
	hog1=$!
	(while :; do :; done) &
	hog2=$!
	(while :; do usleep 1000; done) &
	sleeper=$!
	out=$(kfunc-probe switch "$secs" 2>&1)
	rc=$?
	kill "$hog1" "$hog2" "$sleeper"
	[ "$rc" = 0 ] || fail "kfunc-probe switch: $out"
	mark "TALLY $out sent=$(ws sent) sent0=$sent0 configs=$(ws configs)"
	val() { echo "$out" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	[ "$(val calls)" -ge 1000 ] || fail "only $(val calls) context switches seen in $secs s: $out"
	[ "$(val other)" = 0 ] || fail "the kfuncs failed $(val other) times, last with $(val last_other)"
	[ "$(val nodev)" = 0 ] || fail "the kfuncs found no device $(val nodev) times"
	[ "$(val queued)" -gt 0 ] || fail "no report queued: $out"
	[ "$(ws sent)" -gt "$sent0" ] || fail "no report sent to the device: $(ws_state)"
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

# A tracing program that passes NULL to the kfuncs gets -EINVAL: before
# the fix, the guest faulted (a panic: status 125).
# A tracing program passes NULL to both kfuncs: each returns -EINVAL (the
# verdict of balloon_kfuncs_refuse_null_pointers, which shares the guest).
# Then a tp_btf/sched_switch program calls the kfuncs on every context
# switch under load while the host reconfigures: no hang, no lockdep splat
# (on the debug kernel), reports reach the device, and every CONFIG QEMU
# took reached the driver (its configs count, READY to TALLY) but the
# last, which may be in flight when the guest reads the count.
test_kfunc_sched_switch() {
	local secs=${WSR_SWITCH_SECS:-30} k=0 want_null="config_null=-22 report_null=-22 header_null=-22 config=0"
	local ok=0 c0 c1
	guest_start working-set=on,working-set-bins=5 -- "$secs" || return
	wait_mark KFUNC-NULL || return
	[ "$MARK" = "$want_null" ] || also_verdict balloon_kfuncs_refuse_null_pointers \
		"kfuncs given NULL: $MARK (expected $want_null)"
	[ "$MARK" != "$want_null" ] || also_verdict balloon_kfuncs_refuse_null_pointers
	wait_mark READY || return
	c0=$(mark_field configs)
	# CONFIGs while the program runs: the kfuncs then see -ESTALE at times
	until grep -aq '^wsr-balloon: TALLY\|^FAIL: ' "$G_LOG" || ! guest_alive; do
		! host config "$((100 + k % 500)),2000,4000,8000" 0 0 >/dev/null 2>&1 || ok=$((ok + 1))
		k=$((k + 1))
		sleep 2
	done
	wait_mark TALLY 10 || return
	c1=$(mark_field configs)
	guest_done 120 || return
	if [ "$ok" = 0 ]; then
		bad "QEMU took none of the $k CONFIGs sent while the program ran"
	elif [ -z "$c0" ] || [ -z "$c1" ] || [ $((c1 - c0)) -lt $((ok - 1)) ]; then
		bad "QEMU took $ok CONFIGs, the driver counted $c0 then $c1 (READY, TALLY)"
	fi
}

run_test balloon_kfuncs_are_safe_on_sched_switch_under_load \
	--also balloon_kfuncs_refuse_null_pointers test_kfunc_sched_switch
