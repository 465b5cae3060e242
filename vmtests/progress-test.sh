#!/usr/bin/env bash
# Tests of the build progress display (vmtests/progress.sh) on stub
# builds that make a few objects or ninja steps a second, with a line
# every second instead of every 30, and of the cache keys, which must not
# see its calls.  The stubs run side by side: about 8 s.
#
# Prints "PASS name" or "FAIL name: reason"; exits non-zero on any FAIL.
set -u
. "$(dirname "$0")/lib.sh"
# verdict: the vocabulary every test shares
# shellcheck source=../tests/testlib.sh
. "$WSR_ROOT/tests/testlib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect_lines OUT REGEX...: the first REGEX that no line of OUT matches
expect_lines() {
	local out=$1 re
	shift
	for re in "$@"; do
		grep -qE -- "$re" <<<"$out" || { echo "no line like '$re' in: $(tr '\n' '|' <<<"$out")"; return; }
	done
}

# stub DIR KIND WHERE N: DIR/stub.sh, a build script that starts the
# display, makes N objects (or ninja steps of N) one each half second, and
# stops it; the display's pid in DIR/loop.pid
stub() {
	cat >"$1/stub.sh" <<EOF
#!/usr/bin/env bash
set -eu
. "$WSR_ROOT/vmtests/lib.sh"
WSR_PROGRESS_OBJECTS[stub]=$4
progress_start stub $2 "$3"
echo "\$_progress_pid" >"$1/loop.pid"
sleep "\${STUB_DELAY:-0}"
for i in \$(seq $4); do
	sleep 0.5
	if [ $2 = ninja ]; then echo "[\$i/$4] Compiling C object \$i.o"; else : >"$3/\$i.o"; fi
	[ -z "\${STUB_DIE_AT:-}" ] || [ "\$i" != "\$STUB_DIE_AT" ] || exit 3
done >"$1/ninja.log"
progress_stop
echo "the output folder"
EOF
	chmod +x "$1/stub.sh"
}

export WSR_PROGRESS_S=1

# builds of one folder one after the other, their counts in one cache
objects_tests() {
	local d=$tmp/objects out reason
	export WSR_CACHE=$d/cache
	mkdir -p "$d/b"

	# a build from clean: its share of the expected objects, the time
	# left once a twentieth is made, its last line, and its count kept
	stub "$d" objects "$d/b" 8
	out=$("$d/stub.sh" 2>&1)
	reason=$(expect_lines "$out" \
		'^wsr: stub: [1-7]/8 objects \([0-9]+%\), 0:0[0-9] so far, about 0:0[0-9] left$' \
		'^wsr: stub: 8 objects made in 0:0[3-9]$' '^the output folder$')
	[ -n "$reason" ] || [ "$(cut -d' ' -f1 "$WSR_CACHE/progress/stub" 2>/dev/null)" = 8 ] ||
		reason="recorded '$(cat "$WSR_CACHE/progress/stub" 2>&1)', expected 8 objects"
	verdict build_progress_counts_objects_out_of_the_expected "$reason"

	# the next build from clean expects the recorded count, not the estimate
	rm -rf "$d/b" && mkdir -p "$d/b"
	stub "$d" objects "$d/b" 4
	echo "6 3" >"$WSR_CACHE/progress/stub"
	out=$("$d/stub.sh" 2>&1)
	verdict build_progress_expects_what_the_last_clean_build_made \
		"$(expect_lines "$out" '^wsr: stub: [1-3]/6 objects ' '^wsr: stub: 4 objects made in ')"

	# an incremental build (objects there already) has no known total
	echo "9 9" >"$WSR_CACHE/progress/stub"
	out=$("$d/stub.sh" 2>&1)
	reason=$(expect_lines "$out" '^wsr: stub: [1-3] objects made so far, 0:0[0-9]$' \
		'^wsr: stub: 4 objects made in ')
	[ -n "$reason" ] || [ "$(cat "$WSR_CACHE/progress/stub")" = "9 9" ] ||
		reason="an incremental build recorded '$(cat "$WSR_CACHE/progress/stub")' as a clean one's count"
	verdict build_progress_of_an_incremental_build_counts_only "$reason"
}

# ninja says its own counts; the log of the build before is not read
# while ninja starts
ninja_test() {
	local d=$tmp/ninja out reason
	export WSR_CACHE=$d/cache
	mkdir -p "$d"
	printf '[5/5] an old build\n' >"$d/ninja.log"
	stub "$d" ninja "$d/ninja.log" 6
	out=$(STUB_DELAY=1.5 "$d/stub.sh" 2>&1)
	reason=$(expect_lines "$out" '^wsr: stub: 0 steps made so far' \
		'^wsr: stub: [1-5]/6 steps \([0-9]+%\)' '^wsr: stub: 6 steps made in ')
	! grep -q '/5 steps' <<<"$out" || reason="the old log was read: $(tr '\n' '|' <<<"$out")"
	verdict build_progress_reads_ninja_counts "$reason"
}

# a build that dies: the display ends, prints no more and leaves no
# stamp file behind
dies_test() {
	local d=$tmp/dies out reason=""
	export WSR_CACHE=$d/cache
	mkdir -p "$d/b" "$d/t"
	stub "$d" objects "$d/b" 8
	out=$(TMPDIR=$d/t STUB_DIE_AT=3 "$d/stub.sh" 2>"$d/err")
	sleep 2
	if _progress_alive "$(cat "$d/loop.pid")"; then
		reason="the display still runs after its build died"
		kill "$(cat "$d/loop.pid")"
	elif [ "$out" != "" ] || grep -q 'objects made in' "$d/err"; then
		reason="a dead build printed '$out' or a last line: $(tr '\n' '|' <"$d/err")"
	elif [ -n "$(ls -A "$d/t")" ]; then
		reason="a stamp file is left: $(ls -A "$d/t")"
	fi
	verdict build_progress_ends_with_a_build_that_dies "$reason"
}

# the kernel and QEMU keys: the same without the calls; a call with more
# on its line counts
keys_test() {
	local s reason=""
	mkdir -p "$tmp/without" "$tmp/planted"
	for s in build-kernel.sh build-qemu.sh; do
		grep -v '^progress_' "$WSR_ROOT/vmtests/$s" >"$tmp/without/$s"
		# shellcheck disable=SC2016 # the planted line, as it is
		{ cat "$WSR_ROOT/vmtests/$s"; echo 'progress_start "x" objects "$build"; make -j1 other'; } \
			>"$tmp/planted/$s"
		grep -q '^progress_start' "$WSR_ROOT/vmtests/$s" || reason+="$s has no progress_start; "
		[ "$(hash_inputs "$WSR_ROOT/vmtests/$s")" = "$(hash_inputs "$tmp/without/$s")" ] ||
			reason+="$s's key changes with its progress lines; "
		[ "$(hash_inputs "$WSR_ROOT/vmtests/$s")" != "$(hash_inputs "$tmp/planted/$s")" ] ||
			reason+="$s's key ignores a progress line with a command after it; "
	done
	verdict build_keys_leave_out_progress_lines_alone "${reason%; }"
}

objects_tests >"$tmp/objects.out" &
ninja_test >"$tmp/ninja.out" &
dies_test >"$tmp/dies.out" &
keys_test >"$tmp/keys.out"
wait
cat "$tmp/objects.out" "$tmp/ninja.out" "$tmp/dies.out" "$tmp/keys.out" | tee "$tmp/all"
! grep -q '^FAIL' "$tmp/all"
