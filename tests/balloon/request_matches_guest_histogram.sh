#!/bin/sh
# shellcheck shell=dash
# Guest side of balloon_request_after_config_matches_guest_histogram_and_lru_gen:
# a known workload (128 MiB of anon on node 1) and the daemon serving the
# device; once the host's request is answered, the guest's own totals per
# node, as ground truth:
#   TOTALS LRUGEN <node> <anon pages> <file pages>   (/sys/kernel/debug/lru_gen)
#   TOTALS WSR <node> <anon pages> <file pages>      (wsr show, no aging)
# shellcheck source=../guest/lib.sh
. /wsr/bin/tests/lib.sh
# shellcheck source=transport-lib.sh
. /host/transport-lib.sh

start_daemon
start_workload --hot 32 --cold 96 --node 1 >/dev/null
mark READY
wait_until 120 ws_at_least sent 1 || fail "no report sent for the request: $(ws_state)"
awk '$1 == "node" { n = $2; next }
     NF == 4 && $1 ~ /^[0-9]+$/ { a[n] += $3; f[n] += $4 }
     END { for (k in a) print "wsr-balloon: TOTALS LRUGEN", k, a[k], f[k] }' /sys/kernel/debug/lru_gen
wsr show --no-refresh | awk '/^N/ { n = substr($1, 2); next }
	{ split($2, a, "="); split($3, f, "="); an[n] += a[2]; fi[n] += f[2] }
	END { for (k in an) print "wsr-balloon: TOTALS WSR", k, an[k], fi[k] }'
mark REPORTED
finish
