# Passes of node_reclaim() (vm.zone_reclaim_mode: a node's own clean page
# cache reclaimed before another node's memory is used) make no report,
# as in the seed, although they run at a priority (NODE_RECLAIM_PRIORITY,
# 4) at which global reclaim reports.  Node 0 (vCPU 0) is filled with
# clean page cache, then a workload on vCPU 0 asks for more anon than
# node 0 has free: with zone_reclaim_mode 1 the allocator reclaims node 0's
# page cache through node_reclaim() rather than go to node 1, which has
# room, so that neither kswapd nor direct reclaim runs (checked: their
# passes would report; watermark boosting, which wakes kswapd, is off).
. "$(dirname "$0")/lib.sh"
mode=/proc/sys/vm/zone_reclaim_mode
T=/sys/kernel/tracing
[ -w $mode ] || fail "no $mode (CONFIG_NUMA?)"
[ -d $T/events/vmscan/mm_vmscan_node_reclaim_begin ] || fail "no tracefs vmscan events"
grep -q " /mnt " /proc/mounts || fail "no scratch disk at /mnt"
boost=/proc/sys/vm/watermark_boost_factor
old_mode=$(cat $mode) old_boost=$(cat $boost)
events="mm_vmscan_node_reclaim_begin mm_vmscan_direct_reclaim_begin mm_vmscan_kswapd_wake"
cleanup() {
	[ -z "${load:-}" ] || kill "$load" 2>/dev/null
	[ -z "${watcher:-}" ] || kill "$watcher" 2>/dev/null
	echo "$old_mode" >$mode
	echo "$old_boost" >$boost
	for e in $events; do echo 0 >"$T/events/vmscan/$e/enable"; done
	rm -f /mnt/node-reclaim
	echo 1 >/proc/sys/vm/drop_caches
}
trap cleanup EXIT
wsr_start
expect_ok wsr set intervals_ms 1000,10000,60000
expect_ok wsr set report_ms 1000
node0_free_mib() { awk '$3 == "MemFree:" { print int($4 / 1024) }' /sys/devices/system/node/node0/meminfo; }
# clean page cache on node 0: written from its vCPU, then synced; 256
# MiB, of which node_reclaim() must take back the 150 asked below (the
# scratch disk, 512 MiB, keeps other tests' files)
avail=$(df -m /mnt | awk 'NR == 2 { print $4 }')
[ "${avail:-0}" -ge 264 ] || fail "only ${avail:-?} MiB free on /mnt, 264 needed: $(du -sm /mnt/* 2>/dev/null | tr '\n' ' ')"
echo 1 >/proc/sys/vm/drop_caches
taskset -c 0 dd if=/dev/zero of=/mnt/node-reclaim bs=1M count=256 2>/dev/null ||
	fail "cannot write 256 MiB to /mnt"
sync
free0=$(node0_free_mib)
wsr watch --json >/tmp/nr.node 2>/tmp/nr.err &
watcher=$!
sleep 0.5
echo 1 >$mode
# no watermark boost: its kswapd wake-ups (when node 0 runs short of free
# pageblocks) would reclaim, and report, beside node_reclaim()
echo 0 >$boost
: >$T/trace
for e in $events; do echo 1 >"$T/events/vmscan/$e/enable"; done
# 150 MiB more than node 0 has free: node_reclaim() must find them
taskset -c 0 wsr-workload --hot 8 --cold $((free0 + 142)) --ready /tmp/nr.ready >/dev/null &
load=$!
wait_until 60 [ -e /tmp/nr.ready ] || fail "the workload did not get its memory in 60 s"
sleep 2
for e in $events; do echo 0 >"$T/events/vmscan/$e/enable"; done
count() { grep -c " $1:" $T/trace; }
nr=$(count mm_vmscan_node_reclaim_begin)
direct=$(count mm_vmscan_direct_reclaim_begin)
kswapd=$(count mm_vmscan_kswapd_wake)
kill -0 "$watcher" 2>/dev/null || fail "the watcher exited: $(cat /tmp/nr.err)"
info "node 0 free before: $free0 MiB, after: $(node0_free_mib) MiB; node_reclaim passes begun: $nr, direct reclaims: $direct, kswapd wake-ups: $kswapd"
[ "$nr" -ge 1 ] || fail "no node_reclaim() ran: the test shows nothing (node 0 had $free0 MiB free)"
{ [ "$direct" = 0 ] && [ "$kswapd" = 0 ]; } ||
	fail "direct reclaim ($direct) or kswapd ($kswapd) ran beside node_reclaim(): their reports would hide the rule"
[ ! -s /tmp/nr.node ] || fail "node_reclaim() passes made $(wc -l </tmp/nr.node) report(s): $(head -c 200 /tmp/nr.node)"
