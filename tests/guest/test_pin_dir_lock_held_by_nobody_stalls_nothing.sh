# A user without root (nobody, uid 65534) cannot stall the daemon or a
# watcher with the pin folder's lock: a folder root made 0755 before the
# daemon, whose lock nobody can take, is refused at once by the daemon and
# by a watcher; wsr's own folder (0700) nobody cannot lock, and a watcher
# starts while nobody tries.  A lock held by root stalls a watcher and a
# "wsr set" for the lock's time-out (5 s) at most, with a message.
. "$(dirname "$0")/lib.sh"
d=/sys/fs/bpf/wsr
holder=''
# failed midway, no folder of mode 0755 left for the next test
trap 'kill $holder 2>/dev/null; chmod 0700 "$d" 2>/dev/null; wsr unload 2>/dev/null' EXIT
# unloaded, and gone: a daemon left by another test may still pin its
# balloon maps (making the folder again) for a while after an unload
gone() {
	wsr unload 2>/dev/null
	[ ! -e "$d" ]
}
wait_until 30 gone || fail "wsr unload left $d: $(find "$d" -mindepth 1 | tr "\n" " ")"
# quick CMD...: CMD ends, not with status 0, within 15 s (time-out's 124
# is a stall); its output in $QUICK_OUT (default /tmp/lock.out)
quick() {
	local t0 rc out=${QUICK_OUT:-/tmp/lock.out}
	t0=$(date +%s)
	timeout 30 "$@" >"$out" 2>&1
	rc=$?
	[ "$rc" != 0 ] || fail "'$*' went on with the lock held: $(cat "$out")"
	# busybox's timeout exits 143 (SIGTERM), coreutils' 124
	{ [ "$rc" != 124 ] && [ "$rc" != 143 ]; } || fail "'$*' stalled 30 s on the lock held"
	[ $(($(date +%s) - t0)) -le 15 ] || fail "'$*' took $(($(date +%s) - t0)) s"
}
# hold UID: the lock of $d held by UID in the background, as $holder
hold() {
	wsr-pin-foe hold-lock "$d" "$1" >/tmp/hold.out 2>&1 &
	holder=$!
	wait_until 10 grep -q held /tmp/hold.out
}

{ mkdir "$d" && chmod 0755 "$d"; } || fail "cannot make $d"
hold 65534 || fail "nobody could not lock a 0755 folder: $(cat /tmp/hold.out)"
quick wsr daemon
grep -q "mode 0755" /tmp/lock.out || fail "the daemon's error: $(cat /tmp/lock.out)"
quick wsr watch
grep -q "mode 0755" /tmp/lock.out || fail "the watcher's error: $(cat /tmp/lock.out)"
kill "$holder"
rmdir "$d"

wsr_start
if wsr-pin-foe hold-lock "$d" 65534 >/tmp/hold.out 2>&1; then
	fail "nobody locked wsr's own folder"
fi
grep -q "Permission denied" /tmp/hold.out || fail "nobody's lock: $(cat /tmp/hold.out)"
# a watcher left running 3 s took its slot: it did not stop by itself
# (timeout's SIGTERM ends it, with status 0: it exits cleanly on it; or
# busybox's 143, coreutils' 124)
t0=$(date +%s)
timeout 3 wsr watch >/tmp/lock.out 2>&1
rc=$?
case "$rc" in 0|124|143) ;; *) fail "a watcher failed (status $rc): $(cat /tmp/lock.out)" ;; esac
[ $(($(date +%s) - t0)) -ge 2 ] ||
	fail "a watcher stopped after $(($(date +%s) - t0)) s (status $rc): $(cat /tmp/lock.out)"

hold 0 || fail "root could not lock $d: $(cat /tmp/hold.out)"
# a watcher and a "wsr set" at once: each waits out the time-out alone
QUICK_OUT=/tmp/lock-watch.out quick wsr watch &
qw=$!
QUICK_OUT=/tmp/lock-set.out quick wsr set report_ms 1000 &
qs=$!
# each prints its own FAIL line; the other one and the holder go with
# the test
wait "$qw" || { kill "$qs" "$holder" 2>/dev/null; exit 1; }
wait "$qs" || { kill "$holder" 2>/dev/null; exit 1; }
grep -q "another process held its lock for 5000 ms" /tmp/lock-watch.out ||
	fail "the watcher's error: $(cat /tmp/lock-watch.out)"
grep -q "another process held its lock" /tmp/lock-set.out || fail "wsr set's error: $(cat /tmp/lock-set.out)"
kill "$holder"
expect_ok wsr set report_ms 1000
kill "$WSRD"
