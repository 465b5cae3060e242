#!/bin/sh
# shellcheck shell=dash
# Guest side of the balance benchmark (vmtests/balance-bench.sh): one of
# eight roles for SECS seconds, in a guest of 1 GiB and 1 vCPU whose swap
# is its second disk (/dev/vdb), not zram, so that evicting cold pages
# costs I/O.  Prints on the console, for the host to parse:
#   BENCH-START role=R secs=S hot_mib=N swap=0|1 fpr_order=N balloon_features=BITS
#   BENCH-PHASE t=S role=R hot_mib=N           the hot set changed (size or pages)
#   BENCH t=S role=R touches_per_s=N late=N    a workload's speed, every 10 s
#   BENCH t=S role=D rps=N p99_ms=X misses=N   a redis-benchmark window
#   BENCH t=S role=J kib_per_s=N               one pass of xz, its input rate
#   BENCH-COST t=S role=R pgmajfault=N refault_anon=N refault_file=N psi_some_us=N psi_full_us=N
#                                              every 5 s: the workload memcg's
#                                              counters and /proc/pressure/memory
#   BENCH-END role=R oom_kill=N pgmajfault=N refault_anon=N refault_file=N killed=N
#   BENCH-SWAP <the lines of /proc/swaps>
# hot_mib is the role's known hot set, the denominator of the summary's
# promotion rate (refaults per minute, % of the hot set).
# Set 1 (four guests, each a different shape):
#   A  64 MiB hot, 256 MiB cold anon
#   B  scans a 256 MiB file once, then keeps a 32 MiB file hot (read)
#   C  64 MiB hot, then from SECS/2 256 MiB hot
#   D  redis-server with about 300 MiB of keys (270,000 of 1,000 bytes),
#      queried (GET) on the first 10% of the key space by redis-benchmark
# Set 2 (issue 28: shapes that break a fixed idle threshold of 10 s):
#   E  32 MiB hot, 224 MiB reused every 30 s (warm), 64 MiB cold anon
#   F  a file server: a 320 MiB file set mapped (mmap, MAP_SHARED) and
#      read every 2 s, 96 MiB of it cold, on the scratch disk
#   G  no swap at all: 64 MiB hot, 288 MiB cold anon
#   H  a hot set that changes phase: 128 MiB X hot, at SECS/3 a second
#      128 MiB Y hot and X idle (stopped, still resident), at 2*SECS/3 X
#      hot again and Y idle
# Set 3 (memory that is freed, for free page reporting to return; with
# A and D of set 1):
#   I  64 MiB hot; every 60 s a second workload allocates 320 MiB,
#      touches it for 30 s and exits, freeing it
#   J  xz, Debian's (/host/bin/xz: busybox's only decompresses), nobody
#      here wrote it, compressing 24 MiB at -8 in a loop: each pass
#      allocates up to 370 MiB and frees it at exit; its speed is the
#      input's KiB per second
# usage: balance-bench-guest.sh ROLE SECS [DAEMON [LINGER [SENPAI_MS]]]
#   DAEMON 1 (the default) starts wsr's daemon; 0 leaves the guest as a
#   host without wsr has it: no BPF program, no map, no daemon
#   LINGER  seconds the workloads keep their memory after BENCH-END
#           (BENCH-LINGER says so), while the host reclaims the QEMU's
#           cgroup to see what of it the host can reuse (0)
#   SENPAI_MS  above 0: Debian's oomd (/host/bin/oomd) runs its Senpai
#           plugin on the workload's memcg with this pressure_ms and the
#           rest of v0.5.0's defaults, moving memory.high (0: no oomd)
# shellcheck source=../tests/guest/lib.sh
. /wsr/bin/tests/lib.sh
role=$1 secs=$2 daemon=${3:-1} linger=${4:-0} senpai_ms=${5:-0}
export LD_LIBRARY_PATH=/host/lib

# memcg_count FILE KEY: a memcg counter
memcg_count() { awk -v k="$2" '$1 == k { print $2 }' "$cg/$1"; }
t() { echo $(($(date +%s) - start)); }

case "$role" in
A|C|G) hot=64 ;;
B) hot=32 ;;
D) hot=32 ;;	# 27,000 keys of 1,000 bytes and redis' own
I) hot=64 ;;
J) hot=24 ;;	# the input file, read at every pass
E) hot=256 ;;	# hot and warm: both are reused within 120 s
F) hot=320 ;;
H) hot=128 ;;
*) fail "unknown role '$role'" ;;
esac

# swap on the disk instead of zram; G has none at all
swapoff /dev/zram0
swap=1
if [ "$role" = G ]; then
	swap=0
