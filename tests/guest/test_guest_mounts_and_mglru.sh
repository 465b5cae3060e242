# proc, sys, debugfs, bpffs and cgroup2 (with memcg) are mounted and MGLRU
# is enabled, with its debugfs interface present.
. "$(dirname "$0")/lib.sh"
for m in "proc /proc" "debugfs /sys/kernel/debug" "bpf /sys/fs/bpf" "cgroup2 /sys/fs/cgroup"; do
	# shellcheck disable=SC2086 # "TYPE DIR" into $1 and $2
	set -- $m
	awk -v t="$1" -v d="$2" '$3 == t && $2 == d { ok = 1 } END { exit !ok }' /proc/mounts ||
		fail "$1 is not mounted on $2"
done
grep -qw memory /sys/fs/cgroup/cgroup.subtree_control || fail "memory controller not enabled"
[ "$(cat /sys/kernel/mm/lru_gen/enabled)" != 0x0000 ] || fail "MGLRU is disabled"
[ -r /sys/kernel/debug/lru_gen ] || fail "no /sys/kernel/debug/lru_gen"
