#!/usr/bin/env bash
# The test suite behind "make check": host unit tests, the harness's own
# tests, the balloon tests and the guest tests on the patched kernel, a
# subset of both on the patched kernel with sanitizers ("debug": any
# KASAN, KFENCE, kmemleak, lockdep or UBSAN report fails the test), the
# DKMS module's tests and a subset of the balloon tests on Debian's stock
# kernel with it, and the estimator's and wsr fs's tests on Debian's stock
# kernel.  Prints one line per test and ends with "N passed, N failed";
# exits non-zero on any failure.
#
#   WSR_TESTS="pattern ..."  run only the guest tests matching the patterns
#   WSR_BALLOON_TESTS="pattern ..."  only the matching balloon tests
#                            (vmtests/balloon-test.sh --list names them)
#   WSR_DEBUG_TESTS="pattern ..."    the guest and balloon tests to run on
#                            the debug kernel (default: see DEBUG_TESTS)
#   WSR_LIBVIRT_TESTS="pattern ..."  only the matching libvirt tests
#                            (vmtests/libvirt-test.sh --list names them)
#   WSR_SKIP_SELFTEST=1      skip the harness's own tests (for quick runs)
#   WSR_CHECK_LANES=1        the sections one after the other, not in
#                            three lanes at once (below: "lanes"): about
#                            30 minutes, not 15
# A pattern that matches no test that ran fails the run; "none" runs
# nothing in that section on purpose.  tests/inventory lists every test:
# one that ran unlisted, or a listed one the patterns select that did not
# run, fails the run too (vmtests/inventory.sh).
set -u
. "$(dirname "$0")/lib.sh"

BUILD=${BUILD:-$WSR_ROOT/build}
# On the debug kernel (sanitizers; 3 times slower under TCG, and a BPF
# load takes it a minute or more): the tests that run the driver's code,
# its kfuncs, or the lifetime of what BPF pins, each for a reason:
# - balloon_probe_fails_*: probe's error paths, failed at each allocation
#   (fault injection, debug only), then unbind/bind and rmmod/insmod
#   cycles: the driver's set-up and teardown under KASAN and kmemleak
# - balloon_kfuncs_*: both kfuncs given NULL, then called on every
#   context switch with the runqueue lock held: lockdep sees their locks
# - balloon_device_fuzz_*: the driver parses 1000 malformed
#   notifications: KASAN and UBSAN see every read of the buffer
# - balloon_reclaim_*: the report kfunc called from reclaim (the BPF
#   programs' shrink_node hook): lockdep's reclaim annotations see the
#   driver's locks and allocations there
# - balloon_broken_ws_queue_*: a send that fails on a queue the device
#   broke, and the request work it no longer re-arms: the sanitizers see
#   the driver's error path and the works it stops
# - estimator_survives_daemon_sigkill: pinned programs, maps and links
#   outlive a SIGKILLed daemon and are adopted: kmemleak sees their
#   references
# Not here: the other estimator tests run our BPF programs only (no
# kfunc: the verifier, not the sanitizers, keeps them safe) on upstream
# code (cgroup iterators, memcg reclaim), and need the hot set re-read
# within bins the slower kernel stretches (estimator_parent_is_sum_* and
# estimator_reclaim_reports_respect_report_ms, which ran here before,
# took 3 minutes); the queue matrix (queue numbering, which the
# sanitizers do not see; free page reporting's 192 MiB fill does not fit
# a 512 MiB guest with KASAN); the malformed notifications (the device
# fuzz test sends the same kinds and more); the request accuracy test (a
# 2 GiB guest, 95 s there) and the exactly-once answers (160 s there,
# against 47 s; the debug kernel still loads and attaches the request
# hook from vmlinux BTF in the reclaim test, and answers requests in the
# device fuzz test and the rebind cycles).
DEBUG_TESTS="
	balloon_probe_fails_*
	balloon_driver_removed_during_*
	balloon_kfuncs_*
	balloon_device_fuzz_*
	balloon_reclaim_*
	balloon_broken_ws_queue_*
	estimator_survives_daemon_sigkill"
