# shellcheck shell=dash
# Helpers for the guest halves of the balloon tests, tests/balloon/*.sh
# (sourced; POSIX sh plus "local", as busybox runs it).
#
# The host follows the guest through marker lines on the console,
# "wsr-balloon: WORD [DETAILS]", and the guest follows the host through
# the balloon device itself: working-set counters in sysfs, MemTotal.  A
# failed check prints "FAIL: reason" and exits, which the host reports; a
# script that passes ends with finish, and the guest then powers off.

# fail, wait_until: the vocabulary every test shares
# shellcheck source=../testlib.sh
. /wsr/bin/tests/testlib.sh
mark() { echo "wsr-balloon: $*"; }

# shellcheck disable=SC2034 # for the scripts
DRV=/sys/bus/virtio/drivers/virtio_balloon

# balloon_dev: the balloon's folder in /sys/bus/virtio/devices, bound or not
balloon_dev() {
	local d
	for d in /sys/bus/virtio/devices/virtio*; do
		[ "$(cat "$d/device" 2>/dev/null)" = 0x0005 ] && { echo "$d"; return 0; }
	done
	return 1
}

# ws NAME: the balloon's working_set/NAME ($dev must be set)
# shellcheck disable=SC2154
ws() { cat "$dev/working_set/$1" 2>/dev/null; }

# ws_at_least NAME MIN: working_set/NAME exists and is >= MIN
ws_at_least() {
	local v
	v=$(ws "$1") && [ -n "$v" ] && [ "$v" -ge "$2" ]
}

# ws_is NAME VALUE: working_set/NAME reads VALUE (read anew at each call,
# as wait_until wants: "wait_until 30 [ "$(ws NAME)" = 1 ]" reads it once)
ws_is() { [ "$(ws "$1")" = "$2" ]; }

# intervals_are LIST: working_set/intervals_ms is LIST (comma-separated)
intervals_are() { [ "$(ws intervals_ms | tr ' ' ,)" = "$1" ]; }

# ws_state: the configuration and counters on one line
ws_state() {
	echo "intervals=$(ws intervals_ms | tr ' ' ,) refresh=$(ws refresh_ms)" \
		"report=$(ws report_ms) configs=$(ws configs) requests=$(ws requests)" \
		"rejected=$(ws rejected)"
}

# feature_bit N: bit N of the features the driver negotiated (0 or 1)
feature_bit() { cut -c"$(($1 + 1))" "$dev/features"; }

meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

# mem_at_most KEY KB / mem_at_least KEY KB: /proc/meminfo's KEY vs KB
mem_at_most() { [ "$(meminfo "$1")" -le "$2" ]; }
mem_at_least() { [ "$(meminfo "$1")" -ge "$2" ]; }

# follow_balloon TOTAL0_KB: wait for the host to inflate the balloon by at
# least 60 MiB below TOTAL0_KB and to deflate it again, seen as MemTotal
# going down and back.  TOTAL0_KB is MemTotal read before the mark that
# lets the host inflate: read after it, it may already be the inflated
# size (a fork takes most of a second on the debug kernel, and a balloon
# that takes whole blocks inflates 64 MiB in less).
follow_balloon() {
	local total0=$1
	wait_until 120 mem_at_most MemTotal $((total0 - 61440)) ||
		fail "MemTotal still $(meminfo MemTotal) kB, not 60 MiB below $total0 kB: balloon not inflated"
	mark "INFLATED MemTotal=$(meminfo MemTotal)"
	wait_until 120 mem_at_least MemTotal $((total0 - 1024)) ||
		fail "MemTotal still $(meminfo MemTotal) kB, below $total0 kB: balloon not deflated"
	mark "DEFLATED MemTotal=$(meminfo MemTotal)"
}

# dmesg_clean: no kernel report (testlib.sh's kernel_reports) since the
# script started (the boot's own warnings, e.g. about the NUMA topology QEMU
# gives the vCPUs, are not ours) but those the test file ($0, run as
# "sh /host/THIS.sh guest") declares with "# expects-kernel: ERE"
dmesg_clean() {
	local bad
	bad=$(kernel_reports 'wsr-balloon-test: start' "$(kernel_expects "$0")")
	[ -z "$bad" ] || fail "kernel log: $bad"
}

# start_daemon [--own-aging]: "wsr daemon" in the background, serving the
# balloon; sets $daemon (its pid) and $dev.  By default with --seed-aging:
# the transport under test, not the daemon's own aging (guest tests cover
# that), which ages the whole guest at every refresh_ms once the host has
# configured it.  --own-aging: without it, as a user starts it.
# shellcheck disable=SC2120 # the option is optional
start_daemon() {
	local seed=--seed-aging
	[ "${1:-}" != --own-aging ] || seed=
	dev=$(balloon_dev) || fail "no virtio balloon device"
	# one node's page-table walk must not hide the other node's hot pages
	echo 0x0003 >/sys/kernel/mm/lru_gen/enabled
	# shellcheck disable=SC2086 # $seed: one option or none
	wsr daemon $seed 2>/tmp/daemon.log &
	# shellcheck disable=SC2034 # for the scripts
	daemon=$!
	wait_until 60 grep -q "serving the balloon" /tmp/daemon.log ||
		fail "the daemon does not serve the balloon: $(tr '\n' ' ' </tmp/daemon.log)"
}

# lru_gen_seqs: each lruvec's youngest generation, "MEMCG NODE MAX_SEQ"
# per line, from MGLRU's own debugfs file: what any aging changes
lru_gen_seqs() {
	awk '$1 == "memcg" { m = $2; next } $1 == "node" { n = $2; next }
	     NF == 4 && $1 ~ /^[0-9]+$/ { s[m " " n] = $1 }
	     END { for (k in s) print k, s[k] }' /sys/kernel/debug/lru_gen | sort
}

# power_presses: how often the (ACPI) power button was pressed since
# boot; nothing where no driver counts them (the line says "invalid")
power_presses() {
	awk '!/invalid/ { print $1 }' /sys/firmware/acpi/interrupts/ff_pwr_btn 2>/dev/null
}

# pressed_since N: pressed since power_presses said N
pressed_since() { [ "$(power_presses)" -gt "$1" ]; }

# finish: the last check, then "DONE", then the guest powers off by
# itself (on the debug kernel, after vmtests/init.sh's leak scan): the
# host reads vmtests/run's status as the run's verdict.  It first waits
# for the host half, which may still ask QEMU something after the guest
# half's last mark (a report to show, a balance that deflates on exit,
# QEMU's balloon size catching up with follow_balloon's DEFLATED): the
# host's guest_done presses the power button once it has seen DONE (no
# one in the guest acts on it), 2 s at most (a fixed 2 s before).  A
# guest half whose host asks nothing after it sets FINISH_NOW=1, and the
# guest powers off at once.
finish() {
	local p
	dmesg_clean
	p=$(power_presses)
	mark DONE
	if [ "${FINISH_NOW:-}" = 1 ]; then
		:
	elif [ -n "$p" ]; then
		wait_until 2 pressed_since "$p"
	else
		sleep 2
	fi
	exit 0
}

# <6>: below the console's level, so that it never lands inside a line
# the host reads from the console (dmesg has it all the same)
echo "<6>wsr-balloon-test: start" >/dev/kmsg
