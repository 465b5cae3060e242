#!/usr/bin/env bash
# End-to-end tests of the virtio-balloon working-set transport: a guest on
# the patched kernel (kernel-patches/) and the patched QEMU (qemu-patches/),
# the host side driven over QMP with build/wsr-host.
#
# Each test boots its own guest running a script of tests/balloon/ (seen
# in the guest as /host/SCRIPT).  Host and guest meet through marker lines
# on the guest's console ("wsr-balloon: WORD ...", see
# tests/balloon/transport-lib.sh) and through the balloon device itself;
# every wait polls with a time-out.  QEMU runs with -d guest_errors, so that
# what the device rejects lands in the console log too.
#
# Prints "PASS name" or "FAIL name: reason" per test.
#
#   WSR_BALLOON_TESTS="pattern ..."  run only the tests whose names match
#                                    a shell pattern (default: all)
#   WSR_BALLOON_LOGS=DIR             keep every guest's console log in DIR
#                                    (a failed test's is always kept), and
#                                    the balance test's decisions, events
#                                    and balloon sizes
#   WSR_BALLOON_KERNEL=ours|debug    the guest kernel (vmtests/run --kernel);
#                                    on debug, any sanitizer report fails
#                                    the test
#   WSR_FUZZ_CASES=N                 device fuzz cases (default 1000)
#   vmtests/balloon-test.sh --list   print the test names
#
# Adding a test: write a test_* function that boots a guest with
# guest_start, drives it with qmp/host/wait_mark and the check_* helpers,
# calls bad "reason" on the first failed check and ends with guest_done;
# then register it with run_test at the end of this file.
set -u
. "$(dirname "$0")/lib.sh"
BUILD=${BUILD:-$WSR_ROOT/build}
HOST=$BUILD/wsr-host
GUEST_SCRIPTS=$WSR_ROOT/tests/balloon
BALLOON=/machine/peripheral/balloon0
KERNEL=${WSR_BALLOON_KERNEL:-ours}

[ -x "$HOST" ] || make -s -C "$WSR_ROOT" BUILD="$BUILD" "$BUILD/wsr-host" >&2 ||
	die "cannot build $HOST"

LIST=0
case "${1:-}" in
--list) LIST=1 ;;
-h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
'') ;;
*) die "usage: $0 [--list|--help]" ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wsr-balloon.XXXXXX")
trap 'guest_stop; rm -rf "$tmp"' EXIT

# ---- test selection and results ---------------------------------------------

# want NAME: NAME matches one of the patterns of WSR_BALLOON_TESTS
want() {
	local - p
	set -f
	for p in ${WSR_BALLOON_TESTS:-*}; do
		# shellcheck disable=SC2254
		case "$1" in $p) return 0 ;; esac
	done
	return 1
}

# bad REASON: record why the current test fails (the first reason wins)
bad() {
	[ -n "$why" ] || why=$*
	return 1
}

# run_test NAME [--also NAME2]... FUNCTION [ARG...]: run FUNCTION if NAME
# (or a NAME2) is wanted and print NAME's verdict, then those FUNCTION gave
# the NAME2s with also_verdict (checks that share NAME's guest but must not
# decide NAME's verdict).  The guest is stopped afterwards and its console
# log kept if a verdict is FAIL.
run_test() {
	local names=("$1") n rc run=0 also=()
	shift
	while [ "$1" = --also ]; do names+=("$2"); shift 2; done
	for n in "${names[@]}"; do
		if [ "$LIST" = 1 ]; then echo "$n"; else want "$n" && run=1; fi
	done
	[ "$run" = 1 ] || return 0
	why="" test_name=${names[0]} guest_n=0 G_LOG=""
	local t0=$SECONDS
	"$@"
	rc=$?
	guest_stop
	echo "    | $test_name took $((SECONDS - t0)) s" >&2
	[ "$rc" = 0 ] || [ -n "$why" ] || why="exited with status $rc"
	if [ -n "${WSR_BALLOON_LOGS:-}" ] && [ -e "$G_LOG" ]; then
		mkdir -p "$WSR_BALLOON_LOGS" && cp "$G_LOG" "$WSR_BALLOON_LOGS/$test_name.log"
	fi
	verdict "$test_name" "$why"
	for n in "${also[@]}"; do verdict "${n%%	*}" "${n#*	}"; done
	for n in "${names[@]:1}"; do
		[[ " ${also[*]%%	*} " == *" $n "* ]] ||
			verdict "$n" "not checked: ${why:-the test did not get there}"
	done
}

# also_verdict NAME [REASON]: NAME passes (or fails for REASON), printed
# after the running test's own verdict
also_verdict() {
	also+=("$1	${2:-}")
}

# verdict NAME [REASON]: print "PASS NAME", or "FAIL NAME: REASON" with the
# console log kept, if NAME is wanted
verdict() {
	local kept
	want "$1" || return 0
	if [ -z "${2:-}" ]; then
		echo "PASS $1"
		return 0
	fi
	kept=$WSR_CACHE/logs/balloon-$1-$(date +%Y%m%d-%H%M%S).log
	if [ -e "$G_LOG" ] && mkdir -p "$WSR_CACHE/logs" && cp "$G_LOG" "$kept"; then
		echo "FAIL $1: $2 (console log: $kept)"
	else
		echo "FAIL $1: $2"
	fi
}

# ---- guests -----------------------------------------------------------------

G_PID="" G_LOG="" G_QMP="" G_OUT="" G_RAM=0