# Not run on the patched kernel without sanitizers: they need the debug
# kernel (fault injection, lockdep), or they run on it already and the
# module build adds nothing to them (the rebind cycles with module reloads
# and the rest of the queue matrix stay there)
DEBUG_ONLY="balloon_probe_fails_* balloon_driver_removed_during_* balloon_kfuncs_* balloon_device_fuzz_*
	balloon_reclaim_* balloon_broken_ws_queue_*"
# On Debian's stock kernel with the series' virtio_balloon built by DKMS
# (vmtests/build-dkms.sh): the driver's interfaces and lifetime where it
# is a module built apart from its kernel.  The queue layout with every
# queue on, config then request, the exactly-once answers (daemon
# running, stopped, killed), reports on reclaim, unbind/bind with
# module reloads (2 cycles, one of each: the 20 on our kernel look for
# races in the same code), and inflation by free pageblocks (Debian's
# kernel sizes a pageblock by its huge page, ours by MAX_ORDER).  Not here: the other queue layouts and bin
# counts, the malformed notifications and the report header (the same
# code, kernel alone; each on our kernel), the balance tests (wsr-host's,
# not the guest's), and the debug-kernel-only ones.
STOCK_BALLOON_TESTS="
	balloon_queues_agree_with_ws_on_hint_on_reporting_on
	balloon_reports_reach_host_with_ws_on_hint_on_reporting_on
	balloon_request_after_config_*
	balloon_requests_answered_once_*
	balloon_reclaim_reports_*
	balloon_driver_unbind_rebind_*
	balloon_inflation_returns_*"
# The tests of our kernel (and Debian's) with no clock, in lane C (lane
# A, which times things, sets make check's pace): the balloon tests of
# what the guest and QEMU agree on, with waits and no deadline or race
# (the queue layouts and bin counts, 16 nodes, malformed notifications,
# migration, a guest's reboot), wsr's fuzzed arguments (each case under a limit of 10 s,
# which starts in 0.06 s) and the guest tests of the CLI's input, the pins,
# the maps' entries and walks
LANE_C_BALLOON="balloon_queues_agree_with_* balloon_reports_reach_host_* balloon_working_set_with_*
	balloon_answer_covers_every_node_* balloon_malformed_notifications_* balloon_migration_* balance_configures_a_guest_again_*"
LANE_C_GUEST="wsr_args_fuzz_* estimator_bad_input_* estimator_pinned_files_* pins_of_an_older_layout_*
	estimator_pin_dir_must_be_* estimator_reports_walk_* estimator_parent_is_sum_*
	estimator_removed_memcgs_leave_*"
# The guest tests on the stock kernel but those of STOCK_SKIP (see
# lane_a below), unless WSR_STOCK_TESTS chooses others; wsr fs's with
# the fuse module (vmtests/fetch-stock-kernel.sh)
STOCK_TESTS="estimator_* fs_* guest_* workload_*"
STOCK_SKIP="estimator_reports_walk_* estimator_reports_cover_* estimator_global_*
	estimator_eight_watchers_* estimator_reports_follow_*"
stock_skip() { [ -n "${WSR_STOCK_TESTS:-}" ] || echo "$STOCK_SKIP"; }
lanes=${WSR_CHECK_LANES:-3}
case "$lanes" in 1|3) ;; *) die "WSR_CHECK_LANES is 1 or 3, not '$lanes'" ;; esac
results=$BUILD/results
rm -rf "$results"
mkdir -p "$results"
: >"$results/meta"
# where verdicts go: this file, or in lanes B and C (below) one of their own,
# added to it when the lane ends, so that run_runner counts only its
# own lane's verdicts
all=$results/all
: >"$all"

