#!/usr/bin/env bash
# The balance benchmark (make bench, or alone): four guests at once, each
# 1 GiB of RAM and 1 vCPU with swap on its disk, under one wsr-host
# balance per policy, RUNS times each, the policies taking turns.  Two
# sets of four guests (vmtests/balance-bench-guest.sh has the roles):
# set 1, A: hot and cold anon; B: a file scanned once, then a small hot
# file set; C: a hot set that grows; D: redis-server queried on 10% of
# its keys.  Set 2, shapes that break a fixed idle threshold: E: memory
# reused every 30 s; F: a file server with a large hot set, mapped; G: no
# swap, with cold anon; H: a hot set that changes phase.
#
# The measure is host memory.  Each guest's QEMU runs alone in a memory
# cgroup that the bench makes (under the bench's own) and removes; its
# swap and scratch disks bypass the host's page cache (cache=none), so
# what the guest swaps out is not counted back in; and it runs with the
# host's transparent huge pages, as any host's QEMU does (--no-thp: without,
# vmtests/progs/wsr-nothp.c says what changes).  TCG's translated code,
# which a KVM host does not have, is bounded (--tcg-code-mib) so that it
# is the same in every run instead of varying by hundreds of MiB between
# runs of one policy.  Every 2 s the bench
# records each QEMU's cgroup usage, its Pss, and, from balance's
# metrics, the balloon's actual size.  Every policy runs with free page
# reporting (free-page-reporting=on, guests reporting 2 MiB blocks), as
# on a modern host; "none-nofpr" is none without it, the baseline of
# "saved": its host memory minus the policy's.  Only the policies that
# read wsr's reports (working-set, pressure) have wsr's daemon in their
# guests: a baseline's guests are guests without wsr, so working-set
# carries its own cost.
#
# Per run it keeps, in OUT/setS/POLICY-N/: each guest's console (A.log
# ...), balance's decisions (decisions.jsonl) and the 2-s samples
# (scrape.txt); then it prints a summary per set (also in OUT/summary.md)
# and draws one PNG per set and policy (OUT/balance-setS-POLICY.png, the
# policy's first run).
#
# usage: vmtests/balance-bench.sh [--runs N] [--secs S] [--policies LIST]
#                                 [--set LIST] [--ref-runs N] [--out DIR]
#                                 [--host-budget-mib N] [--no-thp] [--seed N]
#                                 [--committed-mib N] [--tcg-code-mib N]
#   --runs N        runs per policy (2)
#   --secs S        each guest's workload time (300); a run is S + ~60 s
#   --policies LIST space-separated, from none-nofpr, none, senpai,
#                   available, working-set, pressure, mom and proxmox (the
#                   default: all that build/wsr-host knows, and senpai:
#                   Debian's oomd in each guest, its Senpai on the
#                   workload's memcg, balance's none, vmtests/get-oomd.sh)
#   --set LIST      which sets of guests: "1", "2", "3" or a list (the
#                   default: "1 2"; set 3's guests free memory on a cycle)
#   --ref-runs N    none-nofpr runs in the first N rounds only (every
#                   round: the summary pairs each run with its round's)
#   --out DIR       where runs and plots go (build/balance-bench)
#   --length        print how many minutes these options take, and exit
#   --seed N        the seed of each round's random order of the
#                   policies (printed; the default is drawn)
#   --no-thp        QEMU without transparent huge pages (build/wsr-nothp);
#                   by default the host's THP settings hold, as on any
#                   host (each run records them and uname -r in host.txt)
#   --host-budget-mib N  the host balance's mom and proxmox see: N MiB for
#                   the four guests, used as their sizes sum (without it,
#                   this machine's /proc/meminfo, where a 24 GiB host with
#                   4 GiB of guests never has them act)
#   --committed-mib N  a committed host: the four QEMUs' cgroups share a
#                   parent limited to N MiB (cgroup v1 memory.limit_in_bytes,
#                   v2 memory.high) and the host swaps to a file the bench
#                   makes beside --out, turns on and removes; balance's
#                   --host-budget-mib is N and its used memory the
#                   parent's usage, so mom and proxmox act on it.  The
#                   summary adds the host's swap, its swap-ins (the QEMUs'
#                   major faults) and its OOM kills
#   --tcg-code-mib N   TCG's translated-code buffer per QEMU (64; 0: QEMU's
#                   default, up to 1 GiB)
set -eu
. "$(dirname "$0")/lib.sh"

