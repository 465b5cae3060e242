# memory.min as the kernel computes it (mem_cgroup_calculate_protection(),
# top-down from the read's root): a read of the node level leaves a memcg
# alone when its effective protection covers its usage, and not on its own
# memory.min alone.  Two cases the smallest memory.min on the way up gets
# wrong: with cgroup2's memory_recursiveprot, a parent's protection reaches
# a child that sets none; and children that claim more than their parent
# has share it, so a child's memory.min above its usage does not protect
# it.  Seed rules alone (--seed-aging), refresh_ms 1000 on every node.
. "$(dirname "$0")/lib.sh"
wsr_start --seed-aging
seq_of() { lru_gen_max_seq "$1" 0; }
# read_root: a node-level read, after the memcgs' youngest generations
# are older than refresh_ms
read_root() { sleep 1.2; expect_ok wsr show; }
# remount [OPTION]: cgroup2 with OPTION alone (device and type given, so
# that busybox's mount does not add the options it finds in /proc/mounts)
remount() {
	mount -t cgroup2 -o "remount${1:+,$1}" cgroup2 /sys/fs/cgroup || return
	if [ -n "${1:-}" ]; then
		grep -q "cgroup2 .*$1" /proc/mounts
	else
		! grep -q 'cgroup2 .*memory_recursiveprot' /proc/mounts
	fi
}
expect_ok wsr set refresh_ms 1000

# memory_recursiveprot: 512 MiB on the parent, none on the child
top=$(make_memcg est-rprot)
echo +memory >"$top/cgroup.subtree_control" || fail "cannot enable memory in $top"
kid=$(make_memcg est-rprot/kid)
echo 512M >"$top/memory.min" || fail "cannot set memory.min"
start_workload --hot 4 --cold 8 --node 0 --cgroup "$kid" >/dev/null
remount memory_recursiveprot || fail "cannot remount cgroup2 with memory_recursiveprot"
# the tests after this one see cgroup2 as init mounted it and no
# protection left, whatever happens here
cleanup() {
	remount
	for m in est-rprot est-oprot est-oprot/a est-oprot/b; do
		echo 0 >"/sys/fs/cgroup/$m/memory.min" 2>/dev/null
	done
}
trap cleanup EXIT
k0=$(seq_of "$kid")
is_num "$k0" || fail "no max_seq of $kid in lru_gen: '$k0'"
read_root
k1=$(seq_of "$kid")
remount || fail "cannot remount cgroup2 without memory_recursiveprot"
[ "$k1" = "$k0" ] ||
	fail "memory_recursiveprot: a child under its parent's 512 MiB was aged (max_seq $k0 -> $k1)"
read_root
[ "$(seq_of "$kid")" = $((k0 + 1)) ] ||
	fail "no memory_recursiveprot: a child with no memory.min was not aged (max_seq $k0 -> $(seq_of "$kid"))"

# siblings overcommitted: 16 MiB on the parent, 512 MiB on each of two
# children of about 12 MiB: each gets 16 * 12 / 24 = 8 MiB, under its usage
top=$(make_memcg est-oprot)
echo +memory >"$top/cgroup.subtree_control" || fail "cannot enable memory in $top"
a=$(make_memcg est-oprot/a)
b=$(make_memcg est-oprot/b)
echo 16M >"$top/memory.min" || fail "cannot set memory.min"
echo 512M >"$a/memory.min" || fail "cannot set memory.min"
echo 512M >"$b/memory.min" || fail "cannot set memory.min"
start_workload --hot 4 --cold 8 --node 0 --cgroup "$a" >/dev/null
pb=$(start_workload --hot 4 --cold 8 --node 0 --cgroup "$b")
info "usage: $top $(cat "$top/memory.current"), a $(cat "$a/memory.current"), b $(cat "$b/memory.current")"
a0=$(seq_of "$a")
is_num "$a0" || fail "no max_seq of $a in lru_gen: '$a0'"
read_root
[ "$(seq_of "$a")" = $((a0 + 1)) ] ||
	fail "siblings claiming 1 GiB of a parent's 16 MiB: a child was not aged (max_seq $a0 -> $(seq_of "$a"))"
# and the parent's own protection does hold for a child alone under it
kill "$pb"
echo 0 >"$b/memory.min" || fail "cannot set memory.min"
echo 64M >"$top/memory.min" || fail "cannot set memory.min"
a1=$(seq_of "$a")
read_root
[ "$(seq_of "$a")" = "$a1" ] ||
	fail "a child within its own and its parent's memory.min was aged (max_seq $a1 -> $(seq_of "$a"))"
