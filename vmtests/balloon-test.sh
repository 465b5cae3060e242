#!/usr/bin/env bash
# The end-to-end tests of the virtio-balloon working-set transport, all of
# them: vmtests/run-test on every test file of tests/balloon (each file
# one behaviour, its guest half and its host half; the harness is
# vmtests/balloon-lib.sh).  bench_*.sh there are make bench's guest
# scripts, transport-lib.sh the guest halves' helpers.
#
# Prints "PASS name" or "FAIL name: reason" per test, then "TIME name
# SECONDS CPU-SECONDS" (its guest's time, and the CPU it and the host's
# side used).
#
#   vmtests/balloon-test.sh [--list] [--kernel ours|debug]
#       the options and the environment (WSR_BALLOON_TESTS, ...) are
#       vmtests/run-test's: see vmtests/run-test --help
set -u
. "$(dirname "$0")/lib.sh"

files=()
for f in "$WSR_ROOT"/tests/balloon/*.sh; do
	case "${f##*/}" in bench_*|transport-lib.sh) continue ;; esac
	files+=("$f")
done
[ "${#files[@]}" -gt 0 ] || die "no test files in $WSR_ROOT/tests/balloon"
exec "$WSR_ROOT"/vmtests/run-test "$@" "${files[@]}"
