#!/usr/bin/env bash
# Print the path of a folder holding redis-server, redis-cli and
# redis-benchmark with the libraries they need that a test guest lacks
# (bin/ and lib/, for "vmtests/run --dir" and LD_LIBRARY_PATH=/host/lib),
# fetching them first if needed.  Debian's redis-tools holds all three
# (redis-server is its redis-check-rdb under another name); it and its
# libraries are downloaded with "apt-get download" and unpacked with
# "dpkg -x" into $WSR_CACHE/redis-VERSION, never installed, so no redis
# server is set up or started on the host.  Used by the balance benchmark.
set -eu
. "$(dirname "$0")/lib.sh"

ver=$(apt-cache policy redis-tools 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	die "apt knows no redis-tools package (apt-get update?)"
fi
dir=$WSR_CACHE/redis-${ver//[:~]/_}
if [ ! -x "$dir/bin/redis-server" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/wsr-redis.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	log "fetching redis-tools $ver"
	# apt's sandbox user must be able to write where the packages land
	chmod 777 "$work"
	(cd "$work" && apt-get download -q "redis-tools=$ver" libjemalloc2 liblzf1 \
		>/dev/null 2>&1) || die "apt-get download redis-tools=$ver failed"
	for deb in "$work"/*.deb; do
		dpkg -x "$deb" "$work/root"
	done
	rm -rf "$dir.new"
	mkdir -p "$dir.new/bin" "$dir.new/lib"
	cp "$work/root/usr/bin/redis-cli" "$work/root/usr/bin/redis-benchmark" "$dir.new/bin/"
	cp "$work/root/usr/bin/redis-check-rdb" "$dir.new/bin/redis-server"
	cp -L "$work"/root/usr/lib/x86_64-linux-gnu/lib{jemalloc,lzf}.so.* "$dir.new/lib/"
	# the rest from the host, as mkinitramfs.sh copies bpftool's
	for lib in $(LD_LIBRARY_PATH=$dir.new/lib ldd "$dir.new/bin/redis-server" \
			"$dir.new/bin/redis-benchmark" | awk '$3 ~ /^\// { print $3 }' | sort -u); do
		[ -e "$dir.new/lib/${lib##*/}" ] || cp -L "$lib" "$dir.new/lib/"
	done
	LD_LIBRARY_PATH=$dir.new/lib "$dir.new/bin/redis-server" --version >/dev/null ||
		die "the unpacked redis-server does not run"
	rm -rf "$dir"
	mv "$dir.new" "$dir"
fi
echo "$dir"
