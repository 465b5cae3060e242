# shellcheck shell=dash
# The one test vocabulary, sourced by every test and test runner: the
# guest tests and their runner in the guest (/wsr/bin/tests/testlib.sh),
# both halves of the balloon tests, the harness's, lint's and QMP tests on
# the host.  POSIX sh plus "local", as busybox runs it in the guest and
# bash on the host.
#
# A runner prints one line per test, which vmtests/check.sh's record_lines
# reads:
#   PASS name
#   FAIL name: reason
# A test script that runs alone (a guest test, the guest half of a balloon
# test) says why it fails with fail, and its runner turns that into the
# verdict.

# verdict NAME [REASON]: NAME passes ("PASS NAME"), or fails for REASON
# ("FAIL NAME: REASON")
verdict() {
	if [ -z "${2:-}" ]; then
		echo "PASS $1"
	else
		echo "FAIL $1: $2"
	fi
}

# fail REASON...: the running test script fails: "FAIL: REASON", exit 1
fail() { echo "FAIL: $*"; exit 1; }

# fail_reason FILE: the REASON of the first "FAIL: REASON" line of FILE
# (a test script's output; carriage returns of a console dropped)
fail_reason() {
	grep -a '^FAIL: ' "$1" 2>/dev/null | head -n 1 | cut -c7- | tr -d '\r'
}

# wait_until SECS CMD...: run CMD every 0.1 s until it succeeds, for at
# most SECS seconds; fails if it never does.  CMD's arguments are expanded
# once: poll a function to re-read a value.
wait_until() {
	local n=$(($1 * 10))
	shift
	until "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}
