#!/usr/bin/env bash
# mkinitramfs.sh OUT CMD MODROOT MODLIST [DIR...]
#
# Writes a gzipped initramfs to OUT: static busybox, vmtests/init.sh as
# /init, the project's guest binaries (build/guest) in /wsr/bin, CMD as
# /wsr/cmd, each DIR merged into /host and, for a distribution kernel, its
# modules from MODROOT with the list of modules to load from MODLIST.
set -eu
. "$(dirname "$0")/lib.sh"

out=$1 cmd=$2 modroot=$3 modlist=$4
shift 4
root=$(mktemp -d "${TMPDIR:-/tmp}/wsr-initrd.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,etc,wsr/bin,host/bin,lib/modules,boot}
cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list-full); do
	[ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done
install -m 755 "$WSR_ROOT/vmtests/init.sh" "$root/init"
# bpftool, to show that pinned maps dump with field names; with its libraries
cp /usr/sbin/bpftool "$root/usr/sbin/"
for lib in $(ldd /usr/sbin/bpftool | grep -o '/[^ ]*'); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
[ ! -d "$WSR_ROOT/build/guest" ] || cp -a "$WSR_ROOT/build/guest/." "$root/wsr/bin/"
for d in "$@"; do
	cp -a "$d/." "$root/host/"
done
printf '%s\n' "$cmd" >"$root/wsr/cmd"
if [ -n "$modroot" ]; then
	while read -r m; do
		mkdir -p "$root/lib/modules/$(dirname "$m")"
		cp "$modroot/lib/modules/$m" "$root/lib/modules/$m"
	done <"$modlist"
	cp "$modlist" "$root/wsr/modules.list"
	# a distribution kernel has no /proc/config.gz: libbpf reads this
	[ ! -d "$modroot/boot" ] || cp "$modroot"/boot/config-* "$root/boot/"
fi
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
