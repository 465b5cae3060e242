#!/bin/sh
# caps-guest.sh CAPS (in a test guest, with capsh and libcap in /host):
# "wsr daemon" as wsr.service runs it, root with the bounding set cut to
# CAPS (comma-separated, the unit's CapabilityBoundingSet): it must load
# and pin the programs, and its capabilities must be CAPS and no more.
# Then the same with no capability: the daemon must fail there, or the
# bounding set would not be what decides (CAP_SYS_ADMIN allows BPF by
# itself: dropping CAP_BPF alone would prove nothing).  Marks "wsr-balloon: CAPS-OK" or a FAIL.
# shellcheck source=../tests/testlib.sh
. /wsr/bin/tests/testlib.sh
export LD_LIBRARY_PATH=/host
want=$1

# drop_all_but CAPS: every capability this kernel has, but CAPS
drop_all_but() {
	/host/capsh --print | sed -n 's/^Bounding set *=//p' | tr ',' '\n' |
		grep -vx "$(echo "$1" | tr ',' '\n')" | set_of
}

# set_of: the lines of stdin, sorted, comma-separated
set_of() { sort | tr '\n' , | sed 's/,$//'; }

# run_daemon CAPS: the daemon with the bounding set cut to CAPS, in the background
run_daemon() {
	/host/capsh --drop="$(drop_all_but "$1")" --shell=/bin/sh -- -c 'exec wsr daemon' \
		2>/tmp/daemon.log &
	pid=$!
}

run_daemon "$want"
wait_until 60 grep -q "loaded and pinned" /tmp/daemon.log ||
	fail "the daemon with $want did not load: $(tr '\n' ' ' </tmp/daemon.log)"
wsr show >/dev/null || fail "wsr show after the daemon with $want"
bnd=$(/host/capsh --decode="$(awk '/^CapBnd/ { print $2 }' "/proc/$pid/status")" |
	sed 's/.*=//' | tr , '\n' | set_of)
[ "$bnd" = "$(echo "$want" | tr , '\n' | set_of)" ] ||
	fail "the daemon's bounding set is $bnd, not $want"
kill "$pid"
wait "$pid"
wsr unload >/dev/null 2>&1
run_daemon ""
wait "$pid" && fail "the daemon ran with no capability: $(tr '\n' ' ' </tmp/daemon.log)"
echo "wsr-balloon: CAPS-OK $(tail -n 1 /tmp/daemon.log)"
