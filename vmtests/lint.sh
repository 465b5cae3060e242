#!/usr/bin/env bash
# The lint step of make check (alone: make lint): shellcheck on every
# shell file (vmtests/shellcheck.sh) and each project's checkpatch.pl on
# its patch series (vmtests/checkpatch.sh); then both once more on
# violations planted in temporary copies, to show that they catch them:
# a shell file with an unquoted variable, a kernel and a QEMU patch with
# trailing whitespace, a stale allowlist entry, a cover letter that quotes
# another message than the one allowed; each #define name with one home
# (vmtests/define-homes.sh); and the tree's copies of the kernel's headers
# (vmtests/kernel-headers.sh --check).  The checks run at once, their
# output printed in a fixed order.
#
# Prints "PASS name" or "FAIL name: reason"; exits non-zero on any FAIL.
set -u
. "$(dirname "$0")/lib.sh"
# verdict: the vocabulary every test shares
# shellcheck source=../tests/testlib.sh
. "$WSR_ROOT/tests/testlib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect NAME OUTPUT REGEX...: NAME passes when OUTPUT has a line matching
# each (extended) REGEX
expect() {
	local name=$1 out=$2 re
	shift 2
	for re in "$@"; do
		if ! grep -qE -- "$re" <<<"$out"; then
			verdict "$name" "no line like '$re' in: $(tr '\n' '|' <<<"$out")"
			return
		fi
	done
	verdict "$name"
}

# Runs shellcheck.sh on a repository of its own: a copy of a real script
# (vmtests/init.sh: found by its shebang; it sources nothing, so that it
# is checked there as here), the same with an unquoted variable planted at its end,
# a shell library (found by its name), the planted copy again where
# .gitignore leaves it out, and a text file
shellcheck_self_tests() {
	local r=$tmp/sc out found
	mkdir -p "$r/bin" "$r/build"
	git init -q "$r"
	echo build/ >"$r/.gitignore"
	cp "$WSR_ROOT"/vmtests/init.sh "$r/bin/clean"
	# shellcheck disable=SC2016 # the planted lines, as they are
	{ cat "$r/bin/clean"; echo 'planted=$1'; echo 'ls $planted'; } >"$r/bin/planted"
	# shellcheck disable=SC2016 # the library, as it is
	printf '# shellcheck shell=sh\nls "$1"\n' >"$r/lib.sh"
	cp "$r/bin/planted" "$r/build/ignored.sh"
	tail -n 1 "$r/bin/planted" >"$r/notes.txt"
	out=$("$WSR_ROOT"/vmtests/shellcheck.sh --root "$r" --no-cache)
	found=$(sed -n 's/^[A-Z]* shellcheck\/\([^:]*\).*/\1/p' <<<"$out" | tr '\n' ' ')
	if [ "$found" = "bin/clean bin/planted lib.sh " ]; then
		verdict shellcheck_finds_shell_files_by_name_and_shebang
	else
		verdict shellcheck_finds_shell_files_by_name_and_shebang \
			"checked '$found', expected 'bin/clean bin/planted lib.sh '"
	fi
	expect shellcheck_catches_a_planted_finding "$out" \
		'^PASS shellcheck/bin/clean$' \
		"^FAIL shellcheck/bin/planted: .*line $(($(wc -l <"$r/bin/clean") + 2)) SC2086 "
	shellcheck_keeps_findings "$r"
}

