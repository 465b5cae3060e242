#!/usr/bin/env bash
# make check's inventory of tests: tests/inventory lists every test name
# as vmtests/check.sh records it (SECTION/NAME).  A test that ran must be
# listed there, and a listed test that this run selects must have run:
# a renamed test, one that dropped out of a pattern list (DEBUG_TESTS,
# STOCK_SKIP) or a runner that stopped early fails the run instead of
# leaving "N passed, 0 failed" with fewer tests; a test that ran twice
# fails it too.
#
#   vmtests/inventory.sh RESULTS [META]
#
# RESULTS holds check.sh's records ("PASS name", "FAIL name: reason");
# META the names among them that are about the run, not tests (a runner
# that stopped, a selection that matched nothing): they are not listed.
# Prints "FAIL name: reason" per finding and exits 1 if there is one.
# WSR_INVENTORY=FILE compares with FILE instead of tests/inventory.
#
# A run restricted by check.sh's variables expects what they select:
#   WSR_TESTS           guest-ours/NAME where NAME matches a pattern
#   WSR_BALLOON_TESTS   host-balloon/NAME, host-balloon-debug/NAME and
#                       host-balloon-stock/NAME
#   WSR_DEBUG_TESTS     host-balloon-debug/NAME and guest-debug/NAME (any
#                       balloon or guest test listed, as it may run there)
#   WSR_STOCK_TESTS     guest-stock/NAME (any guest test listed)
#   WSR_SKIP_SELFTEST=1 no harness/NAME
# and each of their patterns must match a test that ran: a typo does not
# pass as "0 failed".  The pattern "none" selects nothing on purpose.
# Without them, every listed test must run.
set -u
. "$(dirname "$0")/lib.sh"

results=${1:?usage: vmtests/inventory.sh RESULTS [META]}
meta=${2:-/dev/null}
inventory=${WSR_INVENTORY:-$WSR_ROOT/tests/inventory}
findings=()

# finding NAME REASON: a "FAIL NAME: REASON" to print
finding() {
	findings+=("FAIL $1: $2")
}

# Records that follow from another test rather than being one: the
# promtool check of the exposition the metrics test printed (on the
# console of the suite it ran in), and the debug kernel's sanitizer
# verdict on a guest suite, recorded whenever that suite ran
promtool_of=guest-ours/metrics_equal_show_with_escaped_memcg_labels

# matches_var NAME VAR: NAME matches one of the shell patterns in VAR
# ("*" if VAR is unset or empty)
matches_var() {
	local - n=$1 v=${!2:-*} p
	set -f
	# shellcheck disable=SC2254 # patterns, on purpose
	for p in $v; do case "$n" in $p) return 0 ;; esac; done
	return 1
}

# selected NAME: this run's selection includes the listed test NAME
selected() {
	local n=${1#*/}
	case "$1" in
	guest-ours/metrics_exposition_passes_promtool | \
		guest-ours/guest_metrics_reach_prometheus_through_the_textfile_collector)
		selected "$promtool_of"
		return
		;;
	guest-debug/no-sanitizer-reports) [ "$debug_guests" -gt 0 ]; return ;;
	esac
	case "${1%%/*}" in
	harness) [ "${WSR_SKIP_SELFTEST:-0}" != 1 ] ;;
	host-balloon) matches_var "$n" WSR_BALLOON_TESTS ;;
	host-libvirt) matches_var "$n" WSR_LIBVIRT_TESTS ;;
	host-balloon-debug) matches_var "$n" WSR_BALLOON_TESTS && matches_var "$n" WSR_DEBUG_TESTS ;;
	host-balloon-stock) matches_var "$n" WSR_BALLOON_TESTS ;;
	guest-ours) matches_var "$n" WSR_TESTS ;;
	guest-debug) matches_var "$n" WSR_DEBUG_TESTS ;;
	guest-stock) matches_var "$n" WSR_STOCK_TESTS ;;
	*) return 0 ;;
	esac
}

[ -r "$results" ] || { echo "FAIL inventory/results: $results cannot be read"; exit 1; }
declare -A listed=() ran=() is_meta=()
while read -r n; do [ -z "$n" ] || is_meta[$n]=1; done <"$meta"
while read -r n; do listed[$n]=1; done < <(grep -v '^[[:space:]]*\(#\|$\)' "$inventory" 2>/dev/null)
[ "${#listed[@]}" -gt 0 ] || { echo "FAIL inventory/list: $inventory lists no test"; exit 1; }
while read -r v n; do
	case "$v" in PASS|FAIL) ;; *) continue ;; esac
	n=${n%%:*}
	[ -z "${is_meta[$n]:-}" ] || continue
	# a test run twice (in two lanes, or by two sections' selections)
	# costs its time twice, and a second verdict may hide the first's
	[ -z "${ran[$n]:-}" ] || finding "inventory/$n" "ran twice (two selections pick it)"
	ran[$n]=1
done <"$results"

# An override of what runs on the debug or the stock kernel may pick any
# balloon or guest test there (the promtool record is not a test)
for n in "${!listed[@]}"; do
	case "$n" in
	host-balloon/*) [ -z "${WSR_DEBUG_TESTS:-}" ] || listed[host-balloon-debug/${n#*/}]=1 ;;
	guest-ours/metrics_exposition_passes_promtool) ;;
	guest-ours/*)
		[ -z "${WSR_DEBUG_TESTS:-}" ] || listed[guest-debug/${n#*/}]=1
		[ -z "${WSR_STOCK_TESTS:-}" ] || listed[guest-stock/${n#*/}]=1
		;;
	esac
done

debug_guests=0
for n in "${!listed[@]}"; do
	case "$n" in guest-debug/no-sanitizer-reports) ;;
	guest-debug/*) ! selected "$n" || debug_guests=$((debug_guests + 1)) ;;
	esac
done

for n in "${!ran[@]}"; do
	[ -n "${listed[$n]:-}" ] ||
		finding "inventory/$n" "ran, but ${inventory#"$WSR_ROOT"/} does not list it (a new or renamed test: list it there)"
done
for n in "${!listed[@]}"; do
	[ -n "${ran[$n]:-}" ] || ! selected "$n" ||
		finding "$n" "listed in ${inventory#"$WSR_ROOT"/}, but did not run"
done

# pattern_check VAR SECTION...: each of VAR's patterns matches a test
# that ran in one of the SECTIONs
pattern_check() {
	local - v=$1 p n s hit
	shift
	set -f
	for p in ${!v:-}; do
		[ "$p" != none ] || continue
		hit=0
		for n in "${!ran[@]}"; do
			for s in "$@"; do
				# shellcheck disable=SC2254 # patterns, on purpose
				case "$n" in "$s"/$p) hit=1; break 2 ;; esac
			done
		done
		[ "$hit" = 1 ] || finding "selection/$v" "pattern '$p' matches no test that ran"
	done
}
pattern_check WSR_TESTS guest-ours
pattern_check WSR_BALLOON_TESTS host-balloon host-balloon-debug host-balloon-stock
pattern_check WSR_DEBUG_TESTS host-balloon-debug guest-debug
pattern_check WSR_STOCK_TESTS guest-stock
pattern_check WSR_LIBVIRT_TESTS host-libvirt
[ "${#findings[@]}" = 0 ] || { printf '%s\n' "${findings[@]}" | LC_ALL=C sort; exit 1; }
