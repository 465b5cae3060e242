# shellcheck shell=bash
# Malformed notifications from the device are rejected, counted and
# logged, and change nothing.
#
# Alone: vmtests/run-test tests/balloon/balloon_malformed_notifications_are_rejected_and_change_nothing.sh
#
# Guest half of balloon_malformed_notifications_are_rejected_and_change_nothing:
# after a valid CONFIG the host sends malformed notifications, then two
# REQUESTs (one with junk in the fields a REQUEST ignores), then a CONFIG
# with the largest values allowed.  The guest shows its state after each
# step and the driver's rate-limited warnings; the host judges them.
guest_half() {
	# the host asks QEMU nothing after the last mark: power off at once
	# shellcheck disable=SC2034 # for finish
	FINISH_NOW=1
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
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

# inject EXPECTED HEX [USED-LEN]: send a malformed notification the driver
# must reject, logging "(op X, N bytes): EXPECTED"
inject() {
	injected+=("$1")
	notify_raw "$2" "${@:3}"
}

# The driver must count and log each malformed notification and keep its
# configuration; REQUESTs and valid CONFIGs must still work afterwards.
test_malformed_notifications() {
	local valid state i j n logs=() injected=()
	guest_start working-set=on,working-set-bins=5 || return
	wait_mark READY || return
	retry 60 host config 1000,5000,20000,60000 300 700 >/dev/null ||
		{ bad "working-set-config: $retry_err"; return; }
	state="intervals=1000,5000,20000,60000 refresh=300 report=700"
	wait_mark CONFIGURED 60 || return
	[ "$MARK" = "$state configs=1 requests=0 rejected=0" ] ||
		{ bad "guest after the valid CONFIG: $MARK"; return; }

	valid=$(notify_hex 2 300 700 1000 5000 20000 60000)
	inject "(op 7, 144 bytes): unknown op" "$(notify_hex 7 300 700 1000 5000 20000 60000)" || return
	inject "(op 0, 144 bytes): unknown op" "$(notify_hex 0 300 700 1000 5000 20000 60000)" || return
	inject "(op 2, 10 bytes): wrong length" "$valid" 10 || return
	inject "(op 2, 143 bytes): wrong length" "$valid" 143 || return
	inject "(op 2, 4096 bytes): wrong length" "$valid" 4096 || return
	inject "(op 2, 16 bytes): wrong length" "${valid:0:32}" || return
	# nothing written: the buffer still holds the previous bytes
	inject "(op 2, 0 bytes): wrong length" "" || return
	inject "(op 1, 2 bytes): wrong length" "$(notify_hex 1 0 0)" 2 || return
	inject "(op 2, 144 bytes): intervals not strictly increasing from 1" \
		"$(notify_hex 2 300 700)" || return
	inject "(op 2, 144 bytes): more intervals than bins" \
		"$(notify_hex 2 300 700 1000 5000 20000 60000 120000)" || return
	inject "(op 2, 144 bytes): more intervals than bins" \
		"$(notify_hex 2 300 700 1000 5000 20000 60000 0 0 0 0 0 0 0 0 0 0 1)" || return
	inject "(op 2, 144 bytes): intervals not strictly increasing from 1" \
		"$(notify_hex 2 300 700 1000 5000 5000 60000)" || return
	inject "(op 2, 144 bytes): intervals not strictly increasing from 1" \
		"$(notify_hex 2 300 700 60000 20000 5000 1000)" || return
	inject "(op 2, 144 bytes): refresh or report period too long" \
		"$(notify_hex 2 $((1 << 63)) 700 1000 5000 20000 60000)" || return
	inject "(op 2, 144 bytes): refresh or report period too long" \
		"$(notify_hex 2 300 604800001 1000 5000 20000 60000)" || return
	inject "(op 2, 144 bytes): interval too long" \
		"$(notify_hex 2 300 700 1000 5000 20000 604800001)" || return
	n=${#injected[@]}

	# a REQUEST's other fields do not matter; then a plain one
	notify_raw "$(notify_hex 1 -1 -1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1)" || return
	retry 60 host request >/dev/null || { bad "working-set-request: $retry_err"; return; }
	wait_mark AFTER-MALFORMED 120 || return
	[ "$MARK" = "$state configs=1 requests=2 rejected=$n" ] ||
		{ bad "guest after $n malformed notifications and 2 REQUESTs: $MARK (expected $state configs=1 requests=2 rejected=$n)"; return; }

	# rate-limited warnings: the first 10 all there, the rest in order or dropped
	wait_mark REJECT-LOGS 60 || return
	mapfile -t logs < <(grep -a '^wsr-balloon: REJECT-LOG ' "$G_LOG" | tr -d '\r' | cut -d' ' -f3-)
	if [ "${#logs[@]}" -lt $((n < 10 ? n : 10)) ] || [ "${#logs[@]}" -gt "$n" ]; then
		bad "${#logs[@]} warnings logged for $n malformed notifications"
		return
	fi
	j=0
	for ((i = 0; i < ${#logs[@]}; i++)); do
		while [ "$j" -lt "$n" ] && [ "${logs[i]}" != "${injected[j]}" ]; do
			[ "$j" -ge 10 ] || { bad "warning $((j + 1)) is '${logs[i]}', expected '${injected[j]}'"; return; }
			j=$((j + 1))
		done
		[ "$j" -lt "$n" ] || { bad "unexpected warning '${logs[i]}'"; return; }
		j=$((j + 1))
	done

	# the largest values allowed are accepted
	retry 60 host config 1,2,3,604800000 604800000 604800000 >/dev/null ||
		{ bad "working-set-config with the largest values: $retry_err"; return; }
	wait_mark RECONFIGURED 60 || return
	[ "$MARK" = "intervals=1,2,3,604800000 refresh=604800000 report=604800000 configs=2 requests=2 rejected=$n" ] ||
		{ bad "guest after a CONFIG with the largest values allowed: $MARK"; return; }
	guest_done 60 || return
	guest_errors_none
}

run_test balloon_malformed_notifications_are_rejected_and_change_nothing \
	test_malformed_notifications
