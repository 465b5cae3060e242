# A read gets the last report while it is younger than refresh_ms, unless
# it was made with other bins: then the histogram is collected again with
# the configured ones, also when only a bound moved (same number of bins).
. "$(dirname "$0")/lib.sh"
wsr_start
cg=$(make_memcg est-stale)
echo 24M >"$cg/memory.max"
expect_ok wsr set --memcg /est-stale intervals_ms N0=1000,2000,3000
expect_ok wsr set --memcg /est-stale refresh_ms N0=600000
expect_ok wsr set --memcg /est-stale report_ms N0=100000
wsr watch --memcg /est-stale --node 0 --count 1 >/tmp/stale.w &
w=$!
sleep 0.5
wsr-workload --hot 40 --cold 0 --node 0 --cgroup "$cg" >/dev/null &
load=$!
i=0
while kill -0 "$w" 2>/dev/null && [ $i -lt 120 ]; do sleep 0.5; i=$((i + 1)); done
kill "$load" "$w" 2>/dev/null
[ -s /tmp/stale.w ] || fail "no report in 60 s of reclaim"
# the report is younger than refresh_ms: a read gets it as it is
wsr show --memcg /est-stale --node 0 >/tmp/stale.1 || fail "wsr show failed"
# watch prints the memcg format: "N0", then the bins
sed 1d /tmp/stale.w | cmp -s - /tmp/stale.1 ||
	fail "a read within refresh_ms did not get the report: $(cat /tmp/stale.w /tmp/stale.1)"
expect_ok wsr set --memcg /est-stale intervals_ms N0=1000,2000,4000
wsr show --memcg /est-stale --node 0 >/tmp/stale.2 || fail "wsr show failed"
info "after the new bins:"; sed 's/^/    /' /tmp/stale.2
[ "$(sed -n 3p /tmp/stale.2 | cut -d' ' -f1)" = 4000 ] ||
	fail "a report made with bound 3000 was served for bins ending at 4000"