# The findings that shellcheck.sh keeps, in a cache of the test's own: the same
# files give what was kept (a finding added to it shows), a changed file
# is checked again (the planted one, made clean, passes)
shellcheck_keeps_findings() {
	local r=$1 name=shellcheck_keeps_findings_until_a_file_changes kept out
	local sc=("$WSR_ROOT"/vmtests/shellcheck.sh --root "$r")
	WSR_CACHE=$tmp/sc-cache "${sc[@]}" >/dev/null
	kept=("$tmp"/sc-cache/shellcheck/*)
	[ -f "${kept[0]}" ] || { verdict "$name" "no findings kept in $tmp/sc-cache/shellcheck"; return; }
	echo 'bin/clean:1:1: warning: a finding that only the kept ones hold [SC9999]' >>"${kept[0]}"
	out=$(WSR_CACHE=$tmp/sc-cache "${sc[@]}")
	if ! grep -q '^FAIL shellcheck/bin/clean: .*SC9999' <<<"$out"; then
		verdict "$name" "the same files ran shellcheck again, not the kept findings: $(tr '\n' '|' <<<"$out")"
		return
	fi
	cp "$r/bin/clean" "$r/bin/planted"
	out=$(WSR_CACHE=$tmp/sc-cache "${sc[@]}")
	expect "$name" "$out" '^PASS shellcheck/bin/clean$' '^PASS shellcheck/bin/planted$'
}

# plant SERIES: copies SERIES' first patch as it is and with trailing
# whitespace after the first added line's ";"; prints both copies' paths
plant() {
	local src=("$WSR_ROOT/$1"-patches/0001-*.patch) name
	name=${src[0]##*/}
	mkdir -p "$tmp/clean/$1-patches" "$tmp/planted/$1-patches"
	cp "${src[0]}" "$tmp/clean/$1-patches/$name"
	sed '0,/^+[^+].*;$/s/;$/; /' "${src[0]}" >"$tmp/planted/$1-patches/$name"
	cmp -s "${src[0]}" "$tmp/planted/$1-patches/$name" ||
		echo "$tmp/clean/$1-patches/$name $tmp/planted/$1-patches/$name"
}