usage() { sed -n '/^# usage:/,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

# a run's time besides the workload's: boots, set-up, the end (measured),
# and LINGER, the seconds each guest keeps its memory after its workload
# while the host reclaims its QEMU's cgroup (reclaimer below)
LINGER=20
OVERHEAD=$((60 + LINGER))
host=$WSR_ROOT/build/wsr-host
runs=2 secs=300 policies="" sets="1 2" ref_runs="" out=$WSR_ROOT/build/balance-bench length=0
seed=$((RANDOM * 32768 + RANDOM))
budget=() nothp=() committed="" tcg_code=64
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=${2:?}; shift 2 ;;
	--secs) secs=${2:?}; shift 2 ;;
	--policies) policies=${2:?}; shift 2 ;;
	--set) sets=${2:?}; shift 2 ;;
	--ref-runs) ref_runs=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--length) length=1; shift ;;
	--host-budget-mib) budget=(--host-budget-mib "${2:?}"); shift 2 ;;
	--no-thp) nothp=(--no-thp); shift ;;
	--seed) seed=${2:?}; shift 2 ;;
	--committed-mib) committed=${2:?}; shift 2 ;;
	--tcg-code-mib) tcg_code=${2:?}; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; die "unknown option '$1'" ;;
	esac
done
ref_runs=${ref_runs:-$runs}
case "$runs$secs$ref_runs$seed$committed$tcg_code" in *[!0-9]*|"") die "--runs, --secs, --ref-runs, --seed, --committed-mib and --tcg-code-mib take whole numbers" ;; esac
[ "$committed" != 0 ] || die "--committed-mib must be above 0"
[ -z "$committed" ] || [ ${#budget[@]} = 0 ] || die "--committed-mib sets balance's --host-budget-mib: give one of the two"
[ "$secs" -ge 120 ] || die "--secs must be at least 120 (the workloads take a minute to set up)"
{ [ -x "$host" ] && [ -x "$WSR_ROOT/build/wsr-nothp" ]; } || die "no $host or build/wsr-nothp: run make all first"
# the policies this wsr-host knows
known="none available working-set"
for p in pressure mom proxmox; do
	"$host" balance --policy "$p" 2>&1 | grep -q -- "--policy '$p'" || known+=" $p"
done
[ -n "$policies" ] || policies="none-nofpr senpai $known"
for p in $policies; do
	case " none-nofpr senpai $known " in *" $p "*) ;; *) die "unknown policy '$p' (this bench knows: none-nofpr senpai $known)" ;; esac
done
for s in $sets; do case "$s" in 1|2|3) ;; *) die "--set: no set '$s' (1, 2 or 3)" ;; esac; done
PORT=19911

# How long: every round runs each policy once per set, none-nofpr only
# in the first --ref-runs rounds
nruns=0
for ((r = 1; r <= runs; r++)); do
	for s in $sets; do
		for p in $policies; do
			[ "$p" != none-nofpr ] || [ "$r" -le "$ref_runs" ] || continue
			nruns=$((nruns + 1))
		done
	done
done
if [ "$length" = 1 ]; then echo $((nruns * (secs + OVERHEAD) / 60)); exit 0; fi
command -v gnuplot >/dev/null || die "no gnuplot: run vmtests/setup-host.sh"
log "balance bench: $nruns runs of four guests, each $secs s + about $OVERHEAD s: about $((nruns * (secs + OVERHEAD) / 60)) min"

# The guests' memory cgroups, under the bench's own: cgroup v1's memory
# controller, or cgroup v2 if the memory controller is on there
host_memcg_setup
cgparent=$HOST_MEMCG USAGE=$HOST_MEMCG_USAGE KMEM=$HOST_MEMCG_KMEM
STAT_ANON=$HOST_MEMCG_ANON STAT_FILE=$HOST_MEMCG_FILE
CGS=()	# the cgroups this bench made: the only ones it touches