# section TITLE: a section's header, with the time since make check began;
# the section before it ends there: its time goes to $results/sections
# ("SECONDS CPU-SECONDS TITLE" lines: wall-clock time, then what its
# processes used of the cores, which the other lanes do not stretch)
section_title="" section_t0="" section_cpu0=""
section() {
	section_end
	echo "== $* [$((SECONDS / 60))m$((SECONDS % 60))s]"
	section_title=$* section_t0=$EPOCHREALTIME
	children_cpu section_cpu0
}
section_end() {
	local cpu
	[ -n "$section_title" ] || return 0
	cpu_since "$section_cpu0" cpu
	echo "$(since "$section_t0") $cpu $section_title" >>"$results/sections"
	section_title=""
}

# since T0: seconds since T0 (an $EPOCHREALTIME), to 0.1 s
since() {
	awk -v t0="$1" -v t1="$EPOCHREALTIME" 'BEGIN { printf "%.1f", t1 - t0 }'
}

# record NAME PASS|FAIL [REASON]
record() {
	echo "$2 $1${3:+: $3}" | tee -a "$all"
}

# record_meta NAME REASON: a FAIL about the run rather than a test (a
# runner that stopped early, a selection that matched nothing): left out
# of the comparison with tests/inventory
record_meta() {
	echo "$1" >>"$results/meta"
	record "$1" FAIL "$2"
}

# record_lines PREFIX: turn "PASS name" / "FAIL name: reason" lines into
# records, and "TIME name SECONDS [CPU-SECONDS]" into a line "SECONDS
# PREFIX/name [CPU-SECONDS]" of $results/times; other lines are shown
# indented
record_lines() {
	local verdict rest name wall cpu
	while read -r verdict rest; do
		case "$verdict" in
		PASS) record "$1/${rest%%:*}" PASS ;;
		FAIL) record "$1/${rest%%:*}" FAIL "${rest#*: }" ;;
		TIME)
			read -r name wall cpu <<<"$rest"
			record_time "$1/$name" "$wall" "$cpu" ;;
		*) echo "    | $verdict $rest" ;;
		esac
	done
}

# record_time NAME SECONDS [CPU-SECONDS]: NAME took SECONDS, and used
# CPU-SECONDS of the cores (when its runner measured them)
record_time() {
	echo "$2 $1${3:+ $3}" >>"$results/times"
	echo "    | $1 took $2 s${3:+ ($3 s of CPU)}"
}

# run_runner PREFIX CMD...: record CMD's verdicts under PREFIX.  A runner
# that printed none, or exited non-zero with no FAIL (a set -u or an
# arithmetic abort, a crash), fails PREFIX/runner: the tests after the
# point where it stopped did not run.
run_runner() {
	local prefix=$1 start rc
	shift
	start=$(($(wc -l <"$all") + 1))
	"$@" 2>&1 | record_lines "$prefix"
	rc=${PIPESTATUS[0]}
	if [ "$(tail -n +"$start" "$all" | wc -l)" = 0 ]; then
		record_meta "$prefix/runner" "no test ran (status $rc): ${*#"$WSR_ROOT"/}"
	elif [ "$rc" != 0 ] && ! tail -n +"$start" "$all" | grep -q '^FAIL'; then
		record_meta "$prefix/runner" "exited with status $rc, no test failed: the tests after where it stopped did not run"
	fi
}

# the unit tests are tests/unit/*.c, each built as $BUILD/unit/NAME: a
# binary left behind by a removed source is not run
run_unit_tests() {
	local src t t0 c0 cpu
	for src in "$WSR_ROOT"/tests/unit/*.c; do
		t=$BUILD/unit/$(basename "$src" .c)
		if [ ! -x "$t" ]; then
			record_meta "unit/${t##*/}/runner" "not built: no $t (make all builds it)"
			continue
		fi
		t0=$EPOCHREALTIME
		children_cpu c0
		run_runner "unit/${t##*/}" "$t"
		cpu_since "$c0" cpu
		record_time "unit/${t##*/}" "$(since "$t0")" "$cpu" >/dev/null
	done
}

