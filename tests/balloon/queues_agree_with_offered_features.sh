#!/bin/sh
# shellcheck shell=dash
# Guest side of balloon_queues_agree_with_*: the driver negotiated exactly
# the features the host offered, and says whether working_set/ exists (the
# host checks that it does iff working-set is on); then it follows the
# host: a CONFIG and a REQUEST (ws on), a free page reporting round
# (reporting on), an inflate and a deflate, and a report (ws on).
#
# usage: queue_layout.sh WS HINT REPORTING BINS   (WS... each 0 or 1)
# shellcheck source=transport-lib.sh
. /host/transport-lib.sh
want_ws=$1 want_hint=$2 want_rep=$3 want_bins=$4

dev=$(balloon_dev) || fail "no virtio balloon device"
wait_until 30 [ -e "$dev/driver" ] || fail "virtio_balloon is not bound to ${dev##*/}"
mark "FEATURES $(cat "$dev/features")"
[ "$(feature_bit 1)" = 1 ] || fail "stats queue (bit 1) not negotiated: $(cat "$dev/features")"
[ "$(feature_bit 3)" = "$want_hint" ] ||
	fail "free page hint (bit 3) is $(feature_bit 3), offered $want_hint"
[ "$(feature_bit 5)" = "$want_rep" ] ||
	fail "free page reporting (bit 5) is $(feature_bit 5), offered $want_rep"
[ "$(feature_bit 6)" = "$want_ws" ] ||
	fail "working set (bit 6) is $(feature_bit 6), offered $want_ws"
if [ "$want_ws" = 1 ]; then
	[ -d "$dev/working_set" ] || fail "no working_set/ although the feature is negotiated"
	[ "$(ws num_bins)" = "$want_bins" ] || fail "num_bins is '$(ws num_bins)', not $want_bins"
	mark "WS-DEFAULTS $(ws_state)"
fi
# checked by the host after everything else: "absent", or what is there
if [ -e "$dev/working_set" ]; then
	files=$(cd "$dev/working_set" && echo *)
	[ "$files" != "*" ] || files=""
	mark "WS-DIR present, ${files:+files: }${files:-empty}"
else
	mark "WS-DIR absent"
fi
mark "READY MemTotal=$(meminfo MemTotal)"

if [ "$want_ws" = 1 ]; then
	wait_until 120 ws_at_least configs 1 || fail "no CONFIG arrived: $(ws_state)"
	mark "CONFIG $(ws_state)"
	wait_until 120 ws_at_least requests 1 || fail "no REQUEST arrived: $(ws_state)"
	mark "REQUEST $(ws_state)"
fi

if [ "$want_rep" = 1 ]; then
	# touch 192 MiB and free it: free page reporting hands it back to the host
	dd if=/dev/zero of=/tmp/fill bs=1M count=192 2>/dev/null || fail "cannot fill /tmp"
	mark FILLED
	sleep 1
	rm /tmp/fill
	mark FREED
fi

follow_balloon

if [ "$want_ws" = 1 ]; then
	# reports go the other way, on the ws queue: the wsr daemon answers the
	# host's next REQUEST (the host judges the daemon's failures apart)
	wsr daemon >/tmp/daemon.log 2>&1 &
	if wait_until 60 grep -q "serving the balloon" /tmp/daemon.log; then
		mark "DAEMON serving"
		wait_until 60 ws_at_least sent 1
		mark "SENT sent=$(ws sent) dropped=$(ws dropped) requests=$(ws requests)"
	else
		mark "DAEMON failed: $(tr '\n' ' ' </tmp/daemon.log | cut -c1-300)"
	fi
fi
finish
