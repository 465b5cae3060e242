#!/usr/bin/env bash
# What wsr costs an idle 1 GiB guest (BENCHMARKS.md, "What wsr costs a
# guest"): 1 and 2 nodes, memcgs made before the load 1, 100, 1,000 and
# 10,000; per case the median of three loads (vmtests/memcost-guest.sh)
# of MemAvailable lost, its parts and the daemon's RSS, then the slope
# from 100 to 10,000 memcgs per memcg and node; and the CPU time of a
# read (wsr show --memcg, node-level wsr show, wsr metrics --all-memcgs)
# up to 1,000 memcgs.  About 15 minutes under
# TCG, most of it making 10,000 memcgs twice.
#   WSR_MEMCOST_MEMCGS   the memcg counts (default "1 100 1000 10000")
#   WSR_MEMCOST_NODES    the node counts (default "1 2")
set -eu
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
counts=${WSR_MEMCOST_MEMCGS:-1 100 1000 10000}
echo "## What wsr costs an idle 1 GiB guest (KiB, median of 3 loads)"
printf '%-6s %-7s %9s %8s %8s %6s %7s %7s\n' nodes memcgs avail_lost vmalloc bpf_vm slab percpu rss
for nodes in ${WSR_MEMCOST_NODES:-1 2}; do
	for n in $counts; do
		"$WSR_ROOT"/vmtests/run --quiet --log "$tmp/log" --nodes "$nodes" \
			--node-mem $((1024 / nodes)) --timeout 1500 -- wsr-memcost "$n" >"$tmp/out" 2>&1 ||
			die "wsr-memcost $n on $nodes nodes failed: $(tail -n 20 "$tmp/out")"
		# the median of each field over the three loads
		grep -a '^memcost ' "$tmp/out" | tr -d '\r' >"$tmp/lines"
		[ "$(wc -l <"$tmp/lines")" = 3 ] || die "three loads expected: $(cat "$tmp/out")"
		med() { sed -n "s/.* $1=\([-0-9]*\).*/\1/p" "$tmp/lines" | sort -n | sed -n 2p; }
		printf '%-6s %-7s %9s %8s %8s %6s %7s %7s\n' "$nodes" "$n" "$(med avail_lost_kib)" \
			"$(med vmalloc_kib)" "$(med bpf_vmalloc_kib)" "$(med slab_kib)" \
			"$(med percpu_kib)" "$(med rss_kib)" | tee -a "$tmp/table"
		grep -a '^memlock ' "$tmp/out" | tr -d '\r' | sed 's/^/  /' >"$tmp/memlock.$nodes.$n"
		grep -a '^cpu ' "$tmp/out" | tr -d '\r' | sed "s/^cpu /  nodes=$nodes /" >>"$tmp/cpu"
	done
done
# slope: from the smallest count of 100 or more to the largest, per memcg x node
awk '$2 >= 100 { if (!(($1) in lo)) { lo[$1] = $2; alo[$1] = $3 } hi[$1] = $2; ahi[$1] = $3 }
	END { for (k in lo) if (hi[k] > lo[k])
		printf "slope on %d node(s): %.2f KiB per memcg x node (%d to %d memcgs)\n", k,
			(ahi[k] - alo[k]) / ((hi[k] - lo[k]) * k), lo[k], hi[k] }' "$tmp/table"
echo "CPU per read, ms (wsr-cpu: median, lowest, highest of 100 calls):"
cat "$tmp/cpu" 2>/dev/null || true
echo "bpftool's memlock per map (2 nodes, the largest count; on 6.1 max_entries x entry size):"
last=$(echo "$counts" | wc -w)
cat "$tmp/memlock.2.$(echo "$counts" | cut -d' ' -f"$last")" 2>/dev/null || true
