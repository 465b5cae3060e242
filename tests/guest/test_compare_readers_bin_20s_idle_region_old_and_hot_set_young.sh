# The comparison bench's readers (wsr-compare-read, vmtests/compare-guest.sh)
# against ground truth, so that they cannot rot silently: a tiny workload
# with 8 MiB touched once and 1 MiB written every 10 ms, its TLB entries
# dropped before each pass (--tlb-flush), watched for 20 s by each method
# in turn, never two at once (both clear accessed bits).  The two sets are
# two processes, the reader's two targets, whose DAMON regions never
# merge: in one process, on a busy host, the starved hot set's region
# once sampled near no access, merged with the idle one, and the merged
# region's age restarted when the hot set ran again (all of the idle
# region read under 5 s at 21 s).  At the last read:
#   DAMON (default attributes): >= 90% of the idle region binned above 10 s;
#   page_idle: >= 90% of it idle above 10 s;
#   both: >= 90% of the hot set in the first bin (1 s), and every page
#   counted once (so a reader that reads nothing, or everything as idle,
#   fails).
# Why the flush: DAMON and page_idle clear accessed bits without a TLB
# flush (damon_ptep_mkold(), page_idle_clear_pte_refs()), and QEMU's TCG
# sets a PTE's accessed bit only when it fills its soft TLB
# (mmu_translate()), which only a CR3 write or an invlpg empties: a hot
# page whose translation stays cached reads idle, at times.  With the
# flush every pass sets the bits, as on a CPU whose TLB evicts.  Every
# 10 ms, so that DAMON's 5 ms samples see most passes (a page touched every
# 100 ms has no access in some of its 100 ms aggregations).  Only on our
# kernel: Debian's has neither DAMON nor idle page tracking (compare_* is
# outside the stock suite's patterns).
. "$(dirname "$0")/lib.sh"
HOT=256 COLD=2048	# pages
[ -d /sys/kernel/mm/damon/admin ] || fail "no DAMON sysfs (CONFIG_DAMON_SYSFS)"
[ -e /sys/kernel/mm/page_idle/bitmap ] || fail "no idle page tracking"
# a wsr daemon left by another test would age, and clear accessed bits too
wsr unload 2>/dev/null
wait_until 10 sh -c '! pidof wsr >/dev/null' || fail "a wsr daemon outlived wsr unload"
for method in damon page_idle; do
	hot=$(start_workload --hot 1 --cold 0 --tlb-flush --period-ms 10 --node 0)
	idle=$(start_workload --hot 0 --cold 8 --node 0)
	wsr-compare-read --method "$method" --pid "$hot,$idle" --intervals-ms 1000,5000,10000 \
		--duration-s 21 >/tmp/cmp.$method 2>&1 || { cat /tmp/cmp.$method; fail "$method reader failed"; }
	kill "$hot" "$idle"
	info "$method: $(grep -c '^hist ' /tmp/cmp.$method) reads; the last and stats:"
	grep -e '^hist ' /tmp/cmp.$method | tail -n 1 | sed 's/^/    /'
	grep -e '^stats ' /tmp/cmp.$method | sed 's/^/    /'
	# hist T_MS <=1s <=5s <=10s >10s unmonitored=U
	grep '^hist ' /tmp/cmp.$method | tail -n 1 | awk -v h=$HOT -v c=$COLD '
		{ n = $3 + $4 + $5 + $6; u = substr($7, 13) }
		$2 < 19000 { why = "last read at " $2 " ms, not after 19 s" }
		$6 < .9 * c { why = $6 " pages idle > 10 s, under 90% of the idle region (" c ")" }
		$3 < .9 * h { why = $3 " pages idle <= 1 s, under 90% of the hot set (" h ")" }
		n + u > h + c + 64 || n < .9 * (h + c) { why = n " pages binned, " u " unmonitored, of " h + c }
		END { if (!NR) why = "no histogram read"
			if (why != "") { print why; exit 1 } }' >/tmp/cmp.why ||
		fail "$method: $(cat /tmp/cmp.why)"
done
