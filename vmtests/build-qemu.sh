#!/usr/bin/env bash
# Build QEMU for the host side of the tests: Debian's qemu 7.2 source with
# qemu-patches/ applied, x86_64-softmmu only, minimal features.
#
#   build-qemu.sh [plain|asan]
#
# "plain" (the default) is the QEMU the guests run on.  "asan" is built
# with --enable-sanitizers (AddressSanitizer and UBSan, any report fatal)
# and without TCG, for the device's qtest (qemu-patches/0005), which
# drives it with the qtest accelerator and needs no CPU emulation; it
# also builds that qtest (qos-test).  Each has its own build folder.
#
# Prints the folder holding qemu-system-x86_64 and pc-bios/ (and, for
# asan, qos-test).
set -eu
. "$(dirname "$0")/lib.sh"

variant=${1:-plain}
PATCHES=("$WSR_ROOT"/qemu-patches/0*.patch)
case "$variant" in
plain)
	suffix=""
	targets=(qemu-system-x86_64)
	features=(--enable-tcg --enable-kvm) ;;
asan)
	suffix=-asan
	targets=(qemu-system-x86_64 tests/qtest/qos-test)
	features=(--disable-tcg --enable-kvm --enable-sanitizers) ;;
*) die "unknown qemu variant '$variant' (plain, asan)" ;;
esac

version=$(apt-cache showsrc qemu 2>/dev/null | awk '/^Version:/ { print $2; exit }')
[ -n "$version" ] || die "no qemu source package known to apt (run vmtests/setup-host.sh)"
key=$( (echo "$version $variant"; hash_inputs "${PATCHES[@]}" "$0") | sha256sum | cut -c1-16)
out=$WSR_CACHE/qemu$suffix-$key
tree=$WSR_CACHE/qemu-src-${version//[:~]/_}
build=$tree/build-wsr$suffix

if [ -e "$out/done" ]; then
	echo "$out"
	exit 0
fi

# one build at a time on the source tree, which both variants reset and
# patch (lib.sh)
lock_build_tree "$tree" QEMU "$out"

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
# keep the build folders across patch changes: the reset ignores them
printf '/build-wsr/\n/build-wsr-*/\n' >"$tree/.git/info/exclude"
git -C "$tree" checkout -q -f pristine
git -C "$tree" clean -q -fd
apply_patches "$tree" "${PATCHES[@]}"
# the series' copy of the uapi header must be the kernel series' one
"$WSR_ROOT"/vmtests/sync-qemu-header.sh --check "$tree"

mkdir -p "$build"
if [ ! -e "$build/build.ninja" ]; then
	log "configuring qemu $version ($variant)"
	(cd "$build" && ../configure --target-list=x86_64-softmmu \
		--without-default-features "${features[@]}" \
		--disable-docs --disable-werror \
		--meson=/usr/bin/meson) >"$build/configure.log" 2>&1 ||
		{ tail -n 30 "$build/configure.log" >&2; die "qemu configure failed"; }
fi
log "building qemu ($variant) in $build (incremental; about 5 min from clean)"
progress_start "qemu $variant" ninja "$build/make.log"
ninja -C "$build" -j"$JOBS" "${targets[@]}" >"$build/make.log" 2>&1 ||
	{ tail -n 40 "$build/make.log" >&2; die "qemu build failed (log: $build/make.log)"; }
progress_stop

# the binaries and any ROMs of the source; the prebuilt BIOS and option
# ROMs come from Debian's seabios and qemu-system-data packages, linked
# into pc-bios/.  QEMU finds that folder without -L (qos-test passes
# none) through qemu-bundle/, as in its own build folder.
rm -rf "$out" "$out.tmp"
mkdir -p "$out.tmp/pc-bios"
for t in "${targets[@]}"; do
	cp "$build/$t" "$out.tmp/"
done
find "$build/pc-bios" "$tree/pc-bios" -maxdepth 2 \( -name '*.bin' -o -name '*.rom' \) \
	-exec cp -n {} "$out.tmp/pc-bios/" \;
for f in /usr/share/seabios/* /usr/share/qemu/*.bin /usr/share/qemu/*.rom; do
	[ -e "$out.tmp/pc-bios/${f##*/}" ] || ln -s "$f" "$out.tmp/pc-bios/"
done
datadir=$(sed -n 's/^#define CONFIG_QEMU_DATADIR "\(.*\)"$/\1/p' "$build/config-host.h")
mkdir -p "$out.tmp/qemu-bundle${datadir%/*}"
ln -s "$(realpath -m --relative-to="$out.tmp/qemu-bundle${datadir%/*}" "$out.tmp/pc-bios")" \
	"$out.tmp/qemu-bundle$datadir"
touch "$out.tmp/done"
mv "$out.tmp" "$out"
echo "$out"
