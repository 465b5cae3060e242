#!/usr/bin/env bash
# Each #define name must have one home: print the names that two headers
# of a project define, one line each, "NAME FILE FILE...", and exit 1 if
# there is one.  The headers are the files ending in .h that git tracks or
# would (not ignored), and the kernel series' uapi header as
# kernel-patches/ adds it (a value the kernel defines is the kernel's;
# vmtests/uapi-header.sh makes it).  Not kernel-headers/: the build's
# copies of the kernel's, which vmtests/kernel-headers.sh --check holds
# to the kernel (make lint).
# A name defined twice in one header (#ifdef ... #else) is one home.
#
#   define-homes.sh [--root DIR]   the project at DIR (default: this one)
set -eu
. "$(dirname "$0")/lib.sh"

root=$WSR_ROOT
[ "${1:-}" != --root ] || root=$2
uapi="include/uapi/linux/virtio_balloon.h(kernel-patches)"

dups=$(
	{
		git -C "$root" ls-files -co --exclude-standard -- '*.h' ':!kernel-headers/' | while read -r f; do
			sed -n 's/^[[:space:]]*#[[:space:]]*define[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' \
				"$root/$f" | sed "s|\$| $f|"
		done
		# the lines the series adds to the uapi header
		cat "$root"/kernel-patches/0*.patch 2>/dev/null |
			awk -v home="$uapi" '/^diff --git / { in_uapi = ($3 ~ /include\/uapi\//) }
				in_uapi && /^\+[[:space:]]*#[[:space:]]*define[[:space:]]/ {
					sub(/^\+[[:space:]]*#[[:space:]]*define[[:space:]]+/, "")
					sub(/[^A-Za-z0-9_].*/, "")
					print $0, home
				}'
	} | sort -u | awk '{ files[$1] = files[$1] " " $2; n[$1]++ }
		END { for (d in n) if (n[d] > 1) print d files[d] }' | sort
)
[ -z "$dups" ] || { echo "$dups"; exit 1; }
