#!/usr/bin/env bash
# The kernel series' virtio-balloon uapi header, installed as the kernel's
# "make headers_install" installs it: linux-source-6.1's
# include/uapi/linux/virtio_balloon.h with kernel-patches/ applied, through
# the kernel's own scripts/headers_install.sh.  It is the one home of the
# balloon wire's values: the build reads its copy in kernel-headers/
# (vmtests/kernel-headers.sh), QEMU carries another
# (vmtests/sync-qemu-header.sh), both checked against it.
#
#   uapi-header.sh OUT     write it to OUT
set -eu
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || die "usage: uapi-header.sh OUT"
out=$1
HDR=include/uapi/linux/virtio_balloon.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the three pristine kernel files
kernel_source_files "$(pkg_version linux-source-6.1)" "$tmp/k" \
	"$HDR" scripts/headers_install.sh scripts/unifdef.c
for p in "$WSR_ROOT"/kernel-patches/0*.patch; do
	git -C "$tmp/k" apply --allow-empty --include="$HDR" "$p" ||
		die "${p##*/} does not apply to $HDR"
done

# headers_install.sh runs scripts/unifdef from the current folder
gcc -O1 -w -o "$tmp/k/scripts/unifdef" "$tmp/k/scripts/unifdef.c"
(cd "$tmp/k" && sh scripts/headers_install.sh "$HDR" "$tmp/installed.h")
mkdir -p "$(dirname "$out")"
cp "$tmp/installed.h" "$out.tmp"
mv "$out.tmp" "$out"
