#!/usr/bin/env bash
# The harness's own tests: each boots a guest and checks that the harness
# tells success, a failing command, a kernel panic and a hung guest apart,
# that the debug kernel's sanitizers catch a leak, a use-after-free, a
# lock-order inversion and a shift out of bounds (UBSAN), and that the
# stock Debian kernel boots.  Prints "PASS name" or
# "FAIL name: reason" per test, then "TIME name SECONDS".
set -u
RUN=$(dirname "$0")/run
# verdict: the vocabulary every test shares
# shellcheck source=../tests/testlib.sh
. "$(dirname "$0")/../tests/testlib.sh"
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT

# expect NAME STATUS MESSAGE RUN-ARGS...: run a guest, check status and
# that the output (console and harness messages) contains MESSAGE
expect() {
	local name=$1 want=$2 msg=$3 rc out=$dir/$1.out t0=$EPOCHREALTIME
	shift 3
	"$RUN" --quiet "$@" >"$out" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		verdict "$name" "exit status $rc, expected $want ($(tail -n 1 "$out"))"
	elif [ -n "$msg" ] && ! grep -aq -- "$msg" "$out"; then
		verdict "$name" "output lacks '$msg'"
	else
		verdict "$name"
	fi
	took "$name" "$t0"
}

# took NAME T0: "TIME NAME SECONDS", the seconds since T0 (an
# $EPOCHREALTIME), to 0.1 s
took() {
	awk -v n="$1" -v t0="$2" -v t1="$EPOCHREALTIME" 'BEGIN { printf "TIME %s %.1f\n", n, t1 - t0 }'
}

# a command that succeeds makes a run that succeeds (status 0), and the
# command's own output reaches the caller: two verdicts, each of its own
# (one boot: the command is cat, whose status is 0 as true's)
passing_command_and_output() {
	local rc v out=$dir/passing.out t0=$EPOCHREALTIME
	"$RUN" -- cat /sys/kernel/mm/lru_gen/enabled >"$out" 2>&1
	rc=$?
	if [ "$rc" != 0 ]; then
		verdict passing_command_exits_zero "exit status $rc, expected 0 ($(tail -n 1 "$out"))"
	else
		verdict passing_command_exits_zero
	fi
	took passing_command_exits_zero "$t0"
	if v=$(tr -d '\r' <"$out" | grep -x '0x[0-9a-f]*'); then
		verdict command_output_reaches_host
		echo "lru_gen enabled: $v"
	else
		verdict command_output_reaches_host "no lru_gen value in the output"
	fi
	took command_output_reaches_host "$t0"
}

stock_boots() {
	local t0=$EPOCHREALTIME
	if "$RUN" --kernel stock -- sh -c 'uname -r | grep -q cloud-amd64 &&
		test -e /sys/kernel/btf/vmlinux && grep -q zram /proc/swaps' >"$dir/stock.out" 2>&1; then
		verdict stock_kernel_boots_with_btf_and_swap
	else
		cat "$dir/stock.out"
		verdict stock_kernel_boots_with_btf_and_swap "see the output above"
	fi
	took stock_kernel_boots_with_btf_and_swap "$t0"
}

# Two guests at a time: a boot keeps about one of the machine's two cores
# busy, and none of these verdicts depends on how fast the guest runs (a
# hung guest times out however slow its boot).
# The longest first (the debug kernel's, about 30 s each), so that the
# short ones fill the lanes at the end.  Verdicts in the order below.
# The kernels and QEMU first, one after another: each guest's run would
# otherwise build a stale one in the same tree as its neighbour.
if ! { "$(dirname "$0")"/build-kernel.sh ours >/dev/null &&
	"$(dirname "$0")"/build-kernel.sh debug >/dev/null &&
	"$(dirname "$0")"/fetch-stock-kernel.sh >/dev/null &&
	"$(dirname "$0")"/build-qemu.sh >/dev/null; }; then
	verdict harness_builds "see above"
fi
n=0 running=0
lane() {
	n=$((n + 1))
	if [ "$running" -ge 2 ]; then
		wait -n
		running=$((running - 1))
	fi
	"$@" >"$dir/$(printf %02d $n).res" &
	running=$((running + 1))
}

# The debug kernel's sanitizers catch what they are for, and each catch
# fails the run (status 123) with the report shown.  (That a clean run
# passes, the balloon and guest tests on the debug kernel show.)  Small
# guests, 2 x 128 MiB: kmemleak's end-of-run scans take time in
# proportion to memory: its loop visits every page frame (a scan took
# 4.5 s of guest time there, 6.5 s with 2 x 256 MiB, 9 s with 2 x 512,
# measured on the debug kernel with ORC's unwinder).
# The leak has a guest of its own: beside the other bugs, kmemleak can
# miss it (about once in ten runs).  The lock inversion, the shift
# out of bounds and the use-after-free share one, without kmemleak, the
# inversion first (a KASAN report turns lockdep off; UBSAN reports on
# either side of it); each must be in the run's report, which
# vmtests/run keeps whole beside the console log.
lane expect sanitizers_catch_a_leak 123 "wsr-kmemleak: unreferenced object" \
	--kernel debug --node-mem 128 -- insmod /host/wsr_selftest_bugs.ko bug=leak
sanitizers_catch_three() {
	local out=$dir/three.out rc t0=$EPOCHREALTIME rep t msg m=/host/wsr_selftest_bugs.ko
	"$RUN" --quiet --kernel debug --node-mem 128 --append kmemleak=off -- \
		sh -c "insmod $m bug=lock-inversion && rmmod wsr_selftest_bugs &&
			insmod $m bug=shift-out-of-bounds && rmmod wsr_selftest_bugs &&
			insmod $m bug=use-after-free" \
		>"$out" 2>&1
	rc=$?
	rep=$(sed -n 's/^wsr: sanitizer report in the guest (.*; every report: \(.*\)):$/\1/p' "$out")
	for t in "lock_inversion:possible circular locking dependency" \
		"shift_out_of_bounds:UBSAN: shift-out-of-bounds" \
		"use_after_free:KASAN: use-after-free"; do
		msg=${t#*:}
		if [ "$rc" != 123 ]; then
			verdict "sanitizers_catch_a_${t%%:*}" "exit status $rc, expected 123 ($(tail -n 1 "$out"))"
		elif [ -z "$rep" ] || ! grep -aq -- "$msg" "$rep"; then
			verdict "sanitizers_catch_a_${t%%:*}" "the report (${rep:-none named}) lacks '$msg'"
		else
			verdict "sanitizers_catch_a_${t%%:*}"
		fi
		took "sanitizers_catch_a_${t%%:*}" "$t0"
	done
}
lane sanitizers_catch_three
lane stock_boots
# a guest that never exits: 6 s is past the harness's start of QEMU, and
# the command never ends however far the boot got
lane expect hung_guest_times_out 124 "guest hung" --timeout 6 -- sleep 1000
lane expect failing_command_reports_its_status 3 "guest command failed with status 3" \
	-- sh -c 'exit 3'
lane expect kernel_panic_is_reported 125 "kernel panic in the guest" \
	-- sh -c 'echo c >/proc/sysrq-trigger'
lane passing_command_and_output
wait
cat "$dir"/*.res
