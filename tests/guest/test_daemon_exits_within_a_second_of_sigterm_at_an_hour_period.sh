# A daemon whose period is an hour stops within a second of SIGTERM, and
# says so: the signal is taken only while it waits, never between its
# check of a stop and a wait of the whole period.  Three daemons, each
# stopped at another point: at once, and 1.5 s and 3 s after it loaded
# (the last with a read just before).  At once, the daemon still attaches
# the balloon's programs, which it finishes first: 1.4 s under TCG, so
# that one has 5 s; a lost stop would take the hour.
. "$(dirname "$0")/lib.sh"
# hundredths of a second since boot (busybox's date has no %N)
cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
for delay in 0 1.5 3; do
	WSRD_PERIOD=3600000 wsr_start
	sleep "$delay"
	[ "$delay" != 3 ] || wsr show >/dev/null || fail "wsr show failed"
	t0=$(cs)
	kill -TERM "$WSRD"
	# shellcheck disable=SC2034 # i: a bound on the waits
	for i in $(seq 1 50); do kill -0 "$WSRD" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$WSRD" 2>/dev/null && fail "the daemon runs 5 s after SIGTERM (sent ${delay} s in)"
	took=$(($(cs) - t0))
	info "stopped ${took}0 ms after SIGTERM, sent ${delay} s after its start"
	limit=100
	[ "$delay" != 0 ] || limit=500
	[ "$took" -le "$limit" ] || fail "the daemon took ${took}0 ms to stop (sent ${delay} s in)"
	grep -q "exiting; the programs stay attached" /tmp/wsrd.log ||
		fail "the daemon did not say it stopped: $(cat /tmp/wsrd.log)"
done
