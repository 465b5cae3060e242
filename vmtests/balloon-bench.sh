#!/usr/bin/env bash
# Latency of working-set reports to the host, and their cost in the guest.
#
# A guest (patched kernel, patched QEMU) runs wsr; the host sends N
# working-set-requests one after another and takes, for each, the time
# from just before the request to QEMU's time stamp on the
# WORKING_SET_EVENT that carries the answer (host clock at both ends).
# That path holds the reclaim path's whole guest-to-host leg (BPF ->
# kfunc -> ring -> work -> ws queue -> QEMU -> event) plus the way in
# (QMP, notify queue, sysfs poll, daemon): an upper bound of the latency
# from a reclaim-time aging to the event.  Baseline: balloon statistics,
# which the host polls at 1 s granularity (0.5 s stale on average).
set -eu
. "$(dirname "$0")/lib.sh"
N=${N:-100}
HOST=${BUILD:-$WSR_ROOT/build}/wsr-host
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

"$WSR_ROOT"/vmtests/run --quiet --log "$tmp/log" --qmp "$tmp/qmp" \
	--balloon working-set=on,working-set-bins=5 \
	--qemu-arg -qmp --qemu-arg "unix:$tmp/events,server=on,wait=off" \
	--dir "$WSR_ROOT/tests/balloon" --timeout 1200 -- sh /host/bench_latency.sh "$N" \
	>"$tmp/run.out" 2>&1 &
mark() { grep -a "^wsr-balloon: $1" "$tmp/log" 2>/dev/null | tr -d '\r' | head -n 1; }
for _ in $(seq 1 1200); do [ -n "$(mark READY)" ] && break; sleep 0.5; done
[ -n "$(mark READY)" ] || die "guest not ready: $(tail -n 5 "$tmp/log")"
"$HOST" --qmp "$tmp/events" watch --json >"$tmp/ev" &
sleep 1
# refresh_ms large: the daemon does not age first, so this is transport
"$HOST" --qmp "$tmp/qmp" config 1000,5000,20000,60000 600000 0
# the cost of a wsr-host call itself, to take off
t0=$(date +%s%N)
for _ in $(seq 1 20); do "$HOST" --qmp "$tmp/qmp" qmp '{"execute":"query-status"}' >/dev/null; done
qmp_ms=$(( ($(date +%s%N) - t0) / 20000000 ))
for i in $(seq 1 "$N"); do
	date +%s%N >>"$tmp/sent"
	"$HOST" --qmp "$tmp/qmp" request
	for _ in $(seq 1 500); do [ "$(grep -c WORKING_SET_EVENT "$tmp/ev")" -ge "$i" ] && break; sleep 0.01; done
done
for _ in $(seq 1 120); do [ -n "$(mark COST)" ] && break; sleep 0.5; done
# QEMU's time stamp of each event, in microseconds
report_times "$tmp/ev" | awk '{ split($1, t, "."); printf "%.0f\n", t[1] * 1000000 + t[2] }' >"$tmp/recv_us"
paste "$tmp/sent" "$tmp/recv_us" | awk '{ printf "%.3f\n", ($2 - $1 / 1000) / 1000 }' |
	sort -n >"$tmp/lat"
n=$(wc -l <"$tmp/lat")
echo "## balloon report latency, host request -> WORKING_SET_EVENT ($n reports, TCG guest)"
awk -v n="$n" '{ a[NR] = $1 } END {
	printf "p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", a[int(n * 0.5) + 1], a[int(n * 0.99) + (n < 100 ? 0 : 1)], a[n] }' "$tmp/lat"
echo "one wsr-host QMP call (connect, handshake, command) itself: ~$qmp_ms ms of that"
echo "baseline: balloon stats polled every 1 s: 500 ms stale on average, 1000 ms at worst"
echo "## guest CPU per requested report"
mark COST | tr ' ' '\n' | awk -F= '
	{ v[$1] = $2 } END {
	printf "daemon (poll wake, sysfs reads, iterator): %.2f ms CPU per request (%d ticks / %d)\n",
		v["daemon_ticks"] * 1000 / v["hz"] / v["requests"], v["daemon_ticks"], v["requests"]
	# the iterator runs the program once more, with no cgroup, at its end
	printf "BPF request program (all nodes binned, kfunc): %.1f us per report (%d runs)\n",
		v["bpf_ns"] / 1000 / v["sent"], v["bpf_cnt"] }'