else
	{ mkswap /dev/vdb >/dev/null && swapon /dev/vdb; } || fail "no swap on /dev/vdb"
fi
echo 0x0003 >/sys/kernel/mm/lru_gen/enabled
if [ "$daemon" = 1 ]; then
	wsr daemon 2>/tmp/daemon.log &
	wait_until 60 grep -q "serving the balloon" /tmp/daemon.log ||
		fail "the daemon does not serve the balloon: $(tr '\n' ' ' </tmp/daemon.log)"
fi

# speed: the workload's --stats-s lines as BENCH lines
speed() {
	while read -r word rate _ late; do
		[ "$word" = touches_per_s ] || continue
		echo "BENCH t=$(t) role=$role touches_per_s=$rate late=$late"
	done
}

# cost: every 5 s the workload memcg's faults and refaults and the
# guest's memory pressure (PSI totals, microseconds)
cost() {
	while :; do
		echo "BENCH-COST t=$(t) role=$role pgmajfault=$(memcg_count memory.stat pgmajfault)" \
			"refault_anon=$(memcg_count memory.stat workingset_refault_anon)" \
			"refault_file=$(memcg_count memory.stat workingset_refault_file)" \
			"$(awk '{ sub("total=", "", $5); printf "psi_%s_us=%s ", $1, $5 }' /proc/pressure/memory 2>/dev/null)"
		sleep 5
	done
}

# The workload in its own memcg, whose memory.stat and memory.events
# count its major faults, refaults and OOM kills
cg=$(make_memcg bench)
# oomd's Senpai, started from outside the memcg whose memory.high it moves:
# every 5 s (oomd's --interval) a tick; a probe after 6 quiet ticks
if [ "$senpai_ms" -gt 0 ]; then
	mkdir -p /tmp/oomd
	cat >/tmp/senpai.json <<EOF
{ "rulesets": [ { "name": "senpai on the workload", "silence-logs": "engine",
  "detectors": [ [ "always", { "name": "continue", "args": {} } ] ],
  "actions": [ { "name": "senpai", "args": { "cgroup": "bench",
    "pressure_ms": "$senpai_ms", "log_interval": "6" } } ] } ] }
EOF
	/host/bin/oomd --config /tmp/senpai.json --runtime-dir /tmp/oomd \
		--cgroup-fs /sys/fs/cgroup >/tmp/oomd.log 2>&1 &
	sleep 1
	kill -0 $! 2>/dev/null || fail "oomd did not start: $(tr '\n' ' ' </tmp/oomd.log)"
fi
echo $$ >"$cg/cgroup.procs" || fail "cannot join $cg"
start=$(date +%s)
# the balloon's feature bits (bit 5: free page reporting) and the order
# it reports at
features=$(cat /sys/bus/virtio/drivers/virtio_balloon/virtio*/features 2>/dev/null)
order=$(cat /sys/module/page_reporting/parameters/page_reporting_order 2>/dev/null)
echo "BENCH-START role=$role secs=$secs hot_mib=$hot swap=$swap fpr_order=${order:-none}" \
	"balloon_features=${features:-none}"
cost &
case "$role" in
A)
	wsr-workload --hot 64 --cold 256 --period-ms 500 --stats-s 10 | speed &
	;;
B)
	dd if=/dev/zero of=/mnt/scan bs=1M count=256 2>/dev/null && sync
	echo 1 >/proc/sys/vm/drop_caches
	cat /mnt/scan >/dev/null
	wsr-workload --type file --file /mnt/hot --hot 32 --cold 0 --read --period-ms 500 \
		--stats-s 10 | speed &
	;;
C)
	wsr-workload --hot 64 --cold 0 --period-ms 500 --stats-s 10 | speed &
	sleep $((secs / 2))
	echo "BENCH-PHASE t=$(t) role=C hot_mib=256"
	echo "BENCH t=$(t) role=C grows to 256 MiB hot"
	wsr-workload --hot 192 --cold 0 --period-ms 500 --stats-s 10 | speed &
	;;
