#!/usr/bin/env bash
# Tests of the build progress display (vmtests/progress.sh) on stub
# builds that make a few objects or ninja steps a second, with a line
# every second instead of every 30, and of the cache keys, which must not
# see its calls.  About 15 s.
#
# Prints "PASS name" or "FAIL name: reason"; exits non-zero on any FAIL.
set -u
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# verdict NAME REASON: PASS without a reason, else FAIL
verdict() {
	if [ -z "$2" ]; then
		echo "PASS $1"
	else
		echo "FAIL $1: $2"
		failed=1
	fi
}

# expect_lines OUT REGEX...: the first REGEX that no line of OUT matches
expect_lines() {
	local out=$1 re
	shift
	for re in "$@"; do
		grep -qE -- "$re" <<<"$out" || { echo "no line like '$re' in: $(tr '\n' '|' <<<"$out")"; return; }
	done
}

# stub KIND WHERE N: a build script that starts the display, makes N
# objects (or ninja steps of N) one each half second, and stops it
stub() {
	cat >"$tmp/stub.sh" <<EOF
#!/usr/bin/env bash
set -eu
. "$WSR_ROOT/vmtests/lib.sh"
WSR_PROGRESS_OBJECTS[stub]=$3
progress_start stub $1 "$2"
echo "\$_progress_pid" >"$tmp/loop.pid"
sleep "\${STUB_DELAY:-0}"
for i in \$(seq $3); do
	sleep 0.5
	if [ $1 = ninja ]; then echo "[\$i/$3] Compiling C object \$i.o"; else : >"$2/\$i.o"; fi
	[ -z "\${STUB_DIE_AT:-}" ] || [ "\$i" != "\$STUB_DIE_AT" ] || exit 3
done >"$tmp/ninja.log"
progress_stop
echo "the output folder"
EOF
	chmod +x "$tmp/stub.sh"
}

export WSR_CACHE=$tmp/cache WSR_PROGRESS_S=1

# a build from clean: its share of the expected objects, the time left
# once a twentieth is made, its last line, and its count kept for next time
mkdir -p "$tmp/b1"
stub objects "$tmp/b1" 8
out=$("$tmp/stub.sh" 2>&1)
reason=$(expect_lines "$out" '^wsr: stub: [1-7]/8 objects \([0-9]+%\), 0:0[0-9] so far, about 0:0[0-9] left$' \
	'^wsr: stub: 8 objects made in 0:0[3-9]$' '^the output folder$')
[ -n "$reason" ] || [ "$(cut -d' ' -f1 "$WSR_CACHE/progress/stub" 2>/dev/null)" = 8 ] ||
	reason="recorded '$(cat "$WSR_CACHE/progress/stub" 2>&1)', expected 8 objects"
verdict build_progress_counts_objects_out_of_the_expected "$reason"

# the next build from clean expects the recorded count, not the estimate
rm -rf "$tmp/b1" && mkdir -p "$tmp/b1"
stub objects "$tmp/b1" 4
echo "6 3" >"$WSR_CACHE/progress/stub"
out=$("$tmp/stub.sh" 2>&1)
verdict build_progress_expects_what_the_last_clean_build_made \
	"$(expect_lines "$out" '^wsr: stub: [1-3]/6 objects ' '^wsr: stub: 4 objects made in ')"

# an incremental build (objects there already) has no known total
echo "9 9" >"$WSR_CACHE/progress/stub"
stub objects "$tmp/b1" 4
out=$("$tmp/stub.sh" 2>&1)
reason=$(expect_lines "$out" '^wsr: stub: [1-3] objects made so far, 0:0[0-9]$' '^wsr: stub: 4 objects made in ')
[ -n "$reason" ] || [ "$(cat "$WSR_CACHE/progress/stub")" = "9 9" ] ||
	reason="an incremental build recorded '$(cat "$WSR_CACHE/progress/stub")' as a clean one's count"
verdict build_progress_of_an_incremental_build_counts_only "$reason"

# ninja says its own counts; the log of the build before is not read
# while ninja starts
printf '[5/5] an old build\n' >"$tmp/ninja.log"
stub ninja "$tmp/ninja.log" 6
out=$(STUB_DELAY=1.5 "$tmp/stub.sh" 2>&1)
reason=$(expect_lines "$out" '^wsr: stub: 0 steps made so far' '^wsr: stub: [1-5]/6 steps \([0-9]+%\)' \
	'^wsr: stub: 6 steps made in ')
! grep -q '/5 steps' <<<"$out" || reason="the old log was read: $(tr '\n' '|' <<<"$out")"
verdict build_progress_reads_ninja_counts "$reason"

# a build that dies: the display ends, prints no more and leaves no
# stamp file behind
rm -rf "$tmp/b2" && mkdir -p "$tmp/b2"
stub objects "$tmp/b2" 8
mkdir -p "$tmp/t"
out=$(TMPDIR=$tmp/t STUB_DIE_AT=3 "$tmp/stub.sh" 2>"$tmp/err")
sleep 2
reason=""
if _progress_alive "$(cat "$tmp/loop.pid")"; then
	reason="the display still runs after its build died"
	kill "$(cat "$tmp/loop.pid")"
elif [ "$out" != "" ] || grep -q 'objects made in' "$tmp/err"; then
	reason="a dead build printed '$out' or a last line: $(tr '\n' '|' <"$tmp/err")"
elif [ -n "$(ls -A "$tmp/t")" ]; then
	reason="a stamp file is left: $(ls -A "$tmp/t")"
fi
verdict build_progress_ends_with_a_build_that_dies "$reason"

# the kernel and QEMU keys: the same without the calls; a call with more
# on its line counts
reason=""
for s in build-kernel.sh build-qemu.sh; do
	mkdir -p "$tmp/without" "$tmp/planted"
	grep -v '^progress_' "$WSR_ROOT/vmtests/$s" >"$tmp/without/$s"
	# shellcheck disable=SC2016 # the planted line, as it is
	{ cat "$WSR_ROOT/vmtests/$s"; echo 'progress_start "x" objects "$build"; make -j1 other'; } >"$tmp/planted/$s"
	grep -q '^progress_start' "$WSR_ROOT/vmtests/$s" || reason+="$s has no progress_start; "
	[ "$(hash_inputs "$WSR_ROOT/vmtests/$s")" = "$(hash_inputs "$tmp/without/$s")" ] ||
		reason+="$s's key changes with its progress lines; "
	[ "$(hash_inputs "$WSR_ROOT/vmtests/$s")" != "$(hash_inputs "$tmp/planted/$s")" ] ||
		reason+="$s's key ignores a progress line with a command after it; "
done
verdict build_keys_leave_out_progress_lines_alone "${reason%; }"

exit "$failed"
