#!/usr/bin/env bash
# make check's tests of the DKMS module (vmtests/build-dkms.sh): what it
# was built from and what the stock kernel needs of it.  The build itself
# fails if dkms touched the host outside its private tree.  Prints "PASS
# name" or "FAIL name: reason" per test.
set -u
. "$(dirname "$0")/lib.sh"
# shellcheck source=../tests/testlib.sh
. "$WSR_ROOT/tests/testlib.sh"

out=$("$WSR_ROOT"/vmtests/build-dkms.sh) || die "vmtests/build-dkms.sh failed"
read -r release version <"$out/built-for"
ko=$out/install/$release/updates/dkms/virtio_balloon.ko
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The package dkms built from is the series as it is now, applied to the
# same Debian version as the kernel the module was built for: no stale
# copy of an older series, no hand edit.  One tree, compared: two would
# leave which one dkms built unknown, and diff's status 2 (a tree missing
# or unreadable) compared nothing.
test_source() {
	local srcs src d rc
	srcs=("$out"/src/wsr-virtio-balloon-*)
	{ [ "${#srcs[@]}" = 1 ] && [ -d "${srcs[0]}" ]; } ||
		{ echo "not one source tree in $out/src: ${srcs[*]}"; return; }
	src=${srcs[0]}
	"$WSR_ROOT"/vmtests/dkms-source.sh "$tmp/fresh" "$version" >/dev/null 2>"$tmp/err" ||
		{ echo "the series does not apply to $version: $(tail -n 1 "$tmp/err")"; return; }
	[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$release" ] ||
		{ echo "$ko is not built for $release: $(modinfo -F vermagic "$ko")"; return; }
	diff -r "$tmp/fresh" "$src" >"$tmp/diff" 2>&1
	rc=$?
	d=$(head -n 3 "$tmp/diff" | tr "\n" " ")
	case $rc in
	0) ;;
	1) echo "$src differs from kernel-patches/ applied to $version: $d" ;;
	*) echo "diff -r $tmp/fresh $src failed (status $rc): $d" ;;
	esac
}

# The kfuncs need module BTF, which Kbuild writes only with a vmlinux
# (vmtests/fetch-stock-headers.sh): both kfuncs are in the module's BTF,
# split against the stock kernel's own, read anew from its image
test_btf() {
	local f funcs
	kernel_source_files "$version" "$tmp/k" scripts/extract-vmlinux
	sh "$tmp/k/scripts/extract-vmlinux" "$out"/boot/vmlinuz-* >"$tmp/vmlinux" ||
		{ echo "no vmlinux in $out/boot/vmlinuz-*"; return; }
	funcs=$(bpftool -B "$tmp/vmlinux" btf dump file "$ko" 2>&1) ||
		{ echo "no BTF in $ko split against the stock image's: $(tail -n 1 <<<"$funcs")"; return; }
	for f in bpf_virtio_balloon_ws_config bpf_virtio_balloon_ws_report; do
		grep -q "FUNC '$f'" <<<"$funcs" || { echo "no FUNC $f in $ko's BTF"; return; }
	done
}

verdict module_source_is_the_series_applied_to_its_kernel_version "$(test_source)"
verdict module_btf_has_both_kfuncs_split_against_the_stock_kernel "$(test_btf)"
