# A monitor reading every second with refresh_ms 1000 must not erase old
# idle ages: reads age only lruvecs with fewer than four generations (the
# seed's rule; the daemon's own aging merges, and keeps the merged ages),
# so a 96 MiB region idle since the workload started still sits in the
# bins older than 15 s after 25 s of reads, within 5%.  (When every read
# aged and merges lost their ages, the region looked idle for less than
# 5 s: 15 s tells the two apart as well as 30 s did, in half the time.)  Not run on the stock kernel, whose suite runs estimator_* tests.
. "$(dirname "$0")/lib.sh"
wsr_start
cg=$(make_memcg refresh-steady)
start_workload --hot 0 --cold 96 --node 0 --cgroup "$cg" >/dev/null
# from the workload's ready: the region's last pages are touched then
# (seconds after its start under a loaded TCG host)
start=$(date +%s)
expect_ok wsr set --memcg /refresh-steady intervals_ms N0=1000,5000,10000,15000,20000
expect_ok wsr set --memcg /refresh-steady refresh_ms N0=1000
s0=$(lru_gen_max_seq "$cg" 0)
reads=0
while [ $(($(date +%s) - start)) -lt 25 ]; do
	wsr show --memcg /refresh-steady --node 0 >/tmp/steady.out || fail "read $reads failed"
	reads=$((reads + 1))
	sleep 1
done
info "after $reads reads, max_seq $s0 -> $(lru_gen_max_seq "$cg" 0):"
sed 's/^/    /' /tmp/steady.out
old=$(hist_sum /tmp/steady.out anon 5 6)
[ "$reads" -ge 12 ] || fail "only $reads reads in 25 s"
awk -v o="$old" 'BEGIN { exit !(o >= 24576 * 0.95) }' ||
	fail "$old anon pages idle for more than 15 s, expected the region's 24576 within 5%"
