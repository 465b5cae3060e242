# shellcheck shell=bash
# Reclaim makes reports on its own at report_ms, with the daemon stopped.
#
# Alone: vmtests/run-test tests/balloon/balloon_reclaim_reports_keep_report_ms_with_daemon_stopped.sh
#
# Guest half of balloon_reclaim_reports_keep_report_ms_with_daemon_stopped:
# once the host has configured report_ms, the daemon is stopped; a memcg
# held at its memory.max until 8 MiB went to swap must make no balloon
# report; then the host inflates the balloon by 192 MiB; then workloads
# whose hot sets (touched every 100 ms) add up to 64 MiB more than the
# memory left available: global reclaim (kswapd and direct reclaim; no memcg limit)
# goes on all along.  They run in 8 memcgs with no limit, so that reclaim
# ages 8 small lruvecs per node, each on its own, rather than one large
# one: more agings per evicted page, which a slow (debug) kernel needs.
# For 15 s of it, reports must keep reaching the host, made by the BPF
# programs alone.
guest_half() {
	# the host asks QEMU nothing after the last mark: power off at once
	# shellcheck disable=SC2034 # for finish
	FINISH_NOW=1
	# shellcheck source=../guest/lib.sh
	. /wsr/bin/tests/lib.sh
	# shellcheck source=transport-lib.sh
	. /host/transport-lib.sh

	# pages written to the zram swap device: reclaim at work (this kernel has
	# no vm event counters in /proc/vmstat)
	swapouts() { awk '{ print $5 }' /sys/block/zram0/stat; }

	start_daemon
	mark READY
	wait_until 120 ws_at_least configs 1 || fail "no configuration from the host: $(ws_state)"
	kill -STOP "$daemon" || fail "cannot stop the daemon"
	# first, reclaim within a memcg's limit: the host is not short of memory,
	# so no balloon report may come of it
	# a number: "no report" below compares it with a second read
	ws_at_least sent 0 || fail "cannot read working_set/sent: $(ws_state)"
	s0=$(ws sent)
	k0=$(swapouts)
	limited=$(make_memcg balloon_limited)
	echo 24M >"$limited/memory.max"
	wsr-workload --hot 40 --cold 0 --period-ms 20 --cgroup "$limited" >/dev/null &
	w=$!
	# until 8 MiB went to swap (a fixed 8 s before, in which a debug
	# guest short of CPU once wrote 448 pages)
	# shellcheck disable=SC2317 # called by wait_until
	swapped() { [ "$(swapouts)" -gt $((k0 + 2048)) ]; }
	wait_until 60 swapped
	kill "$w"
	swapped || fail "no reclaim within the memcg's limit in 60 s: swap-outs $k0, then $(swapouts)"
	[ "$(ws sent)" = "$s0" ] ||
		fail "reclaim within a memcg's limit made $(($(ws sent) - s0)) balloon reports"
	total=$(meminfo MemTotal)
	mark "SQUEEZE MemTotal=$total"
	wait_until 120 mem_at_most MemTotal $((total - 190 * 1024)) ||
		fail "balloon not inflated: MemTotal $(meminfo MemTotal) kB"
	per=$(((($(meminfo MemAvailable) >> 10) + 64) / 8))
	pids=""
	for i in 1 2 3 4 5 6 7 8; do
		wsr-workload --hot "$per" --cold 0 --period-ms 100 \
			--cgroup "$(make_memcg "balloon_ws$i")" >/dev/null &
		pids="$pids $!"
	done
	k0=$(swapouts)
	# shellcheck disable=SC2317 # called by wait_until
	reclaiming() { [ "$(swapouts)" -gt $((k0 + 2048)) ]; }
	wait_until 120 reclaiming || fail "no reclaim under the balloon: swap-outs $k0, then $(swapouts)"
	k0=$(swapouts)
	mark "PRESSURE-START sent=$(ws sent) hot=8x${per}MiB"
	sleep 15
	mark "PRESSURE-END sent=$(ws sent) dropped=$(ws dropped) swap-outs=+$(($(swapouts) - k0))"
	# shellcheck disable=SC2086 # the pids, one word each
	kill $pids
	kill -CONT "$daemon"
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

# Under global memory pressure (the balloon leaves the guest less than its
# workload's hot set; no memcg limit), with the daemon stopped, reports come
# on their own at report_ms: at least 5 in 15 s, never closer than
# report_ms, none empty, and a new CONFIG's bins within 1 s.
test_reclaim_reports() {
	local watcher t_start t_cfg t_end fault
	guest_start working-set=on,working-set-bins=5 || return
	wait_mark READY 200 || return
	"$HOST" --qmp "$G_EVENTS" watch --json >"$tmp/events" 2>&1 &
	watcher=$!
	retry 60 host config 1000,5000,20000,60000 0 1000 >/dev/null ||
		{ bad "working-set-config: $retry_err"; kill $watcher; return 1; }
	wait_mark SQUEEZE 150 || { kill $watcher; return 1; }
	qmp "{\"execute\":\"balloon\",\"arguments\":{\"value\":$((G_RAM - (192 << 20)))}}" >/dev/null ||
		{ bad "QMP balloon refused"; kill $watcher; return 1; }
	wait_mark PRESSURE-START 180 || { kill $watcher; return 1; }
	t_start=$(date +%s.%N)
	sleep 7
	t_cfg=$(date +%s.%N)
	host config 2000,4000,8000,16000 0 1000 >/dev/null ||
		{ bad "second working-set-config refused"; kill $watcher; return 1; }
	wait_mark PRESSURE-END 60 || { kill $watcher; return 1; }
	t_end=$(date +%s.%N)
	kill $watcher
	qmp "{\"execute\":\"balloon\",\"arguments\":{\"value\":$G_RAM}}" >/dev/null
	report_times "$tmp/events" >"$tmp/times"
	# the reports of the 15 s of pressure (the host sees the marks up to
	# 0.1 s late), the gaps between all of them
	fault=$(awk -v t0="$t_start" -v t_cfg="$t_cfg" -v t1="$t_end" '
		{ t[NR] = $1; b[NR] = $2; tot[NR] = $3 }
		t[NR] >= t0 - 0.2 && t[NR] <= t1 { n++ }
		t[NR] > t_cfg + 1 && t[NR] <= t1 { late++ }
		END {
			if (n < 5) { print "only " n + 0 " reports in 15 s of pressure"; exit }
			for (i = 2; i <= NR; i++) if (t[i] - t[i - 1] < 0.9) {
				printf "reports %.3f s apart (report_ms 1000)\n", t[i] - t[i - 1]; exit }
			for (i = 1; i <= NR; i++) if (tot[i] == 0) { print "an empty report"; exit }
			if (!late) { print "no report more than 1 s after the new config"; exit }
			for (i = 1; i <= NR; i++) if (t[i] > t_cfg + 1 && b[i] != 2000) {
				printf "a report %.1f s after the new config has first bin %s\n",
					t[i] - t_cfg, b[i]; exit }
		}' "$tmp/times")
	echo "    | $(awk -v t0="$t_start" -v t1="$t_end" '$1 >= t0 - 0.2 && $1 <= t1' "$tmp/times" | wc -l)" \
		"reports in the 15 s of pressure, $(wc -l <"$tmp/times") in all; gaps (s):" \
		"$(awk 'NR > 1 { printf "%.2f ", $1 - t } { t = $1 }' "$tmp/times")" >&2
	[ -z "$fault" ] || bad "$fault (guest: $MARK)"
	guest_done 60
}

run_test balloon_reclaim_reports_keep_report_ms_with_daemon_stopped \
	test_reclaim_reports
