# shellcheck shell=bash
# The harness of the balloon tests (sourced by vmtests/run-test): guests
# on the patched kernel (kernel-patches/) and the patched QEMU
# (qemu-patches/), driven over QMP with build/wsr-host, and the checks
# several tests share.  The tests themselves are tests/balloon/*.sh, each
# with its guest half and its host half (vmtests/run-test --help says how
# one is written).
#
# Host and guest meet through marker lines on the guest's console
# ("wsr-balloon: WORD ...", see tests/balloon/transport-lib.sh) and
# through the balloon device itself; every wait polls with a time-out.
# QEMU runs with -d guest_errors, so that what the device rejects lands in
# the console log too.
#
# The host half of a test calls bad "reason" on its first failed check
# (and goes on to clean up), where a guest half, which runs alone, calls
# fail.  Verdicts are tests/testlib.sh's.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=../tests/testlib.sh
. "$WSR_ROOT/tests/testlib.sh"
BUILD=${BUILD:-$WSR_ROOT/build}
HOST=$BUILD/wsr-host
GUEST_SCRIPTS=$WSR_ROOT/tests/balloon
BALLOON=/machine/peripheral/balloon0
KERNEL=${WSR_BALLOON_KERNEL:-ours}
# set by vmtests/run-test: --list, the test file being run, a scratch
# folder; BALLOON_LIB says to a test file that this file is sourced, MARK
# holds what wait_mark saw
# shellcheck disable=SC2034 # for run-test and the test files
BALLOON_LIB=1 LIST=${LIST:-0} TEST_FILE=${TEST_FILE:-} tmp=${tmp:-} MARK=""
# how many verdicts were FAIL
FAILED=0
# the names of the test running, until their verdicts are printed
UNFINISHED=()

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
	unfinished_verdicts
	while [ "$1" = --also ]; do names+=("$2"); shift 2; done
	for n in "${names[@]}"; do
		if [ "$LIST" = 1 ]; then echo "$n"; else want "$n" && run=1; fi
	done
	[ "$run" = 1 ] || return 0
	why="" test_name=${names[0]} guest_n=0 G_LOG=""
	local t0=$EPOCHREALTIME c0 cpu
	children_cpu c0
	UNFINISHED=("${names[@]}")
	"$@"
	rc=$?
	UNFINISHED=()
	guest_stop
	[ "$rc" = 0 ] || [ -n "$why" ] || why="exited with status $rc"
	if [ -n "${WSR_BALLOON_LOGS:-}" ] && [ -e "$G_LOG" ]; then
		mkdir -p "$WSR_BALLOON_LOGS" && cp "$G_LOG" "$WSR_BALLOON_LOGS/$test_name.log"
	fi
	test_verdict "$test_name" "$why"
	for n in "${also[@]}"; do test_verdict "${n%%	*}" "${n#*	}"; done
	for n in "${names[@]:1}"; do
		[[ " ${also[*]%%	*} " == *" $n "* ]] ||
			test_verdict "$n" "not checked: ${why:-the test did not get there}"
	done
	# the guest's whole time, boot to power-off, is NAME's (the NAME2s
	# shared it), and so is the CPU its QEMU and the host's tools used
	cpu_since "$c0" cpu
	echo "TIME $test_name $(elapsed "$t0") $cpu"
}

# elapsed T0: seconds since T0 (an $EPOCHREALTIME), to 0.1 s
elapsed() {
	awk -v t0="$1" -v t1="$EPOCHREALTIME" 'BEGIN { printf "%.1f", t1 - t0 }'
}

# unfinished_verdicts: FAIL the test that a shell error ended (an
# arithmetic expansion of a value the guest did not print, say): bash
# leaves the function and goes on with the test file's next line, so
# the test's verdict would never be printed.  Its guest is stopped.
unfinished_verdicts() {
	local n
	[ "${#UNFINISHED[@]}" -gt 0 ] || return 0
	guest_stop
	for n in "${UNFINISHED[@]}"; do
		test_verdict "$n" "a shell error (printed above) ended the test"
	done
	UNFINISHED=()
}

# also_verdict NAME [REASON]: NAME passes (or fails for REASON), printed
# after the running test's own verdict
also_verdict() {
	also+=("$1	${2:-}")
}

# test_verdict NAME [REASON]: NAME's verdict, if NAME is wanted; a FAIL
# names the console log, kept
test_verdict() {
	local kept
	want "$1" || return 0
	if [ -z "${2:-}" ]; then
		verdict "$1"
		return 0
	fi
	FAILED=$((FAILED + 1))
	kept=$WSR_CACHE/logs/balloon-$1-$(date +%Y%m%d-%H%M%S).log
	if [ -e "$G_LOG" ] && mkdir -p "$WSR_CACHE/logs" && cp "$G_LOG" "$kept"; then
		verdict "$1" "$2 (console log: $kept)"
	else
		verdict "$1" "$2"
	fi
}

# ---- guests -----------------------------------------------------------------

G_PID="" G_LOG="" G_QMP="" G_OUT="" G_RAM=0

