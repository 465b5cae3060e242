#!/bin/sh
# shellcheck shell=dash
# Guest side of balloon_reclaim_reports_keep_report_ms_with_daemon_stopped:
# once the host has configured report_ms, the daemon is stopped and a memcg
# put under pressure for 15 s: reports must keep reaching the host, made by
# the BPF programs alone.
. /wsr/bin/tests/lib.sh
. /host/transport-lib.sh

start_daemon
mark READY
wait_until 120 ws_at_least configs 1 || fail "no configuration from the host: $(ws_state)"
kill -STOP "$daemon" || fail "cannot stop the daemon"
cg=$(make_memcg balloon_pressure)
echo 24M >"$cg/memory.max"
mark "PRESSURE-START sent=$(ws sent)"
wsr-workload --hot 16 --cold 48 --cgroup "$cg" --period-ms 20 >/dev/null &
w=$!
sleep 15
kill "$w"
mark "PRESSURE-END sent=$(ws sent) dropped=$(ws dropped)"
kill -CONT "$daemon"
finish
