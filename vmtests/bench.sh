#!/usr/bin/env bash
# make bench: run the benchmarks in guests and print their figures: the
# estimator's (vmtests/bench-guest.sh, vmtests/tiers-guest.sh), then the
# balloon transport's (vmtests/tiers-request-bench.sh, balloon-bench.sh), then
# wsr-host balance's three policies (vmtests/balance-bench.sh).
set -eu
. "$(dirname "$0")/lib.sh"
"$WSR_ROOT"/vmtests/run --timeout 1800 -- wsr-bench
"$WSR_ROOT"/vmtests/run --timeout 1800 -- wsr-tiers
"$WSR_ROOT"/vmtests/tiers-request-bench.sh
"$WSR_ROOT"/vmtests/balloon-bench.sh
# wsr-host balance against the stats-based policy: four guests, three
# policies, three runs each (about 45 min); it prints where its plots are
"$WSR_ROOT"/vmtests/balance-bench.sh
