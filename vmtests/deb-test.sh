#!/usr/bin/env bash
# The Debian packages (make check-long): make deb (debhelper, then
# lintian: no tag but those debian/*.lintian-overrides justify), the
# packages unpacked with dpkg --root into a scratch root, dkms build of the module from
# wsr-dkms's /usr/src against Debian's stock headers
# (vmtests/fetch-stock-headers.sh) with wsr-dkms's resolve_btfids, its
# BTF holding both kfuncs; then a guest on Debian's stock kernel that
# loads that module in place of its virtio_balloon and runs wsr.service's
# ExecStartPre= and ExecStart= lines as the installed unit has them, the
# installed /usr/bin/wsr (its libraries from this machine, which the
# busybox guest lacks, by LD_LIBRARY_PATH): the daemon attaches the
# balloon programs and answers "wsr show".  The maintainer scripts are
# not run but for a preinst (no systemd, no dkms in the scratch root):
# the test does what they would, by hand.  Prints "PASS name" /
# "FAIL name: reason" and "TIME name SECONDS"; exits non-zero if one
# fails.
set -u
. "$(dirname "$0")/lib.sh"
. "$WSR_ROOT/tests/testlib.sh"

BUILD=${BUILD:-$WSR_ROOT/build}
case "$BUILD" in /*) ;; *) BUILD=$WSR_ROOT/$BUILD ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wsr-deb-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=0

# check NAME T0 REASON: its verdict and its time since T0
check() {
	verdict "$1" "$3"
	echo "TIME $1 $(awk -v a="$2" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
	[ -z "$3" ] || failed=$((failed + 1))
}

t0=$EPOCHREALTIME
why=""
BUILD=$BUILD "$WSR_ROOT"/vmtests/make-deb.sh >"$tmp/make-deb.out" 2>&1 ||
	why="make deb: $(grep -m3 'lintian: [EW]:\|wsr:' "$tmp/make-deb.out" | tr '\n' ' ')"
debs=()
for p in wsr wsr-dkms wsr-host; do
	f=$(ls "$BUILD"/deb/"${p}"_*_amd64.deb 2>/dev/null)
	[ -n "$f" ] && debs+=("$f")
done
[ -n "$why" ] || [ "${#debs[@]}" = 3 ] || why="not three packages: ${debs[*]}"
sed -n 's/^lintian: /  lintian: /p' "$tmp/make-deb.out"
check deb_packages_build_and_lintian_reports_no_tag_without_an_override "$t0" "$why"
[ -z "$why" ] || exit 1

# dpkg --root: unpacked, registered in the root's own database; the
# root has busybox for the /bin/sh that dpkg runs wsr-host's preinst
# with, chrooted there
t0=$EPOCHREALTIME
why=""
r=$tmp/root
mkdir -p "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/updates" "$r/bin"
: >"$r/var/lib/dpkg/status"
cp /bin/busybox "$r/bin/"
ln -s busybox "$r/bin/sh"
if ! dpkg --root="$r" --force-depends --unpack "${debs[@]}" >"$tmp/dpkg.out" 2>&1; then
	why="dpkg --root --unpack: $(tail -n 3 "$tmp/dpkg.out" | tr '\n' ' ')"
else
	# (a conffile stays .dpkg-new until the package is configured)
	for f in usr/bin/wsr lib/systemd/system/wsr.service lib/systemd/system/wsr-fs.service usr/bin/wsr-host \
		lib/systemd/system/wsr-host-balance.service etc/default/wsr-host-balance.dpkg-new \
		usr/lib/wsr-dkms/resolve_btfids usr/share/man/man1/wsr.1.gz; do
		[ -e "$r/$f" ] || why="$why/$f not installed; "
	done
	src=$(ls -d "$r"/usr/src/wsr-virtio-balloon-* 2>/dev/null)
	[ -e "$src/dkms.conf" ] || why="${why}no /usr/src/wsr-virtio-balloon-*/dkms.conf; "
	[ "$(dpkg --root="$r" -l 'wsr*' 2>/dev/null | grep -c '^iU')" = 3 ] ||
		why="${why}dpkg's database in the root lists: $(dpkg --root="$r" -l 'wsr*' 2>&1 | tail -n 3 | tr '\n' ' ')"
fi
check deb_packages_unpack_into_a_scratch_root_with_dpkg_root "$t0" "$why"
[ -z "$why" ] || exit 1

