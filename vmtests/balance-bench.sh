#!/usr/bin/env bash
# The balance benchmark (make bench, or alone): four guests at once, each
# 1 GiB of RAM and 1 vCPU with swap on its disk, under one wsr-host
# balance per policy (none, available, working-set), RUNS times each,
# the policies taking turns.  The roles are in vmtests/balance-bench-guest.sh
# (A: hot and cold anon; B: a file scanned once, then a small hot file
# set; C: a hot set that grows; D: redis-server queried on 10% of its
# keys).  Per run it keeps, in OUT/POLICY-N/: each guest's console
# (A.log ...), balance's decisions (decisions.jsonl) and a scrape of its
# metrics every 2 s (scrape.txt); then it prints a summary (also in
# OUT/summary.md) and draws one PNG per policy with gnuplot
# (OUT/balance-POLICY.png, from the policy's first run).
#
# usage: vmtests/balance-bench.sh [--runs N] [--secs S] [--policies LIST]
#                                 [--out DIR]
#   --runs N        runs per policy (3)
#   --secs S        each guest's workload time (210); a run is S + ~60 s
#   --policies LIST space-separated ("none available working-set")
#   --out DIR       where runs and plots go (build/balance-bench)
set -eu
. "$(dirname "$0")/lib.sh"

usage() { sed -n '/^# usage:/,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

runs=3 secs=210 policies="none available working-set" out=$WSR_ROOT/build/balance-bench
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=${2:?}; shift 2 ;;
	--secs) secs=${2:?}; shift 2 ;;
	--policies) policies=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; die "unknown option '$1'" ;;
	esac
done
case "$runs$secs" in *[!0-9]*|"") die "--runs and --secs take whole numbers" ;; esac
[ "$secs" -ge 120 ] || die "--secs must be at least 120 (the workloads take a minute to set up)"
for p in $policies; do
	case "$p" in none|available|working-set) ;; *) die "unknown policy '$p'" ;; esac
done
host=$WSR_ROOT/build/wsr-host
[ -x "$host" ] || die "no $host: run make all first"
command -v gnuplot >/dev/null || die "no gnuplot: run vmtests/setup-host.sh"
VMS=(A B C D)
PORT=19911

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wsr-bbench.XXXXXX")
# (kill with no job would fail the trap, and set -e the script's status)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
trap 'log "failed at line $LINENO: $BASH_COMMAND"' ERR
# the guests' extra files: the role script and redis
redis=$("$WSR_ROOT"/vmtests/get-redis.sh)
mkdir -p "$tmp/guest"
cp -a "$redis/bin" "$redis/lib" "$tmp/guest/"
cp "$WSR_ROOT/vmtests/balance-bench-guest.sh" "$tmp/guest/"
mkdir -p "$out"

# one_run POLICY DIR: the four guests under one balance
one_run() {
	local policy=$1 dir=$2 vm pids=() vmargs=() logs=() n bal scraper
	rm -rf "$dir"
	mkdir -p "$dir"
	for vm in "${VMS[@]}"; do
		truncate -s 1G "$dir/$vm.swap"
		"$WSR_ROOT"/vmtests/run --kernel ours --nodes 1 --node-mem 1024 --quiet \
			--timeout $((secs + 400)) --log "$dir/$vm.log" --qmp "$dir/$vm.qmp" \
			--balloon working-set=on,working-set-bins=5 --dir "$tmp/guest" \
			--qemu-arg -drive --qemu-arg "file=$dir/$vm.swap,if=virtio,format=raw" \
			-- sh /host/balance-bench-guest.sh "$vm" "$secs" >"$dir/$vm.out" 2>&1 &
		pids+=($!)
		vmargs+=(--vm "$vm=$dir/$vm.qmp")
		logs+=("$dir/$vm.log")
	done
	# balance from the moment every guest's workload starts
	for ((n = 0; n < 300; n++)); do
		[ "$(grep -al BENCH-START "${logs[@]}" 2>/dev/null | wc -l)" = 4 ] && break
		for vm in "${pids[@]}"; do kill -0 "$vm" 2>/dev/null || break 2; done
		sleep 1
	done
	[ "$n" -lt 300 ] || log "$policy: not every guest started within 300 s"
	"$host" balance --policy "$policy" "${vmargs[@]}" --metrics "127.0.0.1:$PORT" --json \
		>"$dir/decisions.jsonl" 2>"$dir/balance.err" &
	bal=$!
	while kill -0 "$bal" 2>/dev/null; do
		echo "T $(date +%s.%N)"
		curl -s --max-time 2 "http://127.0.0.1:$PORT/metrics" |
			grep -E '^wsr_(working_set_bytes|balloon_(target|actual)_bytes)'
		sleep 2
	done >"$dir/scrape.txt" &
	scraper=$!
	for n in "${!pids[@]}"; do
		wait "${pids[$n]}" || log "$policy: guest ${VMS[$n]} failed (status $?, $dir)"
	done
	kill "$bal" 2>/dev/null
	wait "$bal" "$scraper" 2>/dev/null || true
	summarize_run "$dir" >"$dir/result"
}

