#!/bin/sh
# wsr-tiers: the three-tier accuracy benchmark (a hot, a warm and a cold
# tier, each to stay in its bins for minutes), run inside a test guest
# (make bench; docs/estimator.md "Aging and idle ages").  Prints, per mode, the
# fraction of each tier in its bins over time and the lowest from minute 3.
#   WSR_BENCH_TIER_SECONDS  run length per mode (default 600)
# shellcheck source=../tests/guest/lib.sh
. /wsr/bin/tests/lib.sh
echo "## Three tiers, both ends of the histogram ($((${WSR_BENCH_TIER_SECONDS:-600} / 60)) minutes per mode)"
# 16 MiB touched every 100 ms, 32 MiB every 20 s, 64 MiB idle since the
# start, one memcg on node 0; bins 1, 5, 30, 60, 120, 300 s, refresh_ms
# 1000, a reader every second.  From minute 3, the fraction of each tier
# in its bins at each read: hot below 5 s, warm up to 30 s, cold 120 s or
# more.  "background": the daemon's aging and the kept merges (docs/estimator.md);
# "seed": wsr daemon --seed-aging, the seed's rules alone.
secs=${WSR_BENCH_TIER_SECONDS:-600}
for mode in background seed; do
	if [ "$mode" = seed ]; then wsr_start --seed-aging; else wsr_start; fi
	cg=$(make_memcg bench-tiers)
	wsr set --memcg /bench-tiers intervals_ms N0=1000,5000,30000,60000,120000,300000 >/dev/null
	wsr set --memcg /bench-tiers refresh_ms N0=1000 >/dev/null
	start=$(date +%s)
	start_workload --hot 16 --warm 32 --warm-period-ms 20000 --cold 64 --node 0 \
		--cgroup "$cg" >/dev/null
	: >/tmp/tiers.$mode
	while [ $(($(date +%s) - start)) -lt "$secs" ]; do
		wsr show --memcg /bench-tiers --node 0 >/tmp/tiers.out || break
		t=$(($(date +%s) - start))
		echo "$t $(hist_sum /tmp/tiers.out anon 1 2) $(hist_sum /tmp/tiers.out anon 1 3)" \
			"$(hist_sum /tmp/tiers.out anon 6 7)" >>/tmp/tiers.$mode
		sleep 1
	done
	killall wsr-workload 2>/dev/null
	kill "$WSRD"
	sleep 0.5
	rmdir "$cg" 2>/dev/null
	echo "### $mode: fractions of each tier in its bins (hot 4096, warm 8192, cold 16384 pages)"
	awk -v from=$((secs * 3 / 10)) 'function f(x) { return x > 1 ? 1 : (x < 0 ? 0 : x) }
		{ h = f($2 / 4096); w = f(($3 - 4096) / 8192); c = f($4 / 16384) }
		$1 - last >= 60 { printf "  t=%4ds  hot<5s %.3f  warm<=30s %.3f  cold>=120s %.3f\n", $1, h, w, c; last = $1 }
		$1 >= from { n++; ok += (h >= .95 && w >= .95 && c >= .95)
			if (n == 1 || h < mh) mh = h
			if (n == 1 || w < mw) mw = w
			if (n == 1 || c < mc) mc = c }
		END { printf "  from %ds: %d reads, %d with all three >= 95%%; lowest: hot %.3f, warm %.3f, cold %.3f\n",
			from, n, ok, mh, mw, mc }' /tmp/tiers.$mode
done
