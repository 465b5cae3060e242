#!/bin/sh
# shellcheck shell=dash
# Guest side of balloon_kfuncs_refuse_null_pointers: a tracing program
# passes NULL (an unchecked lookup in an empty map) to both kfuncs, then a
# valid buffer to the config kfunc.  Both NULL calls must return -EINVAL,
# not fault; the valid one must still work.
# shellcheck source=transport-lib.sh
. /host/transport-lib.sh

dev=$(balloon_dev) || fail "no virtio balloon device"
wait_until 30 [ "$(ws active)" = 1 ] || fail "no active working_set/ in $dev"
out=$(kfunc-probe null 2>&1) || fail "kfunc-probe null: $out"
mark "KFUNC-NULL $out"
[ "$out" = "config_null=-22 report_null=-22 config=0" ] ||
	fail "kfuncs given NULL: $out (expected config_null=-22 report_null=-22 config=0)"
finish
