#!/bin/sh
# shellcheck shell=dash
# Guest side of vmtests/tiers-request-bench.sh: the three-tier workload on
# node 0 under the daemon, once as "background" (its own aging), then as
# "seed" (wsr daemon --seed-aging); the host requests a report every 60 s.
# shellcheck source=../guest/lib.sh
. /wsr/bin/tests/lib.sh
# shellcheck source=transport-lib.sh
. /host/transport-lib.sh

secs=$1
for mode in background seed; do
	wsr unload 2>/dev/null
	# shellcheck disable=SC2034 # read by transport-lib.sh
	dev=$(balloon_dev) || fail "no virtio balloon device"
	echo 0x0003 >/sys/kernel/mm/lru_gen/enabled
	opt=""
	[ "$mode" = seed ] && opt=--seed-aging
	# shellcheck disable=SC2086 # no option or one
	wsr daemon $opt 2>/tmp/daemon.log &
	daemon=$!
	wait_until 60 grep -q "serving the balloon" /tmp/daemon.log ||
		fail "the daemon does not serve the balloon: $(tr '\n' ' ' </tmp/daemon.log)"
	cg=$(make_memcg tiers)
	pid=$(start_workload --hot 16 --warm 32 --warm-period-ms 20000 --cold 64 --node 0 \
		--cgroup "$cg")
	mark "START $mode"
	sleep "$secs"
	mark "STOP $mode"
	kill "$pid" "$daemon"
	sleep 1
	rmdir "$cg" 2>/dev/null
done
finish
