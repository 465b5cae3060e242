#!/usr/bin/env bash
# Build a guest kernel: Debian's linux-source-6.1 with kernel-patches/
# applied and vmtests/kernel.config merged over tinyconfig.
#
#   build-kernel.sh [ours|debug]
#
# "debug" also merges vmtests/kernel-debug.config (KASAN, kmemleak,
# lockdep, UBSAN, fault injection; the balloon driver built in) and
# builds the harness's test module with deliberate bugs
# (vmtests/selftest-module/) against it.  Each variant has its own build
# folder, so that switching between them rebuilds nothing.
#
# Prints the folder holding bzImage, vmlinux, .config and modules/.
set -eu
. "$(dirname "$0")/lib.sh"

variant=${1:-ours}
SRC_TAR=/usr/src/linux-source-6.1.tar.xz
# the series without its cover letter, whose words do not build anything
PATCHES=()
for p in "$WSR_ROOT"/kernel-patches/0*.patch; do
	[ "${p##*/}" = 0000-cover-letter.patch ] || PATCHES+=("$p")
done
FRAGMENTS=("$WSR_ROOT"/vmtests/kernel.config)
SELFTEST_MOD=$WSR_ROOT/vmtests/selftest-module
suffix=""
case "$variant" in
ours) ;;
debug)
	FRAGMENTS+=("$WSR_ROOT"/vmtests/kernel-debug.config)
	suffix=-debug ;;
*) die "unknown kernel variant '$variant' (ours, debug)" ;;
esac
extra=()
[ "$variant" != debug ] || extra=("$SELFTEST_MOD"/*)

version=$(pkg_version linux-source-6.1)
key=$( (echo "$version $variant"; hash_inputs "${PATCHES[@]}" "${FRAGMENTS[@]}" "${extra[@]}" "$0") |
	sha256sum | cut -c1-16)
out=$WSR_CACHE/kernel$suffix-$key
tree=$WSR_CACHE/linux-src-$version
build=$WSR_CACHE/linux-build-$version$suffix

if [ -e "$out/done" ]; then
	echo "$out"
	exit 0
fi

# one build at a time on the source tree, which every variant resets and
# patches (lib.sh)
lock_build_tree "$tree" kernel "$out"

if [ ! -e "$tree/.git/refs/heads/pristine" ]; then
	log "unpacking $SRC_TAR (once per source version)"
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -xf "$SRC_TAR" -C "$tree" --strip-components=1
	git_tree_init "$tree"
fi
git_tree_reset "$tree"
apply_patches "$tree" "${PATCHES[@]}"

# check_config : every option of the fragments must survive olddefconfig
# (a later fragment's value wins)
check_config() {
	local bad="" opt want
	for opt in $(cat "${FRAGMENTS[@]}" | sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=.*/\1/p' | sort -u); do
		want=$(cat "${FRAGMENTS[@]}" | grep "^$opt=" | tail -n 1)
		grep -qx "$want" "$build/.config" || bad="$bad $opt"
	done
	[ -z "$bad" ] || die "kernel config options did not stick:$bad"
}

mkdir -p "$build"
log "configuring $variant kernel $version (key $key)"
make -s -C "$tree" O="$build" tinyconfig >/dev/null
"$tree"/scripts/kconfig/merge_config.sh -m -O "$build" "$build/.config" "${FRAGMENTS[@]}" >/dev/null
make -s -C "$tree" O="$build" olddefconfig >/dev/null
check_config

log "building $variant kernel in $build (incremental; from clean about 8.5 min, debug 12)"
progress_start "$variant kernel" objects "$build"
make -s -C "$tree" O="$build" -j"$JOBS" bzImage modules >"$build/make.log" 2>&1 ||
	{ tail -n 40 "$build/make.log" >&2; die "kernel build failed (log: $build/make.log)"; }
progress_stop

rm -rf "$out.tmp"
mkdir -p "$out.tmp"
cp "$build/arch/x86/boot/bzImage" "$build/vmlinux" "$build/.config" "$out.tmp/"
make -s -C "$tree" O="$build" INSTALL_MOD_PATH="$out.tmp/modules" modules_install >/dev/null
# modules the guest loads at boot, as paths below /lib/modules
release=$(cat "$build/include/config/kernel.release")
grep -E '/(virtio_balloon)\.ko$' "$build/modules.order" |
	sed "s|^|$release/kernel/|" >"$out.tmp/modules.list"
cp "$tree/scripts/checkpatch.pl" "$out.tmp/" 2>/dev/null || true
if [ "$variant" = debug ]; then
	# the module with deliberate bugs, built out of tree in the output
	cp -r "$SELFTEST_MOD" "$out.tmp/selftest-module"
	make -s -C "$build" M="$out.tmp/selftest-module" modules >"$build/selftest-module.log" 2>&1 ||
		{ tail -n 20 "$build/selftest-module.log" >&2; die "selftest module build failed"; }
fi
touch "$out.tmp/done"
rm -rf "$out"
mv "$out.tmp" "$out"
echo "$out"
