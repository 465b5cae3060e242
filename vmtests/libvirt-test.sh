#!/usr/bin/env bash
# wsr-host through libvirt (make check's libvirt section): one libvirtd
# of the tests' own (vmtests/libvirt-lib.sh) for every test, guests as
# libvirt domains on the patched kernel and QEMU, driven with
# build/wsr-host --connect URI --domain NAME and checked against the
# same guest's own QMP socket.  Prints "PASS name" / "FAIL name: reason"
# per test and "TIME name SECONDS"; exits non-zero if one fails.  Boots
# guests: run it under flock /tmp/wsr-guest.lock.
#
#   WSR_LIBVIRT_TESTS="pattern ..."  only the matching tests
#   --list                           name the tests, run nothing
#   --help                           this text
set -u
# anything else is refused before a guest boots (an unknown option once
# ran every test)
case "${1:-}" in
'' | --list) [ $# -le 1 ] || { echo "vmtests/libvirt-test.sh: unexpected argument '$2' (--help)" >&2; exit 2; } ;;
-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
*) echo "vmtests/libvirt-test.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
esac
. "$(dirname "$0")/balloon-lib.sh"
. "$WSR_ROOT/vmtests/libvirt-lib.sh"

[ "${1:-}" != --list ] || LIST=1
export WSR_BALLOON_TESTS=${WSR_LIBVIRT_TESTS:-*}
G_DOM=""

# ---- the balloon harness's guest words, for a domain -------------------------

guest_alive() { [ -n "$G_DOM" ] && [ "$(lv_virsh domstate "$G_DOM" 2>/dev/null)" = running ]; }

guest_why() {
	local w
	w=$(fail_reason "$G_LOG")
	[ -n "$w" ] && { echo "guest: $w"; return; }
	guest_alive && { echo "guest still running, last line: $(tail -n 1 "$G_LOG" | tr -d '\r')"; return; }
	echo "domain $G_DOM stopped: status $(tr -d '\r' <"$LV_DIR/domains/$G_DOM.status" 2>/dev/null | tail -n 1)"
}

guest_stop() {
	[ -n "$G_DOM" ] || return 0
	lv_virsh destroy "$G_DOM" >/dev/null 2>&1
	G_DOM=""
}

# guest_done [SECS]: the guest's DONE, then its power-off with status 0
guest_done() {
	local n st
	wait_mark DONE "${1:-60}" || return
	release_guest
	for n in $(seq 1 1200); do guest_alive || break; sleep 0.1; done
	guest_alive && { bad "the guest did not power off within 120 s of DONE"; return; }
	st=$(tr -d '\r' <"$LV_DIR/domains/$G_DOM.status" | tail -n 1)
	G_DOM=""
	[ "$st" = 0 ] || bad "guest command ended with status '$st'"
}

# dom_start NAME MIB VCPUS PROPS [GUEST-ARG...]: boot domain NAME running
# the guest half of $TEST_FILE; sets G_DOM, G_LOG, G_QMP (its own QMP
# socket, beside libvirt's monitor), G_RAM
dom_start() {
	local name=$1 mib=$2 vcpus=$3 props=$4 said
	shift 4
	said=$(lv_domain "$name" "$mib" "$vcpus" "$props" sh "/host/${TEST_FILE##*/}" guest "$@" &&
		lv_create "$name") || { bad "domain $name: $said"; return 1; }
	G_DOM=$name G_LOG=$LV_DIR/domains/$name.console G_QMP=$LV_DIR/domains/$name.qmp
	G_RAM=$((mib << 20))
}

# lvhost ARG...: wsr-host through libvirt on the running domain
lvhost() { timeout 20 "$HOST" --connect "$LV_URI" --domain "$G_DOM" "$@"; }

# same_json A B: the files hold the same JSON value (whitespace aside)
same_json() {
	python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
sys.exit(a != b)' "$1" "$2"
}

# bins FILE: the bin bounds of "wsr-host show"'s first node, comma-separated
bins() { awk '/^N/ { n++ } n == 1 && / anon=/ { printf "%s%s", s, $1; s = "," }' "$1"; }

# ---- the tests -----------------------------------------------------------------

