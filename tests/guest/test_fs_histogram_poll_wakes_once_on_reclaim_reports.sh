# poll() on a memcg's memory.wss.histogram under "wsr fs", by a C program
# as the seed's users poll (wsr-fs-user: read, then POLLPRI alone): no
# wake-up while no report is made; several reclaim reports made while
# nobody polls are one wake-up, as sysfs_notify's (a second poll times
# out); and a poll that waits wakes when a report is made.  The reports
# are counted by wsr watch (the ring, the ground truth).
. "$(dirname "$0")/lib.sh"
wsr_start
cg=$(make_memcg fs-poll)
echo 24M >"$cg/memory.max"
fs_start
M=$FSDIR/fs/cgroup/fs-poll
echo N0=1000,2000,4000 >"$M/memory.wss.intervals_ms" || fail "cannot set intervals"
echo N0=0 >"$M/memory.wss.report_ms" || fail "cannot set report_ms"
rm -f /tmp/ready /tmp/go
wsr-fs-user poll "$M/memory.wss.histogram" 3000 2 /tmp/ready /tmp/go >/tmp/poll.out 2>&1 &
p=$!
wait_until 30 test -e /tmp/ready || fail "wsr-fs-user did not read the histogram: $(cat /tmp/poll.out)"
# reclaim (the workload over memory.max), reports on: three of them
wsr watch --memcg /fs-poll --count 3 >/tmp/w &
w=$!
sleep 0.5
echo N0=300 >"$M/memory.wss.report_ms" || fail "cannot set report_ms"
load=$(start_workload --hot 40 --cold 0 --node 0 --cgroup "$cg")
wait_until 60 sh -c "! kill -0 $w 2>/dev/null" || fail "no 3 reclaim reports in 60 s"
echo N0=0 >"$M/memory.wss.report_ms"
# (a report claimed before that write lands within this second)
sleep 1
# polls now: the three reports as one wake-up, then nothing for 3 s
touch /tmp/go
# shellcheck disable=SC2016 # the inner shell counts, at each try
wait_until 30 sh -c '[ "$(wc -l </tmp/poll.out)" -ge 2 ]' || fail "polls: $(cat /tmp/poll.out)"
info "polls after 3 reports: $(head -n 2 /tmp/poll.out | tr '\n' ' ')"
first=$(sed -n 1p /tmp/poll.out) second=$(sed -n 2p /tmp/poll.out)
case "$first" in wake\ *) ;; *) fail "the first poll after 3 reports: '$first', not a wake-up" ;; esac
[ "${first#wake }" -lt 1000 ] || fail "the wake-up took ${first#wake } ms"
case "$second" in timeout\ *) ;; *) fail "3 reports woke poll() twice: '$second'" ;; esac
wait "$p" || fail "wsr-fs-user failed: $(cat /tmp/poll.out)"
# a poll that waits (opened after those reports): a report wakes it
rm -f /tmp/ready
wsr-fs-user poll "$M/memory.wss.histogram" 60000 1 /tmp/ready >/tmp/poll2.out 2>&1 &
p=$!
wait_until 30 test -e /tmp/ready || fail "wsr-fs-user did not read the histogram: $(cat /tmp/poll2.out)"
sleep 1
echo N0=300 >"$M/memory.wss.report_ms"
wait "$p" || fail "wsr-fs-user failed: $(cat /tmp/poll2.out)"
info "a poll that waited for a report: '$(cat /tmp/poll2.out)'"
case "$(cat /tmp/poll2.out)" in wake\ *) ;; *) fail "a poll while reports were made: '$(cat /tmp/poll2.out)'" ;; esac
kill "$load"
