#!/usr/bin/env bash
# make deb: wsr's Debian packages (debian/), built with debhelper in a
# copy of the tree under $BUILD/deb, with what debian/rules needs beside
# it: dkms-src/, the series' virtio_balloon source for the stock kernel's
# Debian version (vmtests/dkms-source.sh), and the resolve_btfids that
# vmtests/fetch-stock-headers.sh builds from that kernel's source.  Then
# lintian on them, with debian/*.lintian-overrides.  Prints the
# packages' paths; fails when the build fails or lintian reports an
# error, a warning or an information tag that no override justifies.
set -eu
. "$(dirname "$0")/lib.sh"

BUILD=${BUILD:-$WSR_ROOT/build}
case "$BUILD" in /*) ;; *) BUILD=$WSR_ROOT/$BUILD ;; esac
out=$BUILD/deb
ver=$(dpkg-parsechangelog -l "$WSR_ROOT/debian/changelog" -S Version)
read -r _ kversion <<<"$(stock_kernel_pkg)"
hdr=$("$WSR_ROOT"/vmtests/fetch-stock-headers.sh)
src=$out/wsr-$ver
rm -rf "$out"
mkdir -p "$src"
# the tree's files as they are now (tracked or new, not ignored)
(cd "$WSR_ROOT" && git ls-files -co --exclude-standard) | while read -r f; do
	[ -e "$WSR_ROOT/$f" ] && echo "$f"
done | (cd "$WSR_ROOT" && xargs -d '\n' cp --parents -t "$src")
"$WSR_ROOT"/vmtests/dkms-source.sh "$src/dkms-src" "$kversion" >/dev/null
cp "$hdr/tools/bpf/resolve_btfids/resolve_btfids" "$src/"
log "building the packages in $src (log: $out/build.log)"
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 ||
	{ tail -n 30 "$out/build.log" >&2; die "dpkg-buildpackage failed (log: $out/build.log)"; }
changes=$(ls "$out"/wsr_"$ver"_*.changes)
log "lintian on $changes"
rc=0
lintian --fail-on error,warning,info --display-info --info "$changes" >"$out/lintian.log" 2>&1 || rc=$?
sed 's/^/lintian: /' "$out/lintian.log" >&2
[ "$rc" = 0 ] || die "lintian: tags not overridden (above; $out/lintian.log)"
ls "$out"/*.deb
