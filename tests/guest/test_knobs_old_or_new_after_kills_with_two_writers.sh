# Knobs are never torn and no update is lost, whatever is killed when.
# Two writers set knobs of one memcg at once, in loops: A report_ms on
# every node, B refresh_ms on node 0 (the node both change), while reports
# flow to a watcher.  WSR_KNOB_KILLS times (50; make check-long's
# long_knobs_* runs 500), after a random 0-0.7 s, one of them or the
# daemon is SIGKILLed; every 25th kill is of a daemon making its first
# pins (after "wsr unload"), at a random point of its first 2 s, or every
# 50th as soon as its first link is pinned.  After each kill every node's knobs read as
# values a writer wrote; a writer whose knob, before its next set, no
# longer reads as its last value lost an update; a daemon started after a
# killed first load leaves the pins a clean load leaves, and reads work.
. "$(dirname "$0")/lib.sh"
kills=${WSR_KNOB_KILLS:-50}
d=/tmp/knobs
rm -rf "$d"
mkdir -p "$d"
A='' B='' W='' work=''
# a failed check leaves no writer running into the next test
trap 'kill -9 $A $B $W $work $WSRD 2>/dev/null' EXIT
wsr_start
cg=$(make_memcg knobs)
# bins: no report is made without them
expect_ok wsr set --memcg /knobs intervals_ms 1000,10000,60000
echo 24M >"$cg/memory.max"
# what a clean load pins, the balloon's left out (attached after a load)
pins() { find /sys/fs/bpf/wsr -mindepth 1 ! -name '*balloon*' ! -name request_scratch | sort; }
# once all are pinned (an older daemon pinned link_reclaim first)
wait_until 60 grep -q 'loaded and pinned' /tmp/wsrd.log || fail "no load: $(cat /tmp/wsrd.log)"
pins >"$d/pins"

# writer NAME KNOB BASE [--node N]: set KNOB of /knobs to BASE+1,
# BASE+2, ... (on --node N, or every node), each value logged to
# $d/NAME.wrote first; before each set, the knob must read as this
# writer's last value, which only it writes, or "$d/lost" says which
# update went
writer() {
	local name=$1 knob=$2 base=$3 i last='' now
	shift 3
	i=$(wc -l <"$d/$name.wrote")
	while :; do
		now=$(wsr get --memcg /knobs "$@" "$knob" 2>/dev/null) || now=$last
		if [ -n "$last" ] && [ "$now" != "$last" ]; then
			echo "$name: $knob reads '$now' after $name set '$last'" >>"$d/lost"
		fi
		i=$((i + 1))
		echo "$((base + i))" >>"$d/$name.wrote"
		if wsr set --memcg /knobs "$@" "$knob" "$((base + i))" 2>>"$d/$name.err"; then
			case "$*" in
			'') last="N0=$((base + i)) N1=$((base + i))" ;;
			*) last=$((base + i)) ;;
			esac
		else
			last=''
		fi
	done
}
start_a() { writer A report_ms 100 & A=$!; }
start_b() { writer B refresh_ms 1000000 --node 0 & B=$!; }
# the watcher, on a memcg the workload keeps reclaiming
start_watch() {
	wsr watch --memcg /knobs >"$d/watch" 2>&1 &
	W=$!
}
start_daemon() {
	wsr daemon --interval-ms 500 >"$d/wsrd.log" 2>&1 &
	WSRD=$!
	wait_until 60 grep -q 'adopting\|loaded and pinned' "$d/wsrd.log" ||
		fail "the daemon did not start: $(cat "$d/wsrd.log")"
}
# kill9 PID: SIGKILL PID and reap it (its status 137 is not the test's)
kill9() {
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}
# kill9_writer PID: SIGKILL writer PID and the wsr it is running.  The
# shell alone would leave its "wsr set" to finish after the next
# writer's first set, which would then read as lost, and the set would
# never be killed mid-update.  Stopped
# first, so that it starts no other wsr meanwhile.
kill9_writer() {
	local s pid ppid kids=''
	kill -STOP "$1" 2>/dev/null
	for s in /proc/[0-9]*/stat; do
		read -r pid _ _ ppid _ 2>/dev/null <"$s" || continue
		[ "$ppid" != "$1" ] || kids="$kids $pid"
	done
	# shellcheck disable=SC2086 # the pids, one word each
	[ -z "$kids" ] || kill -9 $kids 2>/dev/null
	kill9 "$1"
}
# nap [MAX]: a random delay of 0 to MAX ms (700).  0.7 s spans a
# writer's loop of a get and a set and the daemon's 500 ms period, so a
# kill still lands anywhere in them (0-2 s did too, at three times the
# wait); a first load, which takes longer, keeps 0-2 s
nap() {
	# shellcheck disable=SC3028 # the guest's busybox sh has $RANDOM
	local ms=$((RANDOM % (${1:-700} + 1)))
	sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
}
# each node's knobs read as values their writer wrote; else $bad says
values_ok() {
	local r v
	r=$(wsr get --memcg /knobs report_ms) || { bad="wsr get report_ms failed"; return 1; }
	for v in $r; do
		grep -qx "${v#N?=}" "$d/A.wrote" ||
			{ bad="report_ms reads '$r', which A never wrote"; return 1; }
	done
	v=$(wsr get --memcg /knobs --node 0 refresh_ms) || { bad="wsr get refresh_ms failed"; return 1; }
	grep -qx "$v" "$d/B.wrote" || { bad="N0's refresh_ms reads '$v', which B never wrote"; return 1; }
}
check_values() {
	values_ok || fail "after kill $1: $bad"
	[ ! -s "$d/lost" ] || fail "by kill $1, updates lost: $(head -n 3 "$d/lost")"
}
# writers just started on knobs that were never set: their first values
first_values() {
	wait_until 30 values_ok || fail "no writer set its knob in 30 s: $bad"
}
same_pins() { pins | cmp -s - "$d/pins"; }

