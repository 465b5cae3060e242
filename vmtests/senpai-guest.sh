#!/bin/sh
# shellcheck shell=dash
# Guest side of vmtests/senpai-test.sh: a workload of 16 MiB hot and 240
# MiB cold anon in the memcg "senpai", and Debian's oomd (/host/bin/oomd)
# running its Senpai plugin on it, quick: a tick a second (--interval
# 1), a probe every tick of up to 5%, a stall of 1 s before it backs off
# (TCG's stalls are long).  Prints for the host:
#   SENPAI-START current=BYTES     the workload is in and oomd started
#   SENPAI-END current=BYTES high=BYTES probes=N oomd_lines=N
#                                  (then 5 s more, the memory still held)
# usage: senpai-guest.sh SECS
# shellcheck source=../tests/guest/lib.sh
. /wsr/bin/tests/lib.sh
secs=$1
export LD_LIBRARY_PATH=/host/lib
cg=$(make_memcg senpai)
wsr-workload --hot 16 --cold 240 --node 0 --cgroup "$cg" >/dev/null &
load=$!
# the cold set written: the memcg holds it all
wait_until 60 sh -c "[ \$(cat $cg/memory.current) -gt $((240 << 20)) ]" ||
	fail "the workload's memcg holds $(cat "$cg/memory.current") bytes after 60 s"
mkdir -p /tmp/oomd
cat >/tmp/senpai.json <<JSON
{ "rulesets": [ { "name": "senpai on the workload", "silence-logs": "engine",
  "detectors": [ [ "always", { "name": "continue", "args": {} } ] ],
  "actions": [ { "name": "senpai", "args": { "cgroup": "senpai",
    "interval": "1", "max_probe": "0.05", "pressure_ms": "1000",
    "limit_min_bytes": "33554432", "log_interval": "5" } } ] } ] }
JSON
/host/bin/oomd --config /tmp/senpai.json --interval 1 --runtime-dir /tmp/oomd \
	--cgroup-fs /sys/fs/cgroup >/tmp/oomd.log 2>&1 &
oomd=$!
sleep 1
kill -0 "$oomd" 2>/dev/null || fail "oomd did not start: $(tr '\n' ' ' </tmp/oomd.log)"
echo "SENPAI-START current=$(cat "$cg/memory.current")"
sleep "$secs"
echo "SENPAI-END current=$(cat "$cg/memory.current") high=$(cat "$cg/memory.high")" \
	"probes=$(sed -n 's/.* \([0-9]*\) probe attempts.*/\1/p' /tmp/oomd.log | awk '{ n += $1 } END { print n + 0 }')" \
	"oomd_lines=$(wc -l </tmp/oomd.log)"
# held a while, for the host to read its QEMU's usage after this line
sleep 5
kill "$oomd" "$load"
sed 's/^/oomd: /' /tmp/oomd.log | tail -n 5