# guest_start SCRIPT PROPS [RUN-OPTION...] [-- SCRIPT-ARG...]: boot a guest
# in the background running tests/balloon/SCRIPT, with the balloon's PROPS;
# return once its QMP socket answers.  Sets G_PID (vmtests/run), G_LOG
# (console), G_QMP (socket), G_EVENTS (a second QMP socket: QEMU serves one
# client per socket, and "wsr-host watch" keeps its own), G_RAM (guest RAM
# in bytes).  RUN-OPTIONs go to
# vmtests/run (defaults: --node-mem 256 --timeout 300).
guest_start() {
	local script=$1 props=$2 node_mem=256 i opts=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		[ "$1" != --node-mem ] || node_mem=$2
		opts+=("$1")
		shift
	done
	[ $# = 0 ] || shift
	guest_n=$((guest_n + 1))
	local d=$tmp/$test_name.$guest_n
	mkdir -p "$d"
	G_LOG=$d/console.log G_QMP=$d/qmp G_EVENTS=$d/qmp-events G_OUT=$d/run.out
	G_RAM=$((2 * node_mem << 20))
	"$WSR_ROOT"/vmtests/run --kernel "$KERNEL" --quiet --log "$G_LOG" --qmp "$G_QMP" --balloon "$props" \
		--qemu-arg -qmp --qemu-arg "unix:$G_EVENTS,server=on,wait=off" \
		--node-mem 256 --timeout 300 --qemu-arg -d --qemu-arg guest_errors \
		"${opts[@]}" --dir "$GUEST_SCRIPTS" -- sh "/host/$script" "$@" >"$G_OUT" 2>&1 &
	G_PID=$!
	for i in $(seq 1 600); do
		if [ -S "$G_QMP" ] && qmp '{"execute":"query-status"}' >/dev/null 2>&1; then
			return 0
		fi
		kill -0 "$G_PID" 2>/dev/null || break
		sleep 0.1
	done
	bad "guest did not start: $(tail -n 2 "$G_OUT" | tr '\n' ' ')"
}

guest_alive() { [ -n "$G_PID" ] && kill -0 "$G_PID" 2>/dev/null; }

# guest_why: why the guest side failed or stopped, from its log and vmtests/run
guest_why() {
	local w
	w=$(grep -a '^FAIL: ' "$G_LOG" 2>/dev/null | head -n 1 | cut -c7- | tr -d '\r')
	[ -n "$w" ] && { echo "guest: $w"; return; }
	guest_alive && { echo "guest still running, last line: $(tail -n 1 "$G_LOG" | tr -d '\r')"; return; }
	echo "guest stopped: $(tail -n 1 "$G_OUT" | tr -d '\r')"
}

# guest_done [SECS]: wait for the guest script's "DONE" (default 60 s),
# check that QEMU still runs the guest, then that the guest powers off by
# itself with status 0: on the debug kernel, that is the sanitizers' verdict
guest_done() {
	local st n rc
	wait_mark DONE "${1:-60}" || return
	st=$(qmp '{"execute":"query-status"}' 2>&1)
	case "$st" in
	*'"status": "running"'*) ;;
	*) bad "QEMU not running the guest at the end: $st"; return ;;
	esac
	for n in $(seq 1 1200); do guest_alive || break; sleep 0.1; done
	guest_alive && { bad "the guest did not power off within 120 s of DONE"; return; }
	wait "$G_PID"
	rc=$?
	G_PID=""
	[ "$rc" = 0 ] || bad "guest run ended with status $rc: $(grep -a -A1 "^wsr: " "$G_OUT" | head -n 2 | tr "\n" " ")"
}

# guest_stop: end the guest if it still runs: QMP quit, else kill what we started
guest_stop() {
	local n t
	guest_alive || { G_PID=""; return 0; }
	timeout 10 "$HOST" --qmp "$G_QMP" qmp '{"execute":"quit"}' >/dev/null 2>&1
	for n in $(seq 1 100); do guest_alive || break; sleep 0.1; done
	if guest_alive; then
		# vmtests/run runs QEMU under timeout(1): ending that ends QEMU
		for t in $(pgrep -P "$G_PID"); do kill "$t" 2>/dev/null; done
		kill "$G_PID" 2>/dev/null
	fi
	wait "$G_PID" 2>/dev/null
	G_PID=""
}

# qemu_pid: QEMU's pid (vmtests/run -> timeout -> qemu)
qemu_pid() {
	local t
	t=$(pgrep -P "$G_PID" -x timeout | head -n 1)
	[ -n "$t" ] && pgrep -P "$t" | head -n 1
}

