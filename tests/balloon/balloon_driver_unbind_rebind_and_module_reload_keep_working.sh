# shellcheck shell=bash
# The driver survives unbind/rebind and module reload cycles while the host
# notifies it, and its probe fails cleanly at every allocation (debug).
#
# Alone: vmtests/run-test tests/balloon/balloon_driver_unbind_rebind_and_module_reload_keep_working.sh
#
# Guest half of balloon_driver_unbind_rebind_and_module_reload_keep_working
# and balloon_probe_fails_cleanly_at_every_allocation_then_rebinds:
# while the host sends CONFIGs and REQUESTs in a loop, unbind and bind the
# balloon driver, and unload and reload its module, CYCLES times in turn
# (a driver built in is only unbound and bound).  After each cycle
# working_set/ must come back with fresh counters, as the active device,
# the host's CONFIG must be applied and wsr's reports must reach the host
# (the balloon programs are detached before rmmod, attached after insmod).
# Then the host checks that the device still configures, reports stats
# and inflates.
#
# With --fail-nth, first make probe fail at its 1st, 2nd, ... allocation
# (fault injection through /proc/self/fail-nth, on the debug kernel) with
# the balloon programs attached, until a probe sees no injected failure;
# each failed probe must leave the device unbound, with no working_set/.
#
# guest half: CYCLES [--fail-nth]
guest_half() {
	# shellcheck source=transport-lib.sh
	. /host/transport-lib.sh
	cycles=$1
	fail_nth=${2:-}
	defaults="1000,2000,4000,8000"
	looped="100,200,300,400"	# what the host's loop configures

	dev=$(balloon_dev) || fail "no virtio balloon device"
	name=${dev##*/}
	ko=$(find /lib/modules -name virtio_balloon.ko | head -n 1)
	if [ -z "$ko" ]; then
		[ ! -e /sys/module/virtio_balloon/refcnt ] || fail "virtio_balloon is a module, but no .ko"
		mark "virtio_balloon is built in: unbind and bind only"
	fi
	wait_until 30 [ -d "$dev/working_set" ] || fail "no working_set/ in $dev"
	# the daemon answers the host's requests: reports flow through the cycles
	start_daemon
	mark "READY $(ws_state)"

	FI=/sys/kernel/debug

	# injected: set INJ to what is left of both fault types' budgets
	# ("times"), which changes when a fault is injected.  Shell builtins
	# only: a fork costs a good part of a second on the debug kernel, and
	# this runs twice for each of the ~120 probes.
	injected() {
		local slab page
		read -r slab <$FI/failslab/times
		read -r page <$FI/fail_page_alloc/times
		INJ=$((slab + page))
	}

	# probe_faults: bind with the Nth allocation failing, N = 1, 2, ...
	probe_faults() {
		local n=1 before rc failed=0 survived=0
		[ -e /proc/self/fail-nth ] || fail "no /proc/self/fail-nth: not the debug kernel?"
		for t in failslab fail_page_alloc; do
			echo N >$FI/$t/ignore-gfp-wait
			echo 1 >$FI/$t/verbose
			# counts down by one for each fault injected
			echo 1000000 >$FI/$t/times
		done
		# ignore-gfp-highmem stays on: the shell's own page faults
		# (GFP_HIGHUSER) are not the driver's to survive
		echo 0 >$FI/fail_page_alloc/min-order
		# fail-nth, opened once, in this shell: a subshell per probe (a
		# fork, most of a second on the debug kernel) was most of the
		# test's time.  It is armed right before the bind and disarmed
		# right after it, through the same descriptor, so that the fault
		# can only hit the bind (or the opening of the bind file, which
		# fails the echo as a failed probe would).  No error messages on
		# the console for the ~120 failed binds: stderr to /dev/null for
		# the loop (fail writes to stdout).
		exec 3>/proc/self/fail-nth 4>&2 2>/dev/null
		while [ "$n" -le 2000 ]; do
			echo "$name" >"$DRV/unbind"
			injected
			before=$INJ
			echo "$n" >&3
			echo "$name" >"$DRV/bind"
			# the echo's status is the bind's
			# shellcheck disable=SC2320
			rc=$?
			echo 0 >&3
			injected
			if [ "$INJ" = "$before" ]; then
				[ "$rc" = 0 ] || fail "bind failed with no fault injected (N=$n)"
				break
			fi
			if [ "$rc" = 0 ] && [ -e "$dev/driver" ]; then
				# the injected failure was one probe can live with
				survived=$((survived + 1))
			else
				failed=$((failed + 1))
				[ ! -e "$dev/driver" ] || fail "N=$n: bind failed but the driver is bound"
				[ ! -e "$dev/working_set" ] || fail "N=$n: working_set/ left after a failed probe"
			fi
			n=$((n + 1))
		done
		exec 2>&4 3>&- 4>&-
		[ -e "$dev/driver" ] || fail "no successful probe within 2000 allocations"
		# a fault injection that never hit would leave nothing tested
		[ "$failed" -gt 0 ] || fail "no probe failed (N=$n, survived=$survived): no fault was injected into one"
		wait_until 30 ws_is active 1 || fail "not the active device after the faults: $(ws_state)"
		mark "PROBE-FAULTS N=$n failed=$failed survived=$survived"
	}
	[ -z "$fail_nth" ] || probe_faults

	# held_sends: unbind while a failed answer's send is held where it
	# re-arms the request work (send-hold: the ws queue's add fails by
	# error injection, the re-arm is held 300 ms, and each removal must
	# reach ws_stop() during the hold).  The removal must wait for the send
	# and then cancel the request work it queued; one left queued runs on
	# the freed device 500 ms later, which KASAN reports (send-hold waits
	# 1 s after each unbind).
	# The host keeps sending requests, and the daemon answers them.  Marks
	# "HELD-SENDS ok: ..." or "HELD-SENDS failed: WHY", and carries on
	# either way: this is another test's verdict.
	held_sends() {
		local out bad
		echo "<6>wsr-held-sends: start" >/dev/kmsg
		if ! out=$(send-hold "$name" 2 300 2>&1); then
			mark "HELD-SENDS failed: send-hold: $(echo "$out" | tr '\n' ' ')"
			return
		fi
		bad=$(kernel_reports 'wsr-held-sends: start')
		if [ -n "$bad" ]; then
			mark "HELD-SENDS failed: kernel log: $bad"
		elif ! wait_until 30 ws_is active 1; then
			mark "HELD-SENDS failed: not the active device after them: $(ws_state)"
		else
			mark "HELD-SENDS ok: $(echo "$out" | tr '\n' ' ')"
		fi
	}
	[ -z "$fail_nth" ] || held_sends

	mem() { echo "MemFree=$(meminfo MemFree) MemAvailable=$(meminfo MemAvailable) Slab=$(meminfo Slab)"; }

	i=1
	while [ "$i" -le "$cycles" ]; do
		# the host's notifications reach this instance of the driver; 20 of
		# them, so that fresh counters read after binding are clearly lower
		wait_until 60 ws_at_least configs 20 ||
			fail "cycle $i: no 20 CONFIGs before unbinding: $(ws_state)"
		before=$(ws configs)
		if [ $((i % 2)) = 1 ] || [ -z "$ko" ]; then
			how=unbind
			echo "$name" >"$DRV/unbind" || fail "cycle $i: unbind failed"
			[ ! -e "$dev/driver" ] || fail "cycle $i: still bound after unbind"
			[ ! -e "$dev/working_set" ] || fail "cycle $i: working_set/ stays after unbind"
			echo "$name" >"$DRV/bind" || fail "cycle $i: bind failed"
		else
			how=reload
			# the balloon programs call the module's kfuncs: they hold it
			wsr balloon detach 2>/tmp/detach.err ||
				fail "cycle $i: wsr balloon detach failed: $(cat /tmp/detach.err)"
			rmmod virtio_balloon 2>/tmp/rmmod.err ||
				fail "cycle $i: rmmod virtio_balloon failed: $(cat /tmp/rmmod.err)" \
					"refcnt $(cat /sys/module/virtio_balloon/refcnt)," \
					"$(wsr balloon show | grep -i attached);" \
					"detach said: $(cat /tmp/detach.err);" \
					"daemon: $(tail -n 3 /tmp/daemon.log | tr '\n' ' ')"
			[ ! -e "$DRV" ] || fail "cycle $i: driver still registered after rmmod"
			[ ! -e "$dev/working_set" ] || fail "cycle $i: working_set/ stays after rmmod"
			insmod "$ko" || fail "cycle $i: insmod $ko failed"
		fi
		wait_until 30 [ -e "$dev/working_set/configs" ] ||
			fail "cycle $i ($how): no working_set/ after binding again"
		# the fresh count at once, with a builtin: the host's loop sends a
		# CONFIG every 40 ms, and on the debug kernel, with a second guest
		# beside it, ws_state's forks took long enough for the new
		# driver's count to pass the old one's (31 against 30)
		read -r fresh <"$dev/working_set/configs"
		first=$(ws_state)
		[ "$(ws active)" = 1 ] || fail "cycle $i ($how): the bound device is not the active one"
		# after the first look at the fresh counters: loading takes a while
		if [ "$how" = reload ]; then
			wsr balloon attach || fail "cycle $i: wsr balloon attach failed"
		fi
		# fresh counters: fewer CONFIGs than before (the host keeps sending),
		# and the default intervals until the first one
		case "$first" in
		*" configs=0 "*)
			case "$first" in "intervals=$defaults refresh=1000 report=0 "*) ;;
			*) fail "cycle $i ($how): not the default configuration before any CONFIG: $first" ;;
			esac ;;
		esac
		[ "$fresh" -lt "$before" ] ||
			fail "cycle $i ($how): configs not reset: $before before, $fresh after binding ($first)"
		if ! wait_until 60 intervals_are "$looped" || ! wait_until 60 ws_at_least requests 1; then
			fail "cycle $i ($how): the host's CONFIG and REQUEST do not arrive: $(ws_state)"
		fi
		wait_until 60 ws_at_least sent 1 ||
			fail "cycle $i ($how): no report reaches the host: $(ws_state); $(tail -n 2 /tmp/daemon.log)"
		mark "CYCLE $i $how at $(cut -d" " -f1 /proc/uptime) s, first: $first; $(mem)"
		[ "$i" != 2 ] || mem0=$(mem)
		i=$((i + 1))
	done
	mark "CYCLES-DONE MemTotal=$(meminfo MemTotal)"
	mark "MEMORY after cycle 2: $mem0; after cycle $cycles: $(mem)"

	wait_until 120 intervals_are 11,22,33,44 ||
		fail "the CONFIG after the cycles was not applied: $(ws_state)"
	total0=$(meminfo MemTotal)
	mark "FINAL-CONFIG $(ws_state)"
	follow_balloon "$total0"
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