# run_guest_suite LABEL KERNEL PATTERNS: one guest runs the matching tests,
# their verdicts under guest-LABEL/; a second suite of one LABEL (in
# another lane) sets suite_part, which names its logs apart
run_guest_suite() {
	local label=$1 kernel=$2 rc opts=()
	local log=$results/console-$1${suite_part:+-$suite_part}.log
	local err=$results/run-$1${suite_part:+-$suite_part}.err
	shift 2
	section "guest tests ($label kernel): console log $log"
	# 512 MiB on the debug kernel: its tests need little, and kmemleak's
	# scans after them take time in proportion to memory
	[ "$kernel" != debug ] || opts=(--node-mem 256)
	WSR_KVM=${WSR_KVM:-0} "$WSR_ROOT"/vmtests/run --kernel "$kernel" --quiet "${opts[@]}" \
		--log "$log" --timeout "${WSR_SUITE_TIMEOUT:-2400}" -- run-tests "$@" 2>"$err"
	rc=$?
	grep -a '^    | ' "$log" | tr -d '\r'
	grep -a '^wsr-test: \(PASS\|FAIL\|TIME\)' "$log" | tr -d '\r' | sed 's/^wsr-test: //' |
		record_lines "guest-$label"
	if ! grep -aq '^wsr-test: \(PASS\|FAIL\)' "$log"; then
		record_meta "guest-$label/runner" "no test ran (patterns: $*)"
	fi
	if [ "$kernel" = debug ]; then
		# vmtests/run's verdict on the sanitizers' reports
		if [ "$rc" = 123 ]; then
			record "guest-$label/no-sanitizer-reports" FAIL \
				"$(grep -a -A1 '^wsr: sanitizer report' "$err" | tail -n 1)"
			return
		fi
		record "guest-$label/no-sanitizer-reports" PASS
	fi
	if ! grep -aq '^wsr-test: guest summary' "$log"; then
		# the guest died before the suite finished: say how, and show
		# the console's stack after a panic (CI keeps no console log)
		record_meta "guest-$label/suite-completed" "$(run_verdict "$err")"
		sed -n '/^wsr: kernel panic/,$p' "$err" | tail -n +2 | sed 's/^/    | /'
	elif [ "$rc" != 0 ] && ! grep -aq '^wsr-test: FAIL' "$log"; then
		record_meta "guest-$label/suite-completed" "status $rc: $(run_verdict "$err")"
	fi
}

# run_verdict ERR: what vmtests/run said of a guest run, its last "wsr:"
# line (a panic's report follows it), else ERR's last line
run_verdict() {
	grep -a '^wsr: ' "$1" | tail -n 1 | grep . || tail -n 1 "$1"
}

# check_exposition LABEL: promtool check metrics on the exposition that
# the guest test metrics_equal_show_* printed on the console of suite
# LABEL between its markers, if that test ran there.  promtool stays on
# the host: it is 48 MB and linked to glibc, too much for every test
# guest's initramfs.  promtool passes an empty text: one without both
# markers or without a sample fails here.  Then the same file, as the
# guest wrote it, through node_exporter's textfile collector to a
# Prometheus server (vmtests/prometheus-test.sh --guest-exposition).
check_exposition() {
	local log=$results/console-$1.log out=$results/metrics-$1.prom promtool
	local name=guest-$1/metrics_exposition_passes_promtool
	grep -q "^[A-Z]* guest-$1/metrics_equal_show_" "$all" || return 0
	tr -d '\r' <"$log" |
		sed -n '/^wsr-metrics-exposition: begin$/,/^wsr-metrics-exposition: end$/p' >"$out"
	if [ "$(head -n 1 "$out")" != "wsr-metrics-exposition: begin" ] ||
		[ "$(tail -n 1 "$out")" != "wsr-metrics-exposition: end" ]; then
		record "$name" FAIL "the metrics test printed no exposition between begin and end markers"
		record "guest-$1/guest_metrics_reach_prometheus_through_the_textfile_collector" FAIL \
			"no exposition to serve (see $name)"
		return
	fi
	sed -i '1d;$d' "$out"
	if ! grep -q '^wsr_[a-z_]*{.*} [0-9]' "$out"; then
		record "$name" FAIL "no wsr_ sample in the exposition (the text: $out)"
	elif ! promtool=$("$WSR_ROOT"/vmtests/get-promtool.sh 2>"$out.check"); then
		record "$name" FAIL "$(tail -n 1 "$out.check")"
	elif "$promtool" check metrics <"$out" >"$out.check" 2>&1; then
		record "$name" PASS
	else
		record "$name" FAIL \
			"$(head -c 300 "$out.check" | tr '\n' ' ')(the text: $out)"
	fi
	run_runner "guest-$1" "$WSR_ROOT"/vmtests/prometheus-test.sh --guest-exposition "$out"
}