# dkms build of the packaged source against Debian's stock headers, in
# a private dkms tree; the headers' resolve_btfids is wsr-dkms's (a copy
# of the headers made of hard links, that one file replaced)
t0=$EPOCHREALTIME
why=""
ver=${src##*/wsr-virtio-balloon-}
read -r pkg _ <<<"$(stock_kernel_pkg)"
release=${pkg#linux-image-}
hdr=$("$WSR_ROOT"/vmtests/fetch-stock-headers.sh 2>"$tmp/hdr.err") ||
	why="stock headers: $(tail -n 1 "$tmp/hdr.err")"
if [ -z "$why" ]; then
	# the whole unpacked usr/: the headers' tools/ and scripts/ are
	# relative links into linux-kbuild-6.1's
	mkdir -p "$tmp/headers"
	cp -al "${hdr%/usr/src/*}/usr" "$tmp/headers/"
	h=$tmp/headers/usr/src/${hdr##*/}
	rm "$h/tools/bpf/resolve_btfids/resolve_btfids"
	cp "$r/usr/lib/wsr-dkms/resolve_btfids" "$h/tools/bpf/resolve_btfids/resolve_btfids"
	mkdir -p "$tmp/dkms" "$tmp/install"
	touch "$tmp/stamp"
	for step in add build; do
		sign_file=/dev/null dkms "$step" -m wsr-virtio-balloon -v "$ver" -k "$release" \
			--dkmstree "$tmp/dkms" --sourcetree "$r/usr/src" --installtree "$tmp/install" \
			--kernelsourcedir "$h" >>"$tmp/dkms.log" 2>&1 ||
			{ why="dkms $step: $(tail -n 5 "$tmp/dkms.log" | tr '\n' ' ')"; break; }
	done
	ko=$(find "$tmp/dkms" -name virtio_balloon.ko | head -n 1)
	if [ -z "$why" ] && [ -z "$ko" ]; then
		why="dkms build made no virtio_balloon.ko: $(tail -n 3 "$tmp/dkms.log" | tr '\n' ' ')"
	elif [ -z "$why" ]; then
		funcs=$(bpftool -B "$h/vmlinux" btf dump file "$ko" 2>&1) ||
			why="no BTF in the module split against the stock kernel's: $(tail -n 1 <<<"$funcs")"
		for f in bpf_virtio_balloon_ws_config bpf_virtio_balloon_ws_report; do
			grep -q "FUNC '$f'" <<<"$funcs" || why="${why}no FUNC $f in the module's BTF; "
		done
		[ -n "$why" ] || echo "  the module: $(modinfo -F vermagic "$ko")"
	fi
	leaked=$(find /lib/modules /usr/src /var/lib/dkms /etc/dkms -newer "$tmp/stamp" 2>/dev/null | head -n 3)
	[ -z "$leaked" ] || why="${why}dkms changed the machine outside its private tree: $leaked"
fi
check deb_dkms_builds_the_module_against_debians_stock_headers_with_both_kfuncs "$t0" "$why"
[ -z "$why" ] || exit 1

# a stock guest: the packaged module in place of the DKMS build's, the
# installed unit's lines, the installed wsr
t0=$EPOCHREALTIME
why=""
g=$tmp/guest
mkdir -p "$g/lib" "$g/root"
cp "$ko" "$g/virtio_balloon.ko"
cp -a "$r/usr" "$r/lib" "$g/root/"
for lib in $(ldd "$r/usr/bin/wsr" | grep -o '/[^ ]*\.so[^ ]*'); do
	cp -L "$lib" "$g/lib/"
done
cat >"$g/deb-guest.sh" <<'EOF'
# the packaged module for the one in the initramfs
rmmod virtio_balloon && insmod /host/virtio_balloon.ko || { echo "DEB-FAIL module"; exit 1; }
mkdir -p /usr/bin && cp /host/root/usr/bin/wsr /usr/bin/wsr
unit=/host/root/lib/systemd/system/wsr.service
# MGLRU off, as Debian's kernel boots, so that ExecStartPre= has it to do
echo n >/sys/kernel/mm/lru_gen/enabled
pre=$(sed -n '/^ExecStartPre=/,/[^\\]$/p' "$unit" | sed 's/\\$/ /; s/^ExecStartPre=//; s/^[[:space:]]*//' |
	tr -d '\n' | sed 's/\$\$/$/g; s|^/bin/sh -c '"'"'\(.*\)'"'"'$|\1|')
sh -c "$pre"
echo "DEB-MGLRU $(cat /sys/kernel/mm/lru_gen/enabled)"
start=$(sed -n 's/^ExecStart=//p' "$unit")
echo "DEB-EXECSTART $start"
export LD_LIBRARY_PATH=/host/lib
$start >/tmp/daemon.log 2>&1 &
daemon=$!
for _ in $(seq 1 600); do
	grep -q 'balloon programs attached' /tmp/daemon.log && break
	sleep 0.2
done
sed 's/^/DEB-DAEMON /' /tmp/daemon.log
/usr/bin/wsr show >/tmp/show.out 2>&1 && echo "DEB-SHOW $(head -n 2 /tmp/show.out | tr '\n' ' ')"
kill "$daemon" 2>/dev/null || echo "DEB-DAEMON exited before the end"
true
EOF
"$WSR_ROOT"/vmtests/run --kernel stock-dkms --quiet --timeout 600 --log "$tmp/console.log" \
	--dir "$g" -- sh /host/deb-guest.sh >"$tmp/run.out" 2>&1
rc=$?
log=$(tr -d '\r' <"$tmp/console.log" | grep -a '^DEB-')
printf '%s\n' "$log" | sed 's/^/  | /'
if [ -z "$log" ]; then
	why="the guest failed (status $rc): $(tail -n 2 "$tmp/run.out" | tr '\n' ' ')"
elif ! grep -q '^DEB-MGLRU 0x0003$' <<<"$log"; then
	why="ExecStartPre= did not turn MGLRU on without non-leaf young (the guest has two nodes): $(grep '^DEB-MGLRU' <<<"$log")"
elif ! grep -q '^DEB-EXECSTART /usr/bin/wsr daemon$' <<<"$log"; then
	why="the unit's ExecStart= is not /usr/bin/wsr daemon: $(grep '^DEB-EXECSTART' <<<"$log")"
elif ! grep -q '^DEB-DAEMON .*balloon programs attached' <<<"$log"; then
	why="the daemon did not attach the balloon programs: $(grep '^DEB-DAEMON' <<<"$log" | tail -n 2 | tr '\n' ' ')"
elif ! grep -q '^DEB-SHOW .*anon=' <<<"$log"; then
	why="wsr show printed no bins: $(grep '^DEB-SHOW' <<<"$log")"
elif [ "$rc" != 0 ]; then
	why="the guest failed (status $rc): $(tail -n 2 "$tmp/run.out" | tr '\n' ' ')"
fi
check deb_daemon_runs_from_the_installed_unit_in_a_stock_guest_with_the_packaged_module "$t0" "$why"
[ "$failed" = 0 ]
