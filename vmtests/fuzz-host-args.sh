#!/usr/bin/env bash
# wsr-host's arguments, fuzzed under AddressSanitizer and UBSan (make
# check: 500 cases; make check-long: 10,000).  Each case is a valid
# command line (every command, options before and after it) changed one
# to three times: a word replaced by a hostile one (huge, negative or
# malformed numbers, long and strange paths, bytes that are not UTF-8,
# other options), a word dropped, repeated or cut short, two swapped.
# They run against real QEMUs, stopped (-S), with the working-set device,
# in shards at once, one per core (a QEMU each, one case at a time on
# it), each case of watch or balance for at most 0.3 s (they wait on a
# guest that never runs), each of another command for at most 3 s.  Prints "PASS name" or "FAIL name: reason":
#   host_args_fuzz_no_sanitizer_report_or_crash: every case exits 0, 1,
#     2 or by the time limit, with no sanitizer report, and at most 1% of
#     the cases drawn from a command that ends on its own (all but watch
#     and balance) reach the limit;
#   host_args_fuzz_rejected_inputs_change_nothing: after each case that
#     exits 1 or 2, the device's state (stats polling, balloon size,
#     working-set info) is what it was.
#
# usage: vmtests/fuzz-host-args.sh [--cases N] [--seed S]
#   WSR_HOST_FUZZ_SEED   the seed (printed; default: random)
#   WSR_HOST_FUZZ_SHARDS shards run at once (default: one per core; 1 is
#                        the serial run, on a machine too busy for more)
set -u
. "$(dirname "$0")/lib.sh"
# shellcheck source=../tests/testlib.sh
. "$WSR_ROOT/tests/testlib.sh"

cases=500 seed=${WSR_HOST_FUZZ_SEED:-$((SRANDOM % 1000000))}
while [ $# -gt 0 ]; do
	case "$1" in
	--cases) cases=${2:?}; shift 2 ;;
	--seed) seed=${2:?}; shift 2 ;;
	*) die "usage: vmtests/fuzz-host-args.sh [--cases N] [--seed S]" ;;
	esac
done
case "$cases$seed" in *[!0-9]*) die "--cases and --seed take whole numbers" ;; esac
HOST=${BUILD:-$WSR_ROOT/build}/asan/wsr-host
PLAIN=${BUILD:-$WSR_ROOT/build}/wsr-host
{ [ -x "$HOST" ] && [ -x "$PLAIN" ]; } || die "no $HOST or $PLAIN (make all $HOST)"
qemu=$("$WSR_ROOT"/vmtests/build-qemu.sh)
# The cases run in SHARDS shards at once, each against a QEMU of its own,
# one case at a time: most of a case's time is the wait on a guest that
# never runs.  One shard per core: the time limits are wall-clock time,
# and a case starved of CPU (ASan's start) would reach it before it had
# parsed its arguments, a case that tests nothing (3 shards on 2 busy
# cores had 475 of 500 cases at the limit).  The
# cases are drawn first, all of them, from the one seeded generator, in
# the order a single shard drew them: a seed replays the same cases
# whatever the sharding, and the verdicts are taken in case order.
SHARDS=${WSR_HOST_FUZZ_SHARDS:-$(nproc 2>/dev/null || echo 2)}
case "$SHARDS" in "" | *[!0-9]*) die "WSR_HOST_FUZZ_SHARDS takes a whole number" ;; esac
[ "$SHARDS" -ge 1 ] || SHARDS=1
dir=$(mktemp -d)
pids=()
# shellcheck disable=SC2317 # the trap's
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
# stopped, it stops its shards and QEMUs too (the EXIT trap)
trap 'exit 143' TERM
trap 'exit 130' INT
# sock_of K: shard K's QMP socket; every shard's path has the same length,
# as the cases are drawn with shard 0's (a word cut short cuts it alike)
sock_of() { echo "$dir/q$1/qmp"; }
for ((k = 0; k < SHARDS; k++)); do
	mkdir "$dir/q$k"
	"$qemu/qemu-system-x86_64" -L "$qemu/pc-bios" -L /usr/share/seabios -L /usr/share/qemu \
		-machine pc,accel=tcg -S -display none -nic none -monitor none \
		-device virtio-balloon-pci,id=balloon0,working-set=on,working-set-bins=5 \
		-qmp "unix:$(sock_of "$k"),server=on,wait=off" >"$dir/q$k/qemu.log" 2>&1 &
	pids+=($!)