# notify_loop STOPFILE: send CONFIGs and REQUESTs in turn until STOPFILE
# exists, whatever QEMU answers; counts successes (and refusals) in
# STOPFILE.ok.  One wsr-host on one connection for them all: a process
# per notification held each cycle's 20 CONFIGs to what the host could
# start (and took the CPU from QEMU's vCPUs).
notify_loop() {
	local k=0 ok failed
	until [ -e "$1" ]; do
		if [ $((k % 2)) = 0 ]; then
			echo '{"execute":"working-set-config","arguments":{"intervals":[100,200,300,400],"refresh":0,"report":0}}'
		else
			echo '{"execute":"working-set-request"}'
		fi
		k=$((k + 1))
		sleep 0.02
	done | "$HOST" --qmp "$G_QMP" qmp - >"$1.replies" 2>&1
	ok=$(grep -c '"return"' "$1.replies")
	failed=$(grep -c '"error"' "$1.replies")
	echo "$ok $failed" >"$1.ok"
}

# The driver must survive being unbound and bound again, and its module
# unloaded and loaded again, while the host keeps notifying it; afterwards
# the device still configures, reports stats and inflates.  With
# --fail-nth (debug kernel), probe first fails at each of its allocations
# in turn, with the balloon programs attached, then 2 cycles follow (the
# sanitizers see every path of a cycle in each: the driver is built into
# the debug kernel, so every cycle is the same unbind and bind, and the
# second one binds after a rebind; the 20 cycles on our kernel, unbinds
# and module reloads, look for races; make check-long runs 200 on debug).
test_rebind_cycles() {
	local cycles=${WSR_BALLOON_CYCLES:-20} stop=$tmp/loop.stop loop counts total held=""
	[ "${1:-}" != --fail-nth ] || cycles=${WSR_BALLOON_CYCLES:-2}
	# about 10 s a cycle at most, on the debug kernel (make check-long runs 200)
	guest_start working-set=on,working-set-bins=5 --timeout $((700 + cycles * 10)) -- "$cycles" "$@" || return
	wait_mark READY || return
	rm -f "$stop" "$stop.ok"
	notify_loop "$stop" &
	loop=$!
	if [ "${1:-}" = --fail-nth ] && wait_mark PROBE-FAULTS 400; then
		echo "    | probe under fault injection: $MARK" >&2
		# its verdict at the end: a report after the mark fails it too
		if wait_mark HELD-SENDS 120; then
			echo "    | removals during a held send: $MARK" >&2
			held=$MARK
		fi
	fi
	[ -z "$why" ] && wait_mark CYCLES-DONE $((200 + cycles * 10))
	touch "$stop"
	wait "$loop"
	[ -z "$why" ] || return
	total=${MARK#MemTotal=}
	read -r counts <"$stop.ok"
	[ "${counts%% *}" -ge $((cycles * 3)) ] ||
		{ bad "the host's loop got only ${counts%% *} notifications through (${counts#* } refused)"; return; }
	retry 60 host config 11,22,33,44 0 0 >/dev/null ||
		{ bad "working-set-config after the cycles: $retry_err"; return; }
	wait_mark FINAL-CONFIG 60 || return
	check_stats "$total" || return
	check_inflate_deflate || return
	guest_done 60 || return
	guest_errors_none || return
	case "$held" in
	"") ;;
	ok:*) also_verdict balloon_driver_removed_during_a_failed_send_cancels_its_retry ;;
	*) also_verdict balloon_driver_removed_during_a_failed_send_cancels_its_retry "guest: ${held#failed: }" ;;
	esac
}

run_test balloon_driver_unbind_rebind_and_module_reload_keep_working \
	test_rebind_cycles
run_test balloon_probe_fails_cleanly_at_every_allocation_then_rebinds \
	--also balloon_driver_removed_during_a_failed_send_cancels_its_retry \
	test_rebind_cycles --fail-nth