# the daemon killed while it makes its first pins, then a clean start
first_pins_kill() {
	kill9_writer "$A"
	kill9_writer "$B"
	kill9 "$W"
	kill9 "$WSRD"
	wsr unload || fail "wsr unload failed"
	wsr daemon >"$d/first.log" 2>&1 &
	WSRD=$!
	if [ $(($1 % 50)) = 0 ]; then
		# as soon as the first link is pinned (no 0.1 s polls)
		while [ ! -e /sys/fs/bpf/wsr/link_reclaim ] && kill -0 "$WSRD" 2>/dev/null; do
			:
		done
	else
		nap 2000
	fi
	kill9 "$WSRD"
	start_daemon
	wait_until 30 same_pins ||
		fail "after a first load killed (kill $1), a new daemon pinned '$(pins | tr '\n' ' ')'"
	wsr show --memcg /knobs >/dev/null 2>"$d/show.err" ||
		fail "after a first load killed (kill $1), wsr show failed: $(cat "$d/show.err")"
}

: >"$d/A.wrote"
: >"$d/B.wrote"
wsr-workload --hot 32 --cold 0 --cgroup "$cg" >/dev/null &
work=$!
start_watch
start_a
start_b
first_values
k=0
while [ "$k" -lt "$kills" ]; do
	k=$((k + 1))
	nap
	if [ $((k % 25)) = 0 ]; then
		first_pins_kill "$k"
		# the bins went with the unload: without them, no report
		expect_ok wsr set --memcg /knobs intervals_ms 1000,10000,60000
		start_watch
		start_a
		start_b
		# the knobs went with the unload
		first_values
	else
		case $((k % 3)) in
		0) kill9_writer "$A"; start_a ;;
		1) kill9_writer "$B"; start_b ;;
		2) kill9 "$WSRD"; start_daemon ;;
		esac
		check_values "$k"
	fi
done
kill9_writer "$A"
kill9_writer "$B"
check_values end
wait_until 60 grep -q '^N[01]$' "$d/watch" || fail "the watcher got no report: $(head -n 3 "$d/watch")"
kill -0 "$W" || fail "the watcher exited: $(tail -n 3 "$d/watch")"
info "$kills kills; A set $(wc -l <"$d/A.wrote") values, B $(wc -l <"$d/B.wrote")"
kill9 "$W"
kill9 "$work"
kill9 "$WSRD"
