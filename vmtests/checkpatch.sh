#!/usr/bin/env bash
# Style of the two patch series, by each project's own checkpatch.pl:
#   qemu-patches/    QEMU's, no error and no warning;
#   kernel-patches/  the kernel's with --strict, no error (the warnings
#                    and checks left are justified in the cover letter).
# Run after the builds, which unpack both trees.
# Prints "PASS name" or "FAIL name: reason".
set -u
. "$(dirname "$0")/lib.sh"

qtrees=("$WSR_CACHE"/qemu-src-*/)
qtree=${qtrees[0]}
ktree=$WSR_CACHE/linux-src-$(pkg_version linux-source-6.1)

# check NAME TREE PERL-ARGS... -- PATCH...: one verdict for the series
check() {
	local name=$1 tree=$2 out p bad=""
	shift 2
	local args=()
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	for p in "$@"; do
		case "$p" in */0000-cover-letter.patch) continue ;; esac
		out=$(cd "$tree" && perl scripts/checkpatch.pl "${args[@]}" "$p" 2>&1 |
			grep '^total:')
		case "$name:$out" in
		qemu*"total: 0 errors, 0 warnings"*) ;;
		kernel*"total: 0 errors"*) ;;
		*) bad+=" ${p##*/}: ${out:-no verdict}" ;;
		esac
	done
	if [ -n "$bad" ]; then
		echo "FAIL $name:$bad"
	else
		echo "PASS $name"
	fi
}

if [ -d "$qtree" ]; then
	check qemu-series-checkpatch "$qtree" --no-signoff -- "$WSR_ROOT"/qemu-patches/0*.patch
else
	echo "FAIL qemu-series-checkpatch: no QEMU tree in $WSR_CACHE (run build-qemu.sh)"
fi
if [ -d "$ktree" ]; then
	check kernel-series-checkpatch "$ktree" --strict --no-tree -- "$WSR_ROOT"/kernel-patches/0*.patch
else
	echo "FAIL kernel-series-checkpatch: no kernel tree in $WSR_CACHE (run build-kernel.sh)"
fi
