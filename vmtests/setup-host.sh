#!/usr/bin/env bash
# Install what wsr needs to build and test, on a Debian 12 host.
#
# Idempotent and quiet when everything is present: it only calls apt when a
# package or the deb-src entry is missing.  The deb-src entry is derived from
# the machine's own apt sources (the stanzas for this Debian release), so no
# mirror host name is written into the repository.
set -eu

PKGS="
build-essential pkg-config git
clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libzstd-dev libjson-c-dev libmicrohttpd-dev
libfuse3-dev fuse3
linux-source-6.1 dwarves flex bison bc libssl-dev xz-utils zstd kmod rsync
busybox-static cpio seabios qemu-system-data e2fsprogs shellcheck bear dkms
dpkg-dev ninja-build meson python3 libglib2.0-dev libpixman-1-dev libfdt-dev
libslirp-dev gnuplot-nox curl strace
libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients libvirt-dev systemd
debhelper dh-dkms lintian
"
SRC_LIST=/etc/apt/sources.list.d/wsr-deb-src.sources

log() { echo "setup-host: $*" >&2; }

missing_pkgs() {
	local p out=""
	for p in $PKGS; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || out="$out $p"
	done
	echo "$out"
}

# Print deb822 deb-src stanzas for every source of this release.
derive_deb_src() {
	local codename f
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	for f in /etc/apt/sources.list.d/*.sources; do
		{ [ -e "$f" ] && [ "$f" != "$SRC_LIST" ]; } || continue
		awk -v rel="$codename" '
		function flush() {
			if (isdeb && ours) printf "%s\n", stanza
			stanza = ""; isdeb = 0; ours = 0
		}
		/^[[:space:]]*$/ { flush(); next }
		/^Types:/ { isdeb = ($0 ~ /[[:space:]]deb([[:space:]]|$)/); $0 = "Types: deb-src" }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == rel || index($i, rel "-") == 1) ours = 1 }
		{ stanza = stanza $0 "\n" }
		END { flush() }' "$f"
	done
	# one-line format: deb [opts] uri suite comp...
	# shellcheck disable=SC2002 # cat 2>/dev/null: a missing file reads as empty, quietly
	cat /etc/apt/sources.list 2>/dev/null |
		awk -v rel="$codename" '$1 == "deb" {
			s = $0; sub(/^deb/, "deb-src", s)
			n = ($2 ~ /^\[/) ? 4 : 3
			if ($n == rel || index($n, rel "-") == 1) print s
		}' | while read -r line; do
		echo "# one-line"; echo "$line"; done
}

ensure_deb_src() {
	[ -s "$SRC_LIST" ] && return 1
	local stanzas
	stanzas=$(derive_deb_src)
	if [ -z "$stanzas" ]; then
		log "no apt source for this Debian release found to derive deb-src from"
		exit 1
	fi
	# one-line entries cannot live in a .sources file
	if echo "$stanzas" | grep -q '^# one-line'; then
		echo "$stanzas" | grep -v '^# one-line' >"${SRC_LIST%.sources}.list"
		: >"$SRC_LIST.done"
	fi
	echo "$stanzas" | grep -v '^# one-line' | grep -q '^Types:' &&
		echo "$stanzas" | awk '!/^# one-line/ && !/^deb-src /' >"$SRC_LIST"
	log "added deb-src entries derived from the existing apt sources"
	return 0
}

# The QEMU driver looks its user and group up when libvirtd starts, even with
# user "root" in the test's qemu.conf; libvirt-daemon-system (left out: it
# brings a NAT network, iptables and polkit) would create it.
ensure_libvirt_qemu_user() {
	getent group libvirt-qemu >/dev/null || groupadd --system libvirt-qemu
	getent passwd libvirt-qemu >/dev/null && return 0
	getent group kvm >/dev/null || groupadd --system kvm
	useradd --system --no-create-home --home-dir /var/lib/libvirt \
		--shell /usr/sbin/nologin --gid kvm --groups libvirt-qemu libvirt-qemu
	log "created the libvirt-qemu user"
}

main() {
	local need_update=0 missing
	if [ "$(id -u)" != 0 ]; then
		log "must run as root to install packages"
		exit 1
	fi
	ensure_deb_src && need_update=1
	missing=$(missing_pkgs)
	ensure_libvirt_qemu_user
	[ -n "$missing" ] || [ "$need_update" = 1 ] || return 0
	export DEBIAN_FRONTEND=noninteractive
	log "installing:$missing"
	apt-get update -qq -o=Dpkg::Use-Pty=0 >/dev/null || log "apt-get update reported errors (continuing)"
	# shellcheck disable=SC2086 # a list of package names
	[ -z "$missing" ] || apt-get install -y -qq --no-install-recommends -o=Dpkg::Use-Pty=0 $missing >/dev/null
	# promtool, for the metrics tests: unpacked into the cache, not installed
	"$(dirname "$0")"/get-promtool.sh >/dev/null
	# node_exporter, for the guest's metrics through its textfile collector: the same way
	"$(dirname "$0")"/get-node-exporter.sh >/dev/null
	# redis, for the balance benchmark (make bench): the same way
	"$(dirname "$0")"/get-redis.sh >/dev/null
}

main "$@"
