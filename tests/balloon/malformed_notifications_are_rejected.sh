#!/bin/sh
# shellcheck shell=dash
# Guest side of balloon_malformed_notifications_are_rejected_and_change_nothing:
# after a valid CONFIG the host sends malformed notifications, then two
# REQUESTs (one with junk in the fields a REQUEST ignores), then a CONFIG
# with the largest values allowed.  The guest shows its state after each
# step and the driver's rate-limited warnings; the host judges them.
# shellcheck source=transport-lib.sh
. /host/transport-lib.sh

dev=$(balloon_dev) || fail "no virtio balloon device"
wait_until 30 [ -d "$dev/working_set" ] || fail "no working_set/ in $dev"
mark "READY $(ws_state)"
wait_until 120 ws_at_least configs 1 || fail "no CONFIG arrived: $(ws_state)"
mark "CONFIGURED $(ws_state)"
# notifications are handled one at a time, in order: when the REQUESTs are
# counted, every malformed notification before them has been handled
wait_until 300 ws_at_least requests 2 ||
	fail "no 2 REQUESTs after the malformed notifications: $(ws_state)"
mark "AFTER-MALFORMED $(ws_state)"
dmesg | sed -n '/wsr-balloon-test: start/,$p' |
	sed -n 's/.*working set: ignoring notification \(.*\)/wsr-balloon: REJECT-LOG \1/p'
mark "REJECT-LOGS"
wait_until 120 ws_at_least configs 2 || fail "no second CONFIG arrived: $(ws_state)"
mark "RECONFIGURED $(ws_state)"
finish
