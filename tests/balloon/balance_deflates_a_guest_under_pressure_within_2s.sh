# shellcheck shell=bash
# "wsr-host balance" deflates a guest under pressure within 2 s, and its
# metrics pass promtool and equal "wsr-host show".
#
# Alone: vmtests/run-test tests/balloon/balance_deflates_a_guest_under_pressure_within_2s.sh
#
# Guest half of balance_deflates_a_guest_under_pressure_within_2s: the
# host runs "wsr-host balance --policy working-set", which configures the
# guest (report_ms 1000) and inflates the balloon, the guest's memory
# being mostly idle or free.  Once MemTotal has stayed put for 3 s, the
# guest says SQUEEZED and waits for the host's second balance (it sends
# other bins, the last one 120000), which requests no reports and polls
# no stats: only the guest's own reclaim reports can make it deflate.
# Then the guest starts workloads whose hot sets (touched every 100 ms)
# add up to 64 MiB more than the memory available: global reclaim,
# reclaim reports, and the host must deflate.  The pressure ends 3 s after
# MemTotal has grown back by 32 MiB (20 s at most): the host's verdict
# looks at the 2 s after the first reclaim report, which any deflation
# follows (only those reports make this balance deflate).  Eight memcgs with no
# limit, as in the balloon reclaim test
# (balloon_reclaim_reports_keep_report_ms_with_daemon_stopped.sh), so
# that reclaim ages several small lruvecs.

# deflate_trace_start: trace the balloon driver's size work (queued, run,
# done) in the kernel's own clock, so that a slow deflation can say whether
# the work waited for a worker or ran slowly (best effort: a kernel without
# tracefs or kallsyms just gives no figures)
deflate_trace_start() {
	local t=/sys/kernel/tracing addr e
	addr=$(awk '$3 == "update_balloon_size_func" { print $1; exit }' /proc/kallsyms)
	[ -n "$addr" ] && [ "$addr" != 0000000000000000 ] && [ -d "$t/events/workqueue" ] || return 0
	echo 0 >"$t/tracing_on"
	: >"$t/trace"
	for e in workqueue_queue_work workqueue_execute_start workqueue_execute_end; do
		echo "function == 0x$addr" >"$t/events/workqueue/$e/filter" &&
			echo 1 >"$t/events/workqueue/$e/enable"
	done
	echo 1 >"$t/tracing_on"
}

# deflate_trace_summary: "work=RUNS/WAITMAX/RUNMAX/SPAN" from the trace:
# the size work's runs, its longest wait from queued to running and its
# longest run (ms), and the time from its first queueing to its last end
deflate_trace_summary() {
	awk '{ for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
		t = substr($i, 1, length($i) - 1) * 1000; e = $(i + 1) }
		e == "workqueue_queue_work:" { if (q == "") q = t; if (first == "") first = t; next }
		e == "workqueue_execute_start:" { if (q != "" && t - q > w) w = t - q; q = ""; s = t; next }
		e == "workqueue_execute_end:" && s != "" { n++; if (t - s > r) r = t - s; last = t; s = "" }
		END { printf "work=%d/%d/%d/%d\n", n, w, r, last - first }' /sys/kernel/tracing/trace 2>/dev/null
}

