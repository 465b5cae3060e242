#!/usr/bin/env bash
# make demo: boot a guest, run a workload with the estimator, show its
# working-set histograms.
set -eu
. "$(dirname "$0")/lib.sh"
exec "$WSR_ROOT"/vmtests/run --timeout 900 -- wsr-demo
