#!/bin/sh
# wsr-compare: wsr side by side with DAMON and idle page tracking (issue
# 34), run inside a test guest (make bench).  One method per run, never two
# at once: each clears the accessed bits the others read.  Per workload and
# method it prints the fraction of each tier in its bins over time against
# the workload's known ages, for the moving hot set how long after each
# move the histogram holds the new set hot and the old one no longer, CPU
# and memory in the same window, and the workload's speed (informational:
# TCG's run-to-run noise exceeds the effect).
#   WSR_BENCH_CMP_SECONDS       length of each run (default 300)
#   WSR_BENCH_CMP_BASE_SECONDS  the workloads alone, for their speed (default 30)
#   WSR_BENCH_CMP_MOVE_S        the moving hot set's period (default 60)
#   WSR_BENCH_CMP_METHODS       default "wsr damon damon-tuned page_idle"
#   WSR_BENCH_CMP_WORKLOADS     default "tiers moving"
#   WSR_BENCH_CMP_TLB_FLUSH=1   the hot passes drop their TLB entries first
#                               (wsr-workload --tlb-flush; below)
# shellcheck source=../tests/guest/lib.sh
. /wsr/bin/tests/lib.sh
secs=${WSR_BENCH_CMP_SECONDS:-300}
base=${WSR_BENCH_CMP_BASE_SECONDS:-30}
move=${WSR_BENCH_CMP_MOVE_S:-60}
flush=${WSR_BENCH_CMP_TLB_FLUSH:+--tlb-flush}
methods=${WSR_BENCH_CMP_METHODS:-wsr damon damon-tuned page_idle}
workloads=${WSR_BENCH_CMP_WORKLOADS:-tiers moving}
BINS=1000,5000,30000,60000,120000,300000
HOT=4096 WARM=8192 COLD=16384	# pages of 16, 32 and 64 MiB
# shellcheck disable=SC2086 # lists of words
set -- $methods
nm=$#
# shellcheck disable=SC2086
set -- $workloads
echo "## wsr, DAMON and idle page tracking on the same workloads" \
	"($nm methods x $# workloads x $secs s, and ${base} s of each workload alone${flush:+; hot passes with $flush})"
# bins 1, 5, 30, 60, 120, 300 s (those of the three-tier bench), node 0
# only.  The methods:
#   wsr:         the daemon at its own period, refresh_ms 1000, wsr show
#                every second;
#   damon:       DAMON's defaults: 5 ms samples, 100 ms aggregation, 1 s
#                updates, 10 to 1000 regions;
#   damon-tuned: aggregation at the smallest bin (1 s) with 50 ms samples
#                (DAMON's 1:20), the rest as default: a region's age then
#                counts whole seconds, as the bins do;
#   page_idle:   every page marked idle every second (the smallest bin),
#                each page's last-seen-used time kept, as wss does.
# Under TCG, DAMON and page_idle clear accessed bits without a TLB flush,
# and QEMU sets a PTE's accessed bit only on a soft-TLB fill, which a CR3
# write flushes and little else: a hot page whose translation stays cached
# reads idle until the vCPU next switches between processes (MGLRU's
# walk, wsr's, clears them the same way).  A real CPU's TLB holds far
# fewer entries; see BENCHMARKS.md.  WSR_BENCH_CMP_TLB_FLUSH=1 has the
# workload flush its hot set's TLB entries before each pass, as a real
# CPU's evictions would (at the cost of two mprotect calls a pass).

uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
# cpu_ms PID: utime + stime of PID in ms (USER_HZ is 100 on x86)
cpu_ms() { awk '{ sub(/.*\) /, ""); print ($12 + $13) * 10 }' "/proc/$1/stat"; }
hwm_kb() { awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status"; }
bpf_ns() {
	bpftool prog show 2>/dev/null | awk '/ name wsr_/ {
		for (i = 1; i < NF; i++) if ($i == "run_time_ns") s += $(i + 1)
	} END { printf "%.0f\n", s }'
}
bpf_map_kb() {
	bpftool map show 2>/dev/null | awk '{ for (i = 1; i < NF; i++)
		if ($i == "memlock") s += $(i + 1) } END { printf "%.0f\n", s / 1024 }'
}

# workload KIND OUT: start the tiers or the moving workload on node 0 in
# memcg /cmp, its output in OUT; sets WL (its pid) and WL_READY (uptime in
# ms when all its pages had been touched: the ground truth's time 0)
workload() {
	ready=/tmp/cmp.ready out=$2
	rm -f "$ready"
	if [ "$1" = tiers ]; then
		set -- --hot 16 --warm 32 --warm-period-ms 15000 --cold 64
	else
		set -- --hot 16 --cold 64 --move-s "$move"
	fi
	# shellcheck disable=SC2086 # $flush: empty or one word
	wsr-workload --ready "$ready" --period-ms 50 --node 0 --cgroup "$CG" \
		--stats-s 10 $flush "$@" >"$out" &
	WL=$!
	for i in $(seq 1 600); do
		[ -e "$ready" ] && { WL_READY=$(uptime_ms); return 0; }
		sleep 0.1
	done
	fail "workload not ready after $((i / 10)) s: wsr-workload $*"
}

