#!/usr/bin/env bash
# make bench: run the benchmarks in guests and print their figures: the
# estimator's (vmtests/bench-guest.sh, vmtests/tiers-guest.sh), then the
# balloon transport's (vmtests/tiers-request-bench.sh, balloon-bench.sh).
set -eu
. "$(dirname "$0")/lib.sh"
"$WSR_ROOT"/vmtests/run --timeout 1800 -- wsr-bench
"$WSR_ROOT"/vmtests/run --timeout 1800 -- wsr-tiers
"$WSR_ROOT"/vmtests/tiers-request-bench.sh
"$WSR_ROOT"/vmtests/balloon-bench.sh
