#!/usr/bin/env bash
# The test suite behind "make check": host unit tests, the harness's own
# tests, the guest tests on the patched kernel and the estimator tests on
# Debian's stock kernel.  Prints one line per test and ends with
# "N passed, N failed"; exits non-zero on any failure.
#
#   WSR_TESTS="pattern ..."  run only the guest tests matching the patterns
#   WSR_BALLOON_TESTS="pattern ..."  only the matching balloon tests
#                            (vmtests/balloon-test.sh --list names them)
#   WSR_SKIP_SELFTEST=1      skip the harness's own tests (for quick runs)
set -u
. "$(dirname "$0")/lib.sh"

BUILD=${BUILD:-$WSR_ROOT/build}
results=$BUILD/results
rm -rf "$results"
mkdir -p "$results"

# record NAME PASS|FAIL [REASON]
record() {
	echo "$2 $1${3:+: $3}" | tee -a "$results/all"
}

# record_lines PREFIX: turn "PASS name" / "FAIL name: reason" lines into
# records; other lines are shown indented
record_lines() {
	local verdict rest
	while read -r verdict rest; do
		case "$verdict" in
		PASS) record "$1/${rest%%:*}" PASS ;;
		FAIL) record "$1/${rest%%:*}" FAIL "${rest#*: }" ;;
		*) echo "    | $verdict $rest" ;;
		esac
	done
}

run_unit_tests() {
	local t rc
	for t in "$BUILD"/unit/*; do
		[ -x "$t" ] || continue
		"$t" 2>&1 | record_lines "unit/${t##*/}"
		rc=${PIPESTATUS[0]}
		[ "$rc" = 0 ] || grep -q "^FAIL unit/${t##*/}/" "$results/all" ||
			record "unit/${t##*/}" FAIL "exited with status $rc"
	done
}

# run_guest_suite LABEL KERNEL PATTERNS: one guest runs the matching tests
run_guest_suite() {
	local label=$1 kernel=$2 log=$results/console-$1.log rc
	shift 2
	echo "== guest tests ($label kernel): console log $log"
	WSR_KVM=${WSR_KVM:-0} "$WSR_ROOT"/vmtests/run --kernel "$kernel" --quiet \
		--log "$log" --timeout "${WSR_SUITE_TIMEOUT:-2400}" -- run-tests "$@" 2>"$results/run-$label.err"
	rc=$?
	grep -a '^    | ' "$log" | tr -d '\r'
	grep -a '^wsr-test: \(PASS\|FAIL\)' "$log" | tr -d '\r' | sed 's/^wsr-test: //' |
		record_lines "guest-$label"
	if ! grep -aq '^wsr-test: guest summary' "$log"; then
		# the guest died before the suite finished: say how
		record "guest-$label/suite-completed" FAIL "$(tail -n 1 "$results/run-$label.err")"
	elif [ "$rc" != 0 ] && ! grep -aq '^wsr-test: FAIL' "$log"; then
		record "guest-$label/suite-completed" FAIL "status $rc: $(tail -n 1 "$results/run-$label.err")"
	fi
}

echo "== host unit tests"
run_unit_tests
echo "== host QMP tests (QEMU working-set device, no guest)"
"$WSR_ROOT"/vmtests/qmp-test.sh 2>&1 | record_lines host-qmp
echo "== host balloon tests (working-set transport, patched kernel and QEMU)"
"$WSR_ROOT"/vmtests/balloon-test.sh 2>&1 | record_lines host-balloon
if [ "${WSR_SKIP_SELFTEST:-0}" != 1 ]; then
	echo "== harness tests"
	"$WSR_ROOT"/vmtests/selftest.sh 2>&1 | record_lines harness
fi
# shellcheck disable=SC2086
run_guest_suite ours ours ${WSR_TESTS:-'*'}
# shellcheck disable=SC2086
run_guest_suite stock stock ${WSR_STOCK_TESTS:-'estimator_*' 'guest_*' 'workload_*'}

passed=$(grep -c '^PASS' "$results/all")
failed=$(grep -c '^FAIL' "$results/all")
if [ "$failed" != 0 ]; then
	echo "failed tests:"
	grep '^FAIL' "$results/all" | sed 's/^/  /'
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