# Kernels and QEMU first, so that no test waits for a build: each is
# cached by its inputs, and built here only when they changed.
section "builds (each kernel about 7.5 min from clean, each QEMU 3-4.5; cached by their inputs)"
for b in "build-kernel.sh ours" "build-kernel.sh debug" "build-qemu.sh plain" \
	"build-qemu.sh asan" "build-dkms.sh"; do
	# its progress on stderr shown, the folder it prints dropped
	# shellcheck disable=SC2086
	"$WSR_ROOT"/vmtests/$b 2>&1 >/dev/null | tee "$results/build.out" | sed 's/^/    | /'
	if [ "${PIPESTATUS[0]}" = 0 ]; then
		record "build/${b// /-}" PASS
	else
		record "build/${b// /-}" FAIL "$(tail -n 1 "$results/build.out")"
	fi
done

# alone on the machine: each case's 0.3 s limit is wall-clock time
# (vmtests/fuzz-host-args.sh)
section "wsr-host's arguments fuzzed (ASan and UBSan; a stopped QEMU)"
run_runner host-fuzz "$WSR_ROOT"/vmtests/fuzz-host-args.sh --cases "${WSR_HOST_FUZZ_CASES:-500}"
# every balloon test's name; none is an error, not an empty section
if ! balloon_list=$("$WSR_ROOT"/vmtests/balloon-test.sh --list 2>"$results/balloon-list.err") ||
	[ -z "$balloon_list" ]; then
	record_meta host-balloon/list \
		"vmtests/balloon-test.sh --list named no test: $(tail -n 1 "$results/balloon-list.err")"
fi
# balloon_tests PATTERNS SKIP: the balloon tests whose names match one of
# PATTERNS (and one of WSR_BALLOON_TESTS, if set) and none of SKIP
balloon_tests() {
	local - n p
	set -f
	for n in $balloon_list; do
		# shellcheck disable=SC2254 # patterns, on purpose
		for p in $2; do case "$n" in $p) continue 2 ;; esac; done
		# shellcheck disable=SC2086 # pattern lists, split on purpose (no globbing: set -f)
		matches "$n" $1 && matches "$n" ${WSR_BALLOON_TESTS:-'*'} && echo "$n"
	done
}

# guest_tests PATTERNS ALSO SKIP: the guest tests (tests/guest/test_NAME.sh)
# whose NAME matches one of PATTERNS and one of ALSO, and none of SKIP
# (each a list of shell patterns; SKIP may be empty)
guest_tests() {
	local -
	local t tests=("$WSR_ROOT"/tests/guest/test_*.sh)
	set -f
	for t in "${tests[@]}"; do
		t=${t##*/test_}
		t=${t%.sh}
		# shellcheck disable=SC2086 # pattern lists, split on purpose
		matches "$t" $1 && matches "$t" $2 && ! matches "$t" $3 && echo "$t"
	done
}

# matches NAME PATTERN...: NAME matches one of the shell PATTERNs
matches() {
	local n=$1 p
	shift
	# shellcheck disable=SC2254 # patterns, on purpose
	for p in "$@"; do case "$n" in $p) return 0 ;; esac; done
	return 1
}