stop_workload() {
	kill "$WL"
	wait "$WL" 2>/dev/null
}

# mean_rate FILE: the mean of the workload's touches_per_s lines
mean_rate() {
	awk '$1 == "touches_per_s" { s += $2; n++ } END { printf "%.0f\n", n ? s / n : 0 }' "$1"
}

# the wsr reader: wsr show every second for $1 s, printed as
# wsr-compare-read prints, and its own CPU with its children's at the end
cat >/tmp/cmp-wsr-read.sh <<'EOF'
ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
t0=$(ms)
echo "bins_ms $(echo "$2" | tr , ' ') inf"
while t=$(($(ms) - t0)) && [ "$t" -lt $(($1 * 1000)) ]; do
	wsr show --memcg /cmp --node 0 | awk -v t="$t" '{
		for (i = 2; i <= NF; i++) if (index($i, "anon=") == 1) v = v " " substr($i, 6)
	} END { print "hist " t v " unmonitored=0" }'
	sleep 1
done
awk '{ sub(/.*\) /, ""); print "stats cpu_ms=" ($12 + $13 + $14 + $15) * 10 }' /proc/$$/stat
EOF

# stat_of FILE KEY: KEY=VALUE from the stats line of a reader's output
stat_of() {
	awk -v k="$2" '$1 == "stats" { for (i = 2; i <= NF; i++)
		if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$1"
}

CG=$(make_memcg cmp)
echo 1 >/proc/sys/kernel/bpf_stats_enabled
# the size of a DAMON region in the kernel, for DAMON's memory
region_b=$(bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
	awk "/STRUCT 'damon_region' size=/ { sub(/.*size=/, \"\"); print \$1 + 0; exit }")
