#!/usr/bin/env bash
# Tests of make check's own bookkeeping (vmtests/check.sh with
# vmtests/inventory.sh): check.sh runs in a stub tree whose runners print
# canned verdicts in a second, and must fail a run where a test could
# otherwise vanish, run twice or pass unseen: a runner that stops early with no FAIL,
# an empty balloon test list, a renamed test, a pattern that matches
# nothing, an empty metrics exposition, a unit test with no binary.  A
# clean run and a restricted one pass, and a stale unit binary with no
# source does not run.  A script check.sh calls that the stub tree lacks
# fails the clean run: stub it here.
#
# Prints "PASS name" or "FAIL name: reason"; exits non-zero on any FAIL.
set -u
. "$(dirname "$0")/lib.sh"
# verdict: the vocabulary every test shares
# shellcheck source=../tests/testlib.sh
. "$WSR_ROOT/tests/testlib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# stub FILE BODY: an executable bash script FILE running BODY
stub() {
	printf '#!/usr/bin/env bash\n%s\n' "$2" >"$1"
	chmod +x "$1"
}

# tree DIR: a stub repository in DIR with its tests/inventory.  Runners
# take the environment: STUB_ABORT=RUNNER makes that runner print one
# verdict and exit 3, STUB_EMPTY_LIST=1 empties balloon-test.sh --list,
# STUB_EXPOSITION=empty prints the markers around nothing, STUB_PANIC=1
# makes every guest panic before its first test, as vmtests/run says.
tree() {
	local d=$1 f
	mkdir -p "$d/vmtests" "$d/tests/unit" "$d/tests/guest" "$d/tests/balloon" "$d/build/unit"
	for f in check.sh inventory.sh lib.sh progress.sh; do cp "$WSR_ROOT/vmtests/$f" "$d/vmtests/"; done
	cp "$WSR_ROOT/tests/testlib.sh" "$d/tests/"
	stub "$d/vmtests/build-kernel.sh" 'echo /nowhere'
	stub "$d/vmtests/build-qemu.sh" 'echo /nowhere'
	stub "$d/vmtests/build-dkms.sh" 'echo /nowhere'
	# runners printing PASS per test (SCRIPT TEST...)
	local r w
	for r in "progress-test.sh p_one p_two" "check-test.sh c_one" "qmp-test.sh q_one" "lint.sh l_one" \
		"qtest-balloon.sh t_one" "selftest.sh h_one h_two" "fuzz-host-args.sh f_one" "dkms-test.sh d_one" \
		"install-test.sh i_one" "libvirt-test.sh v_one" "deploy-doc-test.sh e_one"; do
		read -r -a w <<<"$r"
		# shellcheck disable=SC2016 # the stub's own expansions
		stub "$d/vmtests/${w[0]}" "n=${w[0]%.sh}; tests=(${w[*]:1})"'
echo "PASS ${tests[0]}"
[ "${STUB_ABORT:-}" != "$n" ] || exit 3
for t in "${tests[@]:1}"; do echo "PASS $t"; done'
	done
	# the guest's exposition through the textfile collector: a test of its
	# own, run once the metrics test printed one
	# shellcheck disable=SC2016 # the stub's own expansions
	stub "$d/vmtests/prometheus-test.sh" 'if [ "${1:-}" = --guest-exposition ]; then
	grep -q "^wsr_" "$2" && echo "PASS guest_metrics_reach_prometheus_through_the_textfile_collector"
	exit
fi
echo "PASS m_one"
[ "${STUB_ABORT:-}" != prometheus-test ] || exit 3'
	# shellcheck disable=SC2016 # the stub's own expansions
	stub "$d/vmtests/balloon-test.sh" 'set -f
all="balloon_works balloon_works_on_debug_only balloon_queues_agree_with_x"
if [ "${1:-}" = --list ]; then [ -n "${STUB_EMPTY_LIST:-}" ] || printf "%s\n" $all; exit 0; fi
n=0
for t in $all; do
	for p in ${WSR_BALLOON_TESTS:-*}; do
		case $t in $p) echo "PASS $t"; n=$((n + 1)); break ;; esac
	done
	[ "${STUB_ABORT:-}" != balloon-test ] || [ "$n" = 0 ] || exit 3
done'
	# vmtests/run -- run-tests PATTERN...: the guest tests matching the
	# patterns pass, on the console log
	# shellcheck disable=SC2016 # the stub's own expansions
	stub "$d/vmtests/run" 'while [ "$1" != -- ]; do [ "$1" != --log ] || log=$2; shift; done
shift 2
if [ -n "${STUB_PANIC:-}" ]; then
	echo "wsr-init: up" >"$log"
	printf "%s\n" "wsr: kernel panic in the guest (console log: $log):" \
		"rcu: INFO: rcu_sched detected stalls on CPUs/tasks:" "RIP: 0010:stuck_here+0x1/0x2" \
		"Kernel panic - not syncing: RCU Stall" >&2
	exit 125
