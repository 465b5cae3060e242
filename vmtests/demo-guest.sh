#!/bin/sh
# wsr-demo: what "make demo" runs inside the guest.  A workload keeps
# 32 MiB hot and leaves 128 MiB idle on node 1 in memcg /demo; wsr shows
# the node and memcg working sets as they age.
set -e
step() { printf '\n### %s\n' "$*"; }

step "MGLRU without non-leaf young (0x0003): see docs/estimator.md, known kernel behaviour"
echo 0x0003 >/sys/kernel/mm/lru_gen/enabled
cat /sys/kernel/mm/lru_gen/enabled

step "wsr daemon: load the BPF programs, pin them in /sys/fs/bpf/wsr"
wsr daemon >/tmp/wsrd.log 2>&1 &
while [ ! -e /sys/fs/bpf/wsr/link_reclaim ]; do sleep 0.2; done
ls /sys/fs/bpf/wsr

step "a workload: 32 MiB hot (touched every 100 ms), 128 MiB idle, node 1, memcg /demo"
mkdir -p /sys/fs/cgroup/demo
wsr-workload --hot 32 --cold 128 --node 1 --cgroup /sys/fs/cgroup/demo --ready /tmp/ready >/dev/null &
while [ ! -e /tmp/ready ]; do sleep 0.2; done

step "bins: 1 s, 2 s, 5 s, 10 s (+ catch-all); /demo ages on reads more than 1 s apart"
# MGLRU keeps 4 generations: each aging folds the oldest, so ages are
# resolved up to about 3 aging periods; node-level reads do not age here
wsr set intervals_ms 1000,2000,5000,10000
wsr set refresh_ms 600000
wsr set --memcg /demo intervals_ms N1=1000,2000,5000,10000
wsr set --memcg /demo refresh_ms 1000
wsr get --memcg /demo intervals_ms

for t in 1 2 3 4; do
	sleep 2
	step "memcg /demo after $((t * 2)) s (wsr show --memcg /demo)"
	wsr show --memcg /demo
done

step "node 1 as the seed's nodeN/wss/histogram (wsr show --node 1)"
wsr show --node 1
step "JSON (wsr show --memcg /demo --node 1 --json)"
wsr show --memcg /demo --node 1 --json
step "no wsr binary needed: cat /sys/fs/bpf/wsr/histogram"
cat /sys/fs/bpf/wsr/histogram
step "the kernel's own view: /sys/kernel/debug/lru_gen for /demo"
awk '$1 == "memcg" { on = ($3 == "/demo") } on' /sys/kernel/debug/lru_gen

step "the host's turn: over QMP it configures the balloon's bins and asks for a report"
ws=$(ls -d /sys/bus/virtio/drivers/virtio_balloon/virtio*/working_set 2>/dev/null || true)
if [ -n "$ws" ]; then
	echo "wsr-demo: HOST-TURN"
	i=0
	while [ "$(cat "$ws/sent")" -lt 1 ] && [ "$i" -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
	sleep 3	# the host prints what it received
	step "what wsr sent the host, from the guest side (wsr balloon)"
	wsr balloon
else
	echo "no balloon device with working-set reporting"
fi
