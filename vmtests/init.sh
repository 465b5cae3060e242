#!/bin/sh
# PID 1 of a wsr test guest.  Mounts what the tests need, turns on swap,
# runs /wsr/cmd and reports its exit status on the second serial port
# (ttyS1), which the host reads from a file.  The status port first reads
# "unfinished" so that a panic or a hang never reads as success.
export PATH=/host/bin:/host:/wsr/bin:/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/root

log() { echo "<6>wsr-init: $*" >/dev/kmsg; }

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
mount -t debugfs debugfs /sys/kernel/debug || log "no debugfs (CONFIG_DEBUG_FS?)"
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf || log "no bpffs (CONFIG_BPF_SYSCALL?)"
mount -t cgroup2 cgroup2 /sys/fs/cgroup || log "no cgroup2"
echo "+memory" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null ||
	log "memory controller not available"

echo unfinished >/dev/ttyS1

# Modules the stock kernel needs (our own kernel builds them in)
if [ -s /wsr/modules.list ]; then
	while read -r m; do insmod "/lib/modules/$m" || log "insmod $m failed"; done </wsr/modules.list
fi

# MGLRU ages anonymous pages only when swap exists: swap on zram
if [ -e /sys/kernel/mm/lru_gen/enabled ]; then
	echo y >/sys/kernel/mm/lru_gen/enabled 2>/dev/null
fi
if [ -e /sys/block/zram0/disksize ]; then
	# shellcheck disable=SC2015 # the message unless all three succeed
	echo "${WSR_SWAP_SIZE:-1G}" >/sys/block/zram0/disksize &&
		mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 ||
		log "zram swap set-up failed"
fi

# A scratch ext2 disk for page-cache (file LRU) workloads at /mnt
mkdir -p /mnt
[ ! -b /dev/vda ] || mount -t ext2 /dev/vda /mnt || log "cannot mount /dev/vda"

# A sanitizer kernel: what boot allocated is not the command's to leak.
# vmtests/run reads any report after the marker as a failed run.
KMEMLEAK=/sys/kernel/debug/kmemleak
if [ -w $KMEMLEAK ]; then
	# A KASAN report during the kernel's own boot (seen about once in a
	# hundred boots under TCG: an early interrupt, before anything of
	# ours runs) leaves KASAN silent and lockdep off for the rest of the
	# run.  Stop before the command: vmtests/run boots once more.
	if dmesg | grep -q 'BUG: KASAN\|Disabling lock debugging'; then
		echo "wsr-init: sanitizers blind: the kernel reported during its boot"
		echo boot-report >/dev/ttyS1
		sync
		poweroff -f
	fi
	echo clear >$KMEMLEAK
	echo "wsr-init: sanitizers watching"
fi

cd /
sh /wsr/cmd
status=$?
if [ -w $KMEMLEAK ]; then
	# kmemleak reports a block unreferenced in two scans with the same
	# checksum (the first records it), if it was 5 s old when the second
	# began (Documentation/dev-tools/kmemleak.rst, mm/kmemleak.c).  A scan
	# takes 4-10 s here: wait after the first only for what it has not
	# already covered of the 5 s.
	end=$(cut -d' ' -f1 /proc/uptime)
	echo scan >$KMEMLEAK
	sleep "$(awk -v e="$end" '{ w = e + 5.2 - $1; print (w > 0 ? w : 0) }' /proc/uptime)"
	echo scan >$KMEMLEAK
	sed 's/^/wsr-kmemleak: /' $KMEMLEAK
fi
# on the console too: the status port can lose a status (rarely, about
# once in a few hundred runs, for a reason not known), and the console's
# copy is still there for vmtests/run
echo "wsr-init: status $status"
echo "$status" >/dev/ttyS1
sync
poweroff -f