# show_same WHAT: "show" and "show --json" through libvirt and over QMP
# print the same (retried while a new report lands between them); the
# text in $tmp/show.lv
show_same() {
	local i
	for i in 1 2 3 4 5; do
		if ! { lvhost show >"$tmp/show.lv" && host show >"$tmp/show.qmp" &&
			lvhost show --json >"$tmp/json.lv" && host show --json >"$tmp/json.qmp"; }; then
			echo "$1: show failed: $(tail -n 1 "$tmp/show.lv")"
			return
		fi
		cmp -s "$tmp/show.lv" "$tmp/show.qmp" && same_json "$tmp/json.lv" "$tmp/json.qmp" && return
		sleep 0.3
	done
	echo "$1: show differs: $(diff "$tmp/show.lv" "$tmp/show.qmp" | head -n 3 | tr '\n' ' ')"
}

# check_commands: config, request, show, watch and qmp through libvirt
# do what they do over QMP on the same guest: bins configured through one
# are those the other shows after a request through the other; a request
# through libvirt is answered once; watch through libvirt sees a
# request's answer; a raw command's reply is QEMU's.  Prints why not.
check_commands() {
	local w
	retry 60 lvhost config 1000,2000,4000,8000 500 1000 >/dev/null ||
		{ echo "config through libvirt refused: $retry_err"; return; }
	lvhost request --count 1 --json >"$tmp/answer" 2>&1 ||
		{ echo "request --count 1 through libvirt: $(tr '\n' ' ' <"$tmp/answer")"; return; }
	grep -q '^{"answer":1,' "$tmp/answer" || { echo "no answer: $(head -c 200 "$tmp/answer")"; return; }
	w=$(show_same "after config and request through libvirt")
	[ -z "$w" ] || { echo "$w"; return; }
	[ "$(bins "$tmp/show.lv")" = 1000,2000,4000,8000,9223372036854775807 ] ||
		{ echo "bins after config through libvirt: $(bins "$tmp/show.lv")"; return; }
	host config 1000,3000,6000,9000 500 1000 >/dev/null || { echo "config over QMP refused"; return; }
	lvhost watch --count 1 --json >"$tmp/watch" 2>&1 &
	w=$!
	sleep 1
	host request --count 1 >/dev/null 2>&1 || { echo "request over QMP unanswered"; return; }
	wait "$w" || { echo "watch through libvirt saw no report: $(tr '\n' ' ' <"$tmp/watch")"; return; }
	grep -q '"event":"WORKING_SET_EVENT"' "$tmp/watch" ||
		{ echo "watch through libvirt: $(head -c 200 "$tmp/watch")"; return; }
	w=$(show_same "after config and request over QMP")
	[ -z "$w" ] || { echo "$w"; return; }
	[ "$(bins "$tmp/show.lv")" = 1000,3000,6000,9000,9223372036854775807 ] ||
		{ echo "bins after config over QMP: $(bins "$tmp/show.lv")"; return; }
	if ! { lvhost qmp '{"execute":"query-memory-size-summary"}' >"$tmp/raw.lv" &&
		host qmp '{"execute":"query-memory-size-summary"}' >"$tmp/raw.qmp" &&
		same_json "$tmp/raw.lv" "$tmp/raw.qmp"; }; then
		echo "qmp through libvirt: $(head -c 200 "$tmp/raw.lv"), over QMP: $(head -c 200 "$tmp/raw.qmp")"
		return
	fi
	echo "    | config, request, watch, show, show --json and qmp agree through libvirt and QMP" >&2
}

# One guest for the commands and balance: the guest half of the QMP
# balance test, whose host half (balance_under_pressure) runs here with
# balance and watch through libvirt, the balloon's size read on the
# domain's own QMP socket.
test_libvirt_balance() {
	dom_start guest 512 2 working-set=on,working-set-bins=5 || return
	wait_mark READY 200 || return
	also_verdict libvirt_commands_give_what_qmp_gives "$(check_commands)"
	BAL_METRICS_TEST=libvirt_balance_metrics_pass_promtool_and_equal_show \
		balance_under_pressure "$G_QMP" --connect "$LV_URI" --domain guest -- \
		--connect "$LV_URI" --domain guest
}

# dom_mark NAME WORD [SECS]: wait_mark on domain NAME's console
dom_mark() {
	local G_DOM=$1 G_LOG=$LV_DIR/domains/$1.console
	wait_mark "$2" "${3:-120}"
}

# first_decision VM AFTER [caused]: VM's first decision line, set or keep,
# after AFTER; with caused, the first made on a report (not cause=none)
first_decision() {
	awk -v vm="$1" -v t0="$2" -v caused="${3:-}" '$0 ~ " vm=" vm " " && !(caused && / cause=none /) {
		t = $2; sub(/^time=/, "", t); if (t + 0 > t0) { print; exit } }' "$tmp/all.dec"
}

