# poll() on nodeN/wss/histogram under "wsr fs" (POLLPRI, as sysfs_notify
# wakes the seed's) wakes on that node's node-level reports: global
# reclaim on node 0 (a workload bound to it asking for more than its
# 1 GiB) wakes node0's file, with report_ms written through the mount;
# node1's, whose report_ms is 0, polled all the while, sleeps through
# them.  wsr watch sees the node-level report (the ring, the ground truth).
. "$(dirname "$0")/lib.sh"
wsr_start
cg=$(make_memcg fs-global)
fs_start
N=$FSDIR/devices/system/node
echo 1000,2000,4000 >"$N/node0/wss/intervals_ms" || fail "cannot write node0's intervals_ms"
echo 1000 >"$N/node0/wss/report_ms" || fail "cannot write node0's report_ms"
echo 0 >"$N/node1/wss/report_ms" || fail "cannot write node1's report_ms"
rm -f /tmp/ready0 /tmp/ready1
wsr-fs-user poll "$N/node0/wss/histogram" 90000 1 /tmp/ready0 >/tmp/poll0.out 2>&1 &
p0=$!
wsr-fs-user poll "$N/node1/wss/histogram" 120000 1 /tmp/ready1 >/tmp/poll1.out 2>&1 &
p1=$!
wait_until 30 test -e /tmp/ready0 -a -e /tmp/ready1 || fail "the pollers did not read the histograms"
wsr watch --node 0 --count 1 >/tmp/watch.out 2>&1 &
w=$!
sleep 0.5
wsr-workload --hot 200 --cold 1000 --node 0 --cgroup "$cg" >/dev/null &
load=$!
wait "$p0"
info "node0's poll: $(cat /tmp/poll0.out)"
case "$(cat /tmp/poll0.out)" in wake\ *) ;; *) fail "node0's poll under global reclaim: '$(cat /tmp/poll0.out)'" ;; esac
wait_until 10 sh -c "! kill -0 $w 2>/dev/null" || fail "wsr watch saw no node-level report on node 0"
# node1's poll, waiting since before node 0's reports, has not woken
sleep 2
kill "$load"
[ ! -s /tmp/poll1.out ] || fail "node1's poll woke on node 0's reports: '$(cat /tmp/poll1.out)'"
kill "$p1"
info "node1's poll: still waiting"
