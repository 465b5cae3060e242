# shellcheck shell=bash
# "wsr-host balance" configures a guest again after the guest reboots.
#
# Alone: vmtests/run-test tests/balloon/balance_configures_a_guest_again_after_it_reboots.sh
#
# Guest half of balance_configures_a_guest_again_after_it_reboots: the
# guest may reboot (vmtests/run --allow-reboot) and runs this script on
# each boot; a file on the scratch disk, which outlives the reboot, says
# which boot it is.  First boot: once balance's bins are on the balloon,
# the guest reboots itself (reboot -f: the driver probes afresh and goes
# back to its defaults, bins 1/2/4/8 s and no reclaim reports, while the
# host's QMP link stays up).  Second boot: within 10 s of the daemon
# serving the balloon again, the bins and report_ms must be balance's;
# then memory pressure must make a reclaim report, which reaches the
# host's decisions.
BINS=2000,6000,12000,90000

guest_half() {
	# shellcheck source=../guest/lib.sh
	. /wsr/bin/tests/lib.sh
	# shellcheck source=transport-lib.sh
	. /host/transport-lib.sh

	start_daemon
	if [ ! -e /mnt/booted-once ]; then
		mark READY
		wait_until 120 intervals_are "$BINS" ||
			fail "balance's bins are not on the balloon before the reboot: $(ws_state)"
		mark "CONFIGURED $(ws_state)"
		touch /mnt/booted-once
		sync
		cd / && umount /mnt
		mark REBOOTING
		reboot -f
		sleep 600
	fi
	back=$(cut -d. -f1 /proc/uptime)
	mark "BACK $(ws_state)"
	wait_until 10 intervals_are "$BINS" ||
		fail "10 s after the daemon came back the balloon has not balance's bins: $(ws_state)"
	ws_is report_ms 1000 ||
		fail "balance's bins came back but not its report_ms: $(ws_state)"
	mark "RECONFIGURED after=$(($(cut -d. -f1 /proc/uptime) - back))s $(ws_state)"
	# reclaim: hot sets 64 MiB larger than what is available
	sent=$(ws sent)
	per=$(((($(meminfo MemAvailable) >> 10) + 64) / 4))
	pids=""
	for i in 1 2 3 4; do
		wsr-workload --hot "$per" --cold 0 --period-ms 200 \
			--cgroup "$(make_memcg "reboot_ws$i")" >/dev/null &
		pids="$pids $!"
	done
	# shellcheck disable=SC2317 # called by wait_until
	reported() { [ "$(ws sent)" -gt "$sent" ]; }
	wait_until 60 reported || fail "no reclaim report under pressure after the reboot: $(ws_state)"
	mark "REPORTED sent=$(ws sent)"
	# shellcheck disable=SC2086 # the pids, one word each
	kill $pids
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

# A guest that reboots under "wsr-host balance" gets balance's
# configuration again, and its reclaim reports reach balance: balance
# runs with bins of its own and no requests, so that only the guest's
# reclaim reports (report_ms, which a reboot resets to 0) make reports.
test_balance_configures_after_reboot() {
	local bal
	guest_start working-set=on,working-set-bins=5 --allow-reboot || return
	wait_mark READY 200 || return
	"$HOST" balance --vm "guest=$G_QMP" --policy working-set --report-ms 1000 \
		--intervals "$BINS" --request-ms 600000 --stats-s 600 --json \
		>"$tmp/decisions" 2>"$tmp/balance.err" &
	bal=$!
	if wait_mark REBOOTING 200 && wait_mark BACK 200 && wait_mark RECONFIGURED 60; then
		echo "    | $MARK" >&2
		if wait_mark REPORTED 90; then
			# the report reached balance after the reboot
			wait_until 10 grep -q '"cause": *"reclaim"' "$tmp/decisions" ||
				bad "the guest sent a reclaim report after its reboot, and balance decided on none: $(tail -n 2 "$tmp/decisions" | cut -c1-200 | tr '\n' '|')"
		fi
	fi
	kill "$bal" 2>/dev/null
	wait "$bal" 2>/dev/null
	echo "    | balance: $(grep -c . "$tmp/decisions") decisions, $(grep -c '"cause": *"reclaim"' "$tmp/decisions") on reclaim reports;" \
		"RESET seen: $(grep -c 'reset' "$tmp/balance.err")" >&2
	[ -n "$why" ] || guest_done 60
}

run_test balance_configures_a_guest_again_after_it_reboots test_balance_configures_after_reboot