D)
	rcli() { redis-cli -s /tmp/redis.sock "$@"; }
	# a unix socket: the test kernels have no TCP/IP (no CONFIG_INET)
	redis-server --port 0 --unixsocket /tmp/redis.sock --save '' --appendonly no \
		--daemonize no >/tmp/redis.log 2>&1 &
	wait_until 60 rcli ping >/dev/null ||
		fail "redis-server did not start: $(tr '\n' ' ' </tmp/redis.log)"
	# the values built inside redis: 300 MiB through a pipe is minutes
	# under TCG
	n=$(rcli EVAL "local v = string.rep('x', tonumber(ARGV[2]))
		for i = 0, tonumber(ARGV[1]) - 1 do
			redis.call('SET', string.format('key:%012d', i), v)
		end
		return tonumber(ARGV[1])" 0 270000 1000)
	echo "BENCH t=$(t) role=D loaded=$n used=$(rcli info memory |
		awk -F: '$1 == "used_memory" { print $2 }' | tr -d '\r')"
	# redis-benchmark's -r keys are key:%012d, as loaded: 27,000 is 10%
	while [ "$(t)" -lt "$secs" ]; do
		misses0=$(rcli info stats | awk -F: '$1 == "keyspace_misses" { print $2 }' | tr -d '\r')
		redis-benchmark -s /tmp/redis.sock -t get -r 27000 -n 20000 -c 10 --csv -q 2>/dev/null |
			awk -F'","' '$1 == "\"GET" { print $2, $7 }' >/tmp/window
		misses=$(rcli info stats | awk -F: '$1 == "keyspace_misses" { print $2 }' | tr -d '\r')
		read -r rps p99 </tmp/window || { echo "BENCH t=$(t) role=D no result"; continue; }
		echo "BENCH t=$(t) role=D rps=$rps p99_ms=$p99 misses=$((misses - misses0))"
	done
	;;
E)
	wsr-workload --hot 32 --warm 224 --warm-period-ms 30000 --cold 64 --period-ms 500 \
		--stats-s 10 | speed &
	;;
F)
	wsr-workload --type file --file /mnt/served --hot 320 --cold 96 --read --period-ms 2000 \
		--stats-s 10 | speed &
	;;
G)
	wsr-workload --hot 64 --cold 288 --period-ms 500 --stats-s 10 | speed &
	;;
I)
	wsr-workload --hot 64 --cold 0 --period-ms 500 --stats-s 10 | speed &
	(
		while [ "$(t)" -lt $((secs - 30)) ]; do
			wsr-workload --hot 320 --cold 0 --period-ms 5000 >/dev/null &
			sleep 30
			kill $! && wait $!
			sleep 30
		done
	) &
	;;
J)
	head -c $((18 * 1048576)) /dev/urandom | base64 >/mnt/xz.in
	(
		kib=$(($(wc -c </mnt/xz.in) / 1024))
		while [ "$(t)" -lt "$secs" ]; do
			t0=$(t)
			/host/bin/xz -8 -T1 -c /mnt/xz.in >/dev/null || { echo "BENCH t=$(t) role=J xz failed"; break; }
			dt=$(($(t) - t0))
			[ "$dt" -gt 0 ] || dt=1
			echo "BENCH t=$(t) role=J kib_per_s=$((kib / dt))"
		done
	) &
	;;
H)
	# each hot set its own workload, stopped (SIGSTOP) while idle: its
	# pages stay where they are, untouched
	mkfifo /tmp/x.fifo /tmp/y.fifo
	speed </tmp/x.fifo &
	speed </tmp/y.fifo &
	wsr-workload --hot 128 --cold 0 --period-ms 500 --stats-s 10 >/tmp/x.fifo &
	x=$!
	sleep $((secs / 3))
	echo "BENCH-PHASE t=$(t) role=H hot_mib=128 phase=2"
	kill -STOP "$x"
	wsr-workload --hot 128 --cold 0 --period-ms 500 --stats-s 10 >/tmp/y.fifo &
	y=$!
	sleep $((secs / 3))
	echo "BENCH-PHASE t=$(t) role=H hot_mib=128 phase=3"
	kill -STOP "$y"
	kill -CONT "$x"
	;;
esac
while [ "$(t)" -lt "$secs" ]; do sleep 1; done
echo "BENCH-END role=$role oom_kill=$(memcg_count memory.events oom_kill)" \
	"pgmajfault=$(memcg_count memory.stat pgmajfault)" \
	"refault_anon=$(memcg_count memory.stat workingset_refault_anon)" \
	"refault_file=$(memcg_count memory.stat workingset_refault_file)" \
	"killed=$(dmesg | grep -c 'Killed process')" \
	"memory_current=$(cat "$cg/memory.current")" "memory_high=$(cat "$cg/memory.high")" \
	"senpai_logs=$(grep -c 'probe attempts' /tmp/oomd.log 2>/dev/null || echo 0)"
echo "BENCH-SWAP $(tr -s ' \t' ' ' </proc/swaps | tail -n +2 | tr '\n' ';')"
if [ "$linger" -gt 0 ]; then
	echo "BENCH-LINGER role=$role secs=$linger"
	sleep "$linger"
fi
killall -CONT wsr-workload 2>/dev/null
killall wsr-workload redis-server xz 2>/dev/null
exit 0