# By default the sections after the builds and wsr-host's fuzzed
# arguments run in three lanes at once (WSR_CHECK_LANES=1: one after the
# other).  Lane A has the host's unit, QMP and qtest tests, the tests
# that time the host or the guest (balance's decisions within 150 ms,
# deflation within 2 s, the estimator's bins on our kernel and Debian's)
# and those that look for races between the guest's two CPUs (the knobs
# test's lost updates, the balloon's unbind and attach races), at the
# normal priority, each guest with a host thread per vCPU.  Lane B runs
# at nice 5 (a third of lane A's share of a busy core), lane C at nice 15
# (a tenth of lane B's), each guest on one host thread
# (WSR_TCG_THREAD=single), where a vCPU that spins on the other's lock
# gives way at once.  Lane B: every test on the debug kernel (built to
# be slow: its tests already allow for a kernel three times slower; the
# sanitizers see what a path does, with one CPU or two) and the balloon
# tests on Debian's kernel (the same tests as on the debug kernel, or
# tests with no deadline).  Lane C: the tests with no clock of our
# kernel and Debian's (LANE_C_*), the harness's own tests (its guests
# under timeouts of 6 s or more, for a hung guest), lint and make
# check's own bookkeeping.  Lanes B and C run on what lane A
# leaves: with two lanes (C's tests in A and B), a fifth of the two
# cores' time went unused while both ran, and 60% once lane B had ended,
# lane A's tests waiting on the clock.  With one thread per guest in
# every lane, the knobs test no longer found the lost updates of a "wsr
# set" without the folder's lock, which it finds at its second kill with
# a thread per vCPU (docs/testing.md).

# lane_a: the tests that time things, at the normal priority
lane_a() {
	local ours_balloon ours_guest stock_guest
	section "host unit tests"
	run_unit_tests
	run_runner build-progress "$WSR_ROOT"/vmtests/progress-test.sh
	section "host QMP tests (QEMU working-set device, no guest)"
	run_runner host-qmp "$WSR_ROOT"/vmtests/qmp-test.sh
	# it times QEMU's events (1 s apart, 10 ms of slack): at nice 15 in
	# lane C it saw two 986 ms apart
	section "QEMU device qtest (a hostile guest driver; ASan and UBSan)"
	run_runner qemu "$WSR_ROOT"/vmtests/qtest-balloon.sh
	ours_balloon=$(balloon_tests '*' "$DEBUG_ONLY $LANE_C_BALLOON")
	if [ -n "$ours_balloon" ]; then
		section "host balloon tests (working-set transport, patched kernel and QEMU)"
		run_runner host-balloon env WSR_BALLOON_TESTS="$ours_balloon" "$WSR_ROOT"/vmtests/balloon-test.sh
	fi
	ours_guest=$(guest_tests "${WSR_TESTS:-*}" '*' "$LANE_C_GUEST")
	if [ -n "$ours_guest" ]; then
		# shellcheck disable=SC2086 # one name a word
		run_guest_suite ours ours $ours_guest
		check_exposition ours
	fi
	section "the DKMS module for Debian's stock kernel"
	run_runner dkms "$WSR_ROOT"/vmtests/dkms-test.sh
	# one libvirtd of the tests' own for every libvirt test (vmtests/libvirt-lib.sh)
	section "libvirt (wsr-host through a libvirtd of the tests' own), make install and the systemd units, docs/deploy.md's commands"
	run_runner install "$WSR_ROOT"/vmtests/install-test.sh
	if [ "${WSR_LIBVIRT_TESTS:-}" != none ]; then
		run_runner host-libvirt "$WSR_ROOT"/vmtests/libvirt-test.sh
	fi
	# docs/deploy.md's commands against a libvirtd of its own: here, not
	# in a niced lane, as its dry run is 20 s of wall-clock time (lane A
	# ends before lane B, which sets make check's end)
	run_runner deploy "$WSR_ROOT"/vmtests/deploy-doc-test.sh
	# the estimator and wsr fs on Debian's stock kernel: every estimator
	# and fs test but those of the report walk's size and reclaim triggers,
	# which run on our kernel (the same BPF; the attach points are checked
	# on stock by every test), to keep make check within its time budget
	stock_guest=$(guest_tests "${WSR_STOCK_TESTS:-$STOCK_TESTS}" '*' "$(stock_skip) $LANE_C_GUEST")
	# shellcheck disable=SC2086 # one name a word
	[ -z "$stock_guest" ] || run_guest_suite stock stock $stock_guest
}