# cg_remove DIR: stop what is left in one of the bench's cgroups, remove it
cg_remove() {
	local cg=$1 pid n
	[ -d "$cg" ] || return 0
	for ((n = 0; n < 20; n++)); do
		[ -s "$cg/cgroup.procs" ] || break
		while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$cg/cgroup.procs"
		sleep 0.5
	done
	rmdir "$cg" 2>/dev/null || log "could not remove $cg"
}
cleanup() {
	local cg
	# shellcheck disable=SC2046 # one pid a word
	kill $(jobs -p) 2>/dev/null || true
	# the QEMUs' cgroups before the committed host's parent of them
	for ((n = ${#CGS[@]} - 1; n >= 0; n--)); do cg_remove "${CGS[$n]}"; done
	host_swap_off
	rm -rf "$tmp"
}

# The committed host's swap: a file beside --out, made, turned on and
# removed by the bench alone (one left by an interrupted bench first)
host_swap=""
host_swap_off() {
	[ -n "$host_swap" ] || return 0
	if grep -q "^$host_swap " /proc/swaps; then swapoff "$host_swap" || log "could not turn off $host_swap"; fi
	rm -f "$host_swap"
}
host_swap_on() {
	host_swap=$(cd "$out" && pwd)/host.swap
	host_swap_off
	{ fallocate -l 4G "$host_swap" && chmod 600 "$host_swap" && mkswap -q "$host_swap" >/dev/null &&
		swapon "$host_swap"; } || die "could not make and turn on the host's swap file $host_swap"
	log "committed host: $committed MiB for the four QEMUs, host swap on $host_swap (4 GiB)"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wsr-bbench.XXXXXX")
# (kill with no job would fail the trap, and set -e the script's status)
trap cleanup EXIT
trap 'exit 130' INT TERM
trap 'log "failed at line $LINENO: $BASH_COMMAND"' ERR
mkdir -p "$out"
[ -z "$committed" ] || host_swap_on
# cache=none opens the disks with O_DIRECT: both folders must allow it
for d in "$out" "$tmp"; do
	dd if=/dev/zero of="$d/.direct" bs=4096 count=1 oflag=direct status=none 2>/dev/null ||
		die "$d does not allow O_DIRECT (tmpfs?), which the disks' cache=none needs: set TMPDIR or --out"
	rm -f "$d/.direct"
done
# the guests' extra files: the role script and redis
redis=$("$WSR_ROOT"/vmtests/get-redis.sh)
mkdir -p "$tmp/guest"
cp -a "$redis/bin" "$redis/lib" "$tmp/guest/"
case " $policies " in
*" senpai "*)
	oomd=$("$WSR_ROOT"/vmtests/get-oomd.sh)
	cp -a "$oomd/bin/." "$tmp/guest/bin/"
	cp -an "$oomd/lib/." "$tmp/guest/lib/"
	;;
esac
cp "$WSR_ROOT/vmtests/balance-bench-guest.sh" "$tmp/guest/"
# set 3's J: the host's xz (Debian's xz-utils, from setup-host.sh)
case " $sets " in
*" 3 "*)
	xz=$(command -v xz) || die "no xz: run vmtests/setup-host.sh"
	cp "$xz" "$tmp/guest/bin/"
	for lib in $(ldd "$xz" | awk '$3 ~ /^\// { print $3 }'); do
		[ -e "$tmp/guest/lib/${lib##*/}" ] || cp -L "$lib" "$tmp/guest/lib/"
	done
	;;
esac

# roles SET: the guests of a set
roles() { case "$1" in 1) echo A B C D ;; 2) echo E F G H ;; 3) echo I J A D ;; esac; }

