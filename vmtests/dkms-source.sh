#!/usr/bin/env bash
# The DKMS package's source folder, made from kernel-patches/ at build
# time, never kept by hand: the files of drivers/virtio/ and include/ that
# the series changes or adds, taken pristine from Debian's linux-source-6.1
# VERSION (the stock kernel's) and patched with the series, then dkms/'s
# Kbuild and dkms.conf (its version the series' hash).
#
#   dkms-source.sh OUT VERSION
#
# OUT gets virtio_balloon.c, include/... (the series' headers, as in the
# kernel's tree), Kbuild and dkms.conf; prints the package's version.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# = 2 ] || die "usage: dkms-source.sh OUT VERSION"
out=$1 version=$2
DRIVER=drivers/virtio/virtio_balloon.c
PATCHES=()
for p in "$WSR_ROOT"/kernel-patches/0*.patch; do
	[ "${p##*/}" = 0000-cover-letter.patch ] || PATCHES+=("$p")
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# series_files a|b: the driver's and headers' paths on the patches' ---
# (a: those that exist before) or +++ (b: after) lines
series_files() {
	local sign=+++
	[ "$1" = b ] || sign=---
	awk -v s="$sign $1/" 'index($0, s) == 1 {
		f = substr($0, length(s) + 1); sub(/[ \t].*/, "", f)
		if (f ~ /^(drivers|include)\//) print f }' "${PATCHES[@]}" | sort -u
}
mapfile -t files < <(series_files b)
[ "${#files[@]}" -gt 0 ] || die "kernel-patches/ changes no file of drivers/ or include/"
for f in "${files[@]}"; do
	case "$f" in
	"$DRIVER"|include/*) ;;
	*) die "the series changes $f: dkms/Kbuild builds $DRIVER alone" ;;
	esac
done
mapfile -t pristine < <(series_files a)
[ "${#pristine[@]}" -gt 0 ] || die "kernel-patches/ changes no existing file of drivers/ or include/"
kernel_source_files "$version" "$tmp/k" "${pristine[@]}"
includes=("${files[@]/#/--include=}")
for p in "${PATCHES[@]}"; do
	git -C "$tmp/k" apply --allow-empty "${includes[@]}" "$p" ||
		die "${p##*/} does not apply to linux-source-6.1 $version"
done

pkgver=$(hash_inputs "${PATCHES[@]}")
rm -rf "$out"
mkdir -p "$out"
for f in "${files[@]}"; do
	case "$f" in
	"$DRIVER") cp "$tmp/k/$f" "$out/" ;;
	*) install -D -m 644 "$tmp/k/$f" "$out/$f" ;;
	esac
done
cp "$WSR_ROOT/dkms/Kbuild" "$out/"
sed "s/@VERSION@/$pkgver/" "$WSR_ROOT/dkms/dkms.conf" >"$out/dkms.conf"
echo "$pkgver"