guest_half() {
	# shellcheck source=../guest/lib.sh
	. /wsr/bin/tests/lib.sh
	# shellcheck source=transport-lib.sh
	. /host/transport-lib.sh

	# as a user runs it: its own aging keeps the answers' data fresh
	start_daemon --own-aging
	mark READY
	wait_until 120 ws_at_least configs 1 || fail "no configuration from the host: $(ws_state)"
	total=$(meminfo MemTotal)
	mark "CONFIGURED report_ms=$(ws report_ms) MemTotal=$total"
	wait_until 120 mem_at_most MemTotal $((total - 128 * 1024)) ||
		fail "balance did not inflate the balloon by 128 MiB: MemTotal $(meminfo MemTotal) kB of $total"
	# settled: MemTotal the same for 3 s in a row (60 s at most)
	last=0 same=0 n=0
	while [ "$same" -lt 3 ] && [ "$n" -lt 60 ]; do
		cur=$(meminfo MemTotal)
		if [ "$cur" = "$last" ]; then same=$((same + 1)); else same=0; fi
		last=$cur n=$((n + 1))
		sleep 1
	done
	[ "$same" -ge 3 ] || fail "MemTotal still moving after 60 s: $(meminfo MemTotal) kB"
	mark "SQUEEZED MemTotal=$(meminfo MemTotal) MemAvailable=$(meminfo MemAvailable)"
	wait_until 120 intervals_are 1000,5000,10000,120000 ||
		fail "no second configuration from the host: $(ws_state)"
	# the second balance's first request, answered and decided on
	sleep 3
	per=$(((($(meminfo MemAvailable) >> 10) + 64) / 8))
	squeezed=$(meminfo MemTotal)
	# the mark before the workloads, and 1 s for the host to see it: the
	# host looks for reclaim reports from when it saw the mark on.  Said
	# after them, under their pressure, it can come later than the first
	# reclaim report, which the host would then not count: the test would
	# fail with "no reclaim report under pressure" though the guest deflated
	deflate_trace_start
	mark "PRESSURE-START sent=$(ws sent) MemTotal=$squeezed hot=8x${per}MiB"
	sleep 1
	pids=""
	for i in 1 2 3 4 5 6 7 8; do
		wsr-workload --hot "$per" --cold 0 --period-ms 100 \
			--cgroup "$(make_memcg "balance_ws$i")" >/dev/null &
		pids="$pids $!"
	done
	wait_until 20 mem_at_least MemTotal $((squeezed + 32768)) && sleep 3
	mark "PRESSURE-END sent=$(ws sent) MemTotal=$(meminfo MemTotal) $(deflate_trace_summary)"
	# shellcheck disable=SC2086 # the pids, one word each
	kill $pids
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

# ws_scrape FILE: wsr_working_set_bytes samples of FILE (an exposition) as
# "node idle_le_ms type pages" lines, sorted
ws_scrape() {
	sed -n 's/^wsr_working_set_bytes{vm="[^"]*",node="\([0-9]*\)",type="\([a-z]*\)",idle_le_ms="\([^"]*\)"} \([0-9]*\)$/\1 \3 \2 \4/p' "$1" |
		awk '{ print $1, $2, $3, $4 / 4096 }' | sort
}

# ws_show FILE: "wsr-host show" output as ws_scrape prints it
ws_show() {
	awk '/^N[0-9]+$/ { n = substr($1, 2); next }
		/ anon=[0-9]+ file=[0-9]+$/ {
			b = $1 == "9223372036854775807" ? "+Inf" : $1
			split($2, a, "="); split($3, f, "=")
			print n, b, "anon", a[2]; print n, b, "file", f[2] }' "$1" | sort
}

# check_metrics OBS URL: a scrape of balance's endpoint passes promtool and
# its working-set bins equal "wsr-host show" on the OBS socket (a scrape,
# show, a scrape again: retried while a report lands in between).  Prints
# why not, nothing when it holds.
check_metrics() {
	local obs=$1 url=$2 promtool i
	promtool=$("$WSR_ROOT"/vmtests/get-promtool.sh) || { echo "no promtool"; return; }
	for i in $(seq 1 10); do
		if ! { curl -sf "$url" >"$tmp/scrape1" && host_on "$obs" show >"$tmp/show" &&
			curl -sf "$url" >"$tmp/scrape2"; }; then
			echo "scrape or show failed"
			return
		fi
		ws_scrape "$tmp/scrape1" >"$tmp/bins1"
		ws_scrape "$tmp/scrape2" >"$tmp/bins2"
		cmp -s "$tmp/bins1" "$tmp/bins2" && break
		sleep 0.3
	done
	"$promtool" check metrics <"$tmp/scrape1" >"$tmp/promtool.out" 2>&1 ||
		{ echo "promtool check metrics: $(head -c 300 "$tmp/promtool.out")"; return; }
	ws_show "$tmp/show" >"$tmp/bins-show"
	[ -s "$tmp/bins1" ] || { echo "no working-set samples in the scrape"; return; }
	cmp -s "$tmp/bins1" "$tmp/bins-show" ||
		{ echo "scrape and show differ: $(diff "$tmp/bins1" "$tmp/bins-show" | head -n 4 | tr '\n' ' ')"; return; }
	grep -q '^wsr_up{vm="guest"} 1$' "$tmp/scrape1" || { echo "wsr_up is not 1"; return; }
	echo "    | metrics: $(wc -l <"$tmp/bins1") working-set samples equal wsr-host show;" \
		"promtool check metrics passes" >&2
}

host_on() { local s=$1; shift; timeout 20 "$HOST" --qmp "$s" "$@"; }

# A guest under memory pressure gets deflated by "wsr-host balance
# --policy working-set" within 2 s of its first reclaim report: balance
# inflates the idle guest; then a second balance, which requests no
# reports and polls no stats (with those, balance deflates a growing guest
# before it reclaims, and no reclaim report comes), takes over; the guest
# runs hot sets 64 MiB larger than what it has left, and QEMU's balloon
# actual (read every 0.1 s on a third QMP socket) must grow by at least
# 32 MiB within 2 s of the report's QEMU time stamp.  The metrics endpoint
# of the first balance is checked on the way.
test_balance_deflates_under_pressure() {
	local obs=$tmp/obs.qmp
	guest_start working-set=on,working-set-bins=5 \
		--qemu-arg -qmp --qemu-arg "unix:$obs,server=on,wait=off" || return
	wait_mark READY 200 || return
	balance_under_pressure "$obs" --qmp "$G_EVENTS" -- --vm "guest=$G_QMP"
}

# balance_under_pressure OBS WATCH-ARG... -- VM-ARG...: the test on a
# guest that said READY: the reports watched through WATCH-ARGs
# ("--qmp SOCKET", or libvirt's "--connect URI --domain NAME"), balance
# given VM-ARGs (its VM named guest), the balloon's size read on the QMP
# socket OBS
balance_under_pressure() {
	local obs=$1 port=$((20000 + RANDOM % 20000)) watcher bal poller t_r fault
	local ok a0 a1 t_start end_mark="" watch=() vm=()
	shift
	while [ "$1" != -- ]; do watch+=("$1"); shift; done
	shift
	vm=("$@")
	"$HOST" "${watch[@]}" watch --json >"$tmp/events" 2>&1 &
	watcher=$!
	# --on-exit keep: the second balance takes over the squeezed guest;
	# --steady-ms 0: the idle guest is squeezed at once, not after 30 s
	"$HOST" balance "${vm[@]}" --policy working-set --report-ms 1000 \
		--request-ms 1000 --steady-ms 0 --metrics "127.0.0.1:$port" --on-exit keep \
		>"$tmp/decisions" 2>"$tmp/balance.err" &
	bal=$!
	if wait_mark SQUEEZED 200; then
		echo "    | squeezed: $MARK" >&2
		also_verdict "${BAL_METRICS_TEST:-balance_metrics_pass_promtool_and_equal_show}" \
			"$(check_metrics "$obs" "http://127.0.0.1:$port/metrics")"
		kill "$bal"
		wait "$bal" || bad "balance did not exit 0 on SIGTERM: $(tail -n 2 "$tmp/balance.err" | tr '\n' ' ')"
		"$HOST" balance "${vm[@]}" --policy working-set --report-ms 1000 \
			--intervals 1000,5000,10000,120000 --request-ms 600000 --stats-s 600 \
			>>"$tmp/decisions" 2>>"$tmp/balance.err" &
		bal=$!
		wait_mark PRESSURE-START 60 && echo "    | $MARK" >&2
		t_start=$(date +%s.%N)
	fi
	if [ -z "$why" ]; then
		( while :; do
			echo "$(date +%s.%N) $(host_on "$obs" qmp '{"execute":"query-balloon"}' 2>/dev/null | json_num actual)"
			sleep 0.1
		done ) >"$tmp/actual" &
		poller=$!
		wait_mark PRESSURE-END 60 && end_mark=${MARK#*PRESSURE-END }
		kill "$poller"
		wait "$poller" 2>/dev/null
	fi
	kill "$watcher" "$bal" 2>/dev/null
	wait "$bal" || bad "balance did not exit 0 on SIGTERM: $(tail -n 2 "$tmp/balance.err" | tr '\n' ' ')"
	# balance's decisions and log, the events and the balloon's size, kept
	if [ -n "${WSR_BALLOON_LOGS:-}" ] && mkdir -p "$WSR_BALLOON_LOGS"; then
		for f in decisions balance.err events actual; do
			cp "$tmp/$f" "$WSR_BALLOON_LOGS/$test_name.$f" 2>/dev/null
		done
	fi
	[ -z "$why" ] || return
	# the QEMU time of the first reclaim report after the pressure began
	# (the host sees the mark up to 0.1 s late)
	t_r=$(awk -v t0="$t_start" '/"cause": "reclaim"/ {
		match($0, /"seconds": *[0-9]+/); s = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", s)
		match($0, /"microseconds": *[0-9]+/); u = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", u)
		t = sprintf("%d.%06d", s, u); if (t + 0 >= t0 - 0.2) { print t; exit } }' "$tmp/events")
	[ -n "$t_r" ] || { bad "no reclaim report under pressure ($(grep -c . "$tmp/events") reports)"; return; }
	fault=$(awk -v tr="$t_r" '
		$2 == "" { next }
		$1 < tr { a0 = $2; next }
		a0 == "" { a0 = $2 }
		$1 <= tr + 2 && $2 >= a0 + 32 * 1048576 { ok = $1 - tr; a1 = $2; exit }
		END { if (ok == "") printf "actual %d MiB at the reclaim report, not 32 MiB more within 2 s\n", a0 / 1048576
			else printf "OK %.2f %d %d\n", ok, a0 / 1048576, a1 / 1048576 }' "$tmp/actual")
	case "$fault" in
	OK*) read -r _ ok a0 a1 <<<"$fault"
		echo "    | deflated from $a0 to $a1 MiB $ok s after the reclaim report;" \
			"$(grep -c 'action=set' "$tmp/decisions") targets set," \
			"$(grep -c 'reason=deflate-reclaim' "$tmp/decisions") on reclaim; guest: $end_mark" >&2 ;;
	*) bad "$fault; guest: $end_mark; decisions: $(grep 'action=set' "$tmp/decisions" | tail -n 3 | cut -c1-160 | tr '\n' '|')" ;;
	esac
	guest_done 120
}

run_test balance_deflates_a_guest_under_pressure_within_2s \
	--also balance_metrics_pass_promtool_and_equal_show \
	test_balance_deflates_under_pressure
