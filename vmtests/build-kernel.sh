#!/usr/bin/env bash
# Build the guest kernel: Debian's linux-source-6.1 with kernel-patches/
# applied and vmtests/kernel.config merged over tinyconfig.
#
# Prints the folder holding bzImage, vmlinux, .config and modules/.
set -eu
. "$(dirname "$0")/lib.sh"

SRC_TAR=/usr/src/linux-source-6.1.tar.xz
PATCHES=("$WSR_ROOT"/kernel-patches/0*.patch)
FRAGMENT=$WSR_ROOT/vmtests/kernel.config

version=$(pkg_version linux-source-6.1)
key=$( (echo "$version"; hash_inputs "${PATCHES[@]}" "$FRAGMENT" "$0") | sha256sum | cut -c1-16)
out=$WSR_CACHE/kernel-$key
tree=$WSR_CACHE/linux-src-$version
build=$WSR_CACHE/linux-build-$version

if [ -e "$out/done" ]; then
	echo "$out"
	exit 0
fi

if [ ! -e "$tree/.git/refs/heads/pristine" ]; then
	log "unpacking $SRC_TAR (once per source version)"
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -xf "$SRC_TAR" -C "$tree" --strip-components=1
	git_tree_init "$tree"
fi
git_tree_reset "$tree"
apply_patches "$tree" "${PATCHES[@]}"

# check_config : every option of the fragment must survive olddefconfig
check_config() {
	local line bad=""
	while read -r line; do
		case "$line" in CONFIG_*) ;; *) continue ;; esac
		grep -qx "$line" "$build/.config" || bad="$bad ${line%%=*}"
	done <"$FRAGMENT"
	[ -z "$bad" ] || die "kernel config options did not stick:$bad"
}

mkdir -p "$build"
log "configuring kernel $version (key $key)"
make -s -C "$tree" O="$build" tinyconfig >/dev/null
"$tree"/scripts/kconfig/merge_config.sh -m -O "$build" "$build/.config" "$FRAGMENT" >/dev/null
make -s -C "$tree" O="$build" olddefconfig >/dev/null
check_config

log "building kernel in $build (incremental; about 6 min from clean)"
make -s -C "$tree" O="$build" -j"$JOBS" bzImage modules >"$build/make.log" 2>&1 ||
	{ tail -n 40 "$build/make.log" >&2; die "kernel build failed (log: $build/make.log)"; }

rm -rf "$out.tmp"
mkdir -p "$out.tmp"
cp "$build/arch/x86/boot/bzImage" "$build/vmlinux" "$build/.config" "$out.tmp/"
make -s -C "$tree" O="$build" INSTALL_MOD_PATH="$out.tmp/modules" modules_install >/dev/null
# modules the guest loads at boot, as paths below /lib/modules
release=$(cat "$build/include/config/kernel.release")
grep -E '/(virtio_balloon)\.ko$' "$build/modules.order" |
	sed "s|^|$release/kernel/|" >"$out.tmp/modules.list"
cp "$tree/scripts/checkpatch.pl" "$out.tmp/" 2>/dev/null || true
touch "$out.tmp/done"
rm -rf "$out"
mv "$out.tmp" "$out"
echo "$out"