# one_run SET POLICY DIR: the set's four guests under one balance
one_run() {
	local set=$1 policy=$2 dir=$3 vm pids=() vmargs=() logs=() cgs=() n bal scraper props reclaiming
	local vms parent=$cgparent hostargs=()
	read -r -a vms <<<"$(roles "$set")"
	rm -rf "$dir"
	mkdir -p "$dir"
	props=working-set=on,working-set-bins=5
	[ "$policy" = none-nofpr ] || props+=,free-page-reporting=on
	# wsr's daemon only where the policy reads its reports: a baseline's
	# guest is one with no wsr in it, and working-set carries its cost
	local daemon=0 senpai=0
	case "$policy" in working-set|pressure) daemon=1 ;; senpai) senpai=10 ;; esac
	{
		echo "uname=$(uname -r)"
		echo "thp_enabled=$(cat /sys/kernel/mm/transparent_hugepage/enabled)"
		echo "thp_defrag=$(cat /sys/kernel/mm/transparent_hugepage/defrag)"
		echo "qemu_thp=$([ ${#nothp[@]} = 0 ] && echo host || echo off)"
		echo "guest_daemon=$daemon"
		echo "guest_senpai_pressure_ms=$senpai"
		echo "tcg_code_mib=$tcg_code"
		echo "committed_mib=${committed:-none}"
	} >"$dir/host.txt"
	# a committed host: the four QEMUs under one limited parent
	if [ -n "$committed" ]; then
		parent=$cgparent/wsr-bench-$$-host
		mkdir "$parent"
		CGS+=("$parent")
		if [ "$USAGE" = memory.usage_in_bytes ]; then
			echo $((committed * 1048576)) >"$parent/memory.limit_in_bytes"
		else
			echo $((committed * 1048576)) >"$parent/memory.high"
			echo "+memory" >"$parent/cgroup.subtree_control"
		fi
		hostargs=(--host-budget-mib "$committed" --host-used-file "$parent/$USAGE")
	fi
	local tcgargs=()
	[ "$tcg_code" = 0 ] || tcgargs=(--tcg-code-mib "$tcg_code")
	for vm in "${vms[@]}"; do
		truncate -s 1G "$dir/$vm.swap"
		local cg=$parent/wsr-bench-$$-$vm
		mkdir "$cg"
		CGS+=("$cg")
		cgs+=("$cg")
		"$WSR_ROOT"/vmtests/run --kernel ours --nodes 1 --node-mem 1024 --quiet \
			--timeout $((secs + 400)) --log "$dir/$vm.log" --qmp "$dir/$vm.qmp" \
			--balloon "$props" --append page_reporting.page_reporting_order=9 \
			--disk-cache none --cgroup "$cg" ${nothp[@]+"${nothp[@]}"} ${tcgargs[@]+"${tcgargs[@]}"} \
			--dir "$tmp/guest" \
			--qemu-arg -drive --qemu-arg "file=$dir/$vm.swap,if=virtio,format=raw,cache=none" \
			-- sh /host/balance-bench-guest.sh "$vm" "$secs" "$daemon" "$LINGER" "$senpai" \
			>"$dir/$vm.out" 2>&1 &
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
	local bpolicy=$policy
	case "$policy" in none-nofpr|senpai) bpolicy=none ;; esac
	"$host" balance --policy "$bpolicy" "${vmargs[@]}" ${budget[@]+"${budget[@]}"} ${hostargs[@]+"${hostargs[@]}"} \
		--metrics "127.0.0.1:$PORT" --json \
		>"$dir/decisions.jsonl" 2>"$dir/balance.err" &
	bal=$!
	# every 2 s: balance's metrics, and each QEMU's cgroup usage and Pss
	while kill -0 "$bal" 2>/dev/null; do
		echo "T $(date +%s.%N)"
		curl -s --max-time 2 "http://127.0.0.1:$PORT/metrics" |
			grep -E '^wsr_(working_set_bytes|balloon_(target|actual)_bytes|guest_memory_some_seconds_total|balance_idle_threshold_seconds)' || true
		for n in "${!vms[@]}"; do
			local pid usage
			usage=$(cat "${cgs[$n]}/$USAGE" 2>/dev/null) || continue
			echo "wsr_bench_host_bytes{vm=\"${vms[$n]}\"} $usage"
			# what the usage is made of: anon mapped, page cache, kernel;
			# the rest is charged but none of these (partly unmapped
			# huge pages, freed only when the host reclaims)
			awk -v vm="${vms[$n]}" -v a="$STAT_ANON" -v f="$STAT_FILE" '
				$1 == a { printf "wsr_bench_host_anon_bytes{vm=\"%s\"} %s\n", vm, $2 }
				$1 == f { printf "wsr_bench_host_file_bytes{vm=\"%s\"} %s\n", vm, $2 }
				$1 == "kernel" { printf "wsr_bench_host_kernel_bytes{vm=\"%s\"} %s\n", vm, $2 }
				# the host swap it holds (v1 with swap accounting) and
				# its major faults: the host swapping the guest back in
				$1 == "swap" { printf "wsr_bench_host_swap_bytes{vm=\"%s\"} %s\n", vm, $2 }
				$1 == "pgmajfault" { printf "wsr_bench_host_majflt{vm=\"%s\"} %s\n", vm, $2 }' \
				"${cgs[$n]}/memory.stat" 2>/dev/null || true
			[ ! -r "${cgs[$n]}/memory.swap.current" ] ||
				echo "wsr_bench_host_swap_bytes{vm=\"${vms[$n]}\"} $(cat "${cgs[$n]}/memory.swap.current")"
			[ -z "$KMEM" ] || echo "wsr_bench_host_kernel_bytes{vm=\"${vms[$n]}\"} $(cat "${cgs[$n]}/$KMEM" 2>/dev/null || echo 0)"
			read -r pid <"${cgs[$n]}/cgroup.procs" 2>/dev/null || continue
			# the QEMU's CPU time, user and system, in seconds
			awk -v vm="${vms[$n]}" -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, "")
				printf "wsr_bench_cpu_seconds{vm=\"%s\"} %.2f\n", vm, ($12 + $13) / hz }' \
				"/proc/$pid/stat" 2>/dev/null || true
			# from the QEMU's mappings: its Pss; what is mapped of the
			# guest's RAM (the anonymous rw-p mapping of the guest's
			# size); and TCG's translated code (anonymous, executable:
			# up to 1 GiB per QEMU, which KVM would not have)
			awk -v vm="${vms[$n]}" -v ram=$((1024 * 1024)) '
				/^[0-9a-f]+-[0-9a-f]+ / { perm = $2; anon = NF == 5; next }
				$1 == "Size:" { size = $2 }
				$1 == "Rss:" { if (anon && perm == "rw-p" && size == ram) r += $2
					else if (anon && perm ~ /x/) x += $2 }
				$1 == "Pss:" { p += $2; seen = 1 }
				END { if (!seen) exit
					printf "wsr_bench_pss_bytes{vm=\"%s\"} %d\n", vm, p * 1024
					printf "wsr_bench_ram_rss_bytes{vm=\"%s\"} %d\n", vm, r * 1024
					printf "wsr_bench_tcg_rss_bytes{vm=\"%s\"} %d\n", vm, x * 1024 }' \
				"/proc/$pid/smaps" 2>/dev/null || true
		done
		sleep 2
	done >"$dir/scrape.txt" &
	scraper=$!
	reclaimer "$dir" &
	reclaiming=$!
	for n in "${!pids[@]}"; do
		wait "${pids[$n]}" || log "$policy: guest ${vms[$n]} failed (status $?, $dir)"
	done
	kill "$bal" "$reclaiming" 2>/dev/null
	wait "$bal" "$scraper" "$reclaiming" 2>/dev/null || true
	for vm in "${cgs[@]}"; do cg_remove "$vm"; done
	if [ "$parent" != "$cgparent" ]; then
		# the host's OOM kills in the committed host's parent
		local events=$parent/memory.events
		[ "$USAGE" != memory.usage_in_bytes ] || events=$parent/memory.oom_control
		awk '$1 == "oom_kill" { print "host_oom_kill=" $2 }' "$events" >"$dir/host-oom.txt" || true
		cg_remove "$parent"
	fi
	summarize_run "$dir" "${vms[@]}" >"$dir/result"
	# A QEMU whose cgroup falls under 1 MiB before its workload's end,
	# after it held 64 MiB or more, has left its cgroup with its charges
	# (its guest ran on, its Pss at 450 MiB: seen twice, in senpai runs,
	# cause not known): every host figure of the run is wrong.  The run
	# is void, said so, and done again when the bench runs again.
	local left
	left=$(awk -v secs="$secs" '
		$1 == "T" { if (t0 == "") t0 = $2; t = $2 - t0 }
		/^wsr_bench_host_bytes/ {
			if ($2 >= 64 * 1048576) seen[$1] = 1
			else if ($2 < 1048576 && seen[$1] && t < secs) bad[$1] = 1
		}
		END { for (v in bad) printf "%s ", v }' "$dir/scrape.txt")
	if [ -n "$left" ]; then
		mv "$dir/result" "$dir/result.void"
		log "VOID run: set $set, $policy: a QEMU left its memory cgroup during the run (${left% }); run the bench again to redo it"
		echo "$dir" >>"$out/void-runs"
	fi
}

