#!/usr/bin/env bash
# The system calls a systemd unit's SystemCallFilter= lines allow, one per
# line, sorted: the union of its allow lists less the union of its deny
# lists ("~..."), each set (@name) expanded by systemd-analyze
# syscall-filter, as systemd expands it.  For the tests that check the
# calls a program makes against its unit's filter.
#
#   syscall-filter.sh UNIT
set -eu
. "$(dirname "$0")/lib.sh"

{ [ $# = 1 ] && [ -r "$1" ]; } || die "usage: syscall-filter.sh UNIT (a readable unit file)"
command -v systemd-analyze >/dev/null || die "no systemd-analyze (package systemd)"

# expand NAME...: the calls of each name, a set recursively
expand() {
	local n x
	for n in "$@"; do
		case "$n" in
		@*)
			x=$(systemd-analyze syscall-filter "$n" 2>/dev/null) || die "no set $n"
			# shellcheck disable=SC2046 # names, one a word
			expand $(printf '%s\n' "$x" | tail -n +2 | sed 's/^[[:space:]]*//; /^#/d; /^$/d')
			;;
		*) echo "$n" ;;
		esac
	done
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/allow"
: >"$tmp/deny"
while IFS= read -r line; do
	v=${line#SystemCallFilter=}
	if [ "${v#\~}" != "$v" ]; then
		# shellcheck disable=SC2086 # a list of names
		expand ${v#\~} >>"$tmp/deny"
	else
		# shellcheck disable=SC2086 # a list of names
		expand $v >>"$tmp/allow"
	fi
done < <(grep '^SystemCallFilter=' "$1")
[ -s "$tmp/allow" ] || die "$1 allows no system call by name (no SystemCallFilter= allow list)"
sort -u "$tmp/allow" >"$tmp/a"
sort -u "$tmp/deny" >"$tmp/d"
comm -23 "$tmp/a" "$tmp/d"
