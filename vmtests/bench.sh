#!/usr/bin/env bash
# make bench: run the benchmarks in guests and print their figures: the
# estimator's (vmtests/bench-guest.sh, vmtests/tiers-guest.sh), wsr side by
# side with DAMON and idle page tracking (vmtests/compare-guest.sh), what
# wsr costs an idle guest (vmtests/memcost.sh), then the balloon
# transport's (vmtests/tiers-request-bench.sh, balloon-bench.sh), then
# wsr-host balance's policies (vmtests/balance-bench.sh).
set -eu
. "$(dirname "$0")/lib.sh"
# How long (BENCHMARKS.md has the arithmetic): the estimator's and the
# transport's benchmarks about 50 min (the tiers ones 2 x 10 min each),
# the comparison about 45 min (8 runs of 5 min, the workloads alone 1 min,
# each run's start), what wsr costs an idle guest about 15 min (8
# guests, two of them making 10,000 memcgs), then the balance bench
# twice, which says its own: the policies hosts run against working-set,
# three rounds each, on set 1 measuring memory saved, and on set 3
# (memory freed on a cycle) on a committed host: the four QEMUs limited
# to 1500 MiB, about 75% of what they use with no policy, the host
# swapping
policies="none-nofpr none senpai working-set mom proxmox"
saved=(--set 1 --runs 3 --secs 130 --policies "$policies" --out "$WSR_ROOT/build/balance-bench")
committed=(--set 3 --runs 3 --secs 130 --policies "$policies" --committed-mib 1500
	--out "$WSR_ROOT/build/balance-bench-committed")
balance=$(($("$WSR_ROOT"/vmtests/balance-bench.sh "${saved[@]}" --length) +
	$("$WSR_ROOT"/vmtests/balance-bench.sh "${committed[@]}" --length)))
log "make bench takes about $((110 + balance)) min: about 50 min of estimator and transport benchmarks, 45 min of wsr against DAMON and idle page tracking, 15 min of what wsr costs an idle guest, then $balance min of the balance bench"
"$WSR_ROOT"/vmtests/run --timeout 1800 -- wsr-bench
"$WSR_ROOT"/vmtests/run --timeout 1800 -- wsr-tiers
# wsr, DAMON (default and tuned) and page_idle, one per run: 8 x 5 min
"$WSR_ROOT"/vmtests/run --timeout 3600 -- wsr-compare
# MemAvailable, slab, vmalloc, the daemon's RSS, CPU per read; not yet
# run whole by make bench, so a failure of it leaves the rest to run
"$WSR_ROOT"/vmtests/memcost.sh || log "vmtests/memcost.sh failed (above); the other benchmarks go on"
"$WSR_ROOT"/vmtests/tiers-request-bench.sh
"$WSR_ROOT"/vmtests/balloon-bench.sh
# wsr-host balance: host memory saved against none without free page
# reporting, then the committed host; each prints where its plots are
"$WSR_ROOT"/vmtests/balance-bench.sh "${saved[@]}"
"$WSR_ROOT"/vmtests/balance-bench.sh "${committed[@]}"
