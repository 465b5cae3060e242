#!/bin/sh
# wsr-bench: the estimator's benchmarks, run inside a test guest.
# Prints figures; every cost is next to a baseline from the same run.
. /wsr/bin/tests/lib.sh
now_us() { awk '{ printf "%d\n", $1 * 1000000 }' /proc/uptime; }

wsr_start
sysctl -qw kernel.bpf_stats_enabled=1 2>/dev/null || echo 1 >/proc/sys/kernel/bpf_stats_enabled

echo "## 1. BPF cost per aging event"
cg=$(make_memcg bench-aging)
start_workload --hot 16 --cold 48 --node 0 --cgroup "$cg" >/dev/null
n=50
id=$(memcg_id "$cg")
seq=$(lru_gen_max_seq "$cg" 0)
# the same shell loop writing elsewhere is the overhead to take off
t0=$(now_us)
for i in $(seq 1 $n); do echo "+ $id 0 $((seq + i - 1)) 1 1" >/dev/null; done
t1=$(now_us)
for i in $(seq 1 $n); do echo "+ $id 0 $((seq + i - 1)) 1 1" >/sys/kernel/debug/lru_gen; done
t2=$(now_us)
aging_ns=$(( (t2 - t1 - (t1 - t0)) * 1000 / n ))
bpftool prog show name wsr_aging -j >/tmp/prog.json
run_ns=$(sed 's/.*"run_time_ns":\([0-9]*\).*/\1/' /tmp/prog.json)
run_cnt=$(sed 's/.*"run_cnt":\([0-9]*\).*/\1/' /tmp/prog.json)
per=$((run_ns / (run_cnt ? run_cnt : 1)))
echo "aging events: $run_cnt, BPF time per event: $per ns"
echo "one forced aging of a 64 MiB memcg (lru_gen write, shell overhead removed): $aging_ns ns"
awk -v a="$per" -v b="$aging_ns" 'BEGIN { printf "ratio BPF/aging: %.3f%%\n", 100 * a / b }'
killall wsr-workload

echo
echo "## 2. Read time: wsr vs parsing /sys/kernel/debug/lru_gen"
echo "memcgs  node_hist_ms  memcg_hist_ms  lru_gen_parse_ms"
made=0
for want in 1 10 100 1000; do
	while [ $made -lt $want ]; do
		made=$((made + 1))
		mkdir -p /sys/fs/cgroup/bench/m$made
	done
	[ -e /sys/fs/cgroup/bench/cgroup.subtree_control ] &&
		echo +memory >/sys/fs/cgroup/bench/cgroup.subtree_control 2>/dev/null
	reps=5
	t0=$(now_us)
	for i in $(seq 1 $reps); do wsr show --no-refresh --node 0 >/dev/null; done
	t1=$(now_us)
	for i in $(seq 1 $reps); do wsr show --no-refresh --memcg /bench/m1 >/dev/null; done
	t2=$(now_us)
	for i in $(seq 1 $reps); do
		awk '$1 == "node" { n = $2; next } NF == 4 { a[n] += $3; f[n] += $4 } END { }' \
			/sys/kernel/debug/lru_gen
	done
	t3=$(now_us)
	awk -v n=$want -v a=$(( (t1 - t0) / reps )) -v b=$(( (t2 - t1) / reps )) \
		-v c=$(( (t3 - t2) / reps )) 'BEGIN { printf "%6d  %12.1f  %13.1f  %16.1f\n", n, a / 1000, b / 1000, c / 1000 }'
done
rmdir /sys/fs/cgroup/bench/m* /sys/fs/cgroup/bench 2>/dev/null

echo
echo "## 3. Accuracy on the ground-truth workload (32 MiB hot, 96 MiB cold)"
for type in anon file; do
	sh /wsr/bin/tests/estimator_hot_cold.sh $type >/tmp/acc 2>&1
	hot=$(hist_sum /tmp/h1 $type 1 1)
	cold=$(hist_sum /tmp/h1 $type 2 4)
	awk -v t=$type -v h=$hot -v c=$cold 'BEGIN {
		printf "%s: hot %d pages (error %+.1f%%), cold %d pages (error %+.1f%%)\n",
			t, h, 100 * (h - 8192) / 8192, c, 100 * (c - 24576) / 24576 }'
	killall wsr-workload 2>/dev/null
	sleep 0.5
done
