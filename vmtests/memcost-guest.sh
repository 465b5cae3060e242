#!/bin/sh
# wsr-memcost N: what wsr costs an idle guest with N memcgs, made before
# the load: MemAvailable before and after "wsr daemon" loads (caches
# dropped before each reading), and the parts of it (slab, vmalloc,
# percpu), the daemon's RSS, the vmalloc areas of BPF maps and programs;
# three loads, each from "wsr unload"; and the CPU time of a read (lines
# "cpu ...", wsr-cpu: the median of 100).  Prints one line "memcost ..." per
# load, then bpftool's memlock of each wsr map (on 6.1 that is max_entries
# times the entry's size, whatever is allocated: listed, not judged).
# vmtests/memcost.sh runs it; tests/guest/test_wsr_costs_an_idle_guest_at_most_8_mib.sh
# holds a guest with a handful of memcgs to 4 MiB.
# shellcheck source=../tests/guest/lib.sh
. /wsr/bin/tests/lib.sh
n=${1:?usage: wsr-memcost NR_MEMCGS}
foe=/sys/fs/bpf/memcost-foe
# KiB of vmalloc areas made by BPF (maps, rings, programs' images)
bpf_vmalloc() {
	awk '/bpf/ { s += $2 } END { printf "%d\n", s / 1024 }' /proc/vmallocinfo
}
wsr unload 2>/dev/null
# another BPF user's program, as a guest's systemd has: the JIT's first
# program takes a 2 MiB pack that later ones share
rm -f "$foe"
wsr-pin-foe jit "$foe" || fail "cannot pin another BPF user's program"
top=/sys/fs/cgroup/memcost
mkdir -p "$top"
echo +memory >"$top/cgroup.subtree_control"
if [ "$n" -gt 1 ]; then
	seq 1 "$((n - 1))" | sed "s|^|$top/m|" | xargs mkdir -p || fail "cannot make $n memcgs"
fi
for run in 1 2 3; do
	before=$(avail)
	vm0=$(kib VmallocUsed) slab0=$(kib Slab) pcpu0=$(kib Percpu) bv0=$(bpf_vmalloc)
	WSRD_PERIOD=default wsr_start
	wait_until 120 grep -q 'loaded and pinned' /tmp/wsrd.log ||
		fail "no load: $(cat /tmp/wsrd.log)"
	sleep 5
	after=$(avail)
	rss=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$WSRD/status")
	echo "memcost nodes=$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' | wc -l)" \
		"memcgs=$n run=$run avail_lost_kib=$((before - after))" \
		"vmalloc_kib=$(($(kib VmallocUsed) - vm0)) bpf_vmalloc_kib=$(($(bpf_vmalloc) - bv0))" \
		"slab_kib=$(($(kib Slab) - slab0)) percpu_kib=$(($(kib Percpu) - pcpu0)) rss_kib=$rss"
	[ "$run" = 3 ] && bpftool map show 2>/dev/null | awk '
		/^[0-9]+: / { name = ""; for (i = 1; i < NF; i++) if ($i == "name") name = $(i + 1) }
		/memlock/ { for (i = 1; i < NF; i++) if ($i == "memlock") print "memlock", name, $(i + 1) }'
	# what a read costs, idle: 100 of each (the node level and every
	# memcg walk them all, so not at 10,000)
	if [ "$run" = 3 ] && [ "$n" -le 1000 ]; then
		leaf=/memcost
		[ "$n" = 1 ] || leaf=/memcost/m1
		echo "cpu show_memcg memcgs=$n $(wsr-cpu 100 wsr show --memcg "$leaf")"
		echo "cpu show_node memcgs=$n $(wsr-cpu 100 wsr show)"
		# every memcg's histogram per call: 10 calls at 1,000 memcgs
		calls=100
		[ "$n" -lt 1000 ] || calls=10
		echo "cpu metrics_all memcgs=$n $(wsr-cpu "$calls" wsr metrics --all-memcgs)"
	fi
	kill "$WSRD"
	wait "$WSRD" 2>/dev/null
	wsr unload || fail "wsr unload failed"
done
rm -f "$foe"