done
for ((k = 0; k < SHARDS; k++)); do
	for _ in $(seq 1 50); do [ -S "$(sock_of "$k")" ] && break; sleep 0.1; done
	[ -S "$(sock_of "$k")" ] || die "QEMU $k did not start: $(cat "$dir/q$k/qemu.log")"
done
sock=$(sock_of 0)

# state: what a wsr-host command could change on the device (at $sock),
# by the uninstrumented build
state() {
	"$PLAIN" --qmp "$sock" qmp '{"execute":"qom-get","arguments":{"path":"/machine/peripheral/balloon0","property":"guest-stats-polling-interval"}}'
	"$PLAIN" --qmp "$sock" qmp '{"execute":"query-balloon"}'
	"$PLAIN" --qmp "$sock" show --json
}
# reset: back to the start after a case that was taken
reset() {
	"$PLAIN" --qmp "$sock" qmp '{"execute":"qom-set","arguments":{"path":"/machine/peripheral/balloon0","property":"guest-stats-polling-interval","value":0}}' >/dev/null 2>&1
}

long=$(printf 'A%.0s' $(seq 1 4096))
bases=(
	"--qmp $sock show"
	"--qmp $sock show --json"
	"show --json --qmp $sock"
	"--qmp $sock --device /machine/peripheral/balloon0 show"
	"--qmp $sock config 1000,2000,4000,8000 500 1000"
	"--qmp $sock request --count 1 --batch 2 --timeout-ms 50 --json"
	"--qmp $sock watch --json --count 1"
	"--qmp $sock qmp {\"execute\":\"query-status\"}"
	"balance --vm a=$sock --policy working-set --json"
	"balance --vm a=$sock --vm b=$sock --policy pressure --step-mib 64 --hold-ms 100"
	"balance --vm a=$sock --policy available --metrics 127.0.0.1:0"
)
hostile=("" "-" "--" "-1" "0" "1" "4294967296" "18446744073709551615"
	"18446744073709551616" "99999999999999999999999999" "1e309" "0x10" "nan" " 5"
	"5 " "1,2,,3" "1,1,1" "," "1000,500" "$long" "/nonexistent" "/dev/null" "/tmp"
	"a=" "=b" "a=/nonexistent" "a=$sock" "%s%n%x%p" "../../../../etc/passwd"
	$'\xff\xfe' $'\xc0\xaf' "ü" $'a\tb' $'a\nb' "--help" "--json" "--count" "--vm"
	"--device" "--qmp" "--policy" "/machine/peripheral/balloon0" "/machine" "balloon0"
	"show" "config" "balance" "qmp" "{" "{\"execute\":}" "[]" "null"
	"127.0.0.1:99999" "[::1]:0")
options=(--json --count --batch --timeout-ms --device --qmp --vm --policy --step-mib
	--hold-ms --metrics --idle-ms --floor-mib --slo-ppm --pressure-us --stats-s)

# waits BASE: BASE's command waits, unchecked, to the time limit by
# design: watch for a report that never comes, balance (a daemon) for its
# TERM.  Their time-outs say nothing; a case of another command that
# reaches the limit is one that hangs, or one starved of CPU before it
# parsed its arguments (3 shards on 2 busy cores had 475 of 500 there).
# Those end in well under 0.1 s given a core, so their limit is 3 s: on 2
# cores at a load of 4.6, 38 of 309 reached 0.3 s and none 3 s, and a
# limit they do not reach costs no time
waits() { case " $1 " in *" watch "* | " balance "*) return 0 ;; esac; return 1; }

