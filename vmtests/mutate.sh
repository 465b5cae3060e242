#!/usr/bin/env bash
# Mutation testing of the host's policies and the library's parsers (make
# check-long): a test suite that passes whatever the code does proves
# nothing, so each one-line mutant of tests/mutants (an operator, a bound,
# a constant, a dropped condition) is built in a scratch copy of the tree,
# and the unit tests of its file must fail on it.
#
#   vmtests/mutate.sh [-v] [--list FILE] [--only SOURCE]
#       -v: a line per mutant, killed ones too (and the test that did)
#       --list FILE: the mutants of FILE (default tests/mutants)
#       --only SOURCE: only the mutants of SOURCE (e.g. host/senpai.c)
#
# The sources are never touched: the files a unit test builds from are
# copied into a temporary folder, built there once at -O0 (the speed of a
# build matters here, not the code's), then each mutant is written over
# its file's copy, make rebuilds its object and relinks the tests of that
# file (tests_of below), they run, and the copy is put back.
#
# Prints per file "SOURCE: K of N mutants killed (P%), E listed
# equivalent", every survivor, and a verdict per file:
#   PASS mutants_killed_in_SOURCE    (the file's name with _ for / and .)
#   FAIL mutants_killed_in_SOURCE: why
# It fails when fewer than 90% of a file's mutants are killed, when a
# mutant survives that tests/mutants does not list as equivalent, when one
# listed as equivalent is killed (its reason is wrong), and when a mutant
# no longer applies (its line changed) or does not build.
set -u
. "$(dirname "$0")/lib.sh"
# verdict: the vocabulary every test shares
# shellcheck source=../tests/testlib.sh
. "$WSR_ROOT/tests/testlib.sh"

list=$WSR_ROOT/tests/mutants only="" verbose=0
while [ $# -gt 0 ]; do
	case "$1" in
	-v) verbose=1; shift ;;
	--list) list=${2:?--list needs a file}; shift 2 ;;
	--only) only=${2:?--only needs a source file}; shift 2 ;;
	*) die "unknown argument '$1' (vmtests/mutate.sh [-v] [--list FILE] [--only SOURCE])" ;;
	esac
done
[ -r "$list" ] || die "$list cannot be read"

# the unit tests that must kill a mutant of SOURCE: those that link it.
# test_host_balance links the policies too, but runs fake QEMUs for a
# minute, timing-bound; the policies' own tests are the ones meant to pin
# their decisions down.
tests_of() {
	case "$1" in
	host/policy.c) echo test_host_policy test_host_baselines ;;
	host/costaware.c) echo test_host_policy ;;
	host/senpai.c) echo test_host_senpai test_host_policy ;;
	host/baselines.c | host/hostmem.c) echo test_host_baselines ;;
	loader/lib/parse.c) echo test_parse ;;
	*) return 1 ;;
	esac
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src out=$tmp/build
mkdir -p "$src"
# kernel-headers/: the uapi header the build's wire values come from
(cd "$WSR_ROOT" && cp -r --parents Makefile include host loader/lib tests/unit bpf \
	kernel-headers "$src/") || die "cannot copy the tree to $src"
mk=(make -C "$src" --no-print-directory BUILD="$out" CFLAGS="-O0 -w")

# build_and_run SOURCE: make and run the tests of SOURCE; status 0 when
# they all pass, 1 when one fails (its first FAIL line in $tmp/failed), 2
# when they do not build
build_and_run() {
	local t rc targets=()
	for t in $(tests_of "$1"); do targets+=("$out/unit/$t"); done
	"${mk[@]}" "${targets[@]}" >"$tmp/make.log" 2>&1 || return 2
	: >"$tmp/failed"
	for t in "${targets[@]}"; do
		# a mutant may loop for ever: a test that does not end fails
		# (the shell's own "Segmentation fault" line in the log too)
		{ timeout 30 "$t" >"$tmp/run.log" 2>&1; } 2>>"$tmp/run.log"
		rc=$?
		[ "$rc" != 0 ] || ! grep -q '^FAIL' "$tmp/run.log" || rc=1
		[ "$rc" != 0 ] || continue
		grep -m1 '^FAIL' "$tmp/run.log" >"$tmp/failed" ||
			echo "${t##*/} ended with status $rc" >"$tmp/failed"
		return 1
	done
	return 0
}