# reclaimer DIR: when a guest says BENCH-LINGER (its workload done, its
# memory still held), its QEMU's cgroup is reclaimed as far as it goes,
# and reclaim.txt says its usage before and after.  What comes back is
# what the host can reuse: page cache, and the huge pages the deferred
# split shrinker splits, freeing the 4 KiB pages the balloon discarded
# out of them (with THP on, those stay charged until the host
# reclaims).  Anon is not swapped out (swappiness 0, swap.max 0), and a
# limit is never lowered: nothing is killed.  One of one_run's locals.
reclaimer() {
	local dir=$1 n before after seen=()
	while [ "${#seen[@]}" -lt "${#vms[@]}" ]; do
		for n in "${!vms[@]}"; do
			[ -z "${seen[$n]:-}" ] || continue
			grep -aq '^BENCH-LINGER' "$dir/${vms[$n]}.log" 2>/dev/null || continue
			seen[n]=1
			before=$(cat "${cgs[$n]}/$USAGE" 2>/dev/null) || continue
			if [ "$USAGE" = memory.usage_in_bytes ]; then
				echo 0 >"${cgs[$n]}/memory.swappiness" 2>/dev/null || true
				echo 0 >"${cgs[$n]}/memory.force_empty" 2>/dev/null || true
			else
				echo 0 >"${cgs[$n]}/memory.swap.max" 2>/dev/null || true
				echo "$before" >"${cgs[$n]}/memory.reclaim" 2>/dev/null || true
			fi
			after=$(cat "${cgs[$n]}/$USAGE" 2>/dev/null) || continue
			echo "vm=${vms[$n]} before=$before after=$after" >>"$dir/reclaim.txt"
		done
		sleep 1
	done
}

