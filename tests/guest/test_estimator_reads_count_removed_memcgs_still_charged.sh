# A memcg removed while its page cache stays charged to it (a zombie) is
# still counted by a read of its parent, as by a reclaim report of the
# parent: both walk the memcg tree, where a zombie stays until its last
# page goes.  32 MiB of file pages are written from a child that is then
# removed: a read of the parent holds them (memory.stat's count).  The
# parent's limit then makes reclaim evict part of them and report: a read
# after it holds what memory.stat says is left, more than 8 MiB, and no
# more than the last report of each node.
. "$(dirname "$0")/lib.sh"
grep -q " /mnt " /proc/mounts || fail "no disk mounted on /mnt for file pages"
wsr_start
parent=$(make_memcg est-zombie)
echo +memory >"$parent/cgroup.subtree_control" || fail "cannot enable memory in $parent"
child=$(make_memcg est-zombie/gone)
pid=$(start_workload --type file --file /mnt/zombie.dat --hot 0 --cold 32 --cgroup "$child")
kill "$pid"
# not our child (start_workload's): wait for it to be gone from the memcg
wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" || fail "the workload did not exit"
rmdir "$child" || fail "cannot remove $child"
file_kb=$(awk '$1 == "file" { print int($2 / 1024) }' "$parent/memory.stat")
info "after rmdir: $parent holds $file_kb kB of file pages (memory.stat)"
[ "$file_kb" -ge $((30 * 1024)) ] || fail "the removed child's page cache is not charged to $parent: $file_kb kB"

# sum_file FILE [LINE]: file pages of every bin of "wsr show/watch --json" lines
sum_file() {
	grep -o '"file":[0-9]*' "$1" | awk -F: '{ s += $2 } END { print s + 0 }'
}
wsr show --memcg /est-zombie --no-refresh --json >/tmp/zr.read0 || fail "wsr show failed"
read0=$(sum_file /tmp/zr.read0)
info "a read of /est-zombie: $read0 file pages"
within_pct "$read0" $((file_kb / 4)) 10 ||
	fail "a read of /est-zombie holds $read0 file pages, memory.stat $((file_kb / 4))"

# reclaim within the parent's limit: reports of /est-zombie (both nodes)
expect_ok wsr set --memcg /est-zombie intervals_ms 1000,10000,60000
expect_ok wsr set --memcg /est-zombie report_ms 300
wsr watch --memcg /est-zombie --json >/tmp/zr.watch &
w=$!
sleep 0.5
echo $(($(cat "$parent/memory.current") + 12 * 1024 * 1024)) >"$parent/memory.max"
sib=$(make_memcg est-zombie/load)
load=$(start_workload --hot 16 --cold 0 --period-ms 50 --cgroup "$sib")
sleep 4
kill "$load"
wait_until 10 sh -c "! kill -0 $load 2>/dev/null" || fail "the load did not exit"
sleep 0.5
kill "$w"
wsr show --memcg /est-zombie --no-refresh --json >/tmp/zr.read1 || fail "wsr show failed"
n=$(wc -l </tmp/zr.watch)
[ "$n" -ge 2 ] || fail "$n reclaim reports of /est-zombie under its limit"
# reclaim goes on after the last report (at most one per report_ms), and
# pages only go: per node, the read after it holds no more file pages
# than the last report, and what memory.stat says is left
stat_kb=$(awk '$1 == "file" { print int($2 / 1024) }' "$parent/memory.stat")
total=$(sum_file /tmp/zr.read1)
info "after reclaim: a read holds $total file pages, memory.stat $((stat_kb / 4))"
[ "$total" -ge 2048 ] || fail "a read after reclaim holds $total file pages: the zombie's are gone, nothing compared"
within_pct "$total" $((stat_kb / 4)) 10 ||
	fail "a read after reclaim holds $total file pages, memory.stat $((stat_kb / 4))"
for node in 0 1; do
	grep -o "\"node\":$node,.*" /tmp/zr.watch | tail -n 1 >/tmp/zr.rep
	grep -o "\"node\":$node,[^]]*" /tmp/zr.read1 >/tmp/zr.rd
	rep=$(sum_file /tmp/zr.rep) rd=$(sum_file /tmp/zr.rd)
	info "node $node: last report $rep file pages, read after it $rd"
	[ -s /tmp/zr.rep ] || continue
	[ "$rd" -le $((rep + 512)) ] || fail "node $node: a read holds $rd file pages, more than the last report's $rep"
done
rm -f /mnt/zombie.dat
