#!/usr/bin/env bash
# The two kernel headers the build takes from the tree, in
# kernel-headers/, as libbpf-tools keeps its vmlinux.h: so that "make
# all" and "make install" need neither a kernel build nor the kernel's
# source, only the -dev packages they compile against.
#
# - kernel-headers/vmlinux.h: the BTF of our kernel (Debian's
#   linux-source-6.1 with kernel-patches/, vmtests/build-kernel.sh) as
#   C, by bpftool.  Not the build machine's /sys/kernel/btf/vmlinux: that
#   is whatever kernel the machine runs (6.18 without MGLRU on the one
#   this was written on: the estimator does not compile against it), and
#   a build must not depend on it.  The programs are CO-RE: they load on
#   Debian's stock 6.1 kernel too.
# - kernel-headers/uapi/linux/virtio_balloon.h: the series' uapi header as
#   "make headers_install" makes it (vmtests/uapi-header.sh); the wire's
#   values stay the kernel's, this is a copy.
#
#   kernel-headers.sh          write them (builds our kernel if needed)
#   kernel-headers.sh --check  exit 1, with a diff on stderr, if the
#                              tree's copies differ from what the kernel
#                              and its series make now
set -eu
. "$(dirname "$0")/lib.sh"

check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
[ $# = 0 ] || die "usage: kernel-headers.sh [--check]"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

kernel=$("$WSR_ROOT"/vmtests/build-kernel.sh ours) || die "our kernel did not build"
mkdir -p "$tmp/uapi/linux"
bpftool btf dump file "$kernel/vmlinux" format c >"$tmp/vmlinux.h" ||
	die "bpftool cannot dump $kernel/vmlinux's BTF"
"$WSR_ROOT"/vmtests/uapi-header.sh "$tmp/uapi/linux/virtio_balloon.h"

# types_of VMLINUX_H: its types, one a line, sorted.  pahole encodes the
# BTF with several threads (-j, 6.1's scripts/pahole-flags.sh), so two
# builds of one tree may order the types differently, and bpftool then
# names clashing enum values (the ___2 suffixes) and declares types
# ahead differently: the same types, another file.  Each type is a
# paragraph of bpftool's dump; forward declarations and the suffixes go.
types_of() {
	awk 'BEGIN { RS = ""; ORS = "\n" }
	     /^(struct|union) [A-Za-z0-9_]+;$/ { next }
	     { gsub(/___[0-9]+/, ""); gsub(/\n/, "\001"); print }' "$1" | LC_ALL=C sort
}

dest=$WSR_ROOT/kernel-headers
if [ "$check" = 1 ]; then
	rc=0
	if ! cmp -s <(types_of "$dest/vmlinux.h") <(types_of "$tmp/vmlinux.h"); then
		echo "kernel-headers/vmlinux.h has other types than the kernel makes (vmtests/kernel-headers.sh writes it):" >&2
		diff <(types_of "$dest/vmlinux.h") <(types_of "$tmp/vmlinux.h") 2>&1 | tr '\001' '\n' |
			head -n 20 >&2
		rc=1
	fi
	f=uapi/linux/virtio_balloon.h
	if ! cmp -s "$dest/$f" "$tmp/$f"; then
		echo "kernel-headers/$f differs from what the kernel makes (vmtests/kernel-headers.sh writes it):" >&2
		diff -u "$dest/$f" "$tmp/$f" 2>&1 | head -n 20 >&2
		rc=1
	fi
	exit "$rc"
fi
mkdir -p "$dest/uapi/linux"
# the same types in another order are left as they are: no churn
cmp -s <(types_of "$dest/vmlinux.h") <(types_of "$tmp/vmlinux.h") ||
	{ cp "$tmp/vmlinux.h" "$dest/vmlinux.h" && log "wrote kernel-headers/vmlinux.h"; }
f=uapi/linux/virtio_balloon.h
cmp -s "$dest/$f" "$tmp/$f" || { cp "$tmp/$f" "$dest/$f" && log "wrote kernel-headers/$f"; }
