# shellcheck shell=bash
# The driver negotiates exactly the features the host offers (working set,
# free page hinting and reporting, each on or off; 4, 5 and 16 bins), and
# the device configures, requests, reports stats and inflates with each.
#
# Alone: vmtests/run-test tests/balloon/balloon_queues_agree_with.sh
#
# Guest half of balloon_queues_agree_with_*: the driver negotiated exactly
# the features the host offered, and says whether working_set/ exists (the
# host checks that it does iff working-set is on); then it follows the
# host: a CONFIG and a REQUEST (ws on), a free page reporting round
# (reporting on), an inflate and a deflate, and a report (ws on).
#
# guest half: WS HINT REPORTING BINS   (WS... each 0 or 1)
guest_half() {
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
	# before any mark the host may inflate after
	total0=$(meminfo MemTotal)
	mark "READY MemTotal=$total0"

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

	follow_balloon "$total0"

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
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

# check_page_reporting: the guest fills 192 MiB and frees it; free page
# reporting must give most of it back to the host: QEMU's RSS drops
check_page_reporting() {
	local pid rss max=0 n
	pid=$(qemu_pid) || { bad "no QEMU process"; return; }
	wait_mark FILLED 120 || return
	# the guest reports freed pages 2 s after freeing them at the earliest
	while ! grep -aq '^wsr-balloon: FREED' "$G_LOG"; do
		qemu_rss || return
		[ "$rss" -le "$max" ] || max=$rss
		guest_alive || break
		sleep 0.1
	done
	wait_mark FREED 10 || return
	# the guest's 192 MiB are in QEMU's RSS before it frees them
	[ "$max" -ge $((192 * 1024)) ] || { bad "QEMU's RSS was $max kB with the guest's 192 MiB filled"; return; }
	for n in $(seq 1 150); do
		qemu_rss || return
		[ "$rss" -gt $((max - 96 * 1024)) ] || return 0
		sleep 0.2
	done
	bad "QEMU's RSS went from $max kB to $rss kB within 30 s of the guest freeing 192 MiB"
}

# qemu_rss: set rss to QEMU's ($pid's) VmRSS in kB; fails if it cannot be read
qemu_rss() {
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	[[ "$rss" =~ ^[0-9]+$ ]] || bad "cannot read QEMU's (pid $pid) RSS: '$rss'"
}

# check_reports NAME INTERVALS: the guest runs the wsr daemon, which answers
# a REQUEST with a report on the ws queue; QEMU must accept it, with the
# configured INTERVALS as bin bounds on each of the 2 nodes.  The verdict is
# NAME's (the daemon's own failures must not fail the transport test).
check_reports() {
	local name=$1 want="$2,9223372036854775807" n reports=0 out bounds nodes
	wait_mark DAEMON 90 || return
	case "$MARK" in
	serving*) ;;
	*) also_verdict "$name" "wsr daemon in the guest: $MARK"; return 0 ;;
	esac
	retry 60 host request >/dev/null || { bad "working-set-request: $retry_err"; return; }
	for n in $(seq 1 150); do
		reports=$(host show --json 2>/dev/null | json_num reports)
		[ "${reports:-0}" -lt 1 ] || break
		guest_alive || break
		sleep 0.2
	done
	if [ "${reports:-0}" -lt 1 ]; then
		wait_mark SENT 5
		also_verdict "$name" "no report reached QEMU within 30 s of a REQUEST (guest: $MARK)"
		return 0
	fi
	# QEMU's JSON as it is: the keys of an object come in no fixed order,
	# the bins and nodes in the report's
	out=$(host show --json)
	bounds=$(grep -o '"idle-age-ms": *[0-9]*' <<<"$out" | sed 's/.*: *//' | paste -sd,)
	nodes=$(grep -o '"node-id": *[0-9]*' <<<"$out" | sed 's/.*: *//' | paste -sd,)
	# the header: an answer to our request, and how old its data is
	if ! grep -q '"cause": *"request"' <<<"$out" || ! grep -q '"data-age-ms": *[0-9]' <<<"$out"; then
		also_verdict "$name" "QEMU's report lacks cause request or data-age-ms: ${out:0:200}"
	elif [ "$nodes" = 0,1 ] && [ "$bounds" = "$want,$want" ]; then
		also_verdict "$name"
	else
		also_verdict "$name" "QEMU's report has nodes '$nodes' with bin bounds '$bounds', expected nodes 0,1 with $want each"
	fi
}

