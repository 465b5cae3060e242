#!/usr/bin/env bash
# The three-tier accuracy benchmark (tiers-guest.sh) with no reader: the
# host requests a working-set report every 60 s (wsr-host request, then
# show) while a guest runs 16 MiB touched every 100 ms, 32 MiB every 20 s
# and 64 MiB idle since the start on node 0, bins 1, 5, 30, 60, 120,
# 300 s, refresh_ms 1000.  Per answer, the fraction of each tier in its bins
# (node 0, node level: the guest's other anon memory is a few MiB):
# hot below 5 s, warm up to 30 s, cold 120 s or more; "background" is
# the daemon's own aging with kept merges, "seed" --seed-aging.
#   WSR_BENCH_TIER_SECONDS  run length per mode (default 600)
#   KEEP=1                  keep the folder with the guest's log and every
#                           answer (printed at the end)
set -eu
. "$(dirname "$0")/lib.sh"
SECS=${WSR_BENCH_TIER_SECONDS:-600}
HOST=${BUILD:-$WSR_ROOT/build}/wsr-host
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

"$WSR_ROOT"/vmtests/run --quiet --log "$tmp/log" --qmp "$tmp/qmp" \
	--balloon working-set=on,working-set-bins=7 \
	--qemu-arg -qmp --qemu-arg "unix:$tmp/events,server=on,wait=off" \
	--dir "$WSR_ROOT/tests/balloon" --timeout $((SECS * 2 + 600)) -- \
	sh /host/bench_tiers.sh $((SECS + 30)) >"$tmp/run.out" 2>&1 &
mark() { grep -a "^wsr-balloon: $1" "$tmp/log" 2>/dev/null | tr -d '\r' | head -n 1; }
wait_for() {
	for _ in $(seq 1 $((SECS * 2 + 1200))); do [ -n "$(mark "$1")" ] && return 0; sleep 0.5; done
	die "guest did not reach $1: $(tail -n 5 "$tmp/log")"
}
echo "## Three tiers, host requests every 60 s ($((SECS / 60)) minutes per mode)"
for mode in background seed; do
	wait_for "START $mode"
	"$HOST" --qmp "$tmp/qmp" config 1000,5000,30000,60000,120000,300000 1000 0 >/dev/null
	start=$(date +%s)
	: >"$tmp/$mode"
	# the guest runs each mode 30 s longer than SECS, so that the answer at
	# SECS is of the running workload, not of one it is stopping
	while [ -z "$(mark "STOP $mode")" ] && [ $(($(date +%s) - start)) -lt "$SECS" ]; do
		sleep 60
		"$HOST" --qmp "$tmp/events" request --timeout-ms 60000 >/dev/null 2>&1 || continue
		"$HOST" --qmp "$tmp/qmp" show >"$tmp/ans" 2>/dev/null || continue
		# every answer kept whole with KEEP=1 (the folder is printed)
		cp "$tmp/ans" "$tmp/ans.$mode.$(($(date +%s) - start))"
		# node 0's bins: anon pages per bin
		awk -v t=$(($(date +%s) - start)) '/^N/ { on = ($1 == "N0"); i = 0; next }
			on && /anon=/ { i++; sub("anon=", "", $2); a[i] = $2 }
			END { print t, a[1] + a[2], a[1] + a[2] + a[3], a[6] + a[7] }' "$tmp/ans" >>"$tmp/$mode"
	done
	echo "### $mode: fractions of each tier in its bins (hot 4096, warm 8192, cold 16384 pages)"
	awk -v from=$((SECS * 3 / 10)) 'function f(x) { return x > 1 ? 1 : (x < 0 ? 0 : x) }
		{ h = f($2 / 4096); w = f(($3 - 4096) / 8192); c = f($4 / 16384)
		  printf "  t=%4ds  hot<5s %.3f  warm<=30s %.3f  cold>=120s %.3f\n", $1, h, w, c }
		$1 >= from { n++; ok += (h >= .95 && w >= .95 && c >= .95) }
		END { printf "  from %ds: %d answers, %d with all three >= 95%%\n", from, n, ok }' "$tmp/$mode"
done
wait_for DONE
[ -z "${KEEP:-}" ] || echo "kept: $tmp"