: >/tmp/cmp.table
for wl in $workloads; do
	workload "$wl" "/tmp/cmp.$wl.base"
	sleep "$base"
	stop_workload
	rate0=$(mean_rate "/tmp/cmp.$wl.base")
	echo "### $wl: the workload alone for $base s: $rate0 touches/s in its hot passes"
	for m in $methods; do
		r=/tmp/cmp.$wl.$m w=/tmp/cmp.$wl.$m.wl
		case $m in
		wsr)
			WSRD_PERIOD=default wsr_start
			expect_ok wsr set --memcg /cmp intervals_ms N0=$BINS
			expect_ok wsr set --memcg /cmp refresh_ms N0=1000
			b0=$(bpf_ns) d0=$(cpu_ms "$WSRD")
			workload "$wl" "$w"
			start=$(uptime_ms)
			sh /tmp/cmp-wsr-read.sh "$secs" "$BINS" >"$r" 2>&1
			bpf=$((($(bpf_ns) - b0) / 1000000)) d=$(($(cpu_ms "$WSRD") - d0))
			cost="BPF $bpf ms + daemon $d ms + wsr show $(stat_of "$r" cpu_ms) ms"
			cpu=$((bpf + d + $(stat_of "$r" cpu_ms)))
			mem="daemon peak RSS $(hwm_kb "$WSRD") KiB + BPF maps $(bpf_map_kb) KiB"
			kill "$WSRD"
			wsr unload 2>/dev/null
			;;
		damon | damon-tuned)
			set --
			[ "$m" = damon ] || set -- --sample-us 50000 --aggr-us 1000000
			workload "$wl" "$w"
			start=$(uptime_ms)
			wsr-compare-read --method damon --pid "$WL" --intervals-ms "$BINS" \
				--duration-s "$secs" "$@" >"$r" 2>&1 || { cat "$r"; fail "$m reader failed"; }
			cost="kdamond $(stat_of "$r" kdamond_cpu_ms) ms + reader $(stat_of "$r" cpu_ms) ms"
			cpu=$(($(stat_of "$r" kdamond_cpu_ms) + $(stat_of "$r" cpu_ms)))
			mem="$(stat_of "$r" max_regions) regions of ${region_b:-?} B + reader peak RSS $(stat_of "$r" maxrss_kb) KiB (and its trace buffer, 1 MiB a CPU)"
			;;
		page_idle)
			workload "$wl" "$w"
			start=$(uptime_ms)
			wsr-compare-read --method page_idle --pid "$WL" --intervals-ms "$BINS" \
				--duration-s "$secs" >"$r" 2>&1 || { cat "$r"; fail "$m reader failed"; }
			cost="scanner $(stat_of "$r" cpu_ms) ms"
			cpu=$(stat_of "$r" cpu_ms)
			mem="scanner peak RSS $(stat_of "$r" maxrss_kb) KiB"
			;;
		*) fail "unknown method '$m' (WSR_BENCH_CMP_METHODS)" ;;
		esac
		stop_workload
		rate=$(mean_rate "$w")
		echo "### $wl, $m"
		# the reads, timed from the workload's ready as its moves are
		awk -v off=$((start - WL_READY)) '$1 == "hist" && NF == 10 { $2 += off; print }' "$r" >"$r.hist"
		if [ "$wl" = tiers ]; then
			# From half the run ("after the first two minutes" of the
			# issue at 5 min).  Cold is right when it is idle longer than
			# the largest bound it has passed 5 s ago (a read's data is
			# a second old or more, whatever the method): 120 s from
			# 125 s on, 60 s before, so that a shorter run means the same
			awk -v from=$((secs / 2)) -v H=$HOT -v W=$WARM -v C=$COLD -v m="$m" '
			function f(x) { return x > 1 ? 1 : (x < 0 ? 0 : x) }
			BEGIN { nb = split("1 5 30 60 120 300", B, " ") }
			{ t = int($2 / 1000); h = f(($3 + $4) / H); w = f(($3 + $4 + $5 - H) / W)
				j = 0; for (k = 1; k <= nb; k++) if (B[k] <= t - 5) j = k
				cs = 0; for (k = 3 + j; k <= 9; k++) cs += $k
				c = f(cs / C) }
			t - last >= 30 { printf "  t=%4ds  hot<=5s %.3f  warm<=30s %.3f  cold>%ds %.3f\n", t, h, w, B[j], c; last = t }
			t >= from { n++; ok += (h >= .95 && w >= .95 && c >= .95)
				if (n == 1 || h < mh) mh = h
				if (n == 1 || w < mw) mw = w
				if (n == 1 || c < mc) mc = c }
			END { printf "  from %ds: %d reads, %d with all three >= 95%%; lowest: hot %.3f, warm %.3f, cold %.3f\n",
					from, n, ok, mh, mw, mc
				printf "tiers %s from %ds: lowest hot %.3f warm %.3f cold %.3f, all >= 95%% in %d of %d reads\n",
					m, from, mh, mw, mc, ok, n >>"/tmp/cmp.table" }' "$r.hist"
		else
			# after each move: when the pages idle <= 5 s are the hot
			# set's count within 5% and stay so until the next move.
			# Only from 5 s after it: before, the old set is rightly
			# under 5 s too (twice the count), and a read that has the
			# old set still hot and the new one not yet would pass.
			# Then how many reads are so from 10 s after it, and the
			# count's share of the hot set in the first reads after it
			awk '$1 == "moved" { print $3 }' "$w" >"$r.moves"
			awk -v H=$HOT -v m="$m" '
			NR == FNR { mv[++k] = $1; next }
			{ t = $2; ok = ($3 + $4 >= .95 * H && $3 + $4 <= 1.05 * H)
				for (i = k; i >= 1 && mv[i] > t; i--) ;
				if (i < 1) next
				reads[i]++
				if (reads[i] <= 12) seq[i] = seq[i] sprintf(" %.1f:%.2f", (t - mv[i]) / 1000, ($3 + $4) / H)
				if (t < mv[i] + 5000) next
				late[i]++
				if (!ok) settled[i] = 0; else if (!settled[i]) settled[i] = t
				if (t >= mv[i] + 10000) { n[i]++; good[i] += ok } }
			END { for (i = 1; i <= k; i++) {
					if (!late[i]) continue	# a move at the end of the run
					s = settled[i] ? sprintf("%.1f s", (settled[i] - mv[i]) / 1000) : "never"
					printf "  move at %3ds: settled after %s; from 10 s on, %d of %d reads right\n",
						mv[i] / 1000, s, good[i], n[i]
					printf "    s:(<=5 s)/hot after it:%s\n", seq[i]
					all = all " " s }
				printf "moving %s settled after:%s\n", m, all >>"/tmp/cmp.table" }' "$r.moves" "$r.hist"
		fi
		echo "  cpu over $secs s: $cost = $cpu ms ($(awk -v c="$cpu" -v s="$secs" 'BEGIN { printf "%.2f", c / s / 10 }')% of a CPU)"
		echo "  memory: $mem"
		echo "  workload: $rate touches/s in its hot passes; alone $rate0 (informational)"
		echo "$wl $m: cpu $cpu ms in $secs s; workload $rate touches/s, alone $rate0" >>/tmp/cmp.table
		# every read, for a closer look in the console log, at once: a
		# later run that fails would lose them
		sed "s|^|raw $wl $m |" "$r.hist"
	done
done
echo "### summary"
sed 's/^/  /' /tmp/cmp.table