# apply SOURCE NTH FROM TO: write SOURCE's copy with the NTH occurrence of
# the text FROM replaced by TO; sets line to the line it is on.  Fails
# when FROM does not occur NTH times, or (NTH 0: the only one wanted) when
# it occurs more than once.
apply() {
	local file=$1 nth=$2 from=$3 to=$4 text pre="" rest i count=0
	text=$(<"$WSR_ROOT/$file")$'\n'
	rest=$text
	while [[ $rest == *"$from"* ]]; do
		count=$((count + 1))
		rest=${rest#*"$from"}
	done
	if [ "$nth" = 0 ]; then
		[ "$count" = 1 ] || { why="occurs $count times (want 1: add #N)"; return 1; }
		nth=1
	fi
	[ "$count" -ge "$nth" ] || { why="occurs $count times (want at least $nth)"; return 1; }
	rest=$text
	for ((i = 1; i < nth; i++)); do
		pre+=${rest%%"$from"*}$from
		rest=${rest#*"$from"}
	done
	pre+=${rest%%"$from"*}
	rest=${rest#*"$from"}
	line=$(($(printf '%s' "$pre" | wc -l) + 1))
	printf '%s' "$pre$to$rest" >"$src/$file"
}

declare -A total=() killed=() equivalent=() problems=()
declare -a files=() survivors=()
failed=0
started=$SECONDS

# the copy as it is must pass, or no mutant says anything
for f in host/policy.c host/costaware.c host/senpai.c host/baselines.c host/hostmem.c \
	loader/lib/parse.c; do
	[ -z "$only" ] || [ "$only" = "$f" ] || continue
	build_and_run "$f" ||
		die "the unmutated tests of $f do not pass: $(cat "$tmp/failed" 2>/dev/null) $(tail -n 5 "$tmp/make.log")"
done

nr=0
while IFS= read -r entry || [ -n "$entry" ]; do
	case "$entry" in '' | '#'*) continue ;; esac
	nr=$((nr + 1))
	spec=${entry%%: *}
	rest=${entry#*: }
	reason=""
	if [[ $rest == *"  # equivalent: "* ]]; then
		reason=${rest#*  # equivalent: }
		rest=${rest%%  # equivalent: *}
	fi
	file=${spec%%#*} nth=0
	[ "$spec" = "$file" ] || nth=${spec#*#}
	[ -z "$only" ] || [ "$only" = "$file" ] || continue
	if [[ $rest != *" ==> "* ]] || ! tests_of "$file" >/dev/null; then
		die "$list: entry $nr is not 'SOURCE[#N]: FROM ==> TO' with a known SOURCE: $entry"
	fi
	from=${rest%% ==> *}
	to=${rest#* ==> }
	if [ -z "${total[$file]:-}" ]; then
		files+=("$file")
		total[$file]=0 killed[$file]=0 equivalent[$file]=0 problems[$file]=""
	fi
	total[$file]=$((total[$file] + 1))
	[ -z "$reason" ] || equivalent[$file]=$((equivalent[$file] + 1))
	why=""
	if ! apply "$file" "$nth" "$from" "$to"; then
		problems[$file]+="; '$from' $why"
		echo "STALE $file: '$from' $why"
		continue
	fi
	what="$file:$line: $from ==> $to"
	build_and_run "$file"
	rc=$?
	cp "$WSR_ROOT/$file" "$src/$file"
	case "$rc" in
	0)
		if [ -n "$reason" ]; then
			[ "$verbose" = 0 ] || echo "equivalent $what ($reason)"
		else
			survivors+=("$what")
			echo "SURVIVED $what"
		fi
		;;
	1)
		killed[$file]=$((killed[$file] + 1))
		if [ -n "$reason" ]; then
			problems[$file]+="; listed as equivalent but killed: $from ==> $to"
			echo "KILLED (listed as equivalent) $what: $(cat "$tmp/failed")"
		elif [ "$verbose" = 1 ]; then
			echo "killed $what: $(cut -c1-160 "$tmp/failed")"
		fi
		;;
	*)
		problems[$file]+="; does not build: $from ==> $to"
		echo "UNBUILT $what: $(grep -m1 -i error "$tmp/make.log")"
		;;
	esac
done <"$list"

[ "${#files[@]}" -gt 0 ] || die "no mutants in $list${only:+ of $only}"
for f in "${files[@]}"; do
	k=${killed[$f]} n=${total[$f]} e=${equivalent[$f]}
	s=$((n - k - e))
	printf '%s: %d of %d mutants killed (%d%%), %d listed equivalent, %d survived\n' \
		"$f" "$k" "$n" $((k * 100 / n)) "$e" "$s"
	why=${problems[$f]#; }
	[ "$s" -le 0 ] || why+="${why:+; }$s survived (above: SURVIVED)"
	[ $((k * 100)) -ge $((n * 90)) ] || why+="${why:+; }fewer than 90% killed"
	name=${f//\//_}
	verdict "mutants_killed_in_${name//./_}" "$why"
	[ -z "$why" ] || failed=1
done
echo "mutation testing took $((SECONDS - started)) s"
exit "$failed"