# decided VM AFTER: the first decision line of VM set after time AFTER
# (a unix time), or nothing
decided() {
	awk -v vm="$1" -v t0="$2" '$0 ~ " vm=" vm " " && / action=set / {
		t = $2; sub(/^time=/, "", t); if (t + 0 > t0) { print; exit } }' "$tmp/all.dec"
}

# wait_for SECS CMD...: CMD prints something within SECS (polled 5 times a second)
wait_for() {
	local n=$(($1 * 5))
	shift
	while [ -z "$("$@")" ]; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.2
	done
}

# b_actual: domain b's balloon size in bytes, read on its own QMP socket
b_actual() {
	timeout 10 "$HOST" --qmp "$LV_DIR/domains/b.qmp" qmp '{"execute":"query-balloon"}' 2>/dev/null |
		grep -o '"actual": *[0-9]*' | grep -o '[0-9]*$'
}

# stop_while_libvirtd_is_down BAL: with b squeezed, libvirtd stopped and
# balance (pid BAL) sent SIGTERM as soon as it says b down (before its
# first retry, 0.5 s on).  balance must either deflate b on exit or name
# it in its last line (status 1): "deflated" or "named" goes to
# $tmp/bal.exit (the caller, which owns the process, checks b's size);
# prints why not.  libvirtd runs again after it.
stop_while_libvirtd_is_down() {
	local bal=$1 s t said
	s=$(b_actual)
	if [ -z "$s" ] || [ "$s" -ge $((384 << 20)) ]; then
		echo "b not squeezed before the stop (actual ${s:-unknown})"
		return
	fi
	t=$(date +%s.%N)
	lv_stop_libvirtd
	if ! wait_for 20 err_line 'vm=b down' "$t"; then
		echo "balance did not say b down within 20 s of libvirtd's stop"
	else
		kill -TERM "$bal"
		# not this shell's child: its end is seen by kill -0
		for _ in $(seq 1 300); do kill -0 "$bal" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$bal" 2>/dev/null; then
			echo "balance still running 30 s after SIGTERM"
		elif [ -n "$(err_line 'vm=b on exit: deflated' "$t")" ]; then
			echo deflated >"$tmp/bal.exit"
		elif [ -n "$(err_line 'on exit, not deflated .*: (.*, )?b(,|$)' "$t")" ]; then
			echo named >"$tmp/bal.exit"
			echo "    | b named on exit: $(err_line 'on exit, not deflated' "$t" | cut -d' ' -f2-)" >&2
		else
			echo "balance neither deflated nor named b on exit: $(tail -n 3 "$tmp/all.err" | tr '\n' '|')"
		fi
	fi
	said=$(lv_libvirtd) || echo "libvirtd again: $said"
}

# err_line PATTERN AFTER: the first line of balance's stderr (each line
# prefixed with its unix time) matching PATTERN after AFTER
err_line() {
	awk -v re="$1" -v t0="$2" '$1 + 0 > t0 && $0 ~ re { print; exit }' "$tmp/all.err"
}

