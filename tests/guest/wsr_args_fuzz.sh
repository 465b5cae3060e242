# wsr_args_fuzz.sh CASES: wsr's arguments and knob values fuzzed under
# AddressSanitizer and UBSan (test_wsr_args_fuzz_* runs 500 cases, make
# check-long's long_ twin 10,000), as vmtests/fuzz-host-args.sh does
# wsr-host's.  Each case is a valid command line changed one to three
# times: a word (or the last, most often the value) replaced by a
# hostile one (huge, negative or malformed numbers and node values, long
# and strange paths, bytes that are not UTF-8, other options), a word
# dropped, repeated or cut short, a byte added, two swapped.  The ASan
# wsr (/wsr/bin/asan/wsr, only the C library dynamic) runs each, for at
# most 10 s (make check runs it in a lane at nice 15, where a start of
# 0.06 s may wait seconds for a core).  Fails on more than 1% of cases
# at the limit, on a case that exits other than 0, 1 or 2, or whose
# stderr holds a sanitizer report, and on a rejected case (status 1 or
# 2) after which the pinned config map or the pins are not what they
# were before it.  WSR_ARGS_FUZZ_SEED replays a run.
. "$(dirname "$0")/lib.sh"
cases=$1
asan=${WSR_ASAN_WSR:-/wsr/bin/asan/wsr}
[ -x "$asan" ] || fail "no $asan (make all builds it)"
seed=${WSR_ARGS_FUZZ_SEED:-$(($(date +%s) % 1000000))}
d=/tmp/fuzz
rm -rf "$d"
mkdir -p "$d"
wsr_start
make_memcg fz >/dev/null
expect_ok wsr set --memcg /fz intervals_ms 1000,5000,20000
expect_ok wsr set report_ms 2000

# the cases, one a line, words split by \001 (a byte no case holds)
awk -v seed="$seed" -v cases="$cases" 'BEGIN {
	srand(seed)
	nb = split("get report_ms|get --memcg /fz --node 0 intervals_ms|get --json refresh_ms|" \
		"set report_ms 1000|set --memcg /fz intervals_ms N0=1000,2000,4000|" \
		"set --node 1 reaccess_intervals_ms 1000,5000|set --memcg /fz refresh_ms N1=500|" \
		"show --memcg /fz|show --json --node 0|metrics --memcg /fz|metrics --all-memcgs|" \
		"balloon show --json|--pin-dir /sys/fs/bpf/wsr get report_ms|help set|--help", base, "|")
	long = sprintf("%4096s", ""); gsub(/ /, "A", long)
	nh = split("-|--|-1|0|1|4294967296|18446744073709551615|18446744073709551616|" \
		"99999999999999999999999999|1e309|0x10|nan| 5|5 |N0=|N9=1|N-1=5|N0=1,N1=2|" \
		"N18446744073709551616=1|1,2,,3|1,1,1|,|1000,500|1000000000001|N0=1000000000000|" \
		"/nonexistent|/|/fz/../..|//fz|/fz/|%s%n%x%p|../../../../etc/passwd|" \
		"\377\376|\300\257|\303\274|a\tb|--help|--json|--node|--memcg|--pin-dir|/tmp|" \
		"/sys/fs/bpf|intervals_ms|report_ms|refresh_ms|reaccess_intervals_ms|get|set|" \
		"show|metrics|balloon", hostile, "|")
	hostile[++nh] = ""
	hostile[++nh] = long
	hostile[++nh] = "/" long
	hostile[++nh] = "N0=" long
	no = split("--memcg|--node|--json|--count|--pin-dir|--all-memcgs|-v|-o", opt, "|")
	for (c = 1; c <= cases; c++) {
		n = split(base[int(rand() * nb) + 1], w, " ")
		for (m = int(rand() * 3); m >= 0; m--) {
			i = int(rand() * (n > 0 ? n : 1)) + 1
			r = int(rand() * 8)
			if (r == 0) w[i] = hostile[int(rand() * nh) + 1]
			else if (r == 1 && n > 1) { for (j = i; j < n; j++) w[j] = w[j + 1]; n-- }
			else if (r == 2 || r == 3) {
				for (j = n; j >= i; j--) w[j + 1] = w[j]; n++
				if (r == 3) w[i] = opt[int(rand() * no) + 1]
			}
			else if (r == 4) w[i] = substr(w[i], 1, int(rand() * (length(w[i]) + 1)))
			else if (r == 5) { j = int(rand() * n) + 1; x = w[i]; w[i] = w[j]; w[j] = x }
			else if (r == 6) {
				b = int(rand() * 253) + 2
				if (b != 10) w[i] = w[i] sprintf("%c", b)
			}
			# the last word: most often the value
			else if (r == 7) w[n] = hostile[int(rand() * nh) + 1]
		}
		line = ""
		for (j = 1; j <= n; j++) line = line (j > 1 ? "\001" : "") w[j]
		print line
	}
}' >"$d/cases"

