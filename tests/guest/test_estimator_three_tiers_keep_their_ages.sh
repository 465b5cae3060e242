# Both ends of a histogram right at once (docs/estimator.md "Aging and idle ages"):
# a hot tier (16 MiB touched every 100 ms), a warm tier (32 MiB every 8 s)
# and a cold tier (64 MiB idle since the start) in one memcg on node 0,
# refresh_ms 1000, read as fast as wsr show runs (tens of times a second,
# so that reads land while an aging is merging: inc_min_seq() moves the
# cold tier's folios one by one).  The daemon ages the memcg every
# refresh_ms, which merges MGLRU's generations; the aging hooks keep the
# merged ones' ages.  At every read from 35 s to 45 s:
#   >= 95% of the hot tier is idle for less than 5 s,
#   >= 95% of hot + warm for less than 15 s,
#   >= 95% of the cold tier for 30 s or more.
# (The three-tier acceptance, scaled down in time from 10 minutes and bins
# of 1, 5, 30, 60, 120, 300 s: make bench runs that one.)  The daemon at
# its own period, as a user starts it.  (From 35 s to 45 s: the window
# holds a touch of the warm tier, every 8 s, and the reads just before
# it, when the warm tier is oldest; to 60 s checked the same twice more.)
. "$(dirname "$0")/lib.sh"
HOT=4096 WARM=8192 COLD=16384	# pages
WSRD_PERIOD=default wsr_start
cg=$(make_memcg est-tiers)
expect_ok wsr set --memcg /est-tiers intervals_ms N0=1000,5000,15000,25000,30000,40000
expect_ok wsr set --memcg /est-tiers refresh_ms N0=1000
start_workload --hot 16 --warm 32 --warm-period-ms 8000 --cold 64 --node 0 \
	--cgroup "$cg" >/dev/null
# the time from the workload's ready, when the cold tier has been touched:
# its first touch takes seconds under a loaded TCG host, in which the
# daemon's agings make new generations, so that from the workload's
# start the last cold pages were under 30 s old at 35 s
start=$(date +%s)
s0=$(lru_gen_max_seq "$cg" 0)
reads=0 checked=0 bad=0
while [ $(($(date +%s) - start)) -lt 45 ]; do
	wsr show --memcg /est-tiers --node 0 >/tmp/tiers.out || fail "read $reads failed"
	reads=$((reads + 1))
	t=$(($(date +%s) - start))
	if [ "$t" -ge 35 ]; then
		checked=$((checked + 1))
		y5=$(hist_sum /tmp/tiers.out anon 1 2)
		y15=$(hist_sum /tmp/tiers.out anon 1 3)
		o30=$(hist_sum /tmp/tiers.out anon 6 7)
		if ! awk -v a="$y5" -v b="$y15" -v c="$o30" -v h=$HOT -v w=$WARM -v k=$COLD \
			'BEGIN { exit !(a >= .95 * h && b >= .95 * (h + w) && c >= .95 * k) }'; then
			bad=$((bad + 1))
			info "at ${t}s: <5 s $y5 (hot $HOT), <15 s $y15 (hot+warm $((HOT + WARM))), >=30 s $o30 (cold $COLD)"
		fi
	fi
done
info "$reads reads, $checked checked; max_seq $s0 -> $(lru_gen_max_seq "$cg" 0); last:"
sed 's/^/    /' /tmp/tiers.out
[ "$checked" -ge 7 ] || fail "only $checked reads between 35 s and 45 s"
[ "$bad" = 0 ] || fail "$bad of $checked reads had a tier out of its bins"