fi
dir=$(dirname "$0")/../tests/guest
{
	for f in "$dir"/test_*.sh; do
		t=${f##*/test_}; t=${t%.sh}
		for p in "$@"; do
			case $t in $p) ;; *) continue ;; esac
			echo "wsr-test: PASS $t"
			[ "$t" != metrics_shown ] || [ "${STUB_EXPOSITION:-}" = empty ] ||
				printf "wsr-metrics-exposition: begin\r\nwsr_x{a=\"b\"} 1\r\n"
			[ "$t" != metrics_shown ] || echo "wsr-metrics-exposition: end"
			break
		done
	done
	echo "wsr-test: guest summary"
} >"$log"'
	stub "$d/vmtests/get-promtool.sh" "echo $d/promtool"
	stub "$d/promtool" 'cat >/dev/null'
	for f in a b; do
		: >"$d/tests/unit/test_$f.c"
		stub "$d/build/unit/test_$f" "echo PASS ${f}_one"
	done
	for f in estimator_a estimator_survives_daemon_sigkill metrics_shown; do
		: >"$d/tests/guest/test_$f.sh"
	done
	# check.sh's lists by name: a debug-only balloon test, one on the stock
	# kernel too, a metrics test
	sed -i 's/^DEBUG_ONLY="/&balloon_works_on_debug_only /; s/^DEBUG_TESTS="/&balloon_works_on_debug_only /
		s/^STOCK_BALLOON_TESTS="/&balloon_works /
		s/^LANE_C_GUEST="/&estimator_a /
		s/metrics_equal_show_/metrics_shown/' "$d/vmtests/check.sh"
	sed -i 's|^promtool_of=.*|promtool_of=guest-ours/metrics_shown|' "$d/vmtests/inventory.sh"
	cat >"$d/tests/inventory" <<-EOF
	# the stub tree's tests
	build/build-dkms.sh
	build/build-kernel.sh-debug
	build/build-kernel.sh-ours
	build/build-qemu.sh-asan
	build/build-qemu.sh-plain
	build-progress/p_one
	build-progress/p_two
	check/c_one
	deploy/e_one
	dkms/d_one
	guest-debug/estimator_survives_daemon_sigkill
	guest-debug/no-sanitizer-reports
	guest-ours/estimator_a
	guest-ours/estimator_survives_daemon_sigkill
	guest-ours/guest_metrics_reach_prometheus_through_the_textfile_collector
	guest-ours/metrics_exposition_passes_promtool
	guest-ours/metrics_shown
	guest-stock/estimator_a
	guest-stock/estimator_survives_daemon_sigkill
	harness/h_one
	harness/h_two
	host-fuzz/f_one
	host-balloon-debug/balloon_works_on_debug_only
	host-balloon-stock/balloon_works
	host-balloon/balloon_queues_agree_with_x
	host-balloon/balloon_works
	host-libvirt/v_one
	host-qmp/q_one
	install/i_one
	lint/l_one
	prometheus/m_one
	qemu/t_one
	unit/test_a/a_one
	unit/test_b/b_one
	EOF
}

