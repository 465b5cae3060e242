#!/usr/bin/env bash
# oomd's Senpai in a guest gives memory back to the host (make check-long;
# the balance bench's "senpai" baseline): one guest with free page
# reporting (2 MiB blocks), its QEMU in a memory cgroup of this test's,
# runs vmtests/senpai-guest.sh: Debian's oomd (vmtests/get-oomd.sh)
# moving memory.high of a workload that holds 240 MiB of cold anon.
# Passes when oomd logged probes, the workload's memcg fell by 64 MiB or
# more, and the QEMU's cgroup usage fell by 32 MiB or more from the
# start to the end.  Prints "PASS name" or "FAIL name: reason".
set -u
. "$(dirname "$0")/lib.sh"
. "$WSR_ROOT/tests/testlib.sh"
SECS=${SENPAI_SECS:-90}
name=senpai_in_a_guest_gives_memory_back_to_the_host

host_memcg_setup
oomd=$("$WSR_ROOT"/vmtests/get-oomd.sh) || die "no oomd"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wsr-senpai.XXXXXX")
cg=$HOST_MEMCG/wsr-senpai-$$
mkdir "$cg" || die "cannot make $cg"
cleanup() {
	local pid
	while read -r pid; do kill "$pid" 2>/dev/null; done <"$cg/cgroup.procs" 2>/dev/null
	sleep 0.5
	rmdir "$cg" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/guest"
cp -a "$oomd/bin" "$oomd/lib" "$tmp/guest/"
cp "$WSR_ROOT/vmtests/senpai-guest.sh" "$tmp/guest/"
"$WSR_ROOT"/vmtests/run --kernel ours --nodes 1 --node-mem 1024 --quiet \
	--timeout $((SECS + 300)) --log "$tmp/console.log" \
	--balloon free-page-reporting=on --append page_reporting.page_reporting_order=9 \
	--cgroup "$cg" --dir "$tmp/guest" -- sh /host/senpai-guest.sh "$SECS" >"$tmp/out" 2>&1 &
guest=$!
# the QEMU's usage at the guest's SENPAI-START, and at its SENPAI-END
start="" end=""
while kill -0 "$guest" 2>/dev/null; do
	usage=$(cat "$cg/$HOST_MEMCG_USAGE" 2>/dev/null) || usage=""
	if [ -z "$start" ] && grep -aq '^SENPAI-START' "$tmp/console.log" 2>/dev/null; then
		start=$usage
	elif [ -z "$end" ] && grep -aq '^SENPAI-END' "$tmp/console.log" 2>/dev/null; then
		end=$usage
	fi
	sleep 1
done
wait "$guest"
rc=$?
log=$(tr -d '\r' <"$tmp/console.log")
field() { printf '%s\n' "$log" | sed -n "s/^$1 .*$2=\([0-9a-z]*\).*/\1/p" | head -n 1; }
c0=$(field SENPAI-START current) c1=$(field SENPAI-END current)
probes=$(field SENPAI-END probes)
why=""
if [ "$rc" != 0 ] || [ -z "$c0" ] || [ -z "$c1" ]; then
	why="the guest failed (status $rc): $(printf '%s\n' "$log" | grep -a 'wsr-test\|fail\|oomd:' | tail -n 3 | tr '\n' '|')"
elif [ -z "$start" ] || [ -z "$end" ]; then
	why="no host usage read at the guest's start and end"
elif [ "${probes:-0}" -lt 1 ]; then
	why="oomd logged no probe: $(printf '%s\n' "$log" | grep -a '^oomd:' | tr '\n' '|')"
elif [ $((c0 - c1)) -lt $((64 << 20)) ]; then
	why="the workload's memcg went from $((c0 >> 20)) to $((c1 >> 20)) MiB"
elif [ $((start - end)) -lt $((32 << 20)) ]; then
	why="the QEMU's cgroup went from $((start >> 20)) to $((end >> 20)) MiB"
fi
echo "  oomd: $probes probes; the workload's memcg $((${c0:-0} >> 20)) -> $((${c1:-0} >> 20)) MiB; the QEMU's cgroup $((${start:-0} >> 20)) -> $((${end:-0} >> 20)) MiB"
verdict "$name" "$why"
[ -z "$why" ]
