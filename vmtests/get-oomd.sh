#!/usr/bin/env bash
# Print the path of a folder holding Debian's oomd (bin/oomd) with the
# libraries it needs that a test guest lacks (lib/, for "vmtests/run
# --dir" and LD_LIBRARY_PATH=/host/lib), fetching it first if needed:
# the package and libjsoncpp25 are downloaded with "apt-get download"
# and unpacked with "dpkg -x" into $WSR_CACHE/oomd-VERSION, never
# installed, so no oomd runs on the host.  The balance benchmark's
# "senpai" guests run it: the real Senpai, where Senpai runs.
set -eu
. "$(dirname "$0")/lib.sh"

ver=$(apt-cache policy oomd 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	die "apt knows no oomd package (apt-get update?)"
fi
dir=$WSR_CACHE/oomd-${ver//[:~+]/_}
if [ ! -x "$dir/bin/oomd" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/wsr-oomd.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	log "fetching oomd $ver"
	# apt's sandbox user must be able to write where the packages land
	chmod 777 "$work"
	(cd "$work" && apt-get download -q "oomd=$ver" libjsoncpp25 >/dev/null 2>&1) ||
		die "apt-get download oomd=$ver failed"
	for deb in "$work"/*.deb; do
		dpkg -x "$deb" "$work/root"
	done
	rm -rf "$dir.new"
	mkdir -p "$dir.new/bin" "$dir.new/lib"
	cp "$work/root/usr/bin/oomd" "$dir.new/bin/"
	cp -L "$work"/root/usr/lib/x86_64-linux-gnu/libjsoncpp.so.* "$dir.new/lib/"
	# the rest from the host, as mkinitramfs.sh copies bpftool's
	for lib in $(LD_LIBRARY_PATH=$dir.new/lib ldd "$dir.new/bin/oomd" |
			awk '$3 ~ /^\// { print $3 }' | sort -u); do
		[ -e "$dir.new/lib/${lib##*/}" ] || cp -L "$lib" "$dir.new/lib/"
	done
	LD_LIBRARY_PATH=$dir.new/lib "$dir.new/bin/oomd" --version >/dev/null 2>&1 ||
		die "the unpacked oomd does not run"
	rm -rf "$dir"
	mv "$dir.new" "$dir"
fi
echo "$dir"
