#!/usr/bin/env bash
# Style of the two patch series, by each project's own checkpatch.pl, both
# with --strict: the kernel's (also --show-types) on kernel-patches/,
# QEMU's on qemu-patches/.  Any finding, error, warning or check, fails
# its series unless vmtests/checkpatch-allowlist names it (patch, type,
# reason); so does an entry there that names nothing found, so that the
# list stays the series' own.  The kernel series' cover letter gives the
# reviewers the same reasons: its "checkpatch --strict leaves:" paragraph
# must quote, patch by patch, the messages of exactly the findings allowed.
#
#   checkpatch.sh               both series
#   checkpatch.sh [--allowlist FILE] kernel|qemu PATCH...
#                               those patches as the series (lint.sh's
#                               self-tests); a cover letter among them is
#                               checked against what is allowed
#
# Run after the builds, which unpack both trees.
# Prints "PASS name" or "FAIL name: reason".
set -u
. "$(dirname "$0")/lib.sh"
# verdict: the vocabulary every test shares
# shellcheck source=../tests/testlib.sh
. "$WSR_ROOT/tests/testlib.sh"

allowlist=$WSR_ROOT/vmtests/checkpatch-allowlist
qtrees=("$WSR_CACHE"/qemu-src-*/)
qtree=${qtrees[0]}
ktree=$WSR_CACHE/linux-src-$(pkg_version linux-source-6.1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# patch_id PATCH: how the allowlist names it (kernel-patches/FILE)
patch_id() {
	local d=${1%/*}
	echo "${d##*/}/${1##*/}"
}

# findings PATCH: checkpatch's findings in PATCH (run in the tree, with
# the series' arguments), one per line: "LINE<TAB>LEVEL<TAB>TYPE<TAB>MESSAGE";
# then "total<TAB>N", N as checkpatch's summary counts them (it prints
# none for a clean patch, exiting 0), or "broken<TAB>WHY"
findings() {
	local out rc
	out=$(cd "$tree" && perl scripts/checkpatch.pl "${args[@]}" --terse "$1" 2>&1)
	rc=$?
	if [ "$rc" = 0 ] && [ -z "$out" ]; then
		printf 'total\t0\n'
		return
	elif [ "$rc" != 1 ]; then
		printf 'broken\tstatus %s: %s\n' "$rc" "$(head -n 1 <<<"$out")"
		return
	fi
	printf '%s\n' "$out" | awk -v p="$1" '
		index($0, p ":") == 1 && match($0, /: (ERROR|WARNING|CHECK)(:[A-Z0-9_]+)?: /) {
			line = substr($0, length(p) + 2, RSTART - length(p) - 2)
			head = substr($0, RSTART + 2, RLENGTH - 4)
			msg = substr($0, RSTART + RLENGTH)
			level = head; sub(/:.*/, "", level)
			type = head; sub(/^[A-Z]+:?/, "", type)
			if (type == "") {	# QEMU: the message, as a type
				type = toupper(msg); gsub(/[^A-Z0-9]+/, "_", type)
				gsub(/^_+|_+$/, "", type)
			}
			printf "%s\t%s\t%s\t%s\n", line, level, type, msg
		}
		/^total: / {
			n = 0
			for (i = 2; i < NF; i++) if ($(i + 1) ~ /^(errors|warnings|checks),?$/) n += $i
			printf "total\t%d\n", n
		}'
}

# check_series NAME PATCH...: one verdict for the series (tree, args and
# allowlist set by the caller); the allowed findings go to $tmp/allowed-NAME
# as "PATCH-ID<TAB>TYPE<TAB>MESSAGE"
check_series() {
	local name=$1 p id line level type msg bad="" checked=" " key
	local -A allowed=() seen=()
	shift
	while read -r id type _; do
		case "$id" in "#"* | "") continue ;; esac
		allowed["$id $type"]=1
	done <"$allowlist"
	: >"$tmp/allowed-$name"
	for p in "$@"; do
		case "$p" in */0000-cover-letter.patch) continue ;; esac
		id=$(patch_id "$p")
		findings "$p" >"$tmp/f-$name"
		if grep -q '^broken' "$tmp/f-$name"; then
			bad+="; ${p##*/}: checkpatch.pl failed, $(sed -n 's/^broken\t//p' "$tmp/f-$name")"
			continue
		fi
		if [ "$(grep -c '^total' "$tmp/f-$name")" != 1 ] ||
			[ "$(grep -vc '^total' "$tmp/f-$name")" != "$(sed -n 's/^total\t//p' "$tmp/f-$name")" ]; then
			bad+="; ${p##*/}: its findings could not be read from checkpatch.pl's output"
			continue
		fi
		checked+="$id "
		while IFS=$'\t' read -r line level type msg; do
			[ "$line" != total ] || continue
			if [ -n "${allowed["$id $type"]:-}" ]; then
				seen["$id $type"]=1
				printf '%s\t%s\t%s\n' "$id" "$type" "$msg" >>"$tmp/allowed-$name"
			else
				bad+="; ${p##*/}:$line $level:$type $msg"
			fi
		done <"$tmp/f-$name"
	done
	# entries for the patches checked (to the end) that match no finding
	for key in "${!allowed[@]}"; do
		case "$checked" in *" ${key% *} "*) ;; *) continue ;; esac
		[ -n "${seen["$key"]:-}" ] || bad+="; allowlisted but not found: $key"
	done
	verdict "$name-series-checkpatch" "${bad#; }"
}

