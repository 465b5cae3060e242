#!/usr/bin/env bash
# Fetch Debian's unpatched cloud kernel (linux-image-6.1.*-cloud-amd64) and
# unpack it into the cache, with modules.dep and the list of modules a test
# guest must load.  Prints the folder (boot/vmlinuz-*, lib/modules/...).
set -eu
. "$(dirname "$0")/lib.sh"

# modules the guest needs that the cloud kernel does not build in (init.sh
# loads them at boot).  fuse for wsr fs (tests/guest/test_fs_*): on
# Debian, systemd makes /dev/fuse at boot from kmod's static-nodes list
# and its first open loads the module; the busybox guest has no such node
# (devtmpfs makes it once the module is in), so it is loaded with the rest
MODULES="virtio_pci virtio_balloon virtio_blk lzo-rle lzo zram button fuse"

read -r pkg version <<<"$(stock_kernel_pkg)"
out=$WSR_CACHE/stock-$pkg-$version-$(hash_inputs "$0")

if [ ! -e "$out/done" ]; then
	log "fetching $pkg $version"
	rm -rf "$out"
	mkdir -p "$out/deb"
	(cd "$out/deb" && apt-get download -qq "$pkg=$version" 2>/dev/null) ||
		die "apt-get download $pkg failed"
	dpkg-deb -x "$out"/deb/*.deb "$out/full"
	rm -rf "$out/deb"
	mkdir -p "$out/boot"
	cp "$out"/full/boot/vmlinuz-* "$out"/full/boot/config-* "$out/boot/"
	release=$(ls "$out/full/lib/modules")
	depmod -b "$out/full" "$release"
	# only the modules needed, in load order, as paths for insmod
	for m in $MODULES; do
		modprobe -d "$out/full" -S "$release" --show-depends "$m" |
			awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' | sed "s|^$out/full/lib/modules/||" >"$out/modules.list"
	while read -r f; do
		mkdir -p "$out/lib/modules/$(dirname "$f")"
		cp "$out/full/lib/modules/$f" "$out/lib/modules/$f"
	done <"$out/modules.list"
	rm -rf "$out/full"
	touch "$out/done"
fi
echo "$out"