# lane_b: the tests on the debug kernel and Debian's
lane_b() {
	local debug_balloon debug_guest stock_balloon
	debug_balloon=$(balloon_tests "${WSR_DEBUG_TESTS:-$DEBUG_TESTS}" "")
	if [ -n "$debug_balloon" ]; then
		section "host balloon tests on the debug kernel (sanitizers)"
		run_runner host-balloon-debug env WSR_BALLOON_KERNEL=debug WSR_BALLOON_TESTS="$debug_balloon" \
			"$WSR_ROOT"/vmtests/balloon-test.sh
	fi
	debug_guest=$(guest_tests "${WSR_DEBUG_TESTS:-$DEBUG_TESTS}" '*' '')
	# shellcheck disable=SC2086 # one name a word
	[ -z "$debug_guest" ] || run_guest_suite debug debug $debug_guest
	stock_balloon=$(balloon_tests "$STOCK_BALLOON_TESTS" "")
	if [ -n "$stock_balloon" ]; then
		section "host balloon tests on Debian's stock kernel with the DKMS module"
		run_runner host-balloon-stock env WSR_BALLOON_KERNEL=stock-dkms WSR_BALLOON_CYCLES=2 \
			WSR_BALLOON_TESTS="$stock_balloon" "$WSR_ROOT"/vmtests/balloon-test.sh
	fi
}

# lane_c: our kernel's tests with no clock, the harness's own tests and
# those with no guest
lane_c() {
	local ours_balloon ours_guest stock_guest
	ours_balloon=$(balloon_tests "$LANE_C_BALLOON" "")
	if [ -n "$ours_balloon" ]; then
		section "host balloon tests with no clock (our kernel)"
		run_runner host-balloon env WSR_BALLOON_TESTS="$ours_balloon" "$WSR_ROOT"/vmtests/balloon-test.sh
	fi
	ours_guest=$(guest_tests "${WSR_TESTS:-*}" "$LANE_C_GUEST" '')
	# shellcheck disable=SC2086 # one name a word
	[ -z "$ours_guest" ] || suite_part=c run_guest_suite ours ours $ours_guest
	stock_guest=$(guest_tests "${WSR_STOCK_TESTS:-$STOCK_TESTS}" "$LANE_C_GUEST" "$(stock_skip)")
	# shellcheck disable=SC2086 # one name a word
	[ -z "$stock_guest" ] || suite_part=c run_guest_suite stock stock $stock_guest
	if [ "${WSR_SKIP_SELFTEST:-0}" != 1 ]; then
		section "harness tests"
		run_runner harness "$WSR_ROOT"/vmtests/selftest.sh
	fi
	section "a fleet's Prometheus: the rules under promtool, a server scraping two balance hosts"
	run_runner prometheus "$WSR_ROOT"/vmtests/prometheus-test.sh
	section "lint (shellcheck on every shell file; each project's checkpatch.pl on its series)"
	run_runner lint "$WSR_ROOT"/vmtests/lint.sh
	section "make check's own bookkeeping (a stub tree)"
	run_runner check "$WSR_ROOT"/vmtests/check-test.sh
}

# kill_tree PID: PID and every process under it (lanes B's and C's guests, when
# make check is interrupted)
kill_tree() {
	local c
	for c in $(pgrep -P "$1"); do kill_tree "$c"; done
	kill "$1" 2>/dev/null
}

# start_lane NAME NICE WHAT: lane_NAME beside lane A, at nice NICE, its
# guests on a host thread each; its output to $results/lane-NAME.log, its
# verdicts to a file of its own (end_lane shows and adds them)
lane_pids=()
start_lane() {
	echo "== lane ${1^^} starts beside the rest, at nice $2: $3; its output goes to" \
		"$results/lane-$1.log, shown when every lane has ended"
	(
		renice -n "$2" -p "$BASHPID" >/dev/null
		# a host thread per guest, not one per vCPU: four vCPU threads
		# on two cores spun on each other's locks (docs/testing.md).
		# Lane A's keep a thread per vCPU, so that its race tests have
		# two CPUs at once
		export WSR_TCG_THREAD=${WSR_TCG_THREAD:-single}
		# shellcheck disable=SC2030 # this lane's own verdicts file, on purpose
		all=$results/all-lane-$1
		: >"$all"
		"lane_$1"
		section_end
		# when it ended: the parent learns it only once lane A has too
		echo "$SECONDS" >"$results/lane-$1.end"
		# non-zero only when the lane stopped early (a set -u abort, a kill)
		exit 0
	) >"$results/lane-$1.log" 2>&1 &
	lane_pids+=("$!")
}

