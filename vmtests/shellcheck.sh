#!/usr/bin/env bash
# Runs shellcheck, at its default (lowest) severity, on every shell file
# of the repository: *.sh, and any file whose first line is a sh, bash,
# dash or ash shebang (vmtests/run, .ci/run); what .gitignore leaves out
# (build/) is not ours to check.  Its settings are in .shellcheckrc; a
# finding the code means is disabled on its line, with the reason.
#
#   vmtests/shellcheck.sh [--root DIR] [--no-cache]
#       --root DIR: the shell files of DIR (default: the repository;
#       lint.sh's self-test gives another)
#       --no-cache: run shellcheck even when the findings of the same
#       files are kept (below)
#
# Prints "PASS shellcheck/FILE" or "FAIL shellcheck/FILE: its findings"
# per file.
#
# The findings are kept in $WSR_CACHE/shellcheck, under a hash of the
# version of shellcheck, .shellcheckrc and every shell file's name and
# contents: the same files give the same findings, and a make check
# with nothing changed spent 30 s of a core on them.  A file
# that changed, or one more or less, runs shellcheck on them all again
# (a script is checked with the files it sources, which are among them).
set -u
. "$(dirname "$0")/lib.sh"
# verdict: the vocabulary every test shares
# shellcheck source=../tests/testlib.sh
. "$WSR_ROOT/tests/testlib.sh"

root=$WSR_ROOT cache=1
while [ $# -gt 0 ]; do
	case "$1" in
	--root) root=${2:?--root needs a folder}; shift 2 ;;
	--no-cache) cache=0; shift ;;
	*) die "unknown argument '$1' (vmtests/shellcheck.sh [--root DIR] [--no-cache])" ;;
	esac
done

# shell_files DIR: DIR's shell files, relative to it, sorted
shell_files() {
	local f first
	# every file git would track: tracked or new, not ignored
	{ git -C "$1" ls-files -co --exclude-standard 2>/dev/null ||
		(cd "$1" && find . -path ./.git -prune -o -path ./build -prune -o -type f -print |
			sed 's|^\./||'); } |
		sort -u | while IFS= read -r f; do
			[ -f "$1/$f" ] || continue	# deleted, not yet staged
			case "$f" in
			*.sh) echo "$f" ;;
			*)
				first=""
				IFS= read -r first <"$1/$f" 2>/dev/null
				[[ $first =~ ^#!.*[/\ ](ba|da|a)?sh([[:space:]]|$) ]] && echo "$f" ;;
			esac
		done
}

command -v shellcheck >/dev/null ||
	{ verdict shellcheck "not installed (make setup installs it)"; exit 0; }
mapfile -t files < <(shell_files "$root")
[ "${#files[@]}" -gt 0 ] || { verdict shellcheck "no shell files found in $root"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_shellcheck: shellcheck on the files, its findings in $tmp/findings-*;
# fails with a verdict when files went unchecked.
# JOBS shellcheck runs at once, one per core, each on a share of the
# files (dealt out round-robin, largest first, so the shares take about as
# long): one run for all kept one core busy and the other idle.  Each
# run's findings, as "FILE:LINE:COL: LEVEL: MESSAGE [SCnnnn]", are read
# together below, so the verdicts are those of one run.
run_shellcheck() {
	local jobs share pids=() i j rc by_size
	jobs=$(nproc 2>/dev/null || echo 2)
	[ "$jobs" -ge 1 ] || jobs=1
	[ "$jobs" -le "${#files[@]}" ] || jobs=${#files[@]}
	mapfile -t by_size < <(cd "$root" && wc -c -- "${files[@]}" | sed '$d' | sort -rn |
		sed 's/^ *[0-9]* //')
	# wc names a file as given: a name wc would quote cannot be dealt out
	[ "${#by_size[@]}" = "${#files[@]}" ] || { by_size=("${files[@]}"); jobs=1; }
	for ((j = 0; j < jobs; j++)); do
		share=()
		for ((i = j; i < ${#by_size[@]}; i += jobs)); do share+=("${by_size[i]}"); done
		(cd "$root" && shellcheck --severity=style --format=gcc -- "${share[@]}") \
			>"$tmp/findings-$j" 2>"$tmp/err-$j" &
		pids+=($!)
	done
	for ((j = 0; j < jobs; j++)); do
		wait "${pids[j]}"
		rc=$?
		# 0: nothing found, 1: findings; anything else means files went unchecked
		if [ "$rc" -gt 1 ]; then
			verdict shellcheck "status $rc: $(head -n 1 "$tmp/err-$j")"
			return 1
		fi
	done
}

# files_key: the hash the findings are kept under
files_key() {
	local f
	{
		shellcheck --version
		cat "$root/.shellcheckrc" 2>/dev/null
		for f in "${files[@]}"; do
			printf '== %s\n' "$f"
			cat "$root/$f"
		done
	} | sha256sum | cut -c1-16
}
kept=$WSR_CACHE/shellcheck/$(files_key)
if [ "$cache" = 1 ] && [ -f "$kept" ]; then
	findings=$(cat "$kept")
else
	run_shellcheck || exit 0
	findings=$(cat "$tmp"/findings-*)
	if [ "$cache" = 1 ] && mkdir -p "${kept%/*}"; then
		printf '%s\n' "$findings" >"$kept.$$" && mv "$kept.$$" "$kept"
	fi
fi
# a verdict per file, in order, from the findings that name it: awk
# prints "FILE<tab>REASON" (no reason: no findings)
printf '%s\n' "$findings" | awk -v list="$(printf '%s\n' "${files[@]}")" '
	{
		f = $0; sub(/:.*/, "", f)
		rest = substr($0, length(f) + 2)
		split(rest, p, ":")
		msg = rest; sub(/^[0-9]+:[0-9]+: [a-z]+: /, "", msg)
		code = msg; sub(/.*\[/, "", code); sub(/\]$/, "", code); sub(/ \[SC[0-9]+\]$/, "", msg)
		n[f]++
		if (n[f] <= 3) why[f] = why[f] (n[f] > 1 ? "; " : "") "line " p[1] " " code " " msg
	}
	END {
		nf = split(list, files, "\n")
		for (i = 1; i <= nf; i++) {
			f = files[i]
			if (f == "") continue
			if (!n[f]) { print f "\t"; continue }
			printf "%s\t%d finding%s: %s%s\n", f, n[f], (n[f] > 1 ? "s" : ""),
				why[f], (n[f] > 3 ? "; ..." : "")
		}
	}' | while IFS=$'\t' read -r f why; do verdict "shellcheck/$f" "$why"; done