# wait_mark WORD [SECS]: wait for the guest's "wsr-balloon: WORD" line
# (default 120 s) and put the rest of it in $MARK; fails early if the
# guest fails or stops
wait_mark() {
	local n=$((${2:-120} * 10)) line
	MARK=""
	while :; do
		# only whole lines: the console ends them with \r\n
		line=$(grep -a -m 1 "^wsr-balloon: $1\b.*"$'\r'"\$" "$G_LOG" 2>/dev/null | tr -d '\r')
		if [ -n "$line" ]; then
			line=${line#"wsr-balloon: $1"}
			MARK=${line# }
			return 0
		fi
		if grep -aq '^FAIL: ' "$G_LOG" 2>/dev/null || ! guest_alive || [ "$n" -le 0 ]; then
			bad "no '$1' from the guest: $(guest_why)"
			return 1
		fi
		sleep 0.1
		n=$((n - 1))
	done
}

# ---- QMP ----------------------------------------------------------------------

# qmp JSON: one QMP command; prints the reply, QEMU's error on stderr
qmp() { timeout 20 "$HOST" --qmp "$G_QMP" qmp "$1"; }

# host ARG...: wsr-host on the guest's socket
host() { timeout 20 "$HOST" --qmp "$G_QMP" "$@"; }

# retry SECS CMD...: run CMD until it succeeds; QEMU refuses working-set
# commands until the driver negotiated the feature and posted a notify
# buffer.  Keeps the last error in $retry_err.
retry() {
	local n=$(($1 * 5))
	shift
	while ! "$@" >"$tmp/retry.out" 2>&1; do
		retry_err=$(tr '\n' ' ' <"$tmp/retry.out")
		n=$((n - 1))
		[ "$n" -gt 0 ] && guest_alive || return 1
		sleep 0.2
	done
	cat "$tmp/retry.out"
}

# json_num KEY: the first number after "KEY": in stdin
json_num() { grep -o "\"$1\": *-\?[0-9]*" | head -n 1 | sed 's/.*: *//'; }

balloon_actual() { qmp '{"execute":"query-balloon"}' 2>/dev/null | json_num actual; }

# wait_actual BYTES SECS: query-balloon's actual reaches BYTES
wait_actual() {
	local n=$(($2 * 5)) a
	while :; do
		a=$(balloon_actual)
		[ "$a" = "$1" ] && return 0
		guest_alive || { bad "balloon actual not $1: $(guest_why)"; return; }
		n=$((n - 1))
		[ "$n" -gt 0 ] || { bad "balloon actual is ${a:-unknown}, not $1 after $2 s"; return; }
		sleep 0.2
	done
}

# notify_hex OP REFRESH REPORT [INTERVAL...]: a 144-byte working-set
# notification, little-endian, in hex; missing intervals are 0.  Numbers
# are bash integers: -1 is 2^64 - 1.
notify_hex() {
	local op=$1 v i n=0
	printf '%02x%02x000000000000' $((op & 255)) $((op >> 8 & 255))
	shift
	for v in "$@"; do
		for i in 0 1 2 3 4 5 6 7; do printf '%02x' $((v >> 8 * i & 255)); done
		n=$((n + 1))
	done
	for ((; n < 17; n++)); do printf '0000000000000000'; done
}

# notify_raw HEX [USED-LEN]: x-working-set-notify-raw, retried until the
# guest's notify buffer is back
notify_raw() {
	local args="\"data\":\"$1\""
	[ $# -lt 2 ] || args="$args,\"used-len\":$2"
	retry 30 qmp "{\"execute\":\"x-working-set-notify-raw\",\"arguments\":{$args}}" >/dev/null ||
		bad "x-working-set-notify-raw ${1:0:16}... ${2:-}: $retry_err"
}

# ---- checks shared by tests ------------------------------------------------------

# check_inflate_deflate: balloon 64 MiB, see QEMU's actual and the guest's
# MemTotal follow (the guest runs follow_balloon), then give it back
check_inflate_deflate() {
	local target=$((G_RAM - (64 << 20)))
	qmp "{\"execute\":\"balloon\",\"arguments\":{\"value\":$target}}" >/dev/null ||
		{ bad "QMP balloon refused"; return; }
	wait_actual "$target" 60 || return
	wait_mark INFLATED 60 || return
	qmp "{\"execute\":\"balloon\",\"arguments\":{\"value\":$G_RAM}}" >/dev/null ||
		{ bad "QMP balloon (deflate) refused"; return; }
	wait_actual "$G_RAM" 60 || return
	wait_mark DEFLATED 60
}

guest_stats() {
	qmp "{\"execute\":\"qom-get\",\"arguments\":{\"path\":\"$BALLOON\",\"property\":\"guest-stats\"}}"
}

# check_stats MEMTOTAL_KB: with polling on, the guest sends new stats (their
# time stamp moves on) with the guest's numbers: total memory as its
# MemTotal, free memory below it
check_stats() {
	local out total free last0 n=100
	last0=$(guest_stats | json_num last-update)
	qmp "{\"execute\":\"qom-set\",\"arguments\":{\"path\":\"$BALLOON\",\"property\":\"guest-stats-polling-interval\",\"value\":1}}" >/dev/null ||
		{ bad "cannot set guest-stats-polling-interval"; return; }
	while :; do
		out=$(guest_stats)
		total=$(json_num stat-total-memory <<<"$out")
		free=$(json_num stat-free-memory <<<"$out")
		[ "$(json_num last-update <<<"$out")" -gt "${last0:-0}" ] 2>/dev/null &&
			[ "${total:--1}" -gt 0 ] && break
		n=$((n - 1))
		[ "$n" -gt 0 ] || { bad "no new guest stats within 20 s: $out"; return; }
		sleep 0.2
	done
	[ "$total" = $(($1 * 1024)) ] ||
		{ bad "guest-stats total memory $total, guest's MemTotal $(($1 * 1024))"; return; }
	if [ "${free:--1}" -le 0 ] || [ "$free" -ge "$total" ]; then
		bad "guest-stats free memory '$free' not in (0, $total)"
	fi
}

# check_page_reporting: the guest fills 192 MiB and frees it; free page
# reporting must give most of it back to the host: QEMU's RSS drops
check_page_reporting() {
	local pid rss max=0 n
	pid=$(qemu_pid) || { bad "no QEMU process"; return; }
	wait_mark FILLED 120 || return
	# the guest reports freed pages 2 s after freeing them at the earliest
	while ! grep -aq '^wsr-balloon: FREED' "$G_LOG"; do
		rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
		[ "${rss:-0}" -le "$max" ] || max=$rss
		guest_alive || break
		sleep 0.1
	done
	wait_mark FREED 10 || return
	for n in $(seq 1 150); do
		rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
		[ "$rss" -gt $((max - 96 * 1024)) ] || return 0
		sleep 0.2
	done
	bad "QEMU's RSS went from $max kB to $rss kB within 30 s of the guest freeing 192 MiB"
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

# ---- tests --------------------------------------------------------------------

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
	guest_start queues_agree_with_offered_features.sh "$props" --timeout 240 "${hint_args[@]}" -- \
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

# guest_errors_none: QEMU logged no guest error about the balloon
guest_errors_none() {
	local e
	e=$(grep -a -m 3 'virtio-balloon:' "$G_LOG" | tr -d '\r' | tr '\n' '|')
	[ -z "$e" ] || bad "QEMU guest errors: $e"
}

# inject EXPECTED HEX [USED-LEN]: send a malformed notification the driver
# must reject, logging "(op X, N bytes): EXPECTED"
inject() {
	injected+=("$1")
	notify_raw "$2" "${@:3}"
}

# The driver must count and log each malformed notification and keep its
# configuration; REQUESTs and valid CONFIGs must still work afterwards.
test_malformed_notifications() {
	local valid state i j n logs=() injected=()
	guest_start malformed_notifications_are_rejected.sh working-set=on,working-set-bins=5 || return
	wait_mark READY || return
	retry 60 host config 1000,5000,20000,60000 300 700 >/dev/null ||
		{ bad "working-set-config: $retry_err"; return; }
	state="intervals=1000,5000,20000,60000 refresh=300 report=700"
	wait_mark CONFIGURED 60 || return
	[ "$MARK" = "$state configs=1 requests=0 rejected=0" ] ||
		{ bad "guest after the valid CONFIG: $MARK"; return; }

	valid=$(notify_hex 2 300 700 1000 5000 20000 60000)
	inject "(op 7, 144 bytes): unknown op" "$(notify_hex 7 300 700 1000 5000 20000 60000)" || return
	inject "(op 0, 144 bytes): unknown op" "$(notify_hex 0 300 700 1000 5000 20000 60000)" || return
	inject "(op 2, 10 bytes): wrong length" "$valid" 10 || return
	inject "(op 2, 143 bytes): wrong length" "$valid" 143 || return
	inject "(op 2, 4096 bytes): wrong length" "$valid" 4096 || return
	inject "(op 2, 16 bytes): wrong length" "${valid:0:32}" || return
	# nothing written: the buffer still holds the previous bytes
	inject "(op 2, 0 bytes): wrong length" "" || return
	inject "(op 1, 2 bytes): wrong length" "$(notify_hex 1 0 0)" 2 || return
	inject "(op 2, 144 bytes): intervals not strictly increasing from 1" \
		"$(notify_hex 2 300 700)" || return
	inject "(op 2, 144 bytes): more intervals than bins" \
		"$(notify_hex 2 300 700 1000 5000 20000 60000 120000)" || return
	inject "(op 2, 144 bytes): more intervals than bins" \
		"$(notify_hex 2 300 700 1000 5000 20000 60000 0 0 0 0 0 0 0 0 0 0 1)" || return
	inject "(op 2, 144 bytes): intervals not strictly increasing from 1" \
		"$(notify_hex 2 300 700 1000 5000 5000 60000)" || return
	inject "(op 2, 144 bytes): intervals not strictly increasing from 1" \
		"$(notify_hex 2 300 700 60000 20000 5000 1000)" || return
	inject "(op 2, 144 bytes): refresh or report period too long" \
		"$(notify_hex 2 $((1 << 63)) 700 1000 5000 20000 60000)" || return
	inject "(op 2, 144 bytes): refresh or report period too long" \
		"$(notify_hex 2 300 604800001 1000 5000 20000 60000)" || return
	inject "(op 2, 144 bytes): interval too long" \
		"$(notify_hex 2 300 700 1000 5000 20000 604800001)" || return
	n=${#injected[@]}

	# a REQUEST's other fields do not matter; then a plain one
	notify_raw "$(notify_hex 1 -1 -1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1)" || return
	retry 60 host request >/dev/null || { bad "working-set-request: $retry_err"; return; }
	wait_mark AFTER-MALFORMED 120 || return
	[ "$MARK" = "$state configs=1 requests=2 rejected=$n" ] ||
		{ bad "guest after $n malformed notifications and 2 REQUESTs: $MARK (expected $state configs=1 requests=2 rejected=$n)"; return; }

	# rate-limited warnings: the first 10 all there, the rest in order or dropped
	wait_mark REJECT-LOGS 60 || return
	mapfile -t logs < <(grep -a '^wsr-balloon: REJECT-LOG ' "$G_LOG" | tr -d '\r' | cut -d' ' -f3-)
	if [ "${#logs[@]}" -lt $((n < 10 ? n : 10)) ] || [ "${#logs[@]}" -gt "$n" ]; then
		bad "${#logs[@]} warnings logged for $n malformed notifications"
		return
	fi
	j=0
	for ((i = 0; i < ${#logs[@]}; i++)); do
		while [ "$j" -lt "$n" ] && [ "${logs[i]}" != "${injected[j]}" ]; do
			[ "$j" -ge 10 ] || { bad "warning $((j + 1)) is '${logs[i]}', expected '${injected[j]}'"; return; }
			j=$((j + 1))
		done
		[ "$j" -lt "$n" ] || { bad "unexpected warning '${logs[i]}'"; return; }
		j=$((j + 1))
	done

	# the largest values allowed are accepted
	retry 60 host config 1,2,3,604800000 604800000 604800000 >/dev/null ||
		{ bad "working-set-config with the largest values: $retry_err"; return; }
	wait_mark RECONFIGURED 60 || return
	[ "$MARK" = "intervals=1,2,3,604800000 refresh=604800000 report=604800000 configs=2 requests=2 rejected=$n" ] ||
		{ bad "guest after a CONFIG with the largest values allowed: $MARK"; return; }
	guest_done 60 || return
	guest_errors_none
}

# notify_loop STOPFILE: send CONFIGs and REQUESTs in turn until STOPFILE
# exists, whatever QEMU answers; counts successes in STOPFILE.ok
notify_loop() {
	local k=0 ok=0 failed=0
	until [ -e "$1" ]; do
		if [ $((k % 2)) = 0 ]; then
			host config 100,200,300,400 0 0 >/dev/null 2>&1
		else
			host request >/dev/null 2>&1
		fi && ok=$((ok + 1)) || failed=$((failed + 1))
		k=$((k + 1))
		sleep 0.02
	done
	echo "$ok $failed" >"$1.ok"
}

# The driver must survive being unbound and bound again, and its module
# unloaded and loaded again, while the host keeps notifying it; afterwards
# the device still configures, reports stats and inflates.  With
# --fail-nth (debug kernel), probe first fails at each of its allocations
# in turn, with the balloon programs attached, then 5 cycles follow (the
# sanitizers see every path of a cycle in each; the 20 cycles on our
# kernel look for races).
test_rebind_cycles() {
	local cycles=${WSR_BALLOON_CYCLES:-20} stop=$tmp/loop.stop loop counts total
	[ "${1:-}" != --fail-nth ] || cycles=${WSR_BALLOON_CYCLES:-5}
	guest_start driver_survives_rebind_reload_and_probe_faults.sh working-set=on,working-set-bins=5 --timeout 900 -- "$cycles" "$@" || return
	wait_mark READY || return
	rm -f "$stop" "$stop.ok"
	notify_loop "$stop" &
	loop=$!
	if [ "${1:-}" = --fail-nth ] && wait_mark PROBE-FAULTS 400; then
		echo "    | probe under fault injection: $MARK" >&2
	fi
	[ -z "$why" ] && wait_mark CYCLES-DONE 400
	touch "$stop"
	wait "$loop"
	[ -z "$why" ] || return
	total=${MARK#MemTotal=}
	read -r counts <"$stop.ok"
	[ "${counts%% *}" -ge $((cycles * 3)) ] ||
		{ bad "the host's loop got only ${counts%% *} notifications through (${counts#* } refused)"; return; }
	retry 60 host config 11,22,33,44 0 0 >/dev/null ||
		{ bad "working-set-config after the cycles: $retry_err"; return; }
	wait_mark FINAL-CONFIG 60 || return
	check_stats "$total" || return
	check_inflate_deflate || return
	guest_done 60 || return
	guest_errors_none
}

# ---- what the reports hold and when they come ---------------------------------

# host_totals FILE: per node of "wsr-host show" output FILE,
# "<node> <anon pages> <file pages> <bins> <bounds,...>"
host_totals() {
	awk '/^cause=/ { next } /^N/ { n = substr($1, 2); nodes[n] = 1; next }
	     { split($2, a, "="); split($3, f, "="); an[n] += a[2]; fi[n] += f[2]; b[n]++
	       bounds[n] = bounds[n] (bounds[n] == "" ? "" : ",") $1 }
	     END { for (k in nodes) print k, an[k], fi[k], b[k], bounds[k] }' "$1"
}

# close_enough A B: within 10% of B, or 512 pages (2 MiB) for small counts
close_enough() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d;
		exit !(d <= b * 0.10 || d <= 512) }'
}

# The host configures, then requests: the report has the configured bins
# per node and the guest's totals, by wsr and by the kernel's lru_gen.
test_request_matches_guest() {
	local bounds=1000,5000,20000,60000,9223372036854775807 n anon file bins b src ga gf
	guest_start request_matches_guest_histogram.sh working-set=on,working-set-bins=5 --node-mem 1024 || return
	wait_mark READY 200 || return
	retry 60 host config 1000,5000,20000,60000 0 0 >/dev/null ||
		{ bad "working-set-config: $retry_err"; return; }
	# the guest reposts its notify buffer after the CONFIG: until then QEMU refuses
	retry 30 host request >/dev/null || { bad "working-set-request: $retry_err"; return; }
	wait_mark REPORTED 150 || return
	host show >"$tmp/show" 2>&1 || { bad "wsr-host show: $(cat "$tmp/show")"; return; }
	# refresh_ms 0: the daemon aged everything just before it answered
	grep -q '^cause=request data_age_ms=[0-9]*$' "$tmp/show" ||
		bad "report header: $(head -n 1 "$tmp/show"), expected cause=request data_age_ms=N"
	awk -F= '/^cause=/ { exit !($3 + 0 <= 1000) }' "$tmp/show" ||
		bad "answer's data is $(sed -n 's/^cause=.*data_age_ms=//p' "$tmp/show") ms old, refresh_ms 0"
	host_totals "$tmp/show" >"$tmp/totals"
	[ "$(wc -l <"$tmp/totals")" = 2 ] || { bad "not 2 nodes: $(tr '\n' ' ' <"$tmp/show")"; return; }
	while read -r n anon file bins b; do
		# shellcheck disable=SC2015 # bad unless both hold
		[ "$bins" = 5 ] && [ "$b" = "$bounds" ] || bad "node $n has bins $b"
		for src in LRUGEN WSR; do
			read -r ga gf < <(tr -d '\r' <"$G_LOG" |
				awk -v s=$src -v n="$n" '$2 == "TOTALS" && $3 == s && $4 == n { print $5, $6 }')
			[ -n "$ga" ] || { bad "no $src totals for node $n"; continue; }
			# shellcheck disable=SC2015 # bad unless both hold
			close_enough "$anon" "$ga" && close_enough "$file" "$gf" ||
				bad "node $n: host anon=$anon file=$file, guest $src anon=$ga file=$gf"
		done
	done <"$tmp/totals"
	# the workload's 128 MiB (32768 pages) on node 1
	awk '$1 == 1 && $2 >= 32768 * 0.9 { ok = 1 } END { exit !ok }' "$tmp/totals" ||
		bad "node 1 lacks the workload's pages: $(tr '\n' ' ' <"$tmp/totals")"
	guest_done
}

# Under global memory pressure (the balloon leaves the guest less than its
# workload's hot set; no memcg limit), with the daemon stopped, reports come
# on their own at report_ms: at least 5 in 15 s, never closer than
# report_ms, none empty, and a new CONFIG's bins within 1 s.
test_reclaim_reports() {
	local watcher t_start t_cfg t_end fault
	guest_start reclaim_reports_keep_report_ms.sh working-set=on,working-set-bins=5 || return
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
	guest_done
}

# request_phase NAME BATCH MAX-AGE-MS: 100 requests, BATCH at a time, over
# one QMP connection; every one answered once (wsr-host request checks
# there is no missing and no extra answer), each answer's cause and data
# age seen, the age at most MAX-AGE-MS (if given).  Appends the answers to
# $tmp/answers.NAME; the verdict is NAME's.
request_phase() {
	local name=$1 batch=$2 max_age=${3:-} out=$tmp/answers.$1 why
	# on the second socket: the first stays free for the CONFIGs
	if ! timeout 600 "$HOST" --qmp "$G_EVENTS" request --count 100 --batch "$batch" \
		--timeout-ms 20000 >"$out" 2>"$out.err"; then
		also_verdict "$name" "$(tail -n 2 "$out.err" | tr '\n' ' ')"
		return
	fi
	why=$(awk -v max="$max_age" '
		$1 != "answer" || $3 !~ /^latency_ms=/ || $4 !~ /^data_age_ms=[0-9]+$/ {
			print "malformed answer line: " $0; bad = 1; exit }
		{ split($4, a, "="); if (max != "" && a[2] + 0 > max + 0) {
			print "answer " $2 " has data " a[2] " ms old, refresh_ms is " max
			bad = 1; exit } }
		END { if (!bad && NR != 100) print NR " answers listed, not 100" }' "$out")
	also_verdict "$name" "$why"
}

# The host asks 100 times in each of three states of the guest's daemon:
# running, stopped, killed; then 100 times more under global memory
# pressure while it reconfigures the guest.  Every request gets exactly one
# answer of cause request, and the guest's driver agrees.
test_request_answers() {
	local cfg_loop p
	guest_start requests_answered_once.sh working-set=on,working-set-bins=5 --timeout 600 || return
	wait_mark READY 200 || return
	retry 60 host config 1000,5000,20000,60000 1000 0 >/dev/null ||
		{ bad "working-set-config: $retry_err"; return; }
	request_phase balloon_requests_answered_once_with_daemon_running 1 1000
	wait_mark DAEMON-STOPPED 60 || return
	request_phase balloon_requests_answered_once_with_daemon_stopped 10
	wait_mark DAEMON-KILLED 60 || return
	request_phase balloon_requests_answered_once_with_daemon_killed 10
	wait_mark PHASE3-DONE 60 || return
	qmp "{\"execute\":\"balloon\",\"arguments\":{\"value\":$((G_RAM - (192 << 20)))}}" >/dev/null ||
		{ bad "QMP balloon refused"; return; }
	wait_mark RECLAIMING 150 || return
	# a CONFIG every 0.2 s: answers race new bins (-ESTALE) and are retried
	( for p in $(seq 1 600); do
		host config $((1000 + p % 2 * 500)),5000,20000,60000 1000 0 >/dev/null 2>&1
		sleep 0.2
	done ) &
	cfg_loop=$!
	request_phase balloon_requests_answered_once_under_pressure_and_configs 1
	kill "$cfg_loop" 2>/dev/null
	wait "$cfg_loop" 2>/dev/null
	wait_mark SWAPOUTS 60 || return
	# reclaim went on while the requests were answered
	[ "${MARK# }" -gt 0 ] 2>/dev/null ||
		bad "the guest did not reclaim while it answered (swap-outs +${MARK# })"
	qmp "{\"execute\":\"balloon\",\"arguments\":{\"value\":$G_RAM}}" >/dev/null
	guest_done 120
}

# ---- wsr-host balance ----------------------------------------------------------

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
	local obs=$tmp/obs.qmp port=$((20000 + RANDOM % 20000)) watcher bal poller t_r fault
	local ok a0 a1 t_start
	guest_start balance_deflates_under_pressure.sh working-set=on,working-set-bins=5 \
		--qemu-arg -qmp --qemu-arg "unix:$obs,server=on,wait=off" || return
	wait_mark READY 200 || return
	"$HOST" --qmp "$G_EVENTS" watch --json >"$tmp/events" 2>&1 &
	watcher=$!
	"$HOST" balance --vm "guest=$G_QMP" --policy working-set --report-ms 1000 \
		--request-ms 1000 --metrics "127.0.0.1:$port" >"$tmp/decisions" 2>"$tmp/balance.err" &
	bal=$!
	if wait_mark SQUEEZED 200; then
		echo "    | squeezed: $MARK" >&2
		also_verdict balance_metrics_pass_promtool_and_equal_show \
			"$(check_metrics "$obs" "http://127.0.0.1:$port/metrics")"
		kill "$bal"
		wait "$bal" || bad "balance did not exit 0 on SIGTERM: $(tail -n 2 "$tmp/balance.err" | tr '\n' ' ')"
		"$HOST" balance --vm "guest=$G_QMP" --policy working-set --report-ms 1000 \
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
		wait_mark PRESSURE-END 60
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
			"$(grep -c 'reason=deflate-reclaim' "$tmp/decisions") on reclaim" >&2 ;;
	*) bad "$fault; decisions: $(grep 'action=set' "$tmp/decisions" | tail -n 3 | cut -c1-160 | tr '\n' '|')" ;;
	esac
	guest_done 120
}

# ---- the kfuncs in hostile contexts, and a hostile device ------------------

# A tracing program that passes NULL to the kfuncs gets -EINVAL: before
# the fix, the guest faulted (a panic: status 125).
# A tracing program passes NULL to both kfuncs: each returns -EINVAL (the
# verdict of balloon_kfuncs_refuse_null_pointers, which shares the guest).
# Then a tp_btf/sched_switch program calls the kfuncs on every context
# switch under load while the host reconfigures: no hang, no lockdep splat
# (on the debug kernel), reports reach the device.
test_kfunc_sched_switch() {
	local secs=${WSR_SWITCH_SECS:-30} k=0 want_null="config_null=-22 report_null=-22 config=0"
	guest_start kfuncs_are_safe_on_sched_switch.sh working-set=on,working-set-bins=5 -- "$secs" || return
	wait_mark KFUNC-NULL || return
	[ "$MARK" = "$want_null" ] || also_verdict balloon_kfuncs_refuse_null_pointers \
		"kfuncs given NULL: $MARK (expected $want_null)"
	[ "$MARK" != "$want_null" ] || also_verdict balloon_kfuncs_refuse_null_pointers
	wait_mark READY || return
	# CONFIGs while the program runs: the kfuncs then see -ESTALE at times
	until grep -aq '^wsr-balloon: TALLY\|^FAIL: ' "$G_LOG" || ! guest_alive; do
		host config "$((100 + k % 500)),2000,4000,8000" 0 0 >/dev/null 2>&1
		k=$((k + 1))
		sleep 2
	done
	wait_mark TALLY 10 || return
	guest_done 120
}

# rand64: a random 64-bit value (bash integer) from $RANDOM
rand64() { echo $(((RANDOM << 48) ^ (RANDOM << 33) ^ (RANDOM << 18) ^ (RANDOM << 3) ^ (RANDOM & 7))); }

# random_hex LEN: LEN random bytes in hex
random_hex() {
	local i
	for ((i = 0; i < $1; i++)); do printf '%02x' $((RANDOM & 255)); done
}

# fuzz_cases N: N notification cases, one per line: "HEX [USED-LEN]", in
# $tmp/cases; sets fz_rejects, fz_configs, fz_requests (how many the
# driver must reject, accept as CONFIGs, count as REQUESTs) and fz_state
# (the configuration the last valid CONFIG sets, as ws_state prints it)
fuzz_cases() {
	local i kind len hex a b c d r p v op used
	fz_rejects=0 fz_configs=0 fz_requests=0
	: >"$tmp/cases"
	for ((i = 0; i < $1; i++)); do
		a=$((1 + RANDOM % 1000)) b=$((a + 1 + RANDOM % 5000))
		c=$((b + 1 + RANDOM % 20000)) d=$((c + 1 + RANDOM % 600000))
		r=$((RANDOM % 100000)) p=$((RANDOM % 100000))
		used=""
		kind=$((RANDOM % 10))
		case $kind in
		0|1)	# random bytes; an op that is neither REQUEST nor CONFIG
			len=$((RANDOM % 145))
			hex=$(random_hex "$len")
			op=$((3 + RANDOM % 65000))
			[ "$len" -lt 2 ] || hex=$(printf '%02x%02x' $((op & 255)) $((op >> 8)))${hex:4} ;;
		2)	op=$((3 + RANDOM % 65000))
			[ $((RANDOM % 4)) != 0 ] || op=0
			hex=$(notify_hex "$op" "$r" "$p" "$a" "$b" "$c" "$d") ;;
		3)	# a valid CONFIG with a used length that is not 144
			hex=$(notify_hex 2 "$r" "$p" "$a" "$b" "$c" "$d")
			used=$((RANDOM % 4097))
			[ "$used" != 144 ] || used=145 ;;
		4)	# intervals out of order, or two equal
			case $((RANDOM % 3)) in
			0) hex=$(notify_hex 2 "$r" "$p" "$b" "$a" "$c" "$d") ;;
			1) hex=$(notify_hex 2 "$r" "$p" "$a" "$b" "$d" "$c") ;;
			*) hex=$(notify_hex 2 "$r" "$p" "$a" "$a" "$c" "$d") ;;
			esac ;;
		5)	# a zero interval
			case $((RANDOM % 4)) in
			0) hex=$(notify_hex 2 "$r" "$p" 0 "$b" "$c" "$d") ;;
			1) hex=$(notify_hex 2 "$r" "$p" "$a" 0 "$c" "$d") ;;
			2) hex=$(notify_hex 2 "$r" "$p" "$a" "$b" 0 "$d") ;;
			*) hex=$(notify_hex 2 "$r" "$p" "$a" "$b" "$c" 0) ;;
			esac ;;
		6)	# one field beyond a week: 604800001, random huge, 2^64 - 1
			case $((RANDOM % 3)) in 0) v=604800001 ;; 1) v=$(rand64) ;; *) v=-1 ;; esac
			[ "$v" -lt 0 ] || [ "$v" -gt 604800000 ] || v=604800001
			case $((RANDOM % 3)) in
			0) hex=$(notify_hex 2 "$v" "$p" "$a" "$b" "$c" "$d") ;;
			1) hex=$(notify_hex 2 "$r" "$v" "$a" "$b" "$c" "$d") ;;
			*) hex=$(notify_hex 2 "$r" "$p" "$a" "$b" "$c" "$v") ;;
			esac ;;
		7)	# an interval more than the 5 bins take, at a random place
			local extra=() k n=$((RANDOM % 11))
			for ((k = 0; k < n; k++)); do extra+=(0); done
			hex=$(notify_hex 2 "$r" "$p" "$a" "$b" "$c" "$d" "${extra[@]}" $((d + 1 + RANDOM))) ;;
		8)	hex=$(notify_hex 2 "$r" "$p" "$a" "$b" "$c" "$d")
			fz_configs=$((fz_configs + 1))
			fz_state="intervals=$a,$b,$c,$d refresh=$r report=$p" ;;
		9)	# a REQUEST's other fields do not matter
			hex=$(notify_hex 1 "$(rand64)" "$r" "$(rand64)")
			fz_requests=$((fz_requests + 1)) ;;
		esac
		[ "$kind" -ge 8 ] || fz_rejects=$((fz_rejects + 1))
		echo "$hex $used" >>"$tmp/cases"
	done
}

