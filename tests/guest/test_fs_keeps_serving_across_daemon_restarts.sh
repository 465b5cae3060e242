# "wsr fs" keeps working under its mount while the daemon restarts: with
# the daemon stopped (SIGTERM) its files still read and write (the pins
# stay); a new daemon adopts the pins and poll() still wakes on a
# reclaim report; after "wsr unload" and a fresh daemon (new pins, new
# report rings) reads and writes reach the new maps (wsr get, the ground
# truth) and poll() wakes again, without a remount.
. "$(dirname "$0")/lib.sh"
wsr_start
cg=$(make_memcg fs-restart)
echo 24M >"$cg/memory.max"
fs_start
M=$FSDIR/fs/cgroup/fs-restart
load=$(start_workload --hot 40 --cold 0 --node 0 --cgroup "$cg")
# poll_wakes: a poll of memory.wss.histogram wakes within 60 s, reports on
poll_wakes() {
	rm -f /tmp/ready
	wsr-fs-user poll "$M/memory.wss.histogram" 60000 1 /tmp/ready >/tmp/poll.out 2>&1 &
	p=$!
	wait_until 30 test -e /tmp/ready || fail "$1: cannot read the histogram: $(cat /tmp/poll.out)"
	echo N0=1000,2000,4000 >"$M/memory.wss.intervals_ms" || fail "$1: cannot set intervals"
	echo N0=300 >"$M/memory.wss.report_ms" || fail "$1: cannot set report_ms"
	wait "$p"
	case "$(cat /tmp/poll.out)" in
	wake\ *) info "$1: $(cat /tmp/poll.out)" ;;
	*) fail "$1: no wake-up on reclaim reports: '$(cat /tmp/poll.out)'" ;;
	esac
	echo N0=0 >"$M/memory.wss.report_ms"
}
poll_wakes "first daemon"
kill "$WSRD"
wait "$WSRD"
echo N0=500 >"$M/memory.wss.refresh_ms" || fail "no write with the daemon stopped"
[ "$(wsr get --memcg /fs-restart --node 0 refresh_ms)" = 500 ] || fail "the write with the daemon stopped not stored"
grep -q '^N0$' "$M/memory.wss.histogram" || fail "no read with the daemon stopped"
wsr daemon --interval-ms 500 >/tmp/wsrd2.log 2>&1 &
WSRD=$!
wait_until 30 grep -q adopting /tmp/wsrd2.log || fail "the new daemon did not adopt the pins"
poll_wakes "a restarted daemon"
kill "$WSRD"
wait "$WSRD"
# new pins: the old maps and rings are gone with "wsr unload"
wsr_start
echo N0=1234 >"$M/memory.wss.refresh_ms" || fail "no write after wsr unload and a new daemon"
[ "$(wsr get --memcg /fs-restart --node 0 refresh_ms)" = 1234 ] ||
	fail "the write after a reload reached no map wsr get reads"
[ "$(cat "$M/memory.wss.refresh_ms")" = "N0=1234 N1=0" ] ||
	fail "memory.wss.refresh_ms reads '$(cat "$M/memory.wss.refresh_ms")' after a reload"
# the fs sees the new pins within a second or two
sleep 2
poll_wakes "new pins"
kill "$load"
