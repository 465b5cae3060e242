#!/usr/bin/env bash
# The kernel series' virtio-balloon uapi header, installed as the kernel's
# "make headers_install" installs it: linux-source-6.1's
# include/uapi/linux/virtio_balloon.h with kernel-patches/ applied, through
# the kernel's own scripts/headers_install.sh.  It is the one home of the
# balloon wire's values: the build takes them from it (the Makefile's
# $(BUILD)/uapi), QEMU carries the one copy (vmtests/sync-qemu-header.sh).
#
#   uapi-header.sh OUT     write it to OUT
set -eu
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || die "usage: uapi-header.sh OUT"
out=$1
HDR=include/uapi/linux/virtio_balloon.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the three pristine kernel files: from the unpacked tree when the kernel
# build made one (a second), else from the source tarball (20 s)
version=$(pkg_version linux-source-6.1)
tree=$WSR_CACHE/linux-src-$version
files=("$HDR" scripts/headers_install.sh scripts/unifdef.c)
mkdir -p "$tmp/k"
if [ -e "$tree/.git/refs/heads/pristine" ]; then
	for f in "${files[@]}"; do
		mkdir -p "$tmp/k/${f%/*}"
		git -C "$tree" show "pristine:$f" >"$tmp/k/$f"
	done
else
	tar -xf /usr/src/linux-source-6.1.tar.xz -C "$tmp/k" --strip-components=1 \
		"${files[@]/#/linux-source-6.1/}"
fi
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
