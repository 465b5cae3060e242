# The seed's cover letter's shell examples, run against "wsr fs"'s mount
# with only /sys changed to the mount: its node files and a memcg's
# memory.wss.* and memory.reaccess.* take the writes it shows and print
# what it prints, in its formats.  What a write stored is read back with
# wsr get (the pinned maps, the ground truth the daemon ages by); the
# histogram holds the memcg's workload (40 MiB on node 0); the files have
# the seed's modes, the root memcg has none (CFTYPE_NOT_ON_ROOT), and a
# memcg's folder comes and goes with the cgroup tree.
. "$(dirname "$0")/lib.sh"
wsr_start
cg=$(make_memcg job)
fs_start /tmp/sys
S=/tmp/sys
load=$(start_workload --hot 40 --cold 0 --node 0 --cgroup "$cg")

# Host: /sys/devices/system/node/nodeX/wss/
cd "$S/devices/system/node/node0/wss" || fail "no $S/devices/system/node/node0/wss"
echo 1000 > report_ms || fail "echo 1000 > report_ms failed"
echo 10000 > refresh_ms || fail "echo 10000 > refresh_ms failed"
echo 1000,2000,3000,4000 > intervals_ms || fail "echo 1000,2000,3000,4000 > intervals_ms failed"
[ "$(wsr get --node 0 report_ms)" = 1000 ] || fail "report_ms stored as '$(wsr get --node 0 report_ms)'"
[ "$(wsr get --node 0 refresh_ms)" = 10000 ] || fail "refresh_ms stored as '$(wsr get --node 0 refresh_ms)'"
[ "$(cat report_ms)" = 1000 ] || fail "report_ms reads '$(cat report_ms)'"
[ "$(cat intervals_ms)" = 1000,2000,3000,4000,9223372036854775807 ] ||
	fail "intervals_ms reads '$(cat intervals_ms)'"
cat histogram >/tmp/h || fail "cat histogram failed"
info "node0/wss/histogram:"; sed 's/^/    /' /tmp/h
[ "$(cut -d' ' -f1 /tmp/h | tr '\n' ,)" = 1000,2000,3000,4000,9223372036854775807, ] ||
	fail "histogram's bins: $(tr '\n' '|' </tmp/h)"
grep -qvE '^[0-9]+ anon=[0-9]+ file=[0-9]+$' /tmp/h && fail "a line not '<ms> anon=<n> file=<n>'"
node_pages=$(awk '{ split($2, a, "="); split($3, f, "="); s += a[2] + f[2] } END { print s + 0 }' /tmp/h)

# memcg: memory.wss.*, one node at a time
cd "$S/fs/cgroup/job" || fail "no $S/fs/cgroup/job"
echo N0=1000 > memory.wss.report_ms || fail "echo N0=1000 > memory.wss.report_ms failed"
echo N1=3000 > memory.wss.report_ms || fail "echo N1=3000 > memory.wss.report_ms failed"
echo N0=1000,2000,3000,4000 > memory.wss.intervals_ms || fail "memory.wss.intervals_ms write failed"
[ "$(wsr get --memcg /job report_ms)" = "N0=1000 N1=3000" ] ||
	fail "memory.wss.report_ms stored as '$(wsr get --memcg /job report_ms)'"
[ "$(cat memory.wss.report_ms)" = "N0=1000 N1=3000" ] ||
	fail "memory.wss.report_ms reads '$(cat memory.wss.report_ms)'"
[ "$(cat memory.wss.intervals_ms)" = "N0=1000,2000,3000,4000,9223372036854775807 N1=9223372036854775807" ] ||
	fail "memory.wss.intervals_ms reads '$(cat memory.wss.intervals_ms)'"
cat memory.wss.histogram >/tmp/m || fail "cat memory.wss.histogram failed"
info "memory.wss.histogram:"; sed 's/^/    /' /tmp/m
[ "$(cut -d' ' -f1 /tmp/m | tr '\n' ,)" = N0,1000,2000,3000,4000,9223372036854775807,N1,9223372036854775807, ] ||
	fail "memory.wss.histogram's lines: $(tr '\n' '|' </tmp/m)"