# The device sends WSR_FUZZ_CASES notifications over one QMP connection:
# random bytes and structured mutations (op, length, used length, order,
# zero, huge, too many intervals) mixed with valid CONFIGs and REQUESTs.
# The guest must reject exactly the bad ones, keep the last valid CONFIG,
# warn at the rate limit's pace, and take a CONFIG and a REQUEST after.
test_device_fuzz() {
	local cases=${WSR_FUZZ_CASES:-1000} seed=${WSR_FUZZ_SEED:-$((RANDOM * 32768 + RANDOM))}
	local hex used cmd reply t0 secs sent=0 busy=0 max_warn state wfd
	RANDOM=$seed
	fuzz_cases "$cases"
	echo "    | fuzz seed $seed (WSR_FUZZ_SEED=$seed reruns these cases): $fz_rejects bad," \
		"$fz_configs CONFIGs, $fz_requests REQUESTs" >&2
	guest_start device_fuzz_changes_nothing_but_valid_configs.sh working-set=on,working-set-bins=5 --timeout 2400 || return
	wait_mark READY || return
	retry 60 host config 10,20,30,40 0 0 >/dev/null || { bad "first CONFIG: $retry_err"; return; }
	[ "$fz_configs" -gt 0 ] || fz_state="intervals=10,20,30,40 refresh=0 report=0"
	coproc QMPS { "$HOST" --qmp "$G_QMP" qmp - 2>&1; }
	t0=$(date +%s)
	while read -r hex used; do
		cmd="{\"execute\":\"x-working-set-notify-raw\",\"arguments\":{\"data\":\"$hex\"${used:+,\"used-len\":$used}}}"
		while :; do
			echo "$cmd" >&"${QMPS[1]}"
			read -r -t 30 reply <&"${QMPS[0]}" || { bad "no QMP reply after $sent cases"; break 2; }
			case "$reply" in
			*'"return"'*) sent=$((sent + 1)); break ;;
			*'try again later'*) busy=$((busy + 1)); guest_alive || break 2; sleep 0.005 ;;
			*) bad "QEMU refused case $((sent + 1)): $reply"; break 2 ;;
			esac
		done
		[ $((sent % 250)) != 0 ] || echo "    | $sent of $cases cases sent" >&2
	done <"$tmp/cases"
	# EOF on its stdin ends "wsr-host qmp -"
	wfd=${QMPS[1]}
	exec {wfd}>&-
	wait "$QMPS_PID" 2>/dev/null
	[ -z "$why" ] || return
	host request >/dev/null || { bad "REQUEST after the fuzz refused"; return; }
	qmp "{\"execute\":\"balloon\",\"arguments\":{\"value\":$((G_RAM - (64 << 20)))}}" >/dev/null ||
		{ bad "QMP balloon refused"; return; }
	wait_mark STATE 600 || return
	secs=$(($(date +%s) - t0))
	state=${MARK% warnings=*}
	[ "$state" = "$fz_state configs=$((fz_configs + 1)) requests=$((fz_requests + 1)) rejected=$fz_rejects" ] ||
		{ bad "guest after $sent cases: $state, expected $fz_state configs=$((fz_configs + 1)) requests=$((fz_requests + 1)) rejected=$fz_rejects"; return; }
	# dev_warn_ratelimited: 10 per 5 s at most
	max_warn=$((10 * (secs / 5 + 2)))
	# shellcheck disable=SC2015 # bad unless both hold
	[ "${MARK#* warnings=}" -le "$max_warn" ] && [ "${MARK#* warnings=}" -ge 10 ] ||
		{ bad "${MARK#* warnings=} warnings in $secs s for $fz_rejects bad notifications (rate limit: 10 per 5 s)"; return; }
	echo "    | $sent cases in $secs s ($busy retries while the guest re-posted its buffer); ${MARK#* warnings=} warnings" >&2
	qmp "{\"execute\":\"balloon\",\"arguments\":{\"value\":$G_RAM}}" >/dev/null || { bad "deflate refused"; return; }
	wait_mark DEFLATED 120 || return
	host config 7,77,777,7777 0 0 >/dev/null || { bad "CONFIG after the fuzz refused"; return; }
	wait_mark FINAL-CONFIG 120 || return
	retry 30 host request >/dev/null || { bad "REQUEST after the fuzz: $retry_err"; return; }
	wait_mark AFTER 120 || return
	guest_done 120
}

