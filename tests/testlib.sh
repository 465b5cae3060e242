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

# What a kernel prints when something went wrong, the first line of each
# report: KASAN, KFENCE, lockdep, DEBUG_ATOMIC_SLEEP, refcount_t and list
# debugging report with "BUG:" or "WARNING:", then UBSAN, debugobjects,
# oopses, kmemleak's own failures and the leaks vmtests/init.sh prints
# after the command.  vmtests/run reads a debug guest's whole console
# with it (lib.sh's sanitizer_report): a report there fails the run.
SANITIZER_RE='BUG:|WARNING:|KASAN|KFENCE|UBSAN|ODEBUG|general protection fault|Oops|list_(add|del) corruption|refcount_t:|kmemleak: .*(disabled|Cannot)|^wsr-kmemleak: unreferenced object'
# A test's own kernel log (kernel_reports) is read for those and for the
# reports that are no sanitizer's but still a kernel's complaint, each
# with a backtrace: an OOM kill, a task hung for 2 minutes, an allocation
# failure that warns.  A test that provokes one on purpose says so
# (kernel_expects); a whole console cannot, so vmtests/run keeps to the
# sanitizers'.
KERNEL_REPORT_RE="$SANITIZER_RE|invoked oom-killer|blocked for more than [0-9]+ seconds|page allocation failure"

# kernel_reports MARK [EXPECTED]: the report lines (KERNEL_REPORT_RE) of
# the kernel log after its first line MARK (written to /dev/kmsg as the
# test began; with the log's time stamps, if any, dropped), but those
# matching EXPECTED (an ERE: what the test provokes on purpose), the
# first 3 on one line, each ended by "|"; nothing when there is none.  A
# log without MARK is all from after it: the ring buffer dropped MARK and
# everything older.  An empty log is no log: "cannot read the kernel log".
kernel_reports() {
	local log
	log=$(dmesg 2>/dev/null)
	[ -n "$log" ] || { echo "cannot read the kernel log"; return 0; }
	echo "$log" | MARK=$1 RE=$KERNEL_REPORT_RE OK=${2:-} awk '
		{ s = $0; sub(/^\[[^]]*\] ?/, "", s); line[NR] = s }
		!from && s == ENVIRON["MARK"] { from = NR }
		END {
			for (i = from + 1; i <= NR; i++)
				if (line[i] ~ ENVIRON["RE"] && (ENVIRON["OK"] == "" || line[i] !~ ENVIRON["OK"]))
					print line[i]
		}' | head -n 3 | tr '\n' '|'
}

# kernel_expects FILE: the reports FILE's test provokes on purpose, one
# ERE from its lines "# expects-kernel: ERE" (an OOM kill: "invoked
# oom-killer"); nothing when it declares none
kernel_expects() {
	sed -n 's/^# expects-kernel: //p' "$1" 2>/dev/null | awk 'NR > 1 { printf "|" } { printf "%s", $0 }'
}
