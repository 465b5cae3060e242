# The programs and maps are pinned: after the daemon is killed with
# SIGKILL, reports keep coming on reclaim, and a new daemon adopts the
# pins with the configuration unchanged.
. "$(dirname "$0")/lib.sh"
wsr_start
cg=$(make_memcg est-kill)
echo 24M >"$cg/memory.max"
expect_ok wsr set --memcg /est-kill intervals_ms 1000,2000,3000,4000
expect_ok wsr set --memcg /est-kill report_ms N0=300
before=$(wsr get --memcg /est-kill intervals_ms; wsr get --memcg /est-kill report_ms)
# what was set, so that two failed reads cannot compare equal below
case "$before" in
"N0=1000,2000,3000,4000,"*" N1=1000,2000,3000,4000,"*"
N0=300 N1="*) ;;
*) fail "the configuration reads '$before' before the kill" ;;
esac
kill -9 "$WSRD"
wait "$WSRD" 2>/dev/null
[ -e /sys/fs/bpf/wsr/link_reclaim ] || fail "pins gone with the daemon"
wsr watch --memcg /est-kill --node 0 --count 2 >/tmp/w &
w=$!
wsr-workload --hot 40 --cold 0 --node 0 --cgroup "$cg" >/dev/null &
# shellcheck disable=SC2034 # i: a bound on the waits
for i in $(seq 1 120); do kill -0 $w 2>/dev/null || break; sleep 0.5; done
kill $w 2>/dev/null && fail "no reclaim reports while the daemon was dead"
grep -q '^N0$' /tmp/w || fail "watch printed no report"
wsr daemon >/tmp/wsrd2.log 2>&1 &
d2=$!
# it says so once it has (within 2 s here, 30 s on a slow kernel)
wait_until 30 grep -q adopting /tmp/wsrd2.log || { cat /tmp/wsrd2.log; fail "new daemon did not adopt the pins"; }
after=$(wsr get --memcg /est-kill intervals_ms; wsr get --memcg /est-kill report_ms)
[ "$before" = "$after" ] || fail "configuration changed: '$before' -> '$after'"
kill $d2
