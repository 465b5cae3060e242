#!/usr/bin/env bash
# mkinitramfs.sh OUT CMD MODROOT MODLIST [DIR...]
#
# Writes an initramfs to OUT: static busybox, vmtests/init.sh as
# /init, the project's guest binaries (build/guest) in /wsr/bin, CMD as
# /wsr/cmd, each DIR merged into /host and, for a distribution kernel, its
# modules from MODROOT with the list of modules to load from MODLIST.
#
# OUT is two archives end to end, which the kernel unpacks in turn: the
# base (all but CMD and the DIRs), the same for every guest of a kernel
# and kept in $WSR_CACHE/initramfs under a hash of its files, then CMD and
# the DIRs.  Building the base takes seconds (a link per busybox applet),
# and every test guest boots with one.  Neither is compressed: under TCG
# the kernel took 1.8 s to gunzip the 30 MB base, on every boot (3 times
# that on the debug kernel), where copying it costs next to nothing.
set -eu
. "$(dirname "$0")/lib.sh"

out=$1 cmd=$2 modroot=$3 modlist=$4
shift 4
root=$(mktemp -d "${TMPDIR:-/tmp}/wsr-initrd.XXXXXX")
trap 'rm -rf "$root"' EXIT

# libs: the libraries of bpftool, of util-linux's setpriv, of strace and of
# build/guest's dynamically linked programs (the ASan wsr,
# build/guest/asan/wsr: ASan cannot link statically), one per line
libs() {
	{
		ldd /usr/sbin/bpftool
		ldd /usr/bin/setpriv
		ldd /usr/bin/strace
		[ ! -d "$WSR_ROOT/build/guest" ] ||
			find "$WSR_ROOT/build/guest" -type f -perm -u+x -exec ldd {} \; 2>/dev/null
	} | grep -o '/[^ ]*' | sort -u
}

# base_files: every file the base is made of, one per line
base_files() {
	libs
	own_files
}

# own_files: base_files but the libraries
own_files() {
	echo /bin/busybox
	echo /usr/sbin/bpftool
	echo /usr/bin/setpriv
	echo /usr/bin/strace
	echo "$WSR_ROOT/vmtests/init.sh"
	echo "$0"
	[ ! -d "$WSR_ROOT/build/guest" ] || find "$WSR_ROOT/build/guest" -type f -o -type l
	if [ -n "$modroot" ]; then
		echo "$modlist"
		sed "s|^|$modroot/lib/modules/|" "$modlist"
		[ ! -d "$modroot/boot" ] || ls "$modroot"/boot/config-*
	fi
}

# make_base DIR: the base's tree in DIR
make_base() {
	local applet lib m
	mkdir -p "$1"/bin "$1"/sbin "$1"/usr/bin "$1"/usr/sbin "$1"/proc "$1"/sys "$1"/dev \
		"$1"/tmp "$1"/root "$1"/etc "$1"/wsr/bin "$1"/host/bin "$1"/lib/modules "$1"/boot
	cp /bin/busybox "$1/bin/busybox"
	for applet in $(/bin/busybox --list-full); do
		[ -e "$1/$applet" ] || ln -s /bin/busybox "$1/$applet"
	done
	install -m 755 "$WSR_ROOT/vmtests/init.sh" "$1/init"
	# bpftool, to show that pinned maps dump with field names; with its
	# libraries and those of the ASan wsr
	cp /usr/sbin/bpftool "$1/usr/sbin/"
	# util-linux's setpriv, for the daemon run as wsr.service runs it,
	# with the unit's capabilities alone (test_daemon_*_wsr_service_*):
	# busybox's, /bin/setpriv, has no --bounding-set.  By its full path:
	# /bin comes first on PATH.  Never through a link to busybox: cp
	# would write over busybox
	rm -f "$1/usr/bin/setpriv"
	cp /usr/bin/setpriv "$1/usr/bin/setpriv"
	# strace, for the calls the daemon makes against wsr.service's
	# SystemCallFilter= (test_daemon_makes_only_system_calls_*)
	rm -f "$1/usr/bin/strace"
	cp /usr/bin/strace "$1/usr/bin/strace"
	for lib in $(libs); do
		mkdir -p "$1$(dirname "$lib")"
		cp -L "$lib" "$1$lib"
	done
	[ ! -d "$WSR_ROOT/build/guest" ] || cp -a "$WSR_ROOT/build/guest/." "$1/wsr/bin/"
	if [ -n "$modroot" ]; then
		while read -r m; do
			mkdir -p "$1/lib/modules/$(dirname "$m")"
			cp "$modroot/lib/modules/$m" "$1/lib/modules/$m"
		done <"$modlist"
		cp "$modlist" "$1/wsr/modules.list"
		# a distribution kernel has no /proc/config.gz: libbpf reads this
		[ ! -d "$modroot/boot" ] || cp "$modroot"/boot/config-* "$1/boot/"
	fi
	echo 'root:x:0:0:root:/root:/bin/sh' >"$1/etc/passwd"
}

cache=$WSR_CACHE/initramfs
# the key: the files' names and contents (a rebuilt guest binary, another
# kernel's modules or a changed init.sh make another base).  Reading them
# all, and an ldd per program for the libraries, took 2 s of every boot:
# the key is kept under a first key made of the files' names, sizes and
# modification times, without the libraries but with the dynamic
# linker's cache (ldconfig rewrites it whenever a library is added or
# replaced), and computed only when there is none
quick=$({ echo /etc/ld.so.cache; own_files; } | sort | tr '\n' '\0' |
	xargs -0 stat -c '%n %s %.9Y %i' | sha256sum | cut -c1-16)
if ! key=$(cat "$cache/key-$quick" 2>/dev/null) || [ -z "$key" ]; then
	key=$(base_files | sort | while read -r f; do
		echo "$f"
		# a symlink (build/guest has some) by its target, its file by content
		if [ -L "$f" ]; then readlink "$f"; else cat "$f"; fi
	done | sha256sum | cut -c1-16)
	mkdir -p "$cache"
	echo "$key" >"$cache/key-$quick.$$"
	mv "$cache/key-$quick.$$" "$cache/key-$quick"
fi
base=$cache/base-$key.cpio
# a copy, which a clean-up elsewhere cannot take away half-read; its
# time stamp says when it was last used
if ! cp "$base" "$root/base.cpio" 2>/dev/null; then
	mkdir -p "$cache" "$root/base"
	make_base "$root/base"
	(cd "$root/base" && find . | cpio -o -H newc --quiet) >"$root/base.cpio"
	# guests booting side by side may store it at once: whole or not at all
	cp "$root/base.cpio" "$base.$$"
	mv "$base.$$" "$base"
	# a build/guest change makes a new one: those unused for 2 days go
	find "$cache" \( -name 'base-*' -o -name 'key-*' \) -mtime +2 -delete
fi
touch "$base" "$cache/key-$quick"

# the guest's own part: CMD and the DIRs, over the base's folders
mkdir -p "$root/run/wsr" "$root/run/host"
for d in "$@"; do
	cp -a "$d/." "$root/run/host/"
done
printf '%s\n' "$cmd" >"$root/run/wsr/cmd"
{
	cat "$root/base.cpio"
	(cd "$root/run" && find . | cpio -o -H newc --quiet)
} >"$out"
