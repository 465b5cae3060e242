# Pins left by an older wsr, whose maps have another layout (those before
# commit 0dbafa3: a report without claim_ns, stats without walk_steps):
# the daemon says which map is of another layout and what to do, and
# refuses, pinning nothing; the commands that read the maps refuse too;
# after "wsr unload", as the message says, a daemon loads.  So are pins
# of the same sizes made with other flags (those of a wsr whose hash maps
# were preallocated), which libbpf would not reuse.
. "$(dirname "$0")/lib.sh"
d=/sys/fs/bpf/wsr
wsr unload 2>/dev/null
wsr-pin-foe old-layout "$d" || fail "cannot pin the old maps"
pins() { find "$d" -mindepth 1 | sort | tr '\n' ' '; }
before=$(pins)
timeout 60 wsr daemon >/tmp/old.out 2>&1
rc=$?
# still running at the limit: coreutils' timeout exits 124, busybox's 143
if [ "$rc" = 0 ] || [ "$rc" = 124 ] || [ "$rc" = 143 ]; then
	fail "the daemon took the old pins (status $rc): $(cat /tmp/old.out)"
fi
if ! grep -q "$d/[a-z]* is a map of another layout" /tmp/old.out ||
	! grep -q '"wsr unload" removes them' /tmp/old.out; then
	fail "the daemon did not say what it found and what to do: $(cat /tmp/old.out)"
fi
[ "$(pins)" = "$before" ] || fail "the daemon pinned: $(pins)"
for c in "get report_ms" "set report_ms 1000" "show"; do
	# shellcheck disable=SC2086 # the command's words
	wsr $c >/tmp/old.out 2>&1 && fail "wsr $c read the old pins: $(cat /tmp/old.out)"
	grep -q "another layout" /tmp/old.out || fail "wsr $c: $(cat /tmp/old.out)"
done
wsr unload || fail "wsr unload failed"
wsr-pin-foe prealloc "$d" || fail "cannot pin the preallocated map"
before=$(pins)
timeout 60 wsr daemon >/tmp/old.out 2>&1
rc=$?
if [ "$rc" = 0 ] || [ "$rc" = 124 ] || [ "$rc" = 143 ]; then
	fail "the daemon took the preallocated pin (status $rc): $(cat /tmp/old.out)"
fi
if ! grep -q "$d/config is a map of another layout" /tmp/old.out ||
	! grep -q '"wsr unload" removes them' /tmp/old.out; then
	fail "the daemon did not say what it found in the preallocated pin and what to do: $(cat /tmp/old.out)"
fi
[ "$(pins)" = "$before" ] || fail "the daemon pinned beside the preallocated map: $(pins)"
wsr unload || fail "wsr unload failed"
wsr_start
expect_ok wsr set report_ms 1000
kill "$WSRD"
