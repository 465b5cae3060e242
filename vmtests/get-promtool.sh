#!/usr/bin/env bash
# Print the path of a promtool (Prometheus' checker, from Debian's
# prometheus package), fetching it first if needed: the package is
# downloaded with "apt-get download" and unpacked with "dpkg -x" into
# $WSR_CACHE/promtool-VERSION, never installed, so no Prometheus server is
# set up or started.  Used by the tests of wsr-host balance's metrics.
set -eu
. "$(dirname "$0")/lib.sh"

ver=$(apt-cache policy prometheus 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	die "apt knows no prometheus package (apt-get update?)"
fi
dir=$WSR_CACHE/promtool-$ver
if [ ! -x "$dir/usr/bin/promtool" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/wsr-promtool.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	log "fetching promtool from prometheus $ver"
	# apt's sandbox user must be able to write where the package lands
	chmod 777 "$work"
	(cd "$work" && apt-get download -q "prometheus=$ver" >/dev/null 2>&1) ||
		die "apt-get download prometheus=$ver failed"
	mkdir -p "$dir.new"
	dpkg -x "$work"/prometheus_*.deb "$dir.new"
	[ -x "$dir.new/usr/bin/promtool" ] || die "no usr/bin/promtool in prometheus $ver"
	rm -rf "$dir"
	mv "$dir.new" "$dir"
fi
echo "$dir/usr/bin/promtool"
