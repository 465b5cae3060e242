#!/usr/bin/env bash
# make install and its systemd units (make check): installs into a
# scratch DESTDIR only, and checks what lands there and that both units
# pass systemd-analyze verify.  No guest.  Prints "PASS name" /
# "FAIL name: reason"; exits non-zero if one fails.
set -u
. "$(dirname "$0")/lib.sh"
. "$WSR_ROOT/tests/testlib.sh"
BUILD=${BUILD:-$WSR_ROOT/build}
failed=0

check() {
	verdict "$1" "${2:-}"
	[ -z "${2:-}" ] || failed=$((failed + 1))
}

d=$(mktemp -d "${TMPDIR:-/tmp}/wsr-install.XXXXXX")
trap 'rm -rf "$d"' EXIT
# what a package build runs: PREFIX as installed, DESTDIR the staging tree
make_install() {
	make -s -C "$WSR_ROOT" BUILD="$BUILD" DESTDIR="$d/root" PREFIX=/usr install >"$d/make.out" 2>&1
}

# everything lands under DESTDIR, where PREFIX says, and runs from there;
# the units name the installed paths, not DESTDIR's
want="etc/default/wsr-host-balance
usr/bin/wsr
usr/bin/wsr-host
usr/lib/systemd/system/wsr-host-balance.service
usr/lib/systemd/system/wsr.service
usr/share/doc/wsr/wsr-host-balance.txt
usr/share/doc/wsr/wsr-host.txt
usr/share/doc/wsr/wsr.txt"
why=""
if ! make_install; then
	why="make install: $(tail -n 2 "$d/make.out" | tr '\n' ' ')"
elif [ "$(cd "$d/root" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)" != "$want" ]; then
	why="installed files: $(cd "$d/root" && find . -type f | tr '\n' ' ')"
elif ! "$d/root/usr/bin/wsr-host" --help >/dev/null || ! "$d/root/usr/bin/wsr" --help >/dev/null; then
	why="an installed binary does not run"
elif ! grep -q '^ExecStart=/usr/bin/wsr daemon$' "$d/root/usr/lib/systemd/system/wsr.service" ||
	! grep -q '^ExecStart=/usr/bin/wsr-host balance ' "$d/root/usr/lib/systemd/system/wsr-host-balance.service" ||
	! grep -q '^EnvironmentFile=/etc/default/wsr-host-balance$' "$d/root/usr/lib/systemd/system/wsr-host-balance.service" ||
	grep -rq '@[A-Z]*@\|wsr-install\.' "$d/root/usr/lib/systemd/system/"; then
	why="the units do not name the installed paths: $(grep -h '^ExecStart\|^EnvironmentFile\|@' "$d/root/usr/lib/systemd/system/"*.service | tr '\n' ' ')"
elif ! grep -q 'usage: wsr-host balance' "$d/root/usr/share/doc/wsr/wsr-host-balance.txt"; then
	why="no balance --help in the doc folder"
fi
check make_install_puts_everything_under_destdir "$why"

# a second install keeps the administrator's environment file
why=""
echo "WSR_CONNECT=qemu:///session # ours" >"$d/root/etc/default/wsr-host-balance"
if ! make_install; then
	why="make install again: $(tail -n 2 "$d/make.out" | tr '\n' ' ')"
elif ! grep -q '# ours' "$d/root/etc/default/wsr-host-balance"; then
	why="the environment file was replaced"
fi
check make_install_keeps_an_existing_environment_file "$why"

# systemd-analyze verify on the installed units, with DESTDIR as the root
# (systemd's own units copied in, which the units' dependencies need;
# this machine's systemd is not running)
why=""
cp -rn /lib/systemd/system/. "$d/root/usr/lib/systemd/system/"
for u in wsr wsr-host-balance; do
	systemd-analyze verify --root="$d/root" "$d/root/usr/lib/systemd/system/$u.service" \
		>"$d/verify.out" 2>&1 || why="$why$u.service: $(head -n 3 "$d/verify.out" | tr '\n' ' ')"
done
check units_pass_systemd_analyze_verify "$why"
[ "$failed" = 0 ]
