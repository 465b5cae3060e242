#!/bin/sh
# run-tests [--long] [PATTERN...]: run the guest tests
# (/wsr/bin/tests/test_*.sh, or with --long the long ones, long_*.sh, for
# make check-long) whose names match one of the shell patterns (default:
# all), each in its own shell with a time limit (WSR_TEST_TIMEOUT, 300 s,
# or the test's "# time-limit: SECS" line when that is longer).  A test passes when it
# exits 0 and the kernel logged no report while it ran (testlib.sh's
# kernel_reports) but those it declares with "# expects-kernel: ERE"
# lines: the guests boot with oops=panic, which a WARNING passes, and
# only the debug kernel's console was read.  Prints one line per test,
#   wsr-test: PASS <name>   or   wsr-test: FAIL <name>: <reason>
# then its time,
#   wsr-test: TIME <name> <seconds, to 0.1 s>
# and exits non-zero when any test fails.
dir=$(dirname "$0")/tests
# verdict, fail_reason, kernel_reports, kernel_expects
# shellcheck source=../tests/testlib.sh
. "$dir/testlib.sh"
limit=${WSR_TEST_TIMEOUT:-300}
passed=0 failed=0

prefix=test_
[ "${1:-}" != --long ] || { prefix=long_; shift; }
[ $# -gt 0 ] || set -- '*'
for t in "$dir"/"$prefix"*.sh; do
	name=$(basename "$t" .sh)
	name=${name#"$prefix"}
	match=0
	for p in "$@"; do
		# shellcheck disable=SC2254
		case "$name" in $p) match=1 ;; esac
	done
	[ "$match" = 1 ] || continue
	out=/tmp/test-$name.out
	echo "wsr-test: RUN $name"
	# the uptime's hundredths: date has whole seconds only
	t0=$(cut -d' ' -f1 /proc/uptime)
	# where this test's kernel log begins (<6>: below the console's level)
	echo "<6>wsr-test: start $name" >/dev/kmsg
	# a test may need more than the limit: its "# time-limit: SECS" line
	tlimit=$(sed -n 's/^# time-limit: \([0-9][0-9]*\)$/\1/p' "$t" | head -n 1)
	[ -n "$tlimit" ] && [ "$tlimit" -gt "$limit" ] || tlimit=$limit
	timeout "$tlimit" sh "$t" >"$out" 2>&1
	rc=$?
	secs=$(awk -v t0="$t0" '{ printf "%.1f", $1 - t0 }' /proc/uptime)
	kernel=$(kernel_reports "wsr-test: start $name" "$(kernel_expects "$t")")
	if [ "$rc" = 0 ] && [ -z "$kernel" ]; then
		passed=$((passed + 1))
		echo "wsr-test: $(verdict "$name")"
	else
		failed=$((failed + 1))
		sed 's/^/    | /' "$out"
		reason=""
		if [ "$rc" != 0 ]; then
			reason=$(fail_reason "$out")
			[ "$rc" != 143 ] || reason="timed out after ${tlimit}s"
			reason=${reason:-exit status $rc}
		fi
		[ -z "$kernel" ] || reason="${reason:+$reason; }kernel log since the test began: $kernel"
		echo "wsr-test: $(verdict "$name" "$reason")"
	fi
	echo "wsr-test: TIME $name $secs"
	# leave no workload behind for the next test (gone within 2 s)
	if killall wsr-workload 2>/dev/null; then
		i=0
		while pidof wsr-workload >/dev/null && [ "$i" -lt 40 ]; do
			sleep 0.05
			i=$((i + 1))
		done
	fi
done
echo "wsr-test: guest summary: $passed passed, $failed failed"
[ "$failed" = 0 ]