# balance --connect alone over three domains: a (working-set on, its QEMU
# SIGSTOPped before balance starts), b (working-set on, idle) and c (no
# working-set).  b is squeezed while a is stuck; c is skipped with its
# reason in one line; b destroyed and started again is let go, then
# managed again; libvirtd restarted under balance: balance reconnects,
# and b's first decision after it waits for a report made after it (its
# reports watched on b's own QMP socket, which libvirt's restart leaves
# alone).  Then libvirtd stopped, and balance stopped as soon as it says
# b down: b, squeezed, is deflated on exit or named with status 1.
test_libvirt_all_domains() {
	local idle='. /host/transport-lib.sh; start_daemon; mark READY; sleep 900' bal t w="" d=""
	local ws=working-set=on,working-set-bins=5 said watcher st s
	said=$(lv_domain a 384 1 "$ws" sh -c "$idle" && lv_domain b 384 1 "$ws" sh -c "$idle" &&
		lv_domain c 256 1 "" sh -c 'sleep 900' &&
		lv_create a && lv_create b && lv_create c) || { bad "domains: $said"; return; }
	G_DOM=b
	kill -STOP "$(lv_qemu_pid a)" || { bad "cannot stop a's QEMU"; return; }
	dom_mark b READY 200 || return
	"$HOST" balance --connect "$LV_URI" --policy working-set --request-ms 1000 \
		--steady-ms 0 --reconnect-ms 500 --qmp-timeout-ms 1000 >"$tmp/all.dec" \
		2> >(while IFS= read -r l; do echo "$EPOCHREALTIME $l"; done >"$tmp/all.err") &
	bal=$!
	t=$(date +%s.%N)
	if wait_for 60 decided b "$t"; then
		echo "    | b squeezed while a's QEMU is stopped: $(decided b "$t" | cut -c1-120)" >&2
		[ -n "$(err_line 'vm=a down' 0)" ] || w="a was never said down"
	else
		w="no decision for b within 60 s while a's QEMU is stopped: $(tail -n 3 "$tmp/all.err" | tr '\n' '|')"
	fi
	also_verdict libvirt_balance_a_stopped_qemu_holds_up_no_other_domain "$w"
	w=""
	wait_for 10 err_line 'vm=c .*skipped: no balloon with working-set=on' 0 ||
		w="c not skipped: $(grep 'vm=c' "$tmp/all.err" | tail -n 2 | tr '\n' '|')"
	[ -n "$w" ] || [ "$(grep -c 'vm=c .*skipped' "$tmp/all.err")" = 1 ] ||
		w="c's reason said $(grep -c 'vm=c .*skipped' "$tmp/all.err") times"
	! grep -q ' vm=c ' "$tmp/all.dec" || w="a decision for c"
	also_verdict libvirt_balance_skips_a_domain_without_the_device_with_its_reason "$w"
	# b destroyed, then started again (a let run first: libvirt would
	# wait 10 s for a stopped QEMU to take its SIGTERM)
	t=$(date +%s.%N)
	kill -CONT "$(lv_qemu_pid a)"
	lv_virsh destroy a >/dev/null 2>&1
	lv_virsh destroy b >/dev/null 2>&1
	w=""
	if ! wait_for 20 err_line 'vm=b not running: let go' "$t"; then
		w="b not let go: $(tail -n 3 "$tmp/all.err" | tr '\n' '|')"
	elif ! said=$(lv_create b); then
		w="b again: $said"
	elif ! dom_mark b READY 200; then
		w="b again: $why"
	elif ! wait_for 60 decided b "$(date +%s.%N)"; then
		w="b not squeezed again within 60 s: $(grep 'vm=b' "$tmp/all.err" | tail -n 3 | tr '\n' '|')"
	fi
	also_verdict libvirt_balance_manages_a_domain_started_again "$w"
	# libvirtd restarted under balance
	"$HOST" --qmp "$LV_DIR/domains/b.qmp" watch --json >"$tmp/b.events" 2>&1 &
	watcher=$!
	sleep 2
	t=$(date +%s.%N)
	lv_stop_libvirtd
	said=$(lv_libvirtd) || { kill "$watcher" "$bal"; bad "libvirtd again: $said"; return; }
	if ! wait_for 60 err_line 'vm=b (answering again|connected)' "$t"; then
		bad "balance did not reconnect to b: $(tail -n 3 "$tmp/all.err" | tr '\n' '|')"
	elif ! wait_for 60 first_decision b "$t" caused; then
		bad "no decision on a report for b within 60 s of libvirtd's restart: $(grep ' vm=b ' "$tmp/all.dec" | tail -n 2 | tr '\n' '|')"
	else
		# The reconnect forgets b's report (vm_fail()), and the first
		# decision after it is logged whatever it is: a keep on no report,
		# cause=none, decided on nothing, comes first as a rule.  The one
		# that shows whether old data was used is the first on a report.
		d=$(first_decision b "$t" caused)
		echo "    | b's first decision on a report after the restart: $(cut -c1-160 <<<"$d")" >&2
		d=$(cut -d' ' -f2 <<<"$d")
		d=${d#time=}
		# and before it, nothing but keeps: a target set on no report is
		# set on nothing
		s=$(awk -v t0="$t" -v t1="$d" '/ vm=b / && / cause=none / && !/ action=keep / {
			t = $2; sub(/^time=/, "", t); if (t + 0 > t0 && t + 0 < t1) { print; exit } }' "$tmp/all.dec")
		[ -z "$s" ] || bad "b set a target on no report after the restart: $(cut -c1-160 <<<"$s")"
		# the first report b made after balance was back
		t=$(err_line 'vm=b (answering again|connected)' "$t" | cut -d' ' -f1)
		w=$(awk -v t0="$t" '/"WORKING_SET_EVENT"/ {
			match($0, /"seconds": *[0-9]+/); s = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", s)
			match($0, /"microseconds": *[0-9]+/); u = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", u)
			x = sprintf("%d.%06d", s, u); if (x + 0 > t0 - 0.05) { print x; exit } }' "$tmp/b.events")
		echo "    | balance back at $t, b's next report at ${w:-none}, its next decision at $d" >&2
		# (a decision's time is printed to the millisecond, rounded:
		# it was made up to 0.5 ms after what it says)
		if [ -z "$w" ] || ! awk -v d="$d" -v r="$w" 'BEGIN { exit !(d + 0.0005 >= r + 0) }'; then
			bad "b decided at $d, before any report after the reconnect (${w:-none})"
		fi
	fi
	# b's own QMP socket is the watcher's until it ends
	kill "$watcher" 2>/dev/null
	wait "$watcher" 2>/dev/null
	w=$(stop_while_libvirtd_is_down "$bal")
	# it ran in a subshell: what balance's exit said is in its file; a
	# balance still running is stopped here
	kill "$bal" 2>/dev/null
	wait "$bal"
	st=$(cat "$tmp/bal.exit" 2>/dev/null)
	if [ -z "$w" ] && [ "$st" = deflated ]; then
		# b must be back at its 384 MiB, read on its own QMP socket
		for _ in $(seq 1 150); do
			s=$(b_actual)
			[ "${s:-0}" -lt $((384 << 20)) ] || break
			sleep 0.2
		done
		[ "${s:-0}" -ge $((384 << 20)) ] ||
			w="balance said b deflated, and b is at ${s:-unknown} bytes of $((384 << 20))"
	fi
	also_verdict libvirt_balance_stopped_while_libvirtd_is_down_deflates_or_names_a_squeezed_domain "$w"
	# balance's stderr reader (one pid a word)
	# shellcheck disable=SC2046
	kill $(jobs -p) 2>/dev/null
	lv_virsh destroy c >/dev/null 2>&1
	lv_virsh destroy b >/dev/null 2>&1
	G_DOM=""
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wsr-libvirt-test.XXXXXX")
# the background jobs too (balance, watchers): a test that a shell error
# ended leaves them running, holding the guest lock's descriptor
# shellcheck disable=SC2046 # one pid a word
trap 'kill $(jobs -p) 2>/dev/null; guest_stop; lv_stop; rm -rf "$tmp"' EXIT
if [ "$LIST" != 1 ]; then
	[ -x "$HOST" ] || make -s -C "$WSR_ROOT" BUILD="$BUILD" "$HOST" >&2 || die "cannot build $HOST"
	t0=$EPOCHREALTIME
	# not in $(...): its daemons' folder and namespace are this shell's to stop
	lv_start >"$tmp/lv-start.out" 2>&1 || { verdict libvirt_daemon_starts "$(tail -n 3 "$tmp/lv-start.out")"; exit 1; }
	echo "    | libvirtd up in $(elapsed "$t0") s on $LV_URI" >&2
fi

# the QMP balance test's host half, for balance_under_pressure (LIST: its
# run_test names it, runs nothing)
TEST_FILE=$GUEST_SCRIPTS/balance_deflates_a_guest_under_pressure_within_2s.sh
saved=$LIST LIST=1
# shellcheck source=../tests/balloon/balance_deflates_a_guest_under_pressure_within_2s.sh
. "$TEST_FILE" host >/dev/null
LIST=$saved
run_test libvirt_balance_deflates_a_guest_under_pressure_within_2s \
	--also libvirt_balance_metrics_pass_promtool_and_equal_show \
	--also libvirt_commands_give_what_qmp_gives test_libvirt_balance
run_test libvirt_balance_reconnects_after_libvirtd_restarts_and_decides_on_fresh_data \
	--also libvirt_balance_a_stopped_qemu_holds_up_no_other_domain \
	--also libvirt_balance_skips_a_domain_without_the_device_with_its_reason \
	--also libvirt_balance_manages_a_domain_started_again \
	--also libvirt_balance_stopped_while_libvirtd_is_down_deflates_or_names_a_squeezed_domain \
	test_libvirt_all_domains
unfinished_verdicts
[ "$FAILED" = 0 ]