# guest_start PROPS [RUN-OPTION...] [-- GUEST-ARG...]: boot a guest in
# the background running the guest half of the test file being run
# ($TEST_FILE, in the guest /host/NAME.sh guest GUEST-ARG...), with the
# balloon's PROPS; return once its QMP socket answers.  Sets G_PID (vmtests/run), G_LOG
# (console), G_QMP (socket), G_EVENTS (a second QMP socket: QEMU serves one
# client per socket, and "wsr-host watch" keeps its own), G_RAM (guest RAM
# in bytes).  RUN-OPTIONs go to
# vmtests/run (defaults: --node-mem 256 --timeout 300, 600 on the debug
# kernel, whose slowest guest takes about 192 s beside another lane's
# guest in make check; the limit is for a hung guest).
guest_start() {
	local props=$1 node_mem=256 nodes=2 i opts=() limit=300
	[ "$KERNEL" != debug ] || limit=600
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		[ "$1" != --node-mem ] || node_mem=$2
		[ "$1" != --nodes ] || nodes=$2
		opts+=("$1")
		shift
	done
	[ $# = 0 ] || shift
	guest_n=$((guest_n + 1))
	local d=$tmp/$test_name.$guest_n
	mkdir -p "$d"
	G_LOG=$d/console.log G_QMP=$d/qmp G_EVENTS=$d/qmp-events G_OUT=$d/run.out
	G_RAM=$((nodes * node_mem << 20))
	"$WSR_ROOT"/vmtests/run --kernel "$KERNEL" --quiet --log "$G_LOG" --qmp "$G_QMP" --balloon "$props" \
		--qemu-arg -qmp --qemu-arg "unix:$G_EVENTS,server=on,wait=off" \
		--node-mem 256 --timeout "$limit" --qemu-arg -d --qemu-arg guest_errors \
		"${opts[@]}" --dir "$GUEST_SCRIPTS" -- sh "/host/${TEST_FILE##*/}" guest "$@" >"$G_OUT" 2>&1 &
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
	w=$(fail_reason "$G_LOG")
	[ -n "$w" ] && { echo "guest: $w"; return; }
	guest_alive && { echo "guest still running, last line: $(tail -n 1 "$G_LOG" | tr -d '\r')"; return; }
	echo "guest stopped: $(tail -n 1 "$G_OUT" | tr -d '\r')"
}

# guest_done [SECS]: wait for the guest script's "DONE" (default 60 s),
# then for the guest to power off by itself with status 0: on the debug
# kernel, that is the sanitizers' verdict.  A power-off with status 0
# also says QEMU ran the guest to its end: QEMU is asked for its status
# only if the guest does not power off (a paused or stopped QEMU), for
# the reason; asking first needed the guest to wait after DONE.
guest_done() {
	local st n rc
	wait_mark DONE "${1:-60}" || return
	release_guest
	for n in $(seq 1 1200); do guest_alive || break; sleep 0.1; done
	if guest_alive; then
		st=$(qmp '{"execute":"query-status"}' 2>&1)
		case "$st" in
		*'"status": "running"'*) bad "the guest did not power off within 120 s of DONE" ;;
		*) bad "QEMU not running the guest at the end: $st" ;;
		esac
		return
	fi
	wait "$G_PID"
	rc=$?
	G_PID=""
	[ "$rc" = 0 ] || bad "guest run ended with status $rc: $(grep -a -A1 "^wsr: " "$G_OUT" | head -n 2 | tr "\n" " ")"
}

# release_guest: the host half asks QEMU nothing more: press the guest's
# power button, for which the guest half's finish waits (2 s at most)
# before it powers off (tests/balloon/transport-lib.sh).  A guest that
# powers off at once (FINISH_NOW) may be gone already: no error
release_guest() {
	timeout 5 "$HOST" --qmp "$G_QMP" qmp '{"execute":"system_powerdown"}' >/dev/null 2>&1
	return 0
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

# qemu_pid: QEMU's pid (vmtests/run -> timeout -> qemu); fails if there is none
qemu_pid() {
	local t q
	t=$(pgrep -P "$G_PID" -x timeout | head -n 1)
	[ -n "$t" ] && q=$(pgrep -P "$t" | head -n 1) && [ -n "$q" ] && [ -e "/proc/$q/status" ] &&
		echo "$q"
}

# mark_field NAME: the number after " NAME=" in $MARK, or nothing
mark_field() { sed -n "s/.* $1=\([0-9][0-9]*\).*/\1/p" <<<" $MARK"; }

# wait_mark WORD [SECS]: wait for the guest's "wsr-balloon: WORD" line
# (default 120 s) and put the rest of it in $MARK; fails early if the
# guest fails or stops
wait_mark() {
	local n=$((${2:-120} * 10)) line
	# three times as long on the debug kernel, built to be slow: in make
	# check's lane B its guest shares the cores with the other lanes at a
	# lower priority, and a daemon's first load can take it past 120 s
	# before READY; its own time limit (600 s) still ends a hung guest
	[ "$KERNEL" != debug ] || n=$((n * 3))
	MARK=""
	while :; do
		# only whole lines: the console ends them with \r\n
		line=$(grep -a -m 1 "^wsr-balloon: $1\b.*"$'\r'"\$" "$G_LOG" 2>/dev/null | tr -d '\r')
		if [ -n "$line" ]; then
			line=${line#"wsr-balloon: $1"}
			# shellcheck disable=SC2034 # for the test files
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
	[[ "$1" =~ ^[0-9]+$ ]] || { bad "no MemTotal from the guest to check stats against: '$1'"; return; }
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


# guest_errors_none: QEMU logged no guest error about the balloon
guest_errors_none() {
	local e
	e=$(grep -a -m 3 'virtio-balloon:' "$G_LOG" | tr -d '\r' | tr '\n' '|')
	[ -z "$e" ] || bad "QEMU guest errors: $e"
}