# test_queue_layout WS HINT REPORTING [BINS REPORT-TEST]: one guest with
# working-set, free-page-hint and free-page-reporting on or off, and BINS
# bins (default 5); REPORT-TEST is the name of the report check (ws on)
test_queue_layout() {
	local ws=$1 hint=$2 rep=$3 bins=${4:-5} report_test=${5:-} props total ws_dir
	local hint_args=() intervals k
	props="free-page-hint=$hint,free-page-reporting=$rep,working-set=$ws"
	[ "$ws" = off ] || props="$props,working-set-bins=$bins"
	# bins - 1 intervals: 100, 200, 400, ... ms
	intervals=$(for ((k = 0; k < bins - 1; k++)); do echo $((100 << k)); done | paste -sd,)
	# QEMU's free page hinting runs in an iothread
	if [ "$hint" = on ]; then
		props="$props,iothread=balloon-io"
		# shellcheck disable=SC2054
		hint_args=(--qemu-arg -object --qemu-arg iothread,id=balloon-io)
	fi
	guest_start "$props" --timeout 240 "${hint_args[@]}" -- \
		"$(onoff "$ws")" "$(onoff "$hint")" "$(onoff "$rep")" "$bins" || return
	if [ "$ws" = on ]; then
		# before any CONFIG: 1, 2, 4, ... s, refresh 1 s, no reclaim reports
		wait_mark WS-DEFAULTS || return
		k=$(for ((k = 0; k < bins - 1; k++)); do echo $((1000 << k)); done | paste -sd,)
		[ "$MARK" = "intervals=$k refresh=1000 report=0 configs=0 requests=0 rejected=0" ] ||
			{ bad "working_set/ before any CONFIG: $MARK"; return; }
	fi
	wait_mark WS-DIR || return
	ws_dir=$MARK
	wait_mark READY || return
	total=${MARK#MemTotal=}
	check_stats "$total" || return
	if [ "$ws" = on ]; then
		retry 60 host config "$intervals" 250 500 >/dev/null ||
			{ bad "working-set-config: $retry_err"; return; }
		wait_mark CONFIG 60 || return
		[ "${MARK% configs=*}" = "intervals=$intervals refresh=250 report=500" ] ||
			{ bad "guest after CONFIG: $MARK"; return; }
		retry 60 host request >/dev/null || { bad "working-set-request: $retry_err"; return; }
		wait_mark REQUEST 60 || return
		case "$MARK" in *" configs=1 requests=1 rejected=0") ;;
		*) bad "guest after REQUEST: $MARK"; return ;;
		esac
	fi
	if [ "$rep" = on ]; then
		check_page_reporting || return
	fi
	check_inflate_deflate || return
	if [ "$ws" = on ]; then
		check_reports "$report_test" "$intervals" || return
	fi
	guest_done 60 || return
	guest_errors_none || return
	# last, so that a stray folder does not hide the transport's own results
	case "$ws,$ws_dir" in
	on,"present, files: "*|off,absent) ;;
	off,*) bad "working_set/ should be absent without the feature: $ws_dir" ;;
	*) bad "working_set/ with the feature: $ws_dir" ;;
	esac
}

onoff() { [ "$1" = on ] && echo 1 || echo 0; }

for ws in off on; do
	for hint in off on; do
		for rep in off on; do
			name=balloon_queues_agree_with_ws_${ws}_hint_${hint}_reporting_${rep}
			if [ "$ws" = off ]; then
				run_test "$name" test_queue_layout "$ws" "$hint" "$rep"
			else
				report=balloon_reports_reach_host_with_ws_on_hint_${hint}_reporting_${rep}
				run_test "$name" --also "$report" \
					test_queue_layout "$ws" "$hint" "$rep" 5 "$report"
			fi
		done
	done
done
# the smallest and the largest bin counts: 3 and 15 intervals in the
# notification, 4 and 16 records per node in a report
for bins in 4 16; do
	run_test "balloon_working_set_with_${bins}_bins_configures" \
		--also "balloon_reports_reach_host_with_${bins}_bins" \
		test_queue_layout on off off "$bins" "balloon_reports_reach_host_with_${bins}_bins"
done
