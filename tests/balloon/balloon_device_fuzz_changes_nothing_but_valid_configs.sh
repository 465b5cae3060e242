# shellcheck shell=bash
# A fuzzing device changes nothing in the driver but what its valid CONFIGs
# set.
#
# Alone: vmtests/run-test tests/balloon/balloon_device_fuzz_changes_nothing_but_valid_configs.sh
#
# Guest half of balloon_device_fuzz_changes_nothing_but_valid_configs: the
# host sends many malformed notifications mixed with valid CONFIGs and
# REQUESTs, then inflates the balloon.  Once the notifications have
# settled, the guest shows its state and how many warnings the driver
# logged; after the deflate, the host's final CONFIG and REQUEST must
# still arrive.
guest_half() {
	# the host asks QEMU nothing after the last mark: power off at once
	# shellcheck disable=SC2034 # for finish
	FINISH_NOW=1
	# shellcheck source=transport-lib.sh
	. /host/transport-lib.sh

	dev=$(balloon_dev) || fail "no virtio balloon device"
	wait_until 30 [ -d "$dev/working_set" ] || fail "no working_set/ in $dev"
	mark "READY $(ws_state)"
	total0=$(meminfo MemTotal)
	wait_until 1800 mem_at_most MemTotal $((total0 - 61440)) ||
		fail "the host never inflated the balloon: $(ws_state)"
	# settled: the same state for 2 s
	prev="" state=$(ws_state)
	while [ "$state" != "$prev" ]; do
		sleep 2
		prev=$state state=$(ws_state)
	done
	warnings=$(dmesg | sed -n '/wsr-balloon-test: start/,$p' | grep -c 'working set: ignoring notification')
	mark "STATE $state warnings=$warnings"
	wait_until 120 mem_at_least MemTotal $((total0 - 1024)) || fail "balloon not deflated"
	mark "DEFLATED"
	wait_until 120 intervals_are 7,77,777,7777 || fail "the final CONFIG did not arrive: $(ws_state)"
	requests=$(ws requests)
	mark "FINAL-CONFIG $(ws_state)"
	wait_until 120 ws_at_least requests $((requests + 1)) || fail "the final REQUEST did not arrive: $(ws_state)"
	mark "AFTER $(ws_state)"
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

# rand64: a random 64-bit value (bash integer) from $RANDOM
rand64() { echo $(((RANDOM << 48) ^ (RANDOM << 33) ^ (RANDOM << 18) ^ (RANDOM << 3) ^ (RANDOM & 7))); }

# random_hex LEN: LEN random bytes in hex
random_hex() {
	local i
	for ((i = 0; i < $1; i++)); do printf '%02x' $((RANDOM & 255)); done
}

# fuzz_cases N: N notification cases, one per line: "HEX [USED-LEN]", in
# $tmp/cases; sets fz_rejects, fz_configs, fz_requests (how many the
# driver must reject, accept as CONFIGs, count as REQUESTs) and fz_state
# (the configuration the last valid CONFIG sets, as ws_state prints it)
fuzz_cases() {
	local i kind len hex a b c d r p v op used
	fz_rejects=0 fz_configs=0 fz_requests=0
	: >"$tmp/cases"
	for ((i = 0; i < $1; i++)); do
		a=$((1 + RANDOM % 1000)) b=$((a + 1 + RANDOM % 5000))
		c=$((b + 1 + RANDOM % 20000)) d=$((c + 1 + RANDOM % 600000))
		r=$((RANDOM % 100000)) p=$((RANDOM % 100000))
		used=""
		kind=$((RANDOM % 10))
		case $kind in
		0|1)	# random bytes; an op that is neither REQUEST nor CONFIG
			len=$((RANDOM % 145))
			hex=$(random_hex "$len")
			op=$((3 + RANDOM % 65000))
			[ "$len" -lt 2 ] || hex=$(printf '%02x%02x' $((op & 255)) $((op >> 8)))${hex:4} ;;
		2)	op=$((3 + RANDOM % 65000))
			[ $((RANDOM % 4)) != 0 ] || op=0
			hex=$(notify_hex "$op" "$r" "$p" "$a" "$b" "$c" "$d") ;;
		3)	# a valid CONFIG with a used length that is not 144
			hex=$(notify_hex 2 "$r" "$p" "$a" "$b" "$c" "$d")
			used=$((RANDOM % 4097))
			[ "$used" != 144 ] || used=145 ;;
		4)	# intervals out of order, or two equal
			case $((RANDOM % 3)) in
			0) hex=$(notify_hex 2 "$r" "$p" "$b" "$a" "$c" "$d") ;;
			1) hex=$(notify_hex 2 "$r" "$p" "$a" "$b" "$d" "$c") ;;
			*) hex=$(notify_hex 2 "$r" "$p" "$a" "$a" "$c" "$d") ;;
			esac ;;
		5)	# a zero interval
			case $((RANDOM % 4)) in
			0) hex=$(notify_hex 2 "$r" "$p" 0 "$b" "$c" "$d") ;;
			1) hex=$(notify_hex 2 "$r" "$p" "$a" 0 "$c" "$d") ;;
			2) hex=$(notify_hex 2 "$r" "$p" "$a" "$b" 0 "$d") ;;
			*) hex=$(notify_hex 2 "$r" "$p" "$a" "$b" "$c" 0) ;;
			esac ;;
		6)	# one field beyond a week: 604800001, random huge, 2^64 - 1
			case $((RANDOM % 3)) in 0) v=604800001 ;; 1) v=$(rand64) ;; *) v=-1 ;; esac
			[ "$v" -lt 0 ] || [ "$v" -gt 604800000 ] || v=604800001
			case $((RANDOM % 3)) in
			0) hex=$(notify_hex 2 "$v" "$p" "$a" "$b" "$c" "$d") ;;
			1) hex=$(notify_hex 2 "$r" "$v" "$a" "$b" "$c" "$d") ;;
			*) hex=$(notify_hex 2 "$r" "$p" "$a" "$b" "$c" "$v") ;;
			esac ;;
		7)	# an interval more than the 5 bins take, at a random place
			local extra=() k n=$((RANDOM % 11))
			for ((k = 0; k < n; k++)); do extra+=(0); done
			hex=$(notify_hex 2 "$r" "$p" "$a" "$b" "$c" "$d" "${extra[@]}" $((d + 1 + RANDOM))) ;;
		8)	hex=$(notify_hex 2 "$r" "$p" "$a" "$b" "$c" "$d")
			fz_configs=$((fz_configs + 1))
			fz_state="intervals=$a,$b,$c,$d refresh=$r report=$p" ;;
		9)	# a REQUEST's other fields do not matter
			hex=$(notify_hex 1 "$(rand64)" "$r" "$(rand64)")
			fz_requests=$((fz_requests + 1)) ;;
		esac
		[ "$kind" -ge 8 ] || fz_rejects=$((fz_rejects + 1))
		echo "$hex $used" >>"$tmp/cases"
	done
}

