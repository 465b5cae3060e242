#!/bin/sh
# shellcheck shell=dash
# Guest side of balloon_driver_unbind_rebind_and_module_reload_keep_working:
# while the host sends CONFIGs and REQUESTs in a loop, unbind and bind the
# balloon driver, and unload and reload its module, CYCLES times in turn.
# After each cycle working_set/ must come back with fresh counters, the
# host's CONFIG must be applied and wsr's reports must reach the host
# (the balloon programs are detached before rmmod, attached after insmod).
# Then the host checks that the device still configures, reports stats
# and inflates.
#
# usage: rebind_cycles.sh CYCLES
. /host/transport-lib.sh
cycles=$1
defaults="1000,2000,4000,8000"
looped="100,200,300,400"	# what the host's loop configures

dev=$(balloon_dev) || fail "no virtio balloon device"
name=${dev##*/}
ko=$(find /lib/modules -name virtio_balloon.ko | head -n 1)
[ -n "$ko" ] || fail "no virtio_balloon.ko in /lib/modules"
wait_until 30 [ -d "$dev/working_set" ] || fail "no working_set/ in $dev"
# the daemon answers the host's requests: reports flow through the cycles
start_daemon
mark "READY $(ws_state)"

mem() { echo "MemFree=$(meminfo MemFree) MemAvailable=$(meminfo MemAvailable) Slab=$(meminfo Slab)"; }

i=1
while [ "$i" -le "$cycles" ]; do
	# the host's notifications reach this instance of the driver; 20 of
	# them, so that fresh counters read after binding are clearly lower
	wait_until 60 ws_at_least configs 20 ||
		fail "cycle $i: no 20 CONFIGs before unbinding: $(ws_state)"
	before=$(ws configs)
	if [ $((i % 2)) = 1 ]; then
		how=unbind
		echo "$name" >"$DRV/unbind" || fail "cycle $i: unbind failed"
		[ ! -e "$dev/driver" ] || fail "cycle $i: still bound after unbind"
		[ ! -e "$dev/working_set" ] || fail "cycle $i: working_set/ stays after unbind"
		echo "$name" >"$DRV/bind" || fail "cycle $i: bind failed"
	else
		how=reload
		# the balloon programs call the module's kfuncs: they hold it
		wsr balloon detach || fail "cycle $i: wsr balloon detach failed"
		rmmod virtio_balloon || fail "cycle $i: rmmod virtio_balloon failed"
		[ ! -e "$DRV" ] || fail "cycle $i: driver still registered after rmmod"
		[ ! -e "$dev/working_set" ] || fail "cycle $i: working_set/ stays after rmmod"
		insmod "$ko" || fail "cycle $i: insmod $ko failed"
	fi
	wait_until 30 [ -e "$dev/working_set/configs" ] ||
		fail "cycle $i ($how): no working_set/ after binding again"
	first=$(ws_state)
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
	[ "$(echo "$first" | sed 's/.* configs=\([0-9]*\).*/\1/')" -lt "$before" ] ||
		fail "cycle $i ($how): configs not reset: $before before, now $first"
	if ! wait_until 60 intervals_are "$looped" || ! wait_until 60 ws_at_least requests 1; then
		fail "cycle $i ($how): the host's CONFIG and REQUEST do not arrive: $(ws_state)"
	fi
	wait_until 60 ws_at_least sent 1 ||
		fail "cycle $i ($how): no report reaches the host: $(ws_state); $(tail -n 2 /tmp/daemon.log)"
	mark "CYCLE $i $how, first: $first; $(mem)"
	[ "$i" != 2 ] || mem0=$(mem)
	i=$((i + 1))
done
mark "CYCLES-DONE MemTotal=$(meminfo MemTotal)"
mark "MEMORY after cycle 2: $mem0; after cycle $cycles: $(mem)"

wait_until 120 intervals_are 11,22,33,44 ||
	fail "the CONFIG after the cycles was not applied: $(ws_state)"
mark "FINAL-CONFIG $(ws_state)"
follow_balloon
finish