# checkpatch.sh on the copies: the clean one passes and the planted one
# fails; for the kernel, the planted finding passes once the allowlist
# names it and the cover letter quotes it, not with a stale entry beside
# it, nor with a cover letter that quotes another message
checkpatch_self_tests() {
	local series name clean planted id out letter=$tmp/letter/0000-cover-letter.patch
	local wrong=$tmp/letter-wrong/0000-cover-letter.patch
	for series in qemu kernel; do
		name=checkpatch_catches_a_planted_${series}_finding
		clean="" planted=""
		read -r clean planted < <(plant "$series")
		if [ -z "$planted" ]; then
			verdict "$name" "no added line ending in ';' to plant trailing whitespace after"
			return
		fi
		out=$("$WSR_ROOT"/vmtests/checkpatch.sh "$series" "$clean"
			"$WSR_ROOT"/vmtests/checkpatch.sh "$series" "$planted")
		expect "$name" "$out" "^PASS $series-series-checkpatch$" \
			"^FAIL $series-series-checkpatch: .*ERROR:TRAILING_WHITESPACE"
	done

	id=kernel-patches/${planted##*/}
	printf '%s TRAILING_WHITESPACE planted\n' "$id" >"$tmp/allow"
	{ cat "$tmp/allow"; printf '%s LONG_LINE planted, stale\n' "$id"; } >"$tmp/allow-stale"
	mkdir -p "${letter%/*}" "${wrong%/*}"
	printf 'checkpatch --strict leaves:\n- patch 1: "trailing\n  whitespace": planted.\n\nBase:\n' >"$letter"
	printf 'checkpatch --strict leaves:\n- patch 1: "Alignment should match open parenthesis": planted.\n' >"$wrong"
	out=$("$WSR_ROOT"/vmtests/checkpatch.sh --allowlist "$tmp/allow" kernel "$planted" "$letter")
	expect checkpatch_allowlist_admits_what_it_names "$out" \
		'^PASS kernel-series-checkpatch$' '^PASS kernel-series-cover-letter-matches-allowlist$'
	expect checkpatch_fails_a_stale_allowlist_entry \
		"$("$WSR_ROOT"/vmtests/checkpatch.sh --allowlist "$tmp/allow-stale" kernel "$planted")" \
		"^FAIL kernel-series-checkpatch: allowlisted but not found: $id LONG_LINE$"
	expect checkpatch_fails_a_cover_letter_that_quotes_another_finding \
		"$("$WSR_ROOT"/vmtests/checkpatch.sh --allowlist "$tmp/allow" kernel "$planted" "$wrong")" \
		'^PASS kernel-series-checkpatch$' \
		'^FAIL kernel-series-cover-letter-matches-allowlist: patch 1: TRAILING_WHITESPACE \("trailing whitespace"\) is allowed, the letter does not quote it; patch 1: the letter quotes "Alignment should match open parenthesis", no allowed finding says it$'
}

# each #define name has one home (vmtests/define-homes.sh), here; and the
# check finds a planted one: a copy of include/wsr.h beside a header that
# defines one of its limits again and one of the uapi header's values, in
# a repository of their own with the kernel series
defines_have_one_home() {
	local r=$tmp/homes out
	out=$("$WSR_ROOT"/vmtests/define-homes.sh)
	verdict defines_have_one_home "${out:+defined in two headers: $(tr '\n' ';' <<<"$out")}"
	mkdir -p "$r/include" "$r/kernel-patches"
	git init -q "$r"
	cp "$WSR_ROOT"/include/wsr.h "$r/include/"
	cp "$WSR_ROOT"/kernel-patches/0*.patch "$r/kernel-patches/"
	printf '#define WSR_MAX_NODES 16\n#define VIRTIO_BALLOON_WS_MAX_MS 1\n#define PLANTED 1\n' \
		>"$r/include/planted.h"
	git -C "$r" add -A
	out=$("$WSR_ROOT"/vmtests/define-homes.sh --root "$r")
	expect define_homes_catch_planted_defines "$out" \
		'^VIRTIO_BALLOON_WS_MAX_MS include/planted.h include/uapi/linux/virtio_balloon.h\(kernel-patches\)$' \
		'^WSR_MAX_NODES include/planted.h include/wsr.h$'
	if grep -q PLANTED <<<"$out"; then
		verdict define_homes_pass_a_name_defined_once "PLANTED reported: $out"
	else
		verdict define_homes_pass_a_name_defined_once
	fi
}

# the tree's copies of the kernel's headers, which every build reads
# (kernel-headers/), are what our kernel and its series make now
kernel_headers_match_the_kernel() {
	local out
	if out=$("$WSR_ROOT"/vmtests/kernel-headers.sh --check 2>&1); then
		verdict kernel_headers_are_what_the_kernel_makes
	else
		verdict kernel_headers_are_what_the_kernel_makes "$(head -n 4 <<<"$out" | tr '\n' ' ')"
	fi
}

# every target the Makefile declares phony (FORCE aside) has its line in
# "make help"
make_help_lists_every_target() {
	local t targets help missing=""
	help=$(make -s -C "$WSR_ROOT" help)
	targets=$(sed -n 's/^\.PHONY://p' "$WSR_ROOT/Makefile")
	# none found would check nothing
	[ -n "$targets" ] || { verdict make_help_lists_every_target "no .PHONY line in the Makefile"; return; }
	for t in $targets; do
		[ "$t" = FORCE ] || grep -q "^make $t " <<<"$help" || missing+=" $t"
	done
	verdict make_help_lists_every_target "${missing:+not in make help:$missing}"
}

# a balloon test file is named after the first test it runs: X.sh runs
# X, or X_<variant>... for a matrix (its other names are that test's
# variants and the checks that share its guest), so that a name in make
# check's output leads to its file
balloon_test_files_are_named_after_their_tests() {
	local f stem first bad="" n=0
	for f in "$WSR_ROOT"/tests/balloon/*.sh; do
		stem=$(basename "$f" .sh)
		case "$stem" in bench_*|transport-lib) continue ;; esac
		n=$((n + 1))
		first=$("$WSR_ROOT"/vmtests/run-test --list "$f" 2>&1 | head -n 1)
		case "$first" in
		"$stem"|"$stem"_*) ;;
		*) bad+=" $stem.sh runs '$first' first;" ;;
		esac
	done
	[ "$n" -gt 0 ] || bad="no test file in tests/balloon"
	bad=${bad%;}
	verdict balloon_test_files_are_named_after_their_tests "${bad# }"
}

# the balloon device's migration format is the one checked in
# (vmtests/vmstate-check.sh); and a copy of the series whose last patch
# migrates one field with another type fails the check
vmstate_is_checked_in() {
	local out planted=$tmp/vmstate-series last
	if out=$("$WSR_ROOT"/vmtests/vmstate-check.sh 2>&1); then
		verdict qemu_vmstate_matches_the_checked_in_diff
	else
		verdict qemu_vmstate_matches_the_checked_in_diff "$(head -n 3 <<<"$out" | tr '\n' ' ')"
	fi
	mkdir -p "$planted"
	cp "$WSR_ROOT"/qemu-patches/0*.patch "$planted/"
	last=$(grep -l 'VMSTATE_UINT64(ws_reports' "$planted"/*.patch | tail -n 1)
	if [ -z "$last" ]; then
		verdict qemu_vmstate_change_without_the_diff_fails "no patch migrates ws_reports to plant a change in"
		return
	fi
	sed -i 's/VMSTATE_UINT64(ws_reports/VMSTATE_UINT32(ws_reports/' "$last"
	out=$("$WSR_ROOT"/vmtests/vmstate-check.sh --patches "$planted" 2>&1)
	expect qemu_vmstate_change_without_the_diff_fails "$out" \
		'migration format differs' '^\+\+ +VMSTATE_UINT32\(ws_reports'
}

# no test on balloon-lib.sh's run_test (the balloon and libvirt tests)
# declares a "why" of its own: bad() keeps the reason of the test's
# verdict in the harness's, and a local one swallows it (the test then
# fails with no reason, or passes: the libvirtd restart test did); and
# the check finds one planted in a copy
verdict_is_not_shadowed() {
	local re='^[[:space:]]*local([[:space:]].*)?[[:space:]]why([=[:space:]]|$)' hits
	hits=$(grep -lE '(balloon-lib|libvirt-lib)\.sh' "$WSR_ROOT"/tests/balloon/*.sh "$WSR_ROOT"/vmtests/*.sh |
		xargs grep -nE "$re" |
		sed "s|^$WSR_ROOT/||")
	verdict balloon_tests_do_not_shadow_the_verdict \
		"${hits:+a local why swallows the reason bad() records: $(tr '\n' ' ' <<<"$hits")}"
	printf 'f() {\n\tlocal a b=1 why\n\tbad "lost"\n}\n' >"$tmp/shadow.sh"
	if grep -qE "$re" "$tmp/shadow.sh"; then
		verdict balloon_tests_shadow_check_finds_a_planted_one
	else
		verdict balloon_tests_shadow_check_finds_a_planted_one "'local a b=1 why' not found"
	fi
}

# job LABEL CMD...: CMD in the background, its output kept for report_jobs
mkdir "$tmp/jobs"
job_pids=() job_labels=()
job() {
	local n=${#job_pids[@]}
	job_labels+=("$1")
	shift
	"$@" >"$tmp/jobs/$n" 2>&1 &
	job_pids+=($!)
}

# report_jobs: each job's output in the order they were started, as it
# ends; a job that exits non-zero (killed, a set -u abort) fails, as the
# checks after where it stopped did not run
report_jobs() {
	local n rc
	for n in "${!job_pids[@]}"; do
		wait "${job_pids[n]}"
		rc=$?
		cat "$tmp/jobs/$n"
		[ "$rc" = 0 ] || verdict "lint/${job_labels[n]}" \
			"exited with status $rc: the checks after where it stopped did not run"
	done
}

# The checks at once: each is one process at a time (shellcheck.sh and
# checkpatch.sh spread their own work over the cores), and one after
# another they left a core idle.  Their output is printed in this order.
{
	job shellcheck "$WSR_ROOT"/vmtests/shellcheck.sh
	job checkpatch "$WSR_ROOT"/vmtests/checkpatch.sh
	job shellcheck_self_tests shellcheck_self_tests
	job checkpatch_self_tests checkpatch_self_tests
	job defines_have_one_home defines_have_one_home
	job kernel_headers_match_the_kernel kernel_headers_match_the_kernel
	job make_help_lists_every_target make_help_lists_every_target
	job balloon_test_files_are_named_after_their_tests balloon_test_files_are_named_after_their_tests
	job vmstate_is_checked_in vmstate_is_checked_in
	job verdict_is_not_shadowed verdict_is_not_shadowed
	report_jobs
} | tee "$tmp/out"
! grep -q '^FAIL' "$tmp/out"
