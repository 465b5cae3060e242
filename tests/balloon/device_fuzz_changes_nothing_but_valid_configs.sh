#!/bin/sh
# shellcheck shell=dash
# Guest side of balloon_device_fuzz_changes_nothing_but_valid_configs: the
# host sends many malformed notifications mixed with valid CONFIGs and
# REQUESTs, then inflates the balloon.  Once the notifications have
# settled, the guest shows its state and how many warnings the driver
# logged; after the deflate, the host's final CONFIG and REQUEST must
# still arrive.
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
finish
