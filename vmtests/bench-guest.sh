#!/bin/sh
# wsr-bench: the estimator's benchmarks, run inside a test guest.
# Prints figures; every cost is next to a baseline from the same run.
# shellcheck source=../tests/guest/lib.sh
. /wsr/bin/tests/lib.sh
now_us() { awk '{ printf "%d\n", $1 * 1000000 }' /proc/uptime; }

wsr_start
sysctl -qw kernel.bpf_stats_enabled=1 2>/dev/null || echo 1 >/proc/sys/kernel/bpf_stats_enabled

echo "## 1. Workload slowdown with wsr attached"
# random writes over 512 MiB in a memcg held at 256 MiB: reclaim, aging
# and reports all the time; 5 runs with the programs attached (reports on,
# 1 s), 5 without, the order alternating between pairs so that a drift of
# the emulated CPU's speed falls on both; the same pages in every run.
# Under TCG two runs of the same thing differ by up to 30%, so the BPF
# programs' own run time (kernel.bpf_stats_enabled) is measured too: their
# share of each attached run's wall time, which the A/B medians cannot
# resolve below a few percent.
cg=$(make_memcg bench-slow)
echo 256M >"$cg/memory.max"
touches=${WSR_BENCH_TOUCHES:-600000}
# bpf_ns: the run time of every wsr program so far, in ns
bpf_ns() {
	bpftool prog show 2>/dev/null | awk '/ name wsr_/ {
		for (i = 1; i < NF; i++) if ($i == "run_time_ns") s += $(i + 1)
	} END { printf "%.0f\n", s }'
}
: >/tmp/slow.on
: >/tmp/slow.off
: >/tmp/slow.bpf
for pair in 1 2 3 4 5; do
	order="off on"
	[ $((pair % 2)) = 1 ] || order="on off"
	for mode in $order; do
		wsr unload 2>/dev/null
		if [ "$mode" = on ]; then
			wsr_start
			wsr set intervals_ms 1000,10000,60000 >/dev/null
			wsr set report_ms 1000 >/dev/null
			wsr set --memcg /bench-slow intervals_ms 1000,10000,60000 >/dev/null
			wsr set --memcg /bench-slow report_ms 1000 >/dev/null
			b0=$(bpf_ns)
		fi
		rate=$(wsr-workload --hot 512 --cold 0 --cgroup "$cg" --random-touches "$touches" |
			awk '$1 == "touches_per_s" { print $2 }')
		echo "$rate" >>"/tmp/slow.$mode"
		[ "$mode" = on ] || continue
		# the run's wall time is touches / rate
		awk -v b="$(( $(bpf_ns) - b0 ))" -v n="$touches" -v r="$rate" \
			'BEGIN { printf "%.4f\n", 100 * b / (n / r * 1e9) }' >>/tmp/slow.bpf
		kill "$WSRD"
	done
done
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%s %s %s", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
# shellcheck disable=SC2046 # three numbers
set -- $(med /tmp/slow.off)
off=$1 off_lo=$2 off_hi=$3
# shellcheck disable=SC2046
set -- $(med /tmp/slow.on)
on=$1 on_lo=$2 on_hi=$3
echo "touches/s without wsr: median $off (min $off_lo, max $off_hi); runs: $(tr '\n' ' ' </tmp/slow.off)"
echo "touches/s with wsr:    median $on (min $on_lo, max $on_hi); runs: $(tr '\n' ' ' </tmp/slow.on)"
awk -v a="$on" -v b="$off" 'BEGIN { printf "slowdown (medians): %.2f%%\n", 100 * (b - a) / b }'
# shellcheck disable=SC2046
set -- $(med /tmp/slow.bpf)
echo "BPF run time, share of an attached run's wall time: median $1% (min $2%, max $3%); runs: $(tr '\n' ' ' </tmp/slow.bpf)"
rmdir "$cg" 2>/dev/null
wsr_start
echo
echo "## 2. Read cost: refreshing and plain reads of one leaf, vs parsing lru_gen"
echo "memcgs  leaf_refresh_ms  leaf_plain_ms  ratio  node_refresh_ms  lru_gen_parse_ms"
top=/sys/fs/cgroup/bench
mkdir -p "$top/m1"
echo +memory >"$top/cgroup.subtree_control" 2>/dev/null
made=1
start_workload --hot 8 --cold 8 --node 0 --cgroup "$top/m1" >/dev/null
wsr set --memcg /bench/m1 refresh_ms 1 >/dev/null
wsr set refresh_ms 1 >/dev/null
for want in 1 100 1000 ${WSR_BENCH_MEMCGS:-10000}; do
	[ "$made" -ge "$want" ] || seq $((made + 1)) "$want" | sed "s|^|$top/m|" | xargs mkdir
	made=$want
	reps=5
	t0=$(now_us)
	for _ in $(seq 1 $reps); do sleep 0.002; wsr show --memcg /bench/m1 >/dev/null; done
	t1=$(now_us)
	for _ in $(seq 1 $reps); do sleep 0.002; wsr show --no-refresh --memcg /bench/m1 >/dev/null; done
	t2=$(now_us)
	for _ in $(seq 1 $reps); do sleep 0.002; wsr show >/dev/null; done
	t3=$(now_us)
	for _ in $(seq 1 $reps); do
		awk '$1 == "node" { n = $2; next } NF == 4 { a[n] += $3; f[n] += $4 } END { }' \
			/sys/kernel/debug/lru_gen
	done
	t4=$(now_us)
	awk -v n="$want" -v a=$(( (t1 - t0) / reps )) -v b=$(( (t2 - t1) / reps )) \
		-v c=$(( (t3 - t2) / reps )) -v d=$(( (t4 - t3) / reps )) 'BEGIN {
		printf "%6d  %15.1f  %13.1f  %5.2f  %15.1f  %16.1f\n",
			n, a / 1000, b / 1000, a / b, c / 1000, d / 1000 }'
done
killall wsr-workload 2>/dev/null
sleep 0.5
seq 1 "$made" | sed "s|^|$top/m|" | xargs rmdir 2>/dev/null
rmdir "$top" 2>/dev/null

echo "## 3. Accuracy on the ground-truth workload (32 MiB hot, 96 MiB cold)"
for type in anon file; do
	sh /wsr/bin/tests/estimator_hot_cold.sh "$type" >/tmp/acc 2>&1
	hot=$(hist_sum /tmp/h1 "$type" 1 1)
	cold=$(hist_sum /tmp/h1 "$type" 2 4)
	awk -v t="$type" -v h="$hot" -v c="$cold" 'BEGIN {
		printf "%s: hot %d pages (error %+.1f%%), cold %d pages (error %+.1f%%)\n",
			t, h, 100 * (h - 8192) / 8192, c, 100 * (c - 24576) / 24576 }'
	killall wsr-workload 2>/dev/null
	sleep 0.5
done

