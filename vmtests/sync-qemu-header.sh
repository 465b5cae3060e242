#!/usr/bin/env bash
# QEMU's copy of the virtio-balloon uapi header, made from the kernel
# series the way QEMU's scripts/update-linux-headers.sh makes it: the
# kernel's own scripts/headers_install.sh, then that script's cp_portable
# (taken from the QEMU tree, not copied here), on linux-source-6.1's
# include/uapi/linux/virtio_balloon.h with kernel-patches/ applied.
#
#   sync-qemu-header.sh QEMU_TREE          write it into QEMU_TREE
#   sync-qemu-header.sh --check QEMU_TREE  exit 1 if QEMU_TREE's differs
#
# The QEMU series (qemu-patches/) must carry exactly this file: after a
# change to the kernel header, run it on a tree with the series applied
# and fold the result into the patch that adds the header's new lines.
set -eu
. "$(dirname "$0")/lib.sh"

check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
{ [ $# = 1 ] && [ -d "$1/include/standard-headers/linux" ]; } ||
	die "usage: sync-qemu-header.sh [--check] QEMU_TREE"
qemu=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$WSR_ROOT"/vmtests/uapi-header.sh "$tmp/installed.h"

# QEMU's cp_portable, as its update-linux-headers.sh defines it
sed -n '/^cp_portable()/,/^}/p' "$qemu/scripts/update-linux-headers.sh" >"$tmp/cp_portable.sh"
grep -q '^}' "$tmp/cp_portable.sh" || die "no cp_portable() in $qemu/scripts/update-linux-headers.sh"
mkdir -p "$tmp/out"
cp "$tmp/installed.h" "$tmp/virtio_balloon.h"
# shellcheck disable=SC1091 # generated above
(. "$tmp/cp_portable.sh" && cp_portable "$tmp/virtio_balloon.h" "$tmp/out")

dest=$qemu/include/standard-headers/linux/virtio_balloon.h
if [ "$check" = 1 ]; then
	diff -u "$dest" "$tmp/out/virtio_balloon.h" >&2 ||
		die "$dest is not the kernel series' header (run vmtests/sync-qemu-header.sh on a tree with qemu-patches/ applied and update the series)"
	exit 0
fi
cp "$tmp/out/virtio_balloon.h" "$dest"
