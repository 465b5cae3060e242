#!/usr/bin/env bash
# Runs shellcheck, at its default (lowest) severity, on every shell file
# of the repository: *.sh, and any file whose first line is a sh, bash,
# dash or ash shebang (vmtests/run, .ci/run); what .gitignore leaves out
# (build/) is not ours to check.  Its settings are in .shellcheckrc; a
# finding the code means is disabled on its line, with the reason.
#
#   vmtests/shellcheck.sh [--root DIR]   the shell files of DIR (default:
#       the repository; lint.sh's self-test gives another)
#
# Prints "PASS shellcheck/FILE" or "FAIL shellcheck/FILE: its findings"
# per file.
set -u
. "$(dirname "$0")/lib.sh"
# verdict: the vocabulary every test shares
# shellcheck source=../tests/testlib.sh
. "$WSR_ROOT/tests/testlib.sh"

root=$WSR_ROOT
[ "${1:-}" != --root ] || root=$2

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
err=$(mktemp)
trap 'rm -f "$err"' EXIT
# one run for all: each file's findings, as "FILE:LINE:COL: LEVEL: MESSAGE [SCnnnn]"
findings=$(cd "$root" && shellcheck --severity=style --format=gcc -- "${files[@]}" 2>"$err")
rc=$?
# 0: nothing found, 1: findings; anything else means files went unchecked
if [ "$rc" -gt 1 ]; then
	verdict shellcheck "status $rc: $(head -n 1 "$err")"
	exit 0
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