# ---- the tests, in order ------------------------------------------------------

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
run_test balloon_malformed_notifications_are_rejected_and_change_nothing \
	test_malformed_notifications
run_test balloon_driver_unbind_rebind_and_module_reload_keep_working \
	test_rebind_cycles
run_test balloon_probe_fails_cleanly_at_every_allocation_then_rebinds \
	test_rebind_cycles --fail-nth
run_test balloon_kfuncs_are_safe_on_sched_switch_under_load \
	--also balloon_kfuncs_refuse_null_pointers test_kfunc_sched_switch
run_test balloon_device_fuzz_changes_nothing_but_valid_configs test_device_fuzz
run_test balloon_request_after_config_matches_guest_histogram_and_lru_gen \
	test_request_matches_guest
run_test balloon_requests_answered_once_guest_agrees \
	--also balloon_requests_answered_once_with_daemon_running \
	--also balloon_requests_answered_once_with_daemon_stopped \
	--also balloon_requests_answered_once_with_daemon_killed \
	--also balloon_requests_answered_once_under_pressure_and_configs \
	test_request_answers
run_test balloon_reclaim_reports_keep_report_ms_with_daemon_stopped \
	test_reclaim_reports
run_test balance_deflates_a_guest_under_pressure_within_2s \
	--also balance_metrics_pass_promtool_and_equal_show \
	test_balance_deflates_under_pressure
