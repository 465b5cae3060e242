#!/usr/bin/env bash
# Print the path of a node_exporter (Debian's prometheus-node-exporter
# package), fetching it first if needed: the package is downloaded with
# "apt-get download" and unpacked with "dpkg -x" into
# $WSR_CACHE/node-exporter-VERSION, never installed, so no service is set
# up or started.  Used by vmtests/prometheus-test.sh, whose test serves a
# guest's "wsr metrics" file through its textfile collector.
set -eu
. "$(dirname "$0")/lib.sh"

ver=$(apt-cache policy prometheus-node-exporter 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	die "apt knows no prometheus-node-exporter package (apt-get update?)"
fi
dir=$WSR_CACHE/node-exporter-$ver
bin=usr/bin/prometheus-node-exporter
if [ ! -x "$dir/$bin" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/wsr-node-exporter.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	log "fetching node_exporter from prometheus-node-exporter $ver"
	# apt's sandbox user must be able to write where the package lands
	chmod 777 "$work"
	(cd "$work" && apt-get download -q "prometheus-node-exporter=$ver" >/dev/null 2>&1) ||
		die "apt-get download prometheus-node-exporter=$ver failed"
	mkdir -p "$dir.new"
	dpkg -x "$work"/prometheus-node-exporter_*.deb "$dir.new"
	[ -x "$dir.new/$bin" ] || die "no $bin in prometheus-node-exporter $ver"
	rm -rf "$dir"
	mv "$dir.new" "$dir"
fi
echo "$dir/$bin"
