# Anon is binned only where MGLRU can reclaim it, as the seed's
# collect_wss() does (its type loop starts at !can_swap): a memcg holding
# 16 MiB of hot and 64 MiB of cold anon shows them with swap on; with
# swap off, with vm.swappiness 0, and with the only swap full (fewer than
# MIN_LRU_BATCH pages free), its histogram, the node-level one and the
# metrics show no anon page in any bin and say "anon_reclaimable":false,
# while file pages still count; swap back on brings the anon back.  With
# its parent's memory.swap.max 0 (MGLRU reads the limits up the tree), the
# memcg's histogram and metrics do, while the node level still counts
# others' anon.
. "$(dirname "$0")/lib.sh"
name=est-canswap/w
wsr_start
parent=$(make_memcg est-canswap)
echo +memory >"$parent/cgroup.subtree_control" || fail "cannot enable memory for children"
cg=$(make_memcg $name)
start_workload --hot 16 --cold 64 --cgroup "$cg" >/dev/null
# file pages beside, which count whatever the swap
grep -q " /mnt " /proc/mounts || fail "no disk mounted on /mnt for file pages"
start_workload --type file --file /mnt/canswap.dat --hot 0 --cold 8 --cgroup "$cg" >/dev/null
expect_ok wsr set --memcg /$name intervals_ms 1000,5000,20000
swaps=$(tail -n +2 /proc/swaps | awk '{ print $1 }')
[ -n "$swaps" ] || fail "no swap to begin with"

# sum_of FIELD FILE: the sum of FIELD ("anon" or "file") over every bin of
# every node of a "wsr show --json" output
sum_of() {
	grep -o "\"$1\":[0-9]*" "$2" | awk -F: '{ s += $2 } END { print s + 0 }'
}

# check_state WHAT YES|NO|MEMCG-NO: the memcg's and the node level's
# histograms, and the metrics, with anon (YES) or without it (NO; MEMCG-NO:
# the memcg's alone)
check_state() {
	local what=$1 want=$2 anon rootanon file lines
	wsr show --memcg /$name --json >/tmp/cs.memcg || fail "$what: wsr show --memcg failed"
	wsr show --json >/tmp/cs.root || fail "$what: wsr show failed"
	wsr metrics --memcg /$name >/tmp/cs.prom || fail "$what: wsr metrics failed"
	lines=$(grep -o '"node":' /tmp/cs.memcg | wc -l)
	[ "$lines" -ge 2 ] || fail "$what: $lines node histograms of /$name: $(cat /tmp/cs.memcg)"
	anon=$(sum_of anon /tmp/cs.memcg)
	rootanon=$(sum_of anon /tmp/cs.root)
	file=$(sum_of file /tmp/cs.memcg)
	info "$what: /$name anon $anon pages, file $file; node level anon $rootanon"
	[ "$file" -ge 1800 ] || fail "$what: /$name shows $file file pages, not its 8 MiB: read nothing?"
	if [ "$want" = YES ]; then
		[ "$anon" -ge $((80 * 256 * 9 / 10)) ] ||
			fail "$what: /$name shows $anon anon pages, not its 80 MiB"
		grep -q '"anon_reclaimable":false' /tmp/cs.memcg /tmp/cs.root &&
			fail "$what: anon_reclaimable false with swap"
		grep -q "^wsr_working_set_anon_reclaimable{memcg=\"/$name\",node=\"0\"} 1$" /tmp/cs.prom ||
			fail "$what: the metric does not say 1: $(grep anon_reclaimable /tmp/cs.prom)"
	else
		[ "$anon" = 0 ] || fail "$what: /$name shows $anon anon pages"
		if [ "$want" = NO ]; then
			[ "$rootanon" = 0 ] || fail "$what: the node level shows $rootanon anon pages"
			grep -q '"anon_reclaimable":true' /tmp/cs.root &&
				fail "$what: anon_reclaimable true at the node level"
		else
			# the limit is the memcg's alone: the root's lruvecs still swap
			grep -q '"anon_reclaimable":true' /tmp/cs.root ||
				fail "$what: the node level says anon_reclaimable false"
		fi
		grep -q '"anon_reclaimable":true' /tmp/cs.memcg &&
			fail "$what: anon_reclaimable true: $(cat /tmp/cs.memcg)"
		[ "$(grep -o '"anon_reclaimable":false' /tmp/cs.memcg | wc -l)" = "$lines" ] ||
			fail "$what: not every histogram of /$name says anon_reclaimable false"
		grep -q "^wsr_working_set_anon_reclaimable{memcg=\"/$name\",node=\"0\"} 0$" /tmp/cs.prom ||
			fail "$what: the metric does not say 0: $(grep anon_reclaimable /tmp/cs.prom)"
		grep "^wsr_working_set_bytes{memcg=\"/$name\",.*type=\"anon\"" /tmp/cs.prom |
			grep -qv ' 0$' && fail "$what: anon bytes in the metrics"
	fi
}

check_state "swap on" YES
# shellcheck disable=SC2086 # one word per swap device
swapoff $swaps || fail "swapoff failed"
check_state "swap off" NO
# shellcheck disable=SC2086
swapon $swaps || fail "swapon failed"
check_state "swap on again" YES

sysctl -q vm.swappiness=0 || fail "cannot set vm.swappiness"
check_state "vm.swappiness 0" NO
sysctl -q vm.swappiness=60
check_state "vm.swappiness 60" YES

# a parent's swap limit, which MGLRU reads up the tree
# (mem_cgroup_get_nr_swap_pages())
[ -w "$parent/memory.swap.max" ] || fail "no memory.swap.max in $parent"
echo 0 >"$parent/memory.swap.max" || fail "cannot set memory.swap.max"
check_state "the parent's memory.swap.max 0" MEMCG-NO
echo max >"$parent/memory.swap.max" || fail "cannot clear memory.swap.max"
check_state "the parent's memory.swap.max max" YES

# the only swap, a 4 MiB zram device, filled by pushing a cold memcg out
[ -e /sys/class/zram-control/hot_add ] || fail "no zram hot_add for a small swap"
dev=/dev/zram$(cat /sys/class/zram-control/hot_add) || fail "no new zram device"
echo 4M >"/sys/block/${dev#/dev/}/disksize" || fail "cannot size $dev"
mkswap "$dev" >/dev/null || fail "cannot mkswap $dev"
swapon "$dev" || fail "cannot swapon $dev"
# shellcheck disable=SC2086
swapoff $swaps || fail "swapoff failed"
fill=$(make_memcg est-canswap-fill)
fillpid=$(start_workload --hot 0 --cold 8 --cgroup "$fill")
echo 8M >"$fill/memory.reclaim" 2>/dev/null
free=$(awk -v d="$dev" '$1 == d { print ($3 - $4) / 4 }' /proc/swaps)
info "$dev: $free pages free"
[ "${free%.*}" -lt 64 ] || fail "$dev has $free pages free after the fill: $(cat /proc/swaps)"
check_state "swap full" NO
kill "$fillpid"
# shellcheck disable=SC2086
swapon $swaps && swapoff "$dev"
check_state "swap back" YES
