#!/bin/sh
# shellcheck shell=dash
# Guest side of the balance benchmark (vmtests/balance-bench.sh): one of
# four roles for SECS seconds, in a guest of 1 GiB and 1 vCPU whose swap
# is its second disk (/dev/vdb), not zram, so that evicting cold pages
# costs I/O.  Prints on the console, for the host to parse:
#   BENCH t=S role=R touches_per_s=N late=N    a workload's speed, every 10 s
#   BENCH t=S role=D rps=N p99_ms=X misses=N   a redis-benchmark window
#   BENCH-END role=R oom_kill=N pgmajfault=N refault_anon=N refault_file=N killed=N
#   BENCH-SWAP <the lines of /proc/swaps>
# The roles (issue: four guests, each a different shape):
#   A  64 MiB hot, 256 MiB cold anon
#   B  scans a 256 MiB file once, then keeps a 32 MiB file hot (read)
#   C  64 MiB hot, then from SECS/2 256 MiB hot
#   D  redis-server with about 300 MiB of keys (270,000 of 1,000 bytes),
#      queried (GET) on the first 10% of the key space by redis-benchmark
# usage: balance-bench-guest.sh ROLE SECS
# shellcheck source=../tests/guest/lib.sh
. /wsr/bin/tests/lib.sh
role=$1 secs=$2
export LD_LIBRARY_PATH=/host/lib

# memcg_count FILE KEY: a memcg counter
memcg_count() { awk -v k="$2" '$1 == k { print $2 }' "$cg/$1"; }
t() { echo $(($(date +%s) - start)); }

# swap on the disk instead of zram
swapoff /dev/zram0
{ mkswap /dev/vdb >/dev/null && swapon /dev/vdb; } || fail "no swap on /dev/vdb"
echo 0x0003 >/sys/kernel/mm/lru_gen/enabled
wsr daemon 2>/tmp/daemon.log &
wait_until 60 grep -q "serving the balloon" /tmp/daemon.log ||
	fail "the daemon does not serve the balloon: $(tr '\n' ' ' </tmp/daemon.log)"

# speed: the workload's --stats-s lines as BENCH lines
speed() {
	while read -r word rate _ late; do
		[ "$word" = touches_per_s ] || continue
		echo "BENCH t=$(t) role=$role touches_per_s=$rate late=$late"
	done
}

# The workload in its own memcg, whose memory.stat and memory.events
# count its major faults, refaults and OOM kills: the test kernels have
# no CONFIG_VM_EVENT_COUNTERS, so /proc/vmstat has none of them
cg=$(make_memcg bench)
echo $$ >"$cg/cgroup.procs" || fail "cannot join $cg"
start=$(date +%s)
echo "BENCH-START role=$role secs=$secs"
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
*)
	fail "unknown role '$role'" ;;
esac
while [ "$(t)" -lt "$secs" ]; do sleep 1; done
echo "BENCH-END role=$role oom_kill=$(memcg_count memory.events oom_kill)" \
	"pgmajfault=$(memcg_count memory.stat pgmajfault)" \
	"refault_anon=$(memcg_count memory.stat workingset_refault_anon)" \
	"refault_file=$(memcg_count memory.stat workingset_refault_file)" \
	"killed=$(dmesg | grep -c 'Killed process')"
echo "BENCH-SWAP $(tr -s ' \t' ' ' </proc/swaps | tail -n +2 | tr '\n' ';')"
killall wsr-workload redis-server 2>/dev/null
exit 0