pages=$(sed -n '2,6p' /tmp/m | awk '{ split($2, a, "="); split($3, f, "="); s += a[2] + f[2] } END { print s + 0 }')
info "node 0: the memcg's $pages pages, the node's $node_pages"
# 40 MiB = 10240 pages, most of it resident (no limit here)
[ "$pages" -ge 8000 ] || fail "memory.wss.histogram holds $pages pages on node 0, the workload 10240"
[ "$node_pages" -ge "$pages" ] || fail "the node level ($node_pages) below one memcg ($pages)"

# reaccess: the same formats
echo N0=1000,2000,4000 > memory.reaccess.intervals_ms || fail "memory.reaccess.intervals_ms write failed"
[ "$(wsr get --memcg /job reaccess_intervals_ms)" = "N0=1000,2000,4000,9223372036854775807 N1=9223372036854775807" ] ||
	fail "reaccess intervals stored as '$(wsr get --memcg /job reaccess_intervals_ms)'"
cat memory.reaccess.histogram >/tmp/r || fail "cat memory.reaccess.histogram failed"
[ "$(cut -d' ' -f1 /tmp/r | tr '\n' ,)" = N0,1000,2000,4000,9223372036854775807,N1,9223372036854775807, ] ||
	fail "memory.reaccess.histogram's lines: $(tr '\n' '|' </tmp/r)"

# the seed's modes: __ATTR_RW/RO, and cgroup files with or without write
modes=$(stat -c '%a %n' "$S"/devices/system/node/node0/wss/* memory.wss.* memory.reaccess.* | tr '\n' '|')
[ "$modes" = "444 $S/devices/system/node/node0/wss/histogram|644 $S/devices/system/node/node0/wss/intervals_ms|644 $S/devices/system/node/node0/wss/refresh_ms|644 $S/devices/system/node/node0/wss/report_ms|444 memory.wss.histogram|644 memory.wss.intervals_ms|644 memory.wss.refresh_ms|644 memory.wss.report_ms|444 memory.reaccess.histogram|644 memory.reaccess.intervals_ms|" ] ||
	fail "modes: $modes"
cd /
[ ! -e "$S/fs/cgroup/memory.wss.histogram" ] || fail "the root memcg has memory.wss.histogram"
[ -e "$S/devices/system/node/node1/wss/histogram" ] || fail "no node1/wss/histogram"
[ ! -e "$S/devices/system/node/node2" ] || fail "node2 exists (2 nodes with memory)"

# memcgs come and go with the cgroup tree; memory.* files only where the
# memory controller is on (not in job's children: job's subtree_control
# has no +memory)
mkdir /sys/fs/cgroup/fs-new /sys/fs/cgroup/job/sub || fail "cannot create /fs-new and /job/sub"
[ -e "$S/fs/cgroup/fs-new/memory.wss.histogram" ] || fail "a new memcg has no memory.wss.histogram"
find "$S/fs/cgroup" -maxdepth 1 -type d -name fs-new | grep -q . ||
	fail "fs-new not listed: $(find "$S/fs/cgroup" -maxdepth 1 | tr '\n' ' ')"
[ -d "$S/fs/cgroup/job/sub" ] || fail "no folder job/sub"
[ ! -e "$S/fs/cgroup/job/sub/memory.wss.histogram" ] ||
	fail "job/sub, without the memory controller, has memory.wss.histogram"
rmdir /sys/fs/cgroup/fs-new /sys/fs/cgroup/job/sub
[ ! -e "$S/fs/cgroup/fs-new" ] || fail "a removed memcg's folder is still there"
kill "$load"
# what wsr fs takes (issue 55 asks for the figure beside the footprint's)
info "wsr fs: $(grep -E '^(VmRSS|VmHWM|Threads)' /proc/"$FS"/status | tr -s '\t ' ' ' | tr '\n' ' ')"
