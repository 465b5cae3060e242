#!/bin/sh
# shellcheck shell=dash
# Guest side of balloon_kfuncs_refuse_null_pointers: a tracing program
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
# usage: kfunc_sched_switch.sh SECS
# shellcheck source=transport-lib.sh
. /host/transport-lib.sh
secs=${1:-30}

dev=$(balloon_dev) || fail "no virtio balloon device"
wait_until 30 [ "$(ws active)" = 1 ] || fail "no active working_set/ in $dev"
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
finish