# summarize_run DIR VM...: one line of key=value for the run (see
# docs/policies.md); per guest R: thr_R, promo_R, psi_R, majflt_R,
# refault_R, host_R, pss_R, bal_R; and the sums over the guests
summarize_run() {
	local dir=$1 vm
	shift
	for vm in "$@"; do cat "$dir/$vm.log"; done | tr -d '\r' | awk -v from=60 '
	function parse(   i, kv) { delete f; for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
	/^BENCH-START / { parse(); hot[f["role"]] = f["hot_mib"]; next }
	/^BENCH-PHASE / { parse(); r = f["role"]; ph[r, ++nph[r]] = f["t"]; hot[r] = f["hot_mib"]; next }
	# promotions (major faults: swap-ins and mapped file read back, as
	# issue 28 counts them) per minute against the known hot set, and PSI
	# some, in the steady state: from the second minute, leaving out the
	# 60 s after a phase change
	/^BENCH-COST / { parse(); r = f["role"]; t = f["t"] + 0
		c = f["pgmajfault"]; psi = f["psi_some_us"]
		if (r in lt) {
			ok = lt[r] >= from
			for (k = 1; k <= nph[r]; k++) if (lt[r] < ph[r, k] + 60 && t > ph[r, k]) ok = 0
			if (ok && t > lt[r]) { sdt[r] += t - lt[r]; spr[r] += (c - lc[r]) / (hot[r] * 256); spsi[r] += psi - lpsi[r] }
		}
		lt[r] = t; lc[r] = c; lpsi[r] = psi; next }
	/^BENCH t=/ { parse()
		if (f["t"] + 0 < from) next
		if ("touches_per_s" in f) { rate[f["role"]] += f["touches_per_s"]; nr[f["role"]]++ }
		if ("kib_per_s" in f) { rate[f["role"]] += f["kib_per_s"]; nr[f["role"]]++ }
		if ("rps" in f) { rps += f["rps"]; p99[++np] = f["p99_ms"]; misses += f["misses"] }
		next }
	/^BENCH-END / { parse(); r = f["role"]
		for (k in f) e[k] += f[k]
		majflt[r] = f["pgmajfault"]; refault[r] = f["refault_anon"] + f["refault_file"]; ends++ }
	END {
		for (r in rate) printf "thr_%s=%.0f ", r, rate[r] / nr[r]
		for (r in sdt) printf "promo_%s=%.3f psi_%s=%.2f ", r, spr[r] / (sdt[r] / 60) * 100, r, spsi[r] / sdt[r] / 1e4
		for (r in majflt) printf "majflt_%s=%d refault_%s=%d ", r, majflt[r], r, refault[r]
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
	# memory: per guest and summed over the four, at each 2-s sample
	# where all four have the figure: host (the QEMU's cgroup), Pss,
	# balloon actual (memory the guest holds)
	awk '
	function flush(   k) {
		for (k in tot) if (cnt[k] == 4) { s[k]++; sum[k] += tot[k]; if (tot[k] > peak[k]) peak[k] = tot[k] }
		delete tot; delete cnt }
	# add(K, VM, X, PART): a sample of K; PART: a part of one already counted
	function add(k, vm, x, part) { tot[k] += x; pv[k, vm] += x; if (!part) { cnt[k]++; pn[k, vm]++ }; vms[vm] = 1 }
	/^T / { flush(); next }
	{ vm = ""; if (match($0, /vm="[^"]*"/)) vm = substr($0, RSTART + 4, RLENGTH - 5) }
	/^wsr_balloon_actual_bytes/ { add("held", vm, $2) }
	/^wsr_bench_host_bytes/ { add("host", vm, $2) }
	/^wsr_bench_pss_bytes/ { add("pss", vm, $2) }
	/^wsr_bench_ram_rss_bytes/ { add("ram", vm, $2) }
	/^wsr_bench_tcg_rss_bytes/ { add("tcg", vm, $2) }
	/^wsr_bench_host_swap_bytes/ { add("hswap", vm, $2) }
	# the host swap-ins of the run: its last count less its first
	/^wsr_bench_host_majflt/ { if (!(vm in mf0)) mf0[vm] = $2; mf1[vm] = $2 }
	/^wsr_bench_host_bytes/ { add("unmapped", vm, $2) }
	/^wsr_bench_host_(anon|file|kernel)_bytes/ { add("unmapped", vm, -$2, 1) }
	# working-set: the idle threshold T of each guest, mean and last
	/^wsr_balance_idle_threshold_seconds/ { tsum[vm] += $2; tn[vm]++; tlast[vm] = $2 }
	# the CPU time of the QEMU: its last sample
	/^wsr_bench_cpu_seconds/ { cpu[vm] = $2 }
	END { flush()
		for (vm in cpu) { printf "cpu_%s=%.1f ", vm, cpu[vm]; cput += cpu[vm] }
		if (length(cpu) == 4) printf "cpu_s=%.1f ", cput
		for (vm in mf1) { printf "hmajflt_%s=%d ", vm, mf1[vm] - mf0[vm]; mft += mf1[vm] - mf0[vm] }
		if (length(mf1) == 4) printf "hmajflt=%d ", mft
		for (vm in tn) printf "t_%s=%.0f tlast_%s=%.0f ", vm, tsum[vm] / tn[vm], vm, tlast[vm]
		n = split("host pss held unmapped ram tcg hswap", ks, " ")
		for (i = 1; i <= n; i++) { k = ks[i]
			if (!s[k]) continue
			printf "%s_mean_mib=%.0f %s_peak_mib=%.0f %s_samples=%d ", k, s[k] ? sum[k] / s[k] / 1048576 : 0,
				k, peak[k] / 1048576, k, s[k]
			for (vm in vms) if (pn[k, vm]) printf "%s_%s=%.0f ", k, vm, pv[k, vm] / pn[k, vm] / 1048576
		}
		}' "$dir/scrape.txt"
	# what the host's reclaim at the end left and freed, over the four
	[ -s "$dir/reclaim.txt" ] && awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		a += f["after"]; b += f["before"]; n++
		printf "reclaimed_%s=%.0f ", f["vm"], f["after"] / 1048576 }
		END { if (n == 4) printf "after_reclaim_mib=%.0f freed_by_reclaim_mib=%.0f", a / 1048576, (b - a) / 1048576 }' \
		"$dir/reclaim.txt"
	[ ! -s "$dir/host-oom.txt" ] || printf " %s" "$(cat "$dir/host-oom.txt")"
	echo
}

# plot SET POLICY DIR: the PNG of one run: per VM, the working set by
# idle bin (stacked), balance's target, the actual size, and the host's
# view: the QEMU's cgroup usage and Pss, in MiB
plot() {
	local set=$1 policy=$2 dir=$3 vm plots="" vms
	read -r -a vms <<<"$(roles "$set")"
	for vm in "${vms[@]}"; do
		awk -v vm="$vm" '
		function flush() { if (t0 == "") t0 = t
			if (have) { printf "%.0f", t - t0; c = 0
				for (i = 1; i <= 5; i++) { c += b[i]; printf " %.1f", c / 1048576 }
				printf " %s %s %s %s %s\n", mib(tgt), mib(act), mib(hst), mib(pss), mib(ram) }
			delete b; have = 0; tgt = act = hst = pss = ram = "" }
		function mib(x) { return x == "" ? "NaN" : sprintf("%.1f", x / 1048576) }
		/^T / { flush(); t = $2; next }
		index($0, "vm=\"" vm "\"") == 0 { next }
		/^wsr_working_set_bytes/ { match($0, /idle_le_ms="[^"]*"/)
			le = substr($0, RSTART + 12, RLENGTH - 13)
			i = le == "1000" ? 1 : le == "5000" ? 2 : le == "10000" ? 3 : le == "60000" ? 4 : 5
			b[i] += $2; have = 1 }
		/^wsr_balloon_target_bytes/ { tgt = $2 }
		/^wsr_balloon_actual_bytes/ { act = $2; have = 1 }
		/^wsr_bench_host_bytes/ { hst = $2; have = 1 }
		/^wsr_bench_pss_bytes/ { pss = $2; have = 1 }
		/^wsr_bench_ram_rss_bytes/ { ram = $2; have = 1 }
		END { flush() }' "$dir/scrape.txt" >"$dir/$vm.dat"
	done
	for vm in "${vms[@]}"; do
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
 '' u 1:7 w steps lw 2 lc rgb 'black' t 'target', '' u 1:8 w lines lw 2 lc rgb 'red' t 'actual', \
 '' u 1:9 w lines lw 2 lc rgb 'blue' t 'host (cgroup)', '' u 1:10 w lines lw 1 dt 2 lc rgb 'dark-green' t 'Pss', \
 '' u 1:11 w lines lw 1 lc rgb 'magenta' t 'guest RAM mapped'
"
	done
	gnuplot <<GNUPLOT || log "gnuplot failed on $dir"
set terminal pngcairo size 1400,900 font ',10'
set output '$out/balance-set$set-$policy.png'
set multiplot layout 2,2 title 'set $set, $policy: working set by idle age (stacked), balloon target and actual, host memory, Pss and guest RAM mapped of the QEMU'
set xlabel 'seconds'
set ylabel 'MiB'
set yrange [0:1200]
set key top left font ',8'
set style fill solid 0.5 noborder
$plots
unset multiplot
GNUPLOT
}

# shuffled ROUND: the policies in round ROUND's order, drawn from --seed
shuffled() {
	awk -v list="$policies" -v seed=$((seed + $1)) 'BEGIN { srand(seed); n = split(list, a, " ")
		for (i = n; i > 1; i--) { j = int(rand() * i) + 1; x = a[i]; a[i] = a[j]; a[j] = x }
		for (i = 1; i <= n; i++) printf "%s ", a[i] }'
}

# A run kept from an interrupted bench of the same code and settings is
# not run again (its key file says what made it)
key="commit=$(git -C "$WSR_ROOT" rev-parse HEAD 2>/dev/null || echo none)"
key+=" tree=$(git -C "$WSR_ROOT" diff HEAD 2>/dev/null | sha1sum | cut -c1-12)"
key+=" secs=$secs linger=$LINGER qemu_thp=${nothp[*]:-host} ${budget[*]:-} tcg_code=$tcg_code"
key+=" committed=${committed:-none}"
log "seed $seed (--seed $seed repeats this order); runs keyed by: $key"
start=$SECONDS
rm -f "$out/void-runs"
for ((r = 1; r <= runs; r++)); do
	for s in $sets; do
		for p in $(shuffled "$r"); do
			[ "$p" != none-nofpr ] || [ "$r" -le "$ref_runs" ] || continue
			d=$out/set$s/$p-$r
			if [ -s "$d/result" ] && [ "$(cat "$d/key" 2>/dev/null)" = "$key" ]; then
				log "run $r of $runs, set $s, policy $p: kept from an earlier bench"
				continue
			fi
			log "run $r of $runs, set $s, policy $p [$(((SECONDS - start) / 60)) min so far]"
			t0=$SECONDS
			one_run "$s" "$p" "$d"
			echo "$key" >"$d/key"
			log "  $(cat "$d/result") wall_s=$((SECONDS - t0))"
		done
	done
done
for s in $sets; do
	for p in $policies; do plot "$s" "$p" "$out/set$s/$p-1"; done
done

# the summary: per set and policy, the median over runs and the range
{
	for s in $sets; do
		echo "## wsr-host balance, set $s ($(roles "$s")): $runs runs per policy, four 1 GiB guests, $secs s each"
		echo
		echo "Seed $seed; $key; host $(uname -r), THP $(cat /sys/kernel/mm/transparent_hugepage/enabled)."
		echo
		for p in $policies; do
			for ((r = 1; r <= runs; r++)); do
				[ ! -s "$out/set$s/$p-$r/result" ] || echo "$p $(cat "$out/set$s/$p-$r/result")"
			done
		done | awk -v roles="$(roles "$s")" -f "$WSR_ROOT/vmtests/balance-bench-summary.awk"
		echo
		for p in $policies; do echo "plot: $out/balance-set$s-$p.png"; done
		echo
	done
	echo "took $(((SECONDS - start) / 60)) min for $nruns runs"
} >"$out/summary.md"
cat "$out/summary.md"
[ ! -s "$out/void-runs" ] || die "$(wc -l <"$out/void-runs") void runs, left out of the summary: $(tr '\n' ' ' <"$out/void-runs")(run the same command again to redo them)"
