# The test guest exposes two NUMA nodes with memory on each.
. "$(dirname "$0")/lib.sh"
# shellcheck disable=SC2012 # sysfs names them nodeN: ls counts them safely
nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
[ "$nodes" = 2 ] || fail "expected 2 NUMA nodes, found $nodes"
for n in 0 1; do
	kb=$(awk '/MemTotal/ { print $4 }' /sys/devices/system/node/node$n/meminfo)
	[ "${kb:-0}" -gt 500000 ] || fail "node $n has only ${kb:-0} kB"
done