# check NAME WANT-STATUS REGEX... [-- ENV=VALUE...]: check.sh in a fresh
# stub tree (after the tree's changes in $change, if set) exits
# WANT-STATUS with a line matching each (extended) REGEX
check() {
	local name=$1 want=$2 d=$tmp/$1 out rc re res=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do res+=("$1"); shift; done
	[ $# = 0 ] || shift
	tree "$d"
	[ -z "${change:-}" ] || (cd "$d" && eval "$change")
	out=$(cd "$d" && env -u WSR_TESTS -u WSR_BALLOON_TESTS -u WSR_DEBUG_TESTS -u WSR_STOCK_TESTS \
		-u WSR_SKIP_SELFTEST -u WSR_INVENTORY -u WSR_CHECK_LANES -u WSR_LIBVIRT_TESTS BUILD="$d/build" "$@" vmtests/check.sh 2>&1)
	rc=$?
	if [ "$rc" != "$want" ]; then
		verdict "$name" "check.sh exited $rc, expected $want: $(tail -n 8 <<<"$out" | tr '\n' '|')"
		return
	fi
	for re in "${res[@]}"; do
		grep -qE -- "$re" <<<"$out" ||
			{ verdict "$name" "no line like '$re' in: $(grep -E '^(PASS|FAIL)|passed' <<<"$out" | tr '\n' '|')"; return; }
	done
	verdict "$name"
}

# two at a time (the machine's two cores), verdicts in the order below
n=0 running=0
lane() {
	n=$((n + 1))
	if [ "$running" -ge 2 ]; then
		wait -n
		running=$((running - 1))
	fi
	"$@" >"$tmp/$(printf %02d $n).res" &
	running=$((running + 1))
}

change="" lane check a_clean_run_of_every_listed_test_passes 0 '^34 passed, 0 failed$'
change="" lane check one_lane_runs_every_listed_test_too 0 '^34 passed, 0 failed$' -- WSR_CHECK_LANES=1
change="" lane check a_guest_panic_fails_the_run_and_shows_its_stack 1 \
	'^FAIL guest-ours/suite-completed: wsr: kernel panic in the guest' \
	'^    \| RIP: 0010:stuck_here' '^FAIL guest-ours/estimator_a: listed in tests/inventory, but did not run$' \
	-- STUB_PANIC=1
change="" lane check a_lane_count_other_than_1_or_3_is_refused 1 "WSR_CHECK_LANES is 1 or 3, not '2'" -- \
	WSR_CHECK_LANES=2
change='sed -i "/^lane_b() {/a exit 9" vmtests/check.sh' lane check a_lane_b_that_stops_fails_the_run 1 \
	'^FAIL lane-b/runner: lane B exited with status 9, no test failed' \
	'^FAIL host-balloon-debug/balloon_works_on_debug_only: listed in tests/inventory, but did not run$' -- \
	WSR_CHECK_LANES=3
change='sed -i "/^lane_a() {/a exit 9" vmtests/check.sh' lane check a_lane_a_that_stops_fails_the_run 1 \
	'^FAIL lane-a/runner: lane A exited with status 9' \
	'^FAIL build-progress/p_two: listed in tests/inventory, but did not run$' -- WSR_CHECK_LANES=3
change='sed -i "/^lane_c() {/a exit 9" vmtests/check.sh' lane check a_lane_c_that_stops_fails_the_run 1 \
	'^FAIL lane-c/runner: lane C exited with status 9, no test failed' \
	'^FAIL harness/h_one: listed in tests/inventory, but did not run$' -- WSR_CHECK_LANES=3
# shellcheck disable=SC2016 # check.sh's own text, not expanded here
change='sed -i "s/\"\$DEBUG_ONLY \$LANE_C_BALLOON\"/\"\$DEBUG_ONLY\"/" vmtests/check.sh' \
	lane check a_test_run_twice_fails_the_run 1 \
	'^FAIL inventory/host-balloon/balloon_queues_agree_with_x: ran twice'
change="" lane check a_restricted_run_expects_only_what_it_selects 0 '^19 passed, 0 failed$' -- \
	WSR_TESTS=estimator_a WSR_BALLOON_TESTS=none WSR_DEBUG_TESTS=none WSR_STOCK_TESTS=none \
	WSR_SKIP_SELFTEST=1 WSR_LIBVIRT_TESTS=none
change="" lane check a_runner_that_stops_with_no_fail_fails_the_run 1 \
	'^FAIL build-progress/runner: exited with status 3, no test failed' \
	'^FAIL build-progress/p_two: listed in tests/inventory, but did not run$' -- STUB_ABORT=progress-test
change="" lane check a_balloon_runner_that_stops_fails_the_run 1 \
	'^FAIL host-balloon-debug/runner: exited with status 3' -- \
	STUB_ABORT=balloon-test WSR_BALLOON_TESTS='balloon_works_on_*'
change="" lane check an_empty_balloon_list_fails_the_run 1 '^FAIL host-balloon/list: ' \
	'^FAIL host-balloon/balloon_works: listed in tests/inventory, but did not run$' -- STUB_EMPTY_LIST=1
change='mv tests/guest/test_estimator_a.sh tests/guest/test_estimator_b.sh' \
	lane check a_renamed_test_fails_the_run 1 \
	'^FAIL inventory/guest-ours/estimator_b: ran, but tests/inventory does not list it' \
	'^FAIL guest-ours/estimator_a: listed in tests/inventory, but did not run$' \
	'^FAIL inventory/guest-stock/estimator_b: '
change="" lane check a_pattern_that_matches_nothing_fails_the_run 1 \
	"^FAIL selection/WSR_TESTS: pattern 'estimator_c\*' matches no test that ran$" \
	"^FAIL selection/WSR_BALLOON_TESTS: pattern 'nothing' matches no test that ran$" -- \
	WSR_TESTS='estimator_a estimator_c*' WSR_BALLOON_TESTS=nothing
change="" lane check an_empty_metrics_exposition_fails_the_run 1 \
	'^FAIL guest-ours/metrics_exposition_passes_promtool: the metrics test printed no exposition' -- \
	STUB_EXPOSITION=empty
change='rm build/unit/test_b' lane check a_unit_test_not_built_fails_the_run 1 \
	'^FAIL unit/test_b/runner: not built' '^FAIL unit/test_b/b_one: listed in tests/inventory, but did not run$'
change='cp build/unit/test_b build/unit/test_gone' lane check a_stale_unit_binary_does_not_run 0 \
	'^34 passed, 0 failed$'
change='sed -i "/^#/!d" tests/inventory' lane check an_empty_inventory_fails_the_run 1 \
	'^FAIL inventory/list: .* lists no test$'
change='sed -i "/^set -u/a exit 7" vmtests/inventory.sh' lane check an_inventory_check_that_stops_fails_the_run 1 \
	'^FAIL inventory/check: vmtests/inventory.sh: status 7'
wait
cat "$tmp"/*.res | tee "$tmp/all"
! grep -q '^FAIL' "$tmp/all"
