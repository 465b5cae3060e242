#!/usr/bin/env bash
# usage: vmstate-check.sh [--update] [--patches DIR]
#
# The balloon device's migration format, as the QEMU series changes it:
# the series applied to Debian's pristine hw/virtio/virtio-balloon.c, then
# every VMStateDescription of the device, pristine against patched, as a
# unified diff.  It must equal qemu-patches/virtio-balloon-vmstate.diff:
# a patch that changes what migrates fails here until that file says so
# (--update writes it).  QEMU's -dump-vmstate cannot show this: the
# virtio core saves a device's own description (vdc->vmsd) from
# virtio_save(), and the dump only sees the "virtio" field around it.
#
#   --patches DIR   the series' folder (default qemu-patches; for tests)
#
# Needs the QEMU source tree that vmtests/build-qemu.sh fetched.  Prints
# the difference and exits 1 when the format changed without the file.
set -eu
. "$(dirname "$0")/lib.sh"

update=0 patches=$WSR_ROOT/qemu-patches
while [ $# -gt 0 ]; do
	case "$1" in
	--update) update=1; shift ;;
	--patches) patches=${2:?}; shift 2 ;;
	-h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (--help)" ;;
	esac
done
file=hw/virtio/virtio-balloon.c
want=$WSR_ROOT/qemu-patches/virtio-balloon-vmstate.diff
tree=""
for t in "$WSR_CACHE"/qemu-src-*/; do
	[ -e "$t/.git/refs/heads/pristine" ] && tree=$t
done
[ -n "$tree" ] || die "no QEMU source tree in $WSR_CACHE: run vmtests/build-qemu.sh first"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/${file%/*}"
git -C "$tree" show "pristine:$file" >"$tmp/src/$file"
git -C "$tmp/src" init -q
# blocks FILE: the device's VMStateDescriptions, in the file's order
blocks() { awk '/^static const VMStateDescription vmstate_virtio_balloon/,/^};/' "$1"; }
blocks "$tmp/src/$file" >"$tmp/pristine"
for p in "$patches"/0*.patch; do
	git -C "$tmp/src" apply --include="$file" --whitespace=nowarn "$p" ||
		die "${p##*/} does not apply to $file"
done
blocks "$tmp/src/$file" >"$tmp/patched"
diff -u --label "pristine $file" --label "patched $file" "$tmp/pristine" "$tmp/patched" >"$tmp/diff" || true
if [ "$update" = 1 ]; then
	cp "$tmp/diff" "$want"
	log "wrote $want"
	exit 0
fi
if ! cmp -s "$tmp/diff" "$want"; then
	echo "the balloon device's migration format differs from ${want#"$WSR_ROOT"/}" \
		"(vmtests/vmstate-check.sh --update, once the change is meant):"
	diff -u "$want" "$tmp/diff" | head -n 40
	exit 1
fi