# check_cover_letter LETTER ALLOWED: the letter's "checkpatch --strict
# leaves:" paragraph ("- patch N: "MESSAGE" ... : reason" items) quotes the
# start of each allowed finding's message under its patch's number, and
# quotes nothing else
check_cover_letter() {
	local bad
	bad=$(awk -F'\t' '
		FILENAME == ARGV[1] {	# the allowed findings
			n = $1; sub(/^.*\//, "", n); sub(/-.*/, "", n); n += 0
			if (!((n, $2, $3) in dup)) { dup[n, $2, $3]; nf++; fnum[nf] = n; ftype[nf] = $2; fmsg[nf] = $3 }
			next
		}
		/^checkpatch --strict leaves:/ { on = 1; next }
		on && /^[[:space:]]*$/ { on = 0 }
		on && /^- patch [0-9]+:/ { item = $0; sub(/^- patch /, "", item); sub(/:.*/, "", item); item += 0 }
		on && item { text[item] = text[item] " " $0 }
		END {
			for (n in text) {	# the quoted messages, per patch
				t = text[n]; gsub(/[[:space:]]+/, " ", t)
				while (match(t, /"[^"]*"/)) {
					nq++; qnum[nq] = n; qmsg[nq] = substr(t, RSTART + 1, RLENGTH - 2)
					t = substr(t, RSTART + RLENGTH)
				}
			}
			for (i = 1; i <= nf; i++) {
				ok = 0
				for (j = 1; j <= nq; j++)
					if (qnum[j] == fnum[i] && index(fmsg[i], qmsg[j]) == 1) ok = 1
				if (!ok) printf "; patch %d: %s (\"%s\") is allowed, the letter does not quote it", fnum[i], ftype[i], fmsg[i]
			}
			for (j = 1; j <= nq; j++) {
				ok = 0
				for (i = 1; i <= nf; i++)
					if (qnum[j] == fnum[i] && index(fmsg[i], qmsg[j]) == 1) ok = 1
				if (!ok) printf "; patch %d: the letter quotes \"%s\", no allowed finding says it", qnum[j], qmsg[j]
			}
		}' "$2" "$1")
	verdict kernel-series-cover-letter-matches-allowlist "${bad#; }"
}

# series NAME PATCH...: the series' verdicts, or why it could not be checked
series() {
	local name=$1 p patches=()
	shift
	case "$name" in
	kernel)
		tree=$ktree
		args=(--strict --show-types --no-tree) ;;
	qemu)
		tree=$qtree
		args=(--strict --no-signoff) ;;
	*) die "unknown series '$name' (kernel, qemu)" ;;
	esac
	if [ ! -e "$tree/scripts/checkpatch.pl" ]; then
		verdict "$name-series-checkpatch" "no $name tree in $WSR_CACHE (run build-$name.sh)"
		return
	fi
	# checkpatch.pl runs in the tree
	for p in "$@"; do
		patches+=("$(realpath -m "$p")")
	done
	check_series "$name" "${patches[@]}"
	for p in "${patches[@]}"; do
		case "$p" in
		*/0000-cover-letter.patch) check_cover_letter "$p" "$tmp/allowed-$name" ;;
		esac
	done
}

if [ "${1:-}" = --allowlist ]; then
	allowlist=$2
	shift 2
fi
if [ $# -gt 0 ]; then
	series "$@"
else
	# both series at once (a core each: checkpatch.pl is one process),
	# their verdicts printed in this order; one that stops early says so
	series qemu "$WSR_ROOT"/qemu-patches/0*.patch >"$tmp/out-qemu" 2>&1 &
	qpid=$!
	series kernel "$WSR_ROOT"/kernel-patches/0*.patch >"$tmp/out-kernel" 2>&1 &
	kpid=$!
	wait "$qpid"
	rc=$?
	cat "$tmp/out-qemu"
	[ "$rc" = 0 ] || verdict qemu-series-checkpatch "its check stopped with status $rc"
	wait "$kpid"
	rc=$?
	cat "$tmp/out-kernel"
	[ "$rc" = 0 ] || verdict kernel-series-checkpatch "its check stopped with status $rc"
fi
