#!/usr/bin/env bash
# make demo: boot a guest, run a workload with the estimator, show its
# working-set histograms; then, from the host, configure the balloon's
# working-set reports over QMP, ask for one and show what arrived.
set -eu
. "$(dirname "$0")/lib.sh"
HOST=${BUILD:-$WSR_ROOT/build}/wsr-host
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$WSR_ROOT"/vmtests/run --timeout 900 --log "$tmp/log" --qmp "$tmp/qmp" \
	--balloon working-set=on,working-set-bins=5 -- wsr-demo &
run=$!
until grep -aq '^wsr-demo: HOST-TURN' "$tmp/log" 2>/dev/null; do
	kill -0 "$run" 2>/dev/null || break
	sleep 0.5
done
if grep -aq '^wsr-demo: HOST-TURN' "$tmp/log"; then
	printf '\n### host: wsr-host config 1000,2000,5000,10000 1000 0; wsr-host request\n'
	"$HOST" --qmp "$tmp/qmp" config 1000,2000,5000,10000 1000 0
	"$HOST" --qmp "$tmp/qmp" request
	for _ in $(seq 1 60); do
		[ -n "$("$HOST" --qmp "$tmp/qmp" show)" ] && break
		sleep 0.5
	done
	printf '\n### host: wsr-host show (the guest working set as QEMU received it)\n'
	"$HOST" --qmp "$tmp/qmp" show
fi
wait "$run"
