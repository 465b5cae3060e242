#!/bin/sh
# shellcheck shell=dash
# Guest side of vmtests/balloon-bench.sh: the daemon serves the host's
# first 2N requests (the first N cost measured), then is stopped, and the
# BPF request hook answers the last N.
# shellcheck source=../guest/lib.sh
. /wsr/bin/tests/lib.sh
# shellcheck source=transport-lib.sh
. /host/transport-lib.sh

sysctl -qw kernel.bpf_stats_enabled=1 2>/dev/null || echo 1 >/proc/sys/kernel/bpf_stats_enabled
start_daemon
start_workload --hot 32 --cold 96 --node 1 >/dev/null
# utime + stime of the daemon, in clock ticks
cpu() { awk '{ print $14 + $15 }' "/proc/$daemon/stat"; }
c0=$(cpu)
mark "READY requests=$(ws requests)"
wait_until 600 ws_at_least answered "$1" || fail "only $(ws answered) requests answered"
c1=$(cpu)
bpftool prog show name wsr_balloon_request -j >/tmp/prog.json
mark "COST requests=$(ws requests) sent=$(ws sent) daemon_ticks=$((c1 - c0))" \
	"hz=$(getconf CLK_TCK 2>/dev/null || echo 100)" \
	"bpf_ns=$(sed 's/.*"run_time_ns":\([0-9]*\).*/\1/' /tmp/prog.json)" \
	"bpf_cnt=$(sed 's/.*"run_cnt":\([0-9]*\).*/\1/' /tmp/prog.json)"
wait_until 600 ws_at_least answered $(($1 * 2)) || fail "only $(ws answered) requests answered"
kill -STOP "$daemon"
mark STOPPED
wait_until 900 ws_at_least answered $(($1 * 3)) || fail "only $(ws answered) requests answered"
kill -CONT "$daemon"
finish
