#!/usr/bin/env bash
# Fetch the headers of Debian's stock cloud kernel (the exact version of
# vmtests/fetch-stock-kernel.sh's image: linux-headers-<release>, its
# -common and linux-kbuild-6.1), unpacked into the cache and never
# installed, made ready to build a module with BTF for its kfuncs:
#
# - the headers' Makefile includes its -common half by an absolute path
#   under /usr/src: pointed at the unpacked copy;
# - Debian's headers have no vmlinux, and Kbuild writes a module's BTF
#   (pahole --btf_base vmlinux) only when one is there: vmlinux here is
#   the stock image's own BTF, the .BTF section of the vmlinux inside its
#   vmlinuz (scripts/extract-vmlinux; the image keeps .BTF, which the
#   running kernel serves as /sys/kernel/btf/vmlinux);
# - linux-kbuild-6.1 has no resolve_btfids, which writes the BTF ids of
#   the module's kfunc set: built from the same version's tools/.
#
# Prints the headers' build folder, for make -C or dkms --kernelsourcedir.
set -eu
. "$(dirname "$0")/lib.sh"

read -r pkg version <<<"$(stock_kernel_pkg)"
release=${pkg#linux-image-}
out=$WSR_CACHE/stock-headers-$release-$version-$(hash_inputs "$0")
hdr=$out/usr/src/linux-headers-$release

if [ ! -e "$out/done" ]; then
	stock=$("$WSR_ROOT"/vmtests/fetch-stock-kernel.sh)
	log "fetching linux-headers-$release $version"
	rm -rf "$out"
	mkdir -p "$out/deb" "$out/src"
	# the headers and what they depend on of the same source version (the
	# compiler, gcc-12, is the host's)
	debs=$(apt-cache depends "linux-headers-$release=$version" |
		awk '$1 == "Depends:" && $2 ~ /^linux-(headers|kbuild)-/ { print $2 }')
	(cd "$out/deb" && for d in "linux-headers-$release" $debs; do
		apt-get download -qq "$d=$version" 2>/dev/null || die "apt-get download $d=$version failed"
	done)
	for d in "$out"/deb/*.deb; do dpkg-deb -x "$d" "$out"; done
	# (lib/modules/<release>/build: links to /usr/src, of no use here)
	rm -rf "${out:?}/deb" "${out:?}/lib"
	sed -i "s|^include /usr/src/|include $out/usr/src/|" "$hdr/Makefile"

	kernel_source_files "$version" "$out/src" scripts/extract-vmlinux scripts/bpf_doc.py \
		include/uapi/linux/bpf.h tools
	sh "$out/src/scripts/extract-vmlinux" "$stock"/boot/vmlinuz-* >"$out/src/vmlinux" ||
		die "no vmlinux in $stock/boot/vmlinuz-*"
	# (objcopy warns of the segments left empty)
	objcopy --only-section=.BTF "$out/src/vmlinux" "$hdr/vmlinux" 2>/dev/null
	mkdir -p "$out/src/rb"
	make -s -C "$out/src/tools/bpf/resolve_btfids" OUTPUT="$out/src/rb/" -j"$JOBS" \
		>"$out/src/rb.log" 2>&1 || { tail -n 20 "$out/src/rb.log" >&2; die "resolve_btfids build failed"; }
	# $hdr/tools is linux-kbuild-6.1's, where Kbuild looks for it
	install -D "$out/src/rb/resolve_btfids" "$hdr/tools/bpf/resolve_btfids/resolve_btfids"
	rm -rf "$out/src"
	touch "$out/done"
fi
echo "$hdr"