# state: what a rejected case must leave alone; the balloon's pins left
# out, which the daemon may still be attaching (slow under TCG) when the
# cases begin.  The pin folder is flat (loader/lib/pins.c): the shell's
# glob lists it, sorted, without find and sort's two process starts per
# case (a case costs about 0.2 s under TCG, most of it process starts)
state() {
	local f
	bpftool map dump pinned /sys/fs/bpf/wsr/config
	for f in /sys/fs/bpf/wsr/* /sys/fs/bpf/wsr/.[!.]*; do
		case $f in
		*balloon* | */request_scratch) ;;
		*) [ ! -e "$f" ] || echo "$f" ;;
		esac
	done
}
state >"$d/state0" 2>&1
info "seed $seed (WSR_ARGS_FUZZ_SEED), $cases cases"
crashes=0 changed=0 c=0 limited=0 first=''
soh=$(printf '\001')
while IFS= read -r line; do
	c=$((c + 1))
	set -f
	IFS=$soh
	# shellcheck disable=SC2086 # the case's words
	set -- $line
	unset IFS
	set +f
	ASAN_OPTIONS=exitcode=99:detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		timeout 10 "$asan" "$@" >/dev/null 2>"$d/err" </dev/null
	rc=$?
	{ [ "$rc" != 124 ] && [ "$rc" != 143 ]; } || limited=$((limited + 1))
	# busybox's timeout exits 143 (SIGTERM), coreutils' 124
	if { [ "$rc" != 0 ] && [ "$rc" != 1 ] && [ "$rc" != 2 ] && [ "$rc" != 124 ] &&
		[ "$rc" != 143 ]; } ||
		{ [ -s "$d/err" ] && grep -q 'Sanitizer\|runtime error:' "$d/err"; }; then
		crashes=$((crashes + 1))
		[ -n "$first" ] || first="case $c, status $rc: wsr $*: $(grep -m1 'ERROR\|runtime error\|SUMMARY' "$d/err" | head -c 300)"
	fi
	if [ "$rc" = 1 ] || [ "$rc" = 2 ]; then
		state >"$d/state" 2>&1
		if ! cmp -s "$d/state0" "$d/state"; then
			changed=$((changed + 1))
			[ -n "$first" ] || first="case $c, status $rc, rejected, changed the config: wsr $*: $(diff "$d/state0" "$d/state" | head -c 300)"
			mv "$d/state" "$d/state0"
		fi
	else
		# taken: what it set is the state from now on
		state >"$d/state0" 2>&1
	fi
	[ $((c % 100)) != 0 ] || info "$c of $cases cases run ($crashes crashes, $limited at the time limit)"
done <"$d/cases"
[ "$c" = "$cases" ] || fail "$c cases ran, not $cases"
if [ "$crashes" != 0 ] || [ "$changed" != 0 ]; then
	fail "$crashes crashed or reported, $changed rejected ones changed the config; the first: $first"
fi
# a case at the limit ran on until killed: a case that hangs, or a run
# too starved of CPU to test much; more than 1% of them fails the run
[ $((limited * 100)) -le "$cases" ] ||
	fail "$limited of $cases cases ran on to the limit of 10 s (killed, unchecked)"
kill "$WSRD"
