#!/usr/bin/env bash
# make check-long: the long tests, one step each, their output shown and
# kept in $BUILD/check-long.out:
#   - the device fuzz test on the debug kernel, 10,000 cases (WSR_FUZZ_CASES);
#   - the hostile-driver qtest, 20,000 cases (WSR_QTEST_CASES);
#   - wsr-host's arguments fuzzed, 10,000 cases (WSR_HOST_FUZZ_CASES);
#   - one-line mutants of the policies and the parser, each killed by the
#     unit tests or listed as equivalent (vmtests/mutate.sh, about 1 min);
#   - Debian's oomd running Senpai in a guest gives memory back to the
#     host through free page reporting (vmtests/senpai-test.sh, 3 min);
#   - the Debian packages (vmtests/deb-test.sh): make deb and lintian,
#     dpkg --root into a scratch root, dkms build of the packaged module
#     against Debian's stock headers, the daemon from the installed
#     unit's lines in a stock guest;
#   - the guest tests long_*.sh on our kernel (500 kills of knob writers
#     and the daemon among them).
# Fails when a step's own command fails (a guest that hangs or panics
# prints no FAIL line, and its status is all there is), when a step
# prints a FAIL, or when it lacks the line that says it finished: a PASS
# of its test, the guest's summary line with at least one test passed.
set -u
. "$(dirname "$0")/lib.sh"

BUILD=${BUILD:-$WSR_ROOT/build}
out=$BUILD/check-long.out
mkdir -p "$BUILD"
: >"$out"
bad=()

# step NAME DONE CMD...: run CMD, its output shown and appended to $out;
# it must exit 0, print no FAIL and print a line matching the extended
# regex DONE
step() {
	local name=$1 done=$2 rc step_out
	shift 2
	step_out=$(mktemp)
	"$@" | tee "$step_out"
	rc=${PIPESTATUS[0]}
	tr -d '\r' <"$step_out" >>"$out"
	if [ "$rc" != 0 ]; then
		bad+=("$name: exited with status $rc")
	elif tr -d '\r' <"$step_out" | grep -aq '^FAIL\|^wsr-test: FAIL'; then
		bad+=("$name: a test failed")
	elif ! tr -d '\r' <"$step_out" | grep -aqE -- "$done"; then
		bad+=("$name: no line like '$done'")
	fi
	rm -f "$step_out"
}

step "device fuzz, debug kernel" '^PASS balloon_device_fuzz_' \
	env WSR_FUZZ_CASES="${WSR_FUZZ_CASES:-10000}" WSR_BALLOON_KERNEL=debug \
	WSR_BALLOON_TESTS='balloon_device_fuzz_*' "$WSR_ROOT"/vmtests/balloon-test.sh
step "200 unbind/bind cycles with requests arriving, debug kernel" \
	'^PASS balloon_probe_fails_cleanly_at_every_allocation_then_rebinds' \
	env WSR_BALLOON_CYCLES="${WSR_BALLOON_CYCLES:-200}" WSR_BALLOON_KERNEL=debug \
	WSR_BALLOON_TESTS='balloon_probe_fails_*' "$WSR_ROOT"/vmtests/balloon-test.sh
step "hostile-driver qtest" '^PASS qtest-' \
	env WSR_QTEST_CASES="${WSR_QTEST_CASES:-20000}" "$WSR_ROOT"/vmtests/qtest-balloon.sh
step "mutation testing" '^PASS mutants_killed_in_loader_lib_parse_c' \
	env BUILD="$BUILD" "$WSR_ROOT"/vmtests/mutate.sh
step "wsr-host's arguments fuzzed" '^PASS host_args_fuzz_rejected_inputs_change_nothing' \
	"$WSR_ROOT"/vmtests/fuzz-host-args.sh --cases "${WSR_HOST_FUZZ_CASES:-10000}"
step "oomd's Senpai in a guest, memory back to the host" \
	'^PASS senpai_in_a_guest_gives_memory_back_to_the_host' "$WSR_ROOT"/vmtests/senpai-test.sh
step "Debian packages" \
	'^PASS deb_daemon_runs_from_the_installed_unit_in_a_stock_guest_with_the_packaged_module' \
	env BUILD="$BUILD" "$WSR_ROOT"/vmtests/deb-test.sh
# each long test may take 40 minutes: 10,000 cases of wsr's arguments
# under ASan take about half an hour (8,700 in 25); 500 kills of knob
# writers take 6, the walk of 20,000 lruvecs 4
step "long guest tests" '^wsr-test: guest summary: [1-9][0-9]* passed, 0 failed' \
	"$WSR_ROOT"/vmtests/run --kernel ours --timeout 4800 -- \
	env WSR_TEST_TIMEOUT=2400 run-tests --long

if [ "${#bad[@]}" -gt 0 ]; then
	echo "make check-long failed:"
	printf '  %s\n' "${bad[@]}"
	exit 1
fi
echo "make check-long passed (output: $out)"
