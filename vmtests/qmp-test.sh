#!/usr/bin/env bash
# Host-side tests of the QEMU working-set device (qemu-patches/) through
# wsr-host, with no guest: what QEMU must reject before a guest driver
# negotiates the feature, and what a user of wsr-host relies on.
# Prints "PASS name" or "FAIL name: reason".
set -u
. "$(dirname "$0")/lib.sh"
# verdict: the vocabulary every test shares
# shellcheck source=../tests/testlib.sh
. "$WSR_ROOT/tests/testlib.sh"
HOST=${BUILD:-$WSR_ROOT/build}/wsr-host
qemu=$("$WSR_ROOT"/vmtests/build-qemu.sh)
dir=$(mktemp -d)
sock=$dir/qmp
trap 'kill $pid 2>/dev/null; rm -rf "$dir"' EXIT

# shellcheck disable=SC2054 # -machine's value has commas
qemu_args=(-L "$qemu/pc-bios" -L /usr/share/seabios -L /usr/share/qemu
	-machine pc,accel=tcg -S -display none -nic none -monitor none)

qemu_start() {
	"$qemu/qemu-system-x86_64" "${qemu_args[@]}" \
		-device "virtio-balloon-pci,id=balloon0,$1" \
		-qmp "unix:$sock,server=on,wait=off" >"$dir/qemu.log" 2>&1 &
	pid=$!
	for _ in $(seq 1 50); do [ -S "$sock" ] && return 0; sleep 0.1; done
	return 1
}

# check NAME STATUS MESSAGE CMD...: CMD exits STATUS and says MESSAGE
check() {
	local name=$1 want=$2 msg=$3 rc
	shift 3
	"$@" >"$dir/out" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		verdict "$name" "exit $rc, expected $want ($(head -c 200 "$dir/out"))"
	elif ! grep -q -- "$msg" "$dir/out"; then
		verdict "$name" "output lacks '$msg': $(head -c 200 "$dir/out")"
	else
		verdict "$name"
	fi
}

timeout 20 "$qemu/qemu-system-x86_64" "${qemu_args[@]}" \
	-device virtio-balloon-pci,working-set=on,working-set-bins=3 >"$dir/bad" 2>&1 </dev/null
if [ $? = 1 ] && grep -q "between 4 and 16" "$dir/bad"; then
	verdict device_rejects_bin_count_out_of_range
else
	verdict device_rejects_bin_count_out_of_range "$(head -c 200 "$dir/bad")"
fi

qemu_start working-set=on,working-set-bins=5 || { verdict qemu_starts_with_working_set "$(cat "$dir/qemu.log")"; exit 0; }
check request_without_guest_driver_is_refused 1 "not negotiated" \
	"$HOST" --qmp "$sock" request
check config_with_wrong_bin_count_is_refused 1 "must have 4 elements" \
	"$HOST" --qmp "$sock" config 1000,2000,3000 100 100
check config_with_decreasing_intervals_is_rejected_by_host_tool 2 "strictly increasing" \
	"$HOST" --qmp "$sock" config 3000,2000,1000,4000 100 100
check config_with_garbage_threshold_is_rejected_by_host_tool 2 "not a number" \
	"$HOST" --qmp "$sock" config 1000,2000,3000,4000 1x 100
check show_before_any_report_is_empty 0 '"nodes": \[\]' \
	"$HOST" --qmp "$sock" show --json
check unknown_command_is_rejected 2 "unknown command" \
	"$HOST" --qmp "$sock" frobnicate
