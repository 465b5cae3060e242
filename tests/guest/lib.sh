# Helpers for guest tests (sourced).  A test is a shell script that exits
# 0 when the behaviour it is named after holds; fail() says why it does not.

# fail, wait_until: the vocabulary every test shares (in the guest beside
# this file; by its full path, for the balloon tests' guest halves, which
# source this file from /host)
# shellcheck source=../testlib.sh
. /wsr/bin/tests/testlib.sh
info() { echo "  $*"; }

# within_pct ACTUAL EXPECTED PCT: |actual - expected| <= expected * pct / 100
within_pct() {
	awk -v a="$1" -v e="$2" -v p="$3" 'BEGIN {
		d = a - e; if (d < 0) d = -d; exit !(d <= e * p / 100) }'
}

# make_memcg NAME: a fresh memcg under the root, printed as its path
make_memcg() {
	local d=/sys/fs/cgroup/$1
	[ -d "$d" ] || mkdir -p "$d" || fail "cannot create memcg $d"
	echo "$d"
}

# start_workload ARGS...: run wsr-workload in the background, wait until all
# its pages are touched and print its pid
start_workload() {
	# shellcheck disable=SC3028 # the guest's busybox sh has $RANDOM
	local ready=/tmp/workload.$$.$RANDOM.ready i
	wsr-workload --ready "$ready" "$@" >/dev/null &
	local pid=$!
	for i in $(seq 1 600); do
		[ -e "$ready" ] && { echo "$pid"; return 0; }
		kill -0 "$pid" 2>/dev/null || fail "workload exited early: wsr-workload $*"
		sleep 0.1
	done
	fail "workload not ready after 60s: wsr-workload $*"
}

# memcg_id PATH: the memcg id that /sys/kernel/debug/lru_gen uses for PATH
memcg_id() {
	local rel=${1#/sys/fs/cgroup}
	[ -n "$rel" ] || rel=/
	awk -v p="$rel" '$1 == "memcg" && $3 == p { print $2; exit }' /sys/kernel/debug/lru_gen
}

# lru_gen_age PATH NODE: force one aging of PATH's lruvec on NODE
lru_gen_age() {
	local id max
	id=$(memcg_id "$1")
	[ -n "$id" ] || fail "memcg $1 not in /sys/kernel/debug/lru_gen"
	max=$(lru_gen_max_seq "$1" "$2")
	echo "+ $id $2 $max 1 1" >/sys/kernel/debug/lru_gen || fail "aging $1 node $2 failed"
}

# lru_gen_gens PATH NODE: "seq age_ms anon file" per generation, oldest first
lru_gen_gens() {
	local rel=${1#/sys/fs/cgroup}
	[ -n "$rel" ] || rel=/
	awk -v p="$rel" -v n="$2" '
		$1 == "memcg" { in_cg = ($3 == p); next }
		$1 == "node" { in_node = in_cg && ($2 == n); next }
		in_node && NF == 4 { print $1, $2, $3, $4 }' /sys/kernel/debug/lru_gen
}

lru_gen_max_seq() {
	lru_gen_gens "$1" "$2" | tail -n 1 | cut -d' ' -f1
}

# wsr_start [DAEMON-OPTION...]: a fresh wsr: unload whatever is pinned,
# start the daemon, aging every 500 ms (WSRD_PERIOD=MS another period;
# WSRD_PERIOD=default the daemon's own, as a user starts it)
# shellcheck disable=SC2120 # the daemon's options are optional
wsr_start() {
	local i
	wsr unload 2>/dev/null
	[ "${WSRD_PERIOD:-500}" = default ] || set -- --interval-ms "${WSRD_PERIOD:-500}" "$@"
	wsr daemon "$@" >/tmp/wsrd.log 2>&1 &
	WSRD=$!
	# shellcheck disable=SC2034 # i: a bound on the waits
	for i in $(seq 1 300); do
		[ -e /sys/fs/bpf/wsr/link_reclaim ] && return 0
		kill -0 "$WSRD" 2>/dev/null || { cat /tmp/wsrd.log; fail "wsr daemon exited"; }
		sleep 0.1
	done
	cat /tmp/wsrd.log
	fail "wsr daemon did not load in 30s"
}

# nonleaf_young_off: MGLRU's non-leaf young capability (0x0004) off until
# the test exits (the old capabilities back then).  With it on, a memcg aged
# on both nodes back to back reads its hot pages as idle, worst under TCG,
# whose TLB keeps a hot set's translations so that the accessed bits a walk
# cleared stay clear (docs/estimator.md, "Known kernel behaviour"); the
# daemon warns and says this.
nonleaf_young_off() {
	NONLEAF_OLD=$(cat /sys/kernel/mm/lru_gen/enabled)
	trap 'echo "$NONLEAF_OLD" >/sys/kernel/mm/lru_gen/enabled' EXIT
	echo 0x0003 >/sys/kernel/mm/lru_gen/enabled
}

# hist_sum FILE FIELD FIRST LAST: sum of anon= or file= over bins FIRST..LAST
# (1-based lines of a node-format histogram; a node with fewer bins sums
# those it has); "none" if no bin there has FIELD (a failed or empty
# read, which would sum to 0), which no comparison takes for a number
hist_sum() {
	awk -v f="$2=" -v a="$3" -v b="$4" 'NR >= a && NR <= b {
		for (i = 2; i <= NF; i++) if (index($i, f) == 1) { s += substr($i, length(f) + 1); n++ }
	} END { if (n) print s + 0; else print "none" }' "$1"
}

# kib KEY: /proc/meminfo's KEY, in KiB
kib() { awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo; }

# avail: MemAvailable in KiB, caches dropped, once reclaim and RCU
# settled (what wsr costs a guest: its test and vmtests/memcost-guest.sh)
avail() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 2
	echo 3 >/proc/sys/vm/drop_caches
	kib MemAvailable
}

# is_num VALUE: VALUE is a whole number (not empty: two failed reads
# compare equal)
is_num() {
	case "$1" in '' | *[!0-9]*) return 1 ;; esac
}

# expect_ok CMD...: run a command that must succeed
expect_ok() {
	"$@" >/tmp/out.$$ 2>&1 || { cat /tmp/out.$$; fail "'$*' failed"; }
}

# fs_start [DIR]: "wsr fs" mounted on DIR (default /tmp/wsr-fs), FS its
# pid, FSDIR the folder; unmounted when the test exits (fs_stop)
# shellcheck disable=SC2120 # the folder is optional
fs_start() {
	FSDIR=${1:-/tmp/wsr-fs}
	mkdir -p "$FSDIR"
	wsr fs "$FSDIR" >/tmp/wsr-fs.log 2>&1 &
	FS=$!
	trap fs_stop EXIT
	wait_until 30 fs_mounted || { cat /tmp/wsr-fs.log; fail "wsr fs did not mount $FSDIR in 30 s"; }
}
# the mount is there: type fuse.wsr
fs_mounted() { grep -q " $FSDIR fuse" /proc/mounts; }
# (out of the mount first: a test that failed inside it would keep it busy)
fs_stop() {
	cd / || :
	umount "$FSDIR" 2>/dev/null || umount -l "$FSDIR" 2>/dev/null
	wait_until 10 sh -c "! kill -0 $FS 2>/dev/null" || kill -9 "$FS"
	wait "$FS" 2>/dev/null
}