# end_lane NAME PID: wait for the lane, show its output, count its verdicts
end_lane() {
	local rc end
	wait "$2"
	rc=$?
	end=$(cat "$results/lane-$1.end" 2>/dev/null) || end=$SECONDS
	echo "== lane ${1^^}'s output (it ended at $((end / 60))m$((end % 60))s)"
	cat "$results/lane-$1.log"
	cat "$results/all-lane-$1" >>"$results/all" 2>/dev/null
	if [ "$rc" != 0 ] && ! grep -q '^FAIL' "$results/all-lane-$1" 2>/dev/null; then
		record_meta "lane-$1/runner" "lane ${1^^} exited with status $rc, no test failed: the tests after where it stopped did not run"
	fi
}

case "$lanes" in
1)
	lane_a
	lane_b
	lane_c
	;;
3)
	# the section before the lanes ends here, not in each lane
	section_end
	# the cores are busy all along: lane B, one guest after another, the
	# longest, well ahead of lane C, which takes what A and B leave (with
	# B at nice 10 and C at 15, B ended at 16.1 minutes, C at 13.4, A at
	# 13.5).  Not C lower: its guest fuzz gives each case 10 s, whose
	# start needs 0.06 s of a core
	start_lane b 5 "the debug kernel's tests and the balloon tests on Debian's kernel"
	start_lane c 15 "the tests with no clock, the harness's tests, lint and check's bookkeeping"
	trap 'for p in "${lane_pids[@]}"; do kill_tree "$p"; done' EXIT
	# in a subshell of its own: lanes B and C are this shell's children,
	# and their CPU time, counted when they end, would go to lane A's
	# section of the time (children_cpu)
	# (set -u's abort there ends the subshell, not make check: said here)
	(
		lane_a
		section_end
	)
	lane_a_rc=$?
	[ "$lane_a_rc" = 0 ] ||
		record_meta lane-a/runner "lane A exited with status $lane_a_rc: the tests after where it stopped did not run"
	echo "== lane A ended at $((SECONDS / 60))m$((SECONDS % 60))s"
	end_lane b "${lane_pids[0]}"
	end_lane c "${lane_pids[1]}"
	trap - EXIT
	;;
esac
section_end
echo "== done [$((SECONDS / 60))m$((SECONDS % 60))s]"
# where the time went: each section, then the slowest tests (a balloon
# test's time is its guest's, boot to power-off; a unit test's is its
# binary's)
echo "time per section (s, then s of CPU; $results/sections):"
sed 's/^/  /' "$results/sections"
echo "slowest tests (s, then s of CPU where measured; all in $results/times):"
sort -rn "$results/times" 2>/dev/null | head -n 15 | sed 's/^/  /'
# every test that ran is in tests/inventory, and every one there that
# the patterns select ran
inventory=$("$WSR_ROOT"/vmtests/inventory.sh "$results/all" "$results/meta" 2>&1)
rc=$?
[ -z "$inventory" ] || grep '^FAIL ' <<<"$inventory" | tee -a "$results/all"
grep -q '^FAIL ' <<<"$inventory" || [ "$rc" = 0 ] ||
	record_meta inventory/check "vmtests/inventory.sh: status $rc: $(tail -n 1 <<<"$inventory")"
passed=$(grep -c '^PASS' "$results/all")
failed=$(grep -c '^FAIL' "$results/all")
if [ "$failed" != 0 ]; then
	echo "failed tests:"
	grep '^FAIL' "$results/all" | sed 's/^/  /'
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