# rand N: r, a number below N, from the seeded generator (in this shell:
# a $(...) subshell would reseed it, and a seed would not replay a run)
rand() { r=$((RANDOM % $1)); }

# mutate: change the words in w[] once
mutate() {
	local n=${#w[@]} i j x b
	rand $((n > 0 ? n : 1)); i=$r
	rand 7
	case $r in
	0) rand ${#hostile[@]}; w[i]=${hostile[r]} ;;
	1) [ "$n" -le 1 ] || w=("${w[@]:0:i}" "${w[@]:i+1}") ;;
	2) w=("${w[@]:0:i}" "${w[i]}" "${w[@]:i}") ;;
	3) rand ${#options[@]}; w=("${w[@]:0:i}" "${options[r]}" "${w[@]:i}") ;;
	4) x=${w[i]}; rand $((${#x} + 1)); w[i]=${x:0:r} ;;
	5) rand "$n"; j=$r; x=${w[i]}; w[i]=${w[j]}; w[j]=$x ;;
	6) rand 255; printf -v b '\\x%x' $((r + 1)); printf -v b %b "$b"; w[i]+=$b ;;
	esac
}

RANDOM=$seed
echo "seed $seed (WSR_HOST_FUZZ_SEED), $cases cases"
# draw every case: $dir/cases/C holds case C's words, each ended by a NUL
mkdir "$dir/cases" "$dir/res"
# own[C]: 1 when case C's base command ends on its own (not waits)
own=()
for ((c = 1; c <= cases; c++)); do
	rand ${#bases[@]}
	read -r -a w <<<"${bases[r]}"
	own[c]=1
	! waits "${bases[r]}" || own[c]=0
	rand 3
	for ((m = r; m >= 0; m--)); do mutate; done
	printf '%s\0' "${w[@]}" >"$dir/cases/$c"
done

# shard K: cases K+1, K+1+SHARDS, ... against QEMU K, one at a time; case
# C's result in $dir/res/C: its status, then whether it crashed (or had a
# sanitizer report), then whether it changed the device, then a line
# saying what it did so (as the verdicts quote it)
shard() {
	local k=$1 c rc crash change why s0 lim
	sock=$(sock_of "$k")
	s0=$(sock_of 0)
	reset
	state >"$dir/q$k/state0" 2>&1
	for ((c = k + 1; c <= cases; c += SHARDS)); do
		mapfile -d '' -t w <"$dir/cases/$c"
		# the case as drawn, on this shard's device
		w=("${w[@]//"$s0"/$sock}")
		# 3 s between TERM and KILL: an ASan wsr-host on a busy machine can
		# take over a second to exit after TERM, and KILL's 137 is a crash.
		# --foreground: one TERM, to wsr-host alone.  Without it timeout
		# also signals its process group, so a second TERM could land in
		# LeakSanitizer's check at exit, whose tracer then never let go (1
		# case in 4 to 10 hung so, spinning in sched_yield, ptraced)
		lim=0.3
		[ "${own[c]}" != 1 ] || lim=3
		ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
			timeout --foreground -k 3 "$lim" "$HOST" "${w[@]}" >"$dir/q$k/out" 2>"$dir/q$k/err" </dev/null
		rc=$?
		crash=0 change=0 why=""
		if { [ "$rc" != 0 ] && [ "$rc" != 1 ] && [ "$rc" != 2 ] && [ "$rc" != 124 ]; } ||
			grep -q 'Sanitizer\|runtime error:' "$dir/q$k/err"; then
			crash=1
			why="case $c, status $rc: wsr-host$(printf ' %q' "${w[@]}"): $(grep -m1 'ERROR\|runtime error\|SUMMARY' "$dir/q$k/err" | head -c 300)"
		fi
		if [ "$rc" = 1 ] || [ "$rc" = 2 ]; then
			state >"$dir/q$k/state" 2>&1
			if ! cmp -s "$dir/q$k/state0" "$dir/q$k/state"; then
				change=1
				why="case $c, status $rc: wsr-host$(printf ' %q' "${w[@]}"): $(diff "$dir/q$k/state0" "$dir/q$k/state" | tr '\n' ' ' | head -c 300)"
				reset
			fi
		else
			reset
		fi
		# whole or not at all: a shard killed mid-write leaves no result
		printf '%s %s %s %s\n' "$rc" "$crash" "$change" "$why" >"$dir/res/$c.new"
		mv "$dir/res/$c.new" "$dir/res/$c"
	done
}
shards=()
for ((k = 0; k < SHARDS; k++)); do
	shard "$k" &
	shards+=($!)
	pids+=($!)
done
# every shard's status: one that stopped early leaves cases without results
stopped=""
for ((k = 0; k < SHARDS; k++)); do
	wait "${shards[k]}" || stopped+=" shard $k (status $?)"
done

# the verdicts, in case order, as one shard would have reached them
crashes=0 changed=0 timed=0 missing=0 first_crash="" first_change="" first_missing=""
# of the cases that ran, those whose command ends on its own, and of them
# those at the time limit (timed counts every case at the limit)
ended=0 ended_timed=0 first_timed=""
for ((c = 1; c <= cases; c++)); do
	if [ ! -f "$dir/res/$c" ]; then
		missing=$((missing + 1))
		[ -n "$first_missing" ] || first_missing=$c
		continue
	fi
	read -r rc crash change why <"$dir/res/$c"
	if [ "$crash" = 1 ]; then
		crashes=$((crashes + 1))
		[ -n "$first_crash" ] || first_crash=$why
	fi
	[ "$rc" != 124 ] || timed=$((timed + 1))
	if [ "${own[c]}" = 1 ]; then
		ended=$((ended + 1))
		if [ "$rc" = 124 ]; then
			ended_timed=$((ended_timed + 1))
			[ -n "$first_timed" ] || first_timed="case $c: wsr-host$(mapfile -d '' -t x <"$dir/cases/$c"; printf ' %q' "${x[@]}" | head -c 300)"
		fi
	fi
	if [ "$change" = 1 ]; then
		changed=$((changed + 1))
		[ -n "$first_change" ] || first_change=$why
	fi
	[ $((c % 100)) != 0 ] || echo "$c of $cases cases run ($crashes crashes, $timed at the time limit)"
done
# a case that did not run is no pass: its shard stopped (killed, crashed)
if [ "$missing" != 0 ]; then
	crashes=$((crashes + missing))
	first_crash="$missing cases did not run, the first case $first_missing (stopped:${stopped:- none}); ${first_crash:-none crashed}"
elif [ -n "$stopped" ]; then
	first_crash="every case ran, but a shard exited non-zero:$stopped; ${first_crash:-none crashed}"
fi
echo "$ended_timed of $ended cases of a command that ends on its own at the time limit;" \
	"$((timed - ended_timed)) of $((cases - missing - ended)) watch and balance cases, by design"
# a case at the limit ran on, unchecked: more than 1% of those that should
# end fails the run, as the guest's fuzz does (tests/guest/wsr_args_fuzz.sh)
limited=""
[ $((ended_timed * 100)) -le "$ended" ] ||
	limited="$ended_timed of $ended cases of a command that ends on its own ran on to their limit of 3 s (killed, unchecked; too busy a machine, or a hang); the first: $first_timed"
verdict host_args_fuzz_no_sanitizer_report_or_crash \
	"${first_crash:+$crashes cases crashed or had a sanitizer report; the first: $first_crash}${first_crash:+${limited:+; }}$limited"
verdict host_args_fuzz_rejected_inputs_change_nothing \
	"${first_change:+$changed rejected cases changed the device; the first: $first_change}"
# non-zero when a verdict failed
[ -z "$first_crash$first_change$limited" ]
