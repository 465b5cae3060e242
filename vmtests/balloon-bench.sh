#!/usr/bin/env bash
# Latency of answers to the host's working-set requests, and their cost in
# the guest.
#
# A guest (patched kernel, patched QEMU) runs wsr; the host sends N
# working-set-requests one after another over one QMP connection
# ("wsr-host request --count N": no connect in the figure) and takes, for
# each, the time from sending the request to reading the
# WORKING_SET_EVENT that answers it.  Three runs:
#   transport  daemon running, refresh_ms 600000: it never ages first, so
#              this is QMP -> notify queue -> driver -> daemon -> BPF ->
#              kfunc -> ring -> ws queue -> QEMU -> event;
#   refresh    daemon running, refresh_ms 1000: it ages every lruvec
#              first when its last aging is older than 1 s;
#   stopped    daemon stopped (SIGSTOP): the BPF request hook answers
#              once the request has waited 500 ms for the daemon.
# Baseline: balloon statistics, which a host polls at 1 s granularity
# (0.5 s stale on average).
set -eu
. "$(dirname "$0")/lib.sh"
N=${N:-100}
HOST=${BUILD:-$WSR_ROOT/build}/wsr-host
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

"$WSR_ROOT"/vmtests/run --quiet --log "$tmp/log" --qmp "$tmp/qmp" \
	--balloon working-set=on,working-set-bins=5 \
	--qemu-arg -qmp --qemu-arg "unix:$tmp/events,server=on,wait=off" \
	--dir "$WSR_ROOT/tests/balloon" --timeout 1800 -- sh /host/bench_latency.sh "$N" \
	>"$tmp/run.out" 2>&1 &
mark() { grep -a "^wsr-balloon: $1" "$tmp/log" 2>/dev/null | tr -d '\r' | head -n 1; }
wait_for() {
	for _ in $(seq 1 1200); do [ -n "$(mark "$1")" ] && return 0; sleep 0.5; done
	die "guest did not reach $1: $(tail -n 5 "$tmp/log")"
}
# run NAME: N requests one at a time; "NAME p50 p99 max" into $tmp/lat
run() {
	"$HOST" --qmp "$tmp/events" request --count "$N" --timeout-ms 30000 >"$tmp/$1" 2>"$tmp/$1.err" ||
		die "$1: $(cat "$tmp/$1.err")"
	sed -n 's/.*latency_ms=\([0-9.]*\).*/\1/p' "$tmp/$1" | sort -n |
		awk -v name="$1" '{ a[NR] = $1 } END {
			printf "%s %.1f %.1f %.1f %d\n", name, a[int((NR + 1) / 2)],
				a[int((NR * 99 + 99) / 100)], a[NR], NR }' >>"$tmp/lat"
}

wait_for READY
"$HOST" --qmp "$tmp/qmp" config 1000,5000,20000,60000 600000 0
run transport
wait_for COST
"$HOST" --qmp "$tmp/qmp" config 1000,5000,20000,60000 1000 0
run refresh
wait_for STOPPED
run stopped
echo "## REQUEST -> WORKING_SET_EVENT latency ($N requests per row, one QMP connection, TCG guest)"
echo "| daemon | p50 ms | p99 ms | max ms | answers |"
echo "|---|---|---|---|---|"
awk 'BEGIN { d["transport"] = "running, refresh_ms 600000 (no aging)"
	d["refresh"] = "running, refresh_ms 1000 (ages first)"
	d["stopped"] = "stopped (BPF hook answers)" }
	{ printf "| %s | %s | %s | %s | %s |\n", d[$1], $2, $3, $4, $5 }' "$tmp/lat"
echo "| baseline: balloon stats polled every 1 s | 500 | 990 | 1000 | - |"
echo "## guest CPU per requested report (transport run)"
mark COST | tr ' ' '\n' | awk -F= '
	{ v[$1] = $2 } END {
	printf "daemon (poll wake, claim, sysfs reads, iterator): %.2f ms CPU per request (%d ticks / %d)\n",
		v["daemon_ticks"] * 1000 / v["hz"] / v["requests"], v["daemon_ticks"], v["requests"]
	printf "BPF request program (all nodes binned, kfunc): %.1f us per run (%d runs)\n",
		v["bpf_ns"] / 1000 / v["bpf_cnt"], v["bpf_cnt"] }'