# The device sends WSR_FUZZ_CASES notifications over one QMP connection:
# random bytes and structured mutations (op, length, used length, order,
# zero, huge, too many intervals) mixed with valid CONFIGs and REQUESTs.
# The guest must reject exactly the bad ones, keep the last valid CONFIG,
# warn at the rate limit's pace, and take a CONFIG and a REQUEST after.
test_device_fuzz() {
	local cases=${WSR_FUZZ_CASES:-1000} seed=${WSR_FUZZ_SEED:-$((RANDOM * 32768 + RANDOM))}
	local hex used cmd reply t0 secs sent=0 busy=0 max_warn state wfd
	RANDOM=$seed
	fuzz_cases "$cases"
	echo "    | fuzz seed $seed (WSR_FUZZ_SEED=$seed reruns these cases): $fz_rejects bad," \
		"$fz_configs CONFIGs, $fz_requests REQUESTs" >&2
	guest_start working-set=on,working-set-bins=5 --timeout 2400 || return
	wait_mark READY || return
	retry 60 host config 10,20,30,40 0 0 >/dev/null || { bad "first CONFIG: $retry_err"; return; }
	[ "$fz_configs" -gt 0 ] || fz_state="intervals=10,20,30,40 refresh=0 report=0"
	coproc QMPS { "$HOST" --qmp "$G_QMP" qmp - 2>&1; }
	t0=$(date +%s)
	while read -r hex used; do
		cmd="{\"execute\":\"x-working-set-notify-raw\",\"arguments\":{\"data\":\"$hex\"${used:+,\"used-len\":$used}}}"
		while :; do
			echo "$cmd" >&"${QMPS[1]}"
			read -r -t 30 reply <&"${QMPS[0]}" || { bad "no QMP reply after $sent cases"; break 2; }
			case "$reply" in
			*'"return"'*) sent=$((sent + 1)); break ;;
			*'try again later'*) busy=$((busy + 1)); guest_alive || break 2; sleep 0.005 ;;
			*) bad "QEMU refused case $((sent + 1)): $reply"; break 2 ;;
			esac
		done
		[ $((sent % 250)) != 0 ] || echo "    | $sent of $cases cases sent" >&2
	done <"$tmp/cases"
	# EOF on its stdin ends "wsr-host qmp -"
	wfd=${QMPS[1]}
	exec {wfd}>&-
	wait "$QMPS_PID" 2>/dev/null
	[ -z "$why" ] || return
	host request >/dev/null || { bad "REQUEST after the fuzz refused"; return; }
	qmp "{\"execute\":\"balloon\",\"arguments\":{\"value\":$((G_RAM - (64 << 20)))}}" >/dev/null ||
		{ bad "QMP balloon refused"; return; }
	wait_mark STATE 600 || return
	secs=$(($(date +%s) - t0))
	state=${MARK% warnings=*}
	[ "$state" = "$fz_state configs=$((fz_configs + 1)) requests=$((fz_requests + 1)) rejected=$fz_rejects" ] ||
		{ bad "guest after $sent cases: $state, expected $fz_state configs=$((fz_configs + 1)) requests=$((fz_requests + 1)) rejected=$fz_rejects"; return; }
	# dev_warn_ratelimited: 10 per 5 s at most
	max_warn=$((10 * (secs / 5 + 2)))
	# shellcheck disable=SC2015 # bad unless both hold
	[ "${MARK#* warnings=}" -le "$max_warn" ] && [ "${MARK#* warnings=}" -ge 10 ] ||
		{ bad "${MARK#* warnings=} warnings in $secs s for $fz_rejects bad notifications (rate limit: 10 per 5 s)"; return; }
	echo "    | $sent cases in $secs s ($busy retries while the guest re-posted its buffer); ${MARK#* warnings=} warnings" >&2
	qmp "{\"execute\":\"balloon\",\"arguments\":{\"value\":$G_RAM}}" >/dev/null || { bad "deflate refused"; return; }
	wait_mark DEFLATED 120 || return
	host config 7,77,777,7777 0 0 >/dev/null || { bad "CONFIG after the fuzz refused"; return; }
	wait_mark FINAL-CONFIG 120 || return
	retry 30 host request >/dev/null || { bad "REQUEST after the fuzz: $retry_err"; return; }
	wait_mark AFTER 120 || return
	guest_done 120
}

run_test balloon_device_fuzz_changes_nothing_but_valid_configs test_device_fuzz
