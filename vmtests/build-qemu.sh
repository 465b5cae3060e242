#!/usr/bin/env bash
# Build QEMU for the host side of the tests: Debian's qemu 7.2 source with
# qemu-patches/ applied, x86_64-softmmu only, minimal features.
#
# Prints the install prefix (bin/qemu-system-x86_64, share/qemu/).
set -eu
. "$(dirname "$0")/lib.sh"

PATCHES=("$WSR_ROOT"/qemu-patches/0*.patch)

version=$(apt-cache showsrc qemu 2>/dev/null | awk '/^Version:/ { print $2; exit }')
[ -n "$version" ] || die "no qemu source package known to apt (run vmtests/setup-host.sh)"
key=$( (echo "$version"; hash_inputs "${PATCHES[@]}" "$0") | sha256sum | cut -c1-16)
out=$WSR_CACHE/qemu-$key
tree=$WSR_CACHE/qemu-src-${version//[:~]/_}
build=$tree/build-wsr

if [ -e "$out/done" ]; then
	echo "$out"
	exit 0
fi

if [ ! -e "$tree/.git/refs/heads/pristine" ]; then
	log "fetching Debian's qemu $version source (once per source version)"
	rm -rf "$tree" "$tree.dl"
	mkdir -p "$tree.dl"
	(cd "$tree.dl" && apt-get source -qq "qemu=$version" >/dev/null) ||
		die "apt-get source qemu failed"
	mv "$tree.dl"/qemu-*/ "$tree"
	rm -rf "$tree.dl"
	git_tree_init "$tree"
fi
# keep the build folder across patch changes: it is ignored by the reset
echo "/build-wsr/" >"$tree/.git/info/exclude"
git -C "$tree" checkout -q -f pristine
git -C "$tree" clean -q -fd
apply_patches "$tree" "${PATCHES[@]}"

mkdir -p "$build"
if [ ! -e "$build/build.ninja" ]; then
	log "configuring qemu $version"
	(cd "$build" && ../configure --target-list=x86_64-softmmu \
		--without-default-features --enable-tcg --enable-kvm \
		--disable-docs --disable-werror \
		--meson=/usr/bin/meson) >"$build/configure.log" 2>&1 ||
		{ tail -n 30 "$build/configure.log" >&2; die "qemu configure failed"; }
fi
log "building qemu in $build (incremental; about 5 min from clean)"
ninja -C "$build" -j"$JOBS" qemu-system-x86_64 >"$build/make.log" 2>&1 ||
	{ tail -n 40 "$build/make.log" >&2; die "qemu build failed (log: $build/make.log)"; }

# the binary and any ROMs of the source; the prebuilt BIOS and option ROMs
# come from Debian's seabios and qemu-system-data packages (see run)
rm -rf "$out" "$out.tmp"
mkdir -p "$out.tmp/pc-bios"
cp "$build/qemu-system-x86_64" "$out.tmp/"
find "$build/pc-bios" "$tree/pc-bios" -maxdepth 2 \( -name '*.bin' -o -name '*.rom' \) \
	-exec cp -n {} "$out.tmp/pc-bios/" \;
touch "$out.tmp/done"
mv "$out.tmp" "$out"
echo "$out"