# summarize_run DIR: one line of key=value for the run (see docs/policies.md)
summarize_run() {
	local dir=$1
	local vm
	for vm in "${VMS[@]}"; do cat "$dir/$vm.log"; done | tr -d '\r' | awk -v from=60 '
	/^BENCH t=/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		if (f["t"] + 0 < from) { delete f; next }
		if ("touches_per_s" in f) { rate[f["role"]] += f["touches_per_s"]; nr[f["role"]]++ }
		if ("rps" in f) { rps += f["rps"]; p99[++np] = f["p99_ms"]; misses += f["misses"] }
		delete f
	}
	/^BENCH-END/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); e[kv[1]] += kv[2] }
		ends++
	}
	END {
		for (r in rate) printf "thr_%s=%.0f ", r, rate[r] / nr[r]
		if (np) {
			for (i = 2; i <= np; i++)	# insertion sort: mawk has no asort
				for (j = i; j > 1 && p99[j - 1] + 0 > p99[j] + 0; j--) {
					x = p99[j]; p99[j] = p99[j - 1]; p99[j - 1] = x
				}
			printf "rps=%.0f p99_ms=%s misses=%d ", rps / np, p99[int((np + 1) / 2)], misses
		}
		printf "oom_kill=%d killed=%d pgmajfault=%d refault_anon=%d refault_file=%d ends=%d ",
			e["oom_kill"], e["killed"], e["pgmajfault"], e["refault_anon"], e["refault_file"], ends
	}'
	# memory held: the sum over the four guests of balloon actual, every
	# scrape while all four report
	awk '/^T / { if (n == 4) { s++; sum += tot; if (tot > peak) peak = tot }
			n = 0; tot = 0; next }
		/^wsr_balloon_actual_bytes/ { n++; tot += $2 }
		END { if (n == 4) { s++; sum += tot; if (tot > peak) peak = tot }
			printf "held_mean_mib=%.0f held_peak_mib=%.0f samples=%d\n",
				s ? sum / s / 1048576 : 0, peak / 1048576, s }' "$dir/scrape.txt"
}

# plot POLICY DIR: the PNG of one run: per VM, the working set by idle
# bin (stacked), balance's target and the actual size, in MiB
plot() {
	local policy=$1 dir=$2 vm plots=""
	for vm in "${VMS[@]}"; do
		awk -v vm="$vm" '
		function flush() { if (t0 == "") t0 = t
			if (have) { printf "%.0f", t - t0; c = 0
				for (i = 1; i <= 5; i++) { c += b[i]; printf " %.1f", c / 1048576 }
				printf " %.1f %.1f\n", tgt / 1048576, act / 1048576 }
			delete b; have = 0; tgt = act = "" }
		/^T / { flush(); t = $2; next }
		index($0, "vm=\"" vm "\"") == 0 { next }
		/^wsr_working_set_bytes/ { match($0, /idle_le_ms="[^"]*"/)
			le = substr($0, RSTART + 12, RLENGTH - 13)
			i = le == "1000" ? 1 : le == "5000" ? 2 : le == "10000" ? 3 : le == "60000" ? 4 : 5
			b[i] += $2; have = 1 }
		/^wsr_balloon_target_bytes/ { tgt = $2 }
		/^wsr_balloon_actual_bytes/ { act = $2; have = 1 }
		END { flush() }' "$dir/scrape.txt" >"$dir/$vm.dat"
	done
	for vm in "${VMS[@]}"; do
		if [ ! -s "$dir/$vm.dat" ]; then
			plots+="set title 'guest $vm: no data'
plot [0:1] -1 notitle
"
			continue
		fi
		plots+="set title 'guest $vm'
plot '$dir/$vm.dat' u 1:(0):2 w filledcurves t 'idle <1 s', \
 '' u 1:2:3 w filledcurves t '1-5 s', '' u 1:3:4 w filledcurves t '5-10 s', \
 '' u 1:4:5 w filledcurves t '10-60 s', '' u 1:5:6 w filledcurves t '>60 s', \
 '' u 1:7 w steps lw 2 lc rgb 'black' t 'target', '' u 1:8 w lines lw 2 lc rgb 'red' t 'actual'
"
	done
	gnuplot <<EOF || log "gnuplot failed on $dir"
set terminal pngcairo size 1400,900 font ',10'
set output '$out/balance-$policy.png'
set multiplot layout 2,2 title 'wsr-host balance --policy $policy: working set by idle age (stacked), balloon target and actual'
set xlabel 'seconds'
set ylabel 'MiB'
set yrange [0:1100]
set key top left font ',8'
set style fill solid 0.5 noborder
$plots
unset multiplot
EOF
}

start=$SECONDS
for ((r = 1; r <= runs; r++)); do
	for p in $policies; do
		log "run $r of $runs, policy $p [$(((SECONDS - start) / 60)) min so far]"
		one_run "$p" "$out/$p-$r"
		log "  $(cat "$out/$p-$r/result")"
	done
done
for p in $policies; do plot "$p" "$out/$p-1"; done

# the summary: per policy, the median over runs and the range
{
	echo "## wsr-host balance: $runs runs per policy, four 1 GiB guests, $secs s each"
	echo
	for p in $policies; do
		for ((r = 1; r <= runs; r++)); do echo "$p $(cat "$out/$p-$r/result")"; done
	done | awk -f "$WSR_ROOT/vmtests/balance-bench-summary.awk"
	echo
	for p in $policies; do echo "plot: $out/balance-$p.png"; done
} >"$out/summary.md"
cat "$out/summary.md"
