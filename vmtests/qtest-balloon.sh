#!/usr/bin/env bash
# The QEMU working-set device's own qtest (qemu-patches/0005): QEMU's
# qos-test drives virtio-balloon as a guest driver would, and as a
# hostile one would (2,000 random and malformed reports by default).
#
#  1. every virtio-balloon test on the ASan/UBSan build (build-qemu.sh
#     asan): any sanitizer report fails, as does any failed assertion;
#  2. the hostile driver again on the plain build, for its memory check
#     (QEMU's RSS may grow by at most 1 MiB over the second half of the
#     cases; ASan's quarantine keeps freed memory, so it is not checked
#     there).
#
# Prints "PASS name" or "FAIL name: reason", one per test.
#   WSR_QTEST_CASES=N  hostile driver cases (default 2000)
#   WSR_QTEST_SEED=N   its random seed (default: random, printed)
set -u
. "$(dirname "$0")/lib.sh"
# verdict: the vocabulary every test shares
# shellcheck source=../tests/testlib.sh
. "$WSR_ROOT/tests/testlib.sh"

asan=$("$WSR_ROOT"/vmtests/build-qemu.sh asan) || { verdict qtest/build "build-qemu.sh asan"; exit 1; }
plain=$("$WSR_ROOT"/vmtests/build-qemu.sh plain) || { verdict qtest/build "build-qemu.sh plain"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export QTEST_BALLOON_FUZZ_CASES=${WSR_QTEST_CASES:-2000}
[ -z "${WSR_QTEST_SEED:-}" ] || export QTEST_BALLOON_FUZZ_SEED=$WSR_QTEST_SEED
# QEMU stops at its first report, leaks included; qos-test (the driver,
# built with ASan too) is not checked for leaks: libqtest's are not ours
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=0
SANITIZER_REPORT='ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|SUMMARY: [A-Za-z]*Sanitizer'

# qemu_cmd BUILD: the QEMU qos-test runs, through a wrapper that gives it
# its sanitizer options (its firmware lies beside it; qos-test takes the
# target from the name's end, so the wrapper has the same name)
qemu_cmd() {
	mkdir -p "$dir/${1##*/}"
	cat >"$dir/${1##*/}/qemu-system-x86_64" <<-EOF
	#!/bin/sh
	ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:fast_unwind_on_malloc=0 exec "$1/qemu-system-x86_64" "\$@"
	EOF
	chmod +x "$dir/${1##*/}/qemu-system-x86_64"
	echo "$dir/${1##*/}/qemu-system-x86_64"
}

# a TAP line that skips or is a TODO ("ok 1 /path # SKIP no device")
TAP_SKIP_RE='^(not )?ok .*# *(SKIP|TODO)'

# run_one LABEL QEMU PATH: qos test PATH against QEMU (qemu_cmd's), its
# PASS/FAIL line and what it says of itself on stdout; its log in
# $dir/LABEL-PATH.log
run_one() {
	local label=$1 qemu=$2 p=$3 log rc
	log=$dir/$label-${p//\//_}.log
	# (a subshell: an assertion aborts, which is said below, not by bash)
	(QTEST_QEMU_BINARY=$qemu timeout 600 "$asan/qos-test" --tap -p "$p" >"$log" 2>&1
		exit $?) 2>/dev/null
	rc=$?
	# a test that skipped itself or is marked unfinished tested nothing:
	# TAP's "ok N path # SKIP why" is no pass here
	if [ "$rc" = 0 ] && grep -q '^ok ' "$log" && ! grep -qiE "$TAP_SKIP_RE" "$log"; then
		verdict "qtest-$label/${p#*/virtio-balloon-tests/}"
	else
		verdict "qtest-$label/${p#*/virtio-balloon-tests/}" \
			"exit $rc: $(grep -m1 -iE "ERROR:|Bail out|assertion|Sanitizer|$TAP_SKIP_RE" "$log")"
		grep -v -e '^# \(Start\|End\) of' -e 'ASan doesn.t fully support' "$log" |
			tail -n 25 | sed 's/^/    /'
	fi
	grep -a '^# \(seed\|QEMU RSS\|[0-9]* valid\)' "$log" | sed 's/^# /    | /'
}

# sanitizers LABEL: the sanitizers' verdict on LABEL's logs (the plain
# build has none to give unless something slipped through)
sanitizers() {
	local label=$1
	if cat "$dir/$label"-*.log | grep -Eq "$SANITIZER_REPORT"; then
		verdict "qtest-$label/no-sanitizer-reports" "$(cat "$dir/$label"-*.log | grep -Em1 "$SANITIZER_REPORT")"
		cat "$dir/$label"-*.log | grep -E -A20 "$SANITIZER_REPORT" | head -n 60 | sed 's/^/    /'
	elif [ "$label" = asan ]; then
		verdict "qtest-$label/no-sanitizer-reports"
	fi
}

# The tests run two at a time (each is its own QEMU and qos-test; most
# wait on QEMU's timers or on one another, one at a time they left a core
# idle); their lines are printed in the order below, as each ends.  job
# starts one, finish_job waits for the oldest running and prints it: a
# job that did not end by itself (killed) fails with its status.  A test
# that times QEMU's events (ALONE) runs by itself: beside another on a
# busy machine, event-pace found its steps too slow to judge and failed.
job_pids=() job_names=() job_out=() started=0 finished=0 PARALLEL=2
ALONE='*/working-set/event-pace'
job() {
	local label=$1 build=$2 p=$3 alone=0
	# shellcheck disable=SC2053 # ALONE is a pattern
	[[ $p != $ALONE ]] || alone=1
	if [ "$alone" = 1 ]; then
		while [ "$finished" -lt "$started" ]; do finish_job; done
	elif [ $((started - finished)) -ge "$PARALLEL" ]; then
		finish_job
	fi
	job_names[started]=qtest-$label/${p#*/virtio-balloon-tests/}
	job_out[started]=$dir/job-$started.out
	# the wrapper qemu_cmd made (made again, it could be cut short under a
	# job starting it)
	run_one "$label" "$dir/${build##*/}/qemu-system-x86_64" "$p" >"${job_out[started]}" 2>&1 &
	job_pids[started]=$!
	started=$((started + 1))
	[ "$alone" = 0 ] || finish_job
}
finish_job() {
	local rc
	wait "${job_pids[finished]}"
	rc=$?
	cat "${job_out[finished]}"
	[ "$rc" = 0 ] || verdict "${job_names[finished]}" "its run stopped with status $rc"
	finished=$((finished + 1))
}

# the balloon tests on the i440FX machine (q35 would run the same again)
mapfile -t paths < <(QTEST_QEMU_BINARY=$(qemu_cmd "$asan") "$asan/qos-test" -l 2>/dev/null |
	grep '^/x86_64/pc/.*/virtio-balloon-tests/' )
if [ "${#paths[@]}" = 0 ]; then
	verdict qtest/list "qos-test lists no virtio-balloon tests"
	exit 1
fi
# qemu_cmd's wrappers, made once (the jobs would write them at once)
qemu_cmd "$asan" >/dev/null
qemu_cmd "$plain" >/dev/null
{
	export QTEST_BALLOON_NO_RSS_CHECK=1
	for p in "${paths[@]}"; do job asan "$asan" "$p"; done
	unset QTEST_BALLOON_NO_RSS_CHECK
	# the plain hostile driver too, beside the last of the asan tests
	job plain "$plain" "$(printf '%s\n' "${paths[@]}" | grep '/working-set/hostile-driver$')"
	# the asan tests' lines, then their sanitizers' verdict; then the plain one's
	while [ "$finished" -lt $((started - 1)) ]; do finish_job; done
	sanitizers asan
	finish_job
	sanitizers plain
} | tee "$dir/out"
# non-zero when a test failed
! grep -q '^FAIL' "$dir/out"
