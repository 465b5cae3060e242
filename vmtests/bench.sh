#!/usr/bin/env bash
# make bench: run the benchmarks in a guest and print their figures.
set -eu
. "$(dirname "$0")/lib.sh"
exec "$WSR_ROOT"/vmtests/run --timeout 1800 -- wsr-bench
