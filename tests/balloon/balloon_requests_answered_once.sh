# shellcheck shell=bash
# Every REQUEST is answered exactly once, whatever the guest's daemon does.
#
# Alone: vmtests/run-test tests/balloon/balloon_requests_answered_once.sh
#
# Guest half of the balloon_requests_answered_once_* tests: the host sends
# 100 REQUESTs with the daemon running, 100 with it stopped (SIGSTOP) and
# 100 with it killed; every one must get exactly one answer, from the
# daemon or from the BPF request hook.  Then, with a daemon again, 100 more
# while the host squeezes the guest with the balloon (global reclaim) and
# reconfigures it.  The daemon ages on its own (no --seed-aging), which
# keeps the answers' data no older than refresh_ms while it runs; its
# answers age only what the seed's refresh would.  The guest moves on when the driver's "answered"
# counter says a phase is done, and the host checks the answers it saw.

# How long the claim of a daemon killed while answering holds the
# request in the test's "killed" phase: the request hook answers after
# it runs out (read by both halves)
CLAIM_S=3
guest_half() {
	# the host asks QEMU nothing after the last mark: power off at once
	# shellcheck disable=SC2034 # for finish
	FINISH_NOW=1
	# shellcheck source=../guest/lib.sh
	. /wsr/bin/tests/lib.sh
	# shellcheck source=transport-lib.sh
	. /host/transport-lib.sh

	# answered_all N: the driver answered N requests and has none waiting
	# shellcheck disable=SC2317 # called by wait_until
	answered_all() { [ "$(ws answered)" = "$1" ] && [ "$(ws requests)" = "$1" ]; }

	# phase N NEXT-MARK: wait for N requests all answered, then mark
	phase() {
		wait_until 240 answered_all "$1" ||
			fail "after phase $1: requests $(ws requests) answered $(ws answered)"
		mark "$2 answered=$(ws answered)"
	}

	# claim_request_for_dead_daemon REQUEST PID: the pinned claim map
	# (struct wsr_balloon_claim) as daemon PID left it, killed after
	# claiming REQUEST: it runs out CLAIM_S from now (boot time)
	claim_request_for_dead_daemon() {
		local until
		until=$(awk -v s="$CLAIM_S" '{ printf "%.0f", ($1 + s) * 1000000000 }' /proc/uptime)
		# shellcheck disable=SC2046 # one word per byte, on purpose
		bpftool map update pinned /sys/fs/bpf/wsr/balloon_claim key 0 0 0 0 \
			value $(le_bytes "$1" 8) $(le_bytes "$until" 8) $(le_bytes "$2" 4) 0 0 0 0 ||
			fail "cannot write the balloon claim map"
	}
	# le_bytes VALUE N: VALUE's N bytes, least significant first
	le_bytes() {
		local v=$1 i=0
		while [ "$i" -lt "$2" ]; do
			printf '%d ' $((v & 255))
			v=$((v >> 8)) i=$((i + 1))
		done
	}

	start_daemon --own-aging
	start_workload --hot 16 --cold 48 >/dev/null
	mark READY
	# the host's CONFIG (sent after READY, retried for up to 60 s) landed:
	# the answers are judged against its refresh_ms
	# shellcheck disable=SC2317 # called by wait_until
	configured() { intervals_are 1000,5000,20000,60000 && ws_is refresh_ms 1000; }
	wait_until 120 configured || fail "the host's CONFIG did not land: $(ws_state)"
	mark CONFIGURED
	phase 100 PHASE1-DONE
	kill -STOP "$daemon" || fail "cannot stop the daemon"
	mark DAEMON-STOPPED
	phase 200 PHASE2-DONE
	kill -KILL "$daemon" || fail "cannot kill the daemon"
	wait "$daemon" 2>/dev/null
	# What a daemon killed right after claiming the next request leaves
	# (loader/balloon.c's balloon_answer() claims, then ages, then
	# answers): its claim, for CLAIM_S from now.  A real kill lands in
	# that window only by chance; the claim is all the state it holds.
	claim_request_for_dead_daemon $(($(ws requests) + 1)) "$daemon"
	mark DAEMON-KILLED
	phase 300 PHASE3-DONE
	start_daemon --own-aging
	# pages written to the zram swap device: reclaim at work (this kernel has
	# no vm event counters in /proc/vmstat)
	swapouts() { awk '{ print $5 }' /sys/block/zram0/stat; }
	# the host leaves about 300 MiB (MemTotal): a hot set of 288 MiB does
	# not fit, so reclaim goes on all along; wait for the hot set to be
	# touched in full, then for swap-outs to go on after that
	wait_until 60 mem_at_most MemTotal 320000 || fail "balloon not inflated: MemTotal $(meminfo MemTotal) kB"
	w=$(start_workload --hot 288 --cold 16 --period-ms 100)
	k0=$(swapouts)
	# shellcheck disable=SC2317 # called by wait_until
	reclaiming() { [ "$(swapouts)" -gt $((k0 + 256)) ]; }
	wait_until 120 reclaiming || fail "no reclaim under the balloon: swap-outs $k0, then $(swapouts)"
	k0=$(swapouts)
	c0=$(ws configs)
	mark RECLAIMING
	phase 400 PHASE4-DONE
	# the CONFIGs the host sends every 0.2 s during these requests landed
	[ "$(ws configs)" -gt "$c0" ] ||
		fail "no CONFIG landed during the requests under pressure: $(ws_state)"
	mark "SWAPOUTS $(($(swapouts) - k0))"
	kill "$w"
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

# request_phase NAME BATCH [MAX-AGE-MS [FIRST-MIN-MS FIRST-MAX-MS]]: 100
# requests, BATCH at a time, over one QMP connection; every one answered
# once (wsr-host request checks there is no missing and no extra answer),
# each answer's cause and data age seen, the age at most MAX-AGE-MS (if
# given, not empty), the first answer's latency within FIRST-MIN-MS and
# FIRST-MAX-MS (if given).  Appends the answers to $tmp/answers.NAME; the
# verdict is NAME's.
request_phase() {
	local name=$1 batch=$2 max_age=${3:-} first_min=${4:-} first_max=${5:-}
	local out=$tmp/answers.$1 fault
	# on the second socket: the first stays free for the CONFIGs
	if ! timeout 600 "$HOST" --qmp "$G_EVENTS" request --count 100 --batch "$batch" \
		--timeout-ms 20000 >"$out" 2>"$out.err"; then
		also_verdict "$name" "$(tail -n 2 "$out.err" | tr '\n' ' ')"
		return
	fi
	fault=$(awk -v max="$max_age" -v fmin="$first_min" -v fmax="$first_max" '
		$1 != "answer" || $3 !~ /^latency_ms=[0-9.]+$/ || $4 !~ /^data_age_ms=[0-9]+$/ {
			print "malformed answer line: " $0; bad = 1; exit }
		NR == 1 && fmin != "" { split($3, l, "=")
			if (l[2] + 0 < fmin + 0 || l[2] + 0 > fmax + 0) {
				print "the first answer came after " l[2] " ms, not within " fmin "-" fmax " ms"
				bad = 1; exit } }
		{ split($4, a, "="); if (max != "" && a[2] + 0 > max + 0) {
			print "answer " $2 " has data " a[2] " ms old, refresh_ms is " max
			bad = 1; exit } }
		END { if (!bad && NR != 100) print NR " answers listed, not 100" }' "$out")
	also_verdict "$name" "$fault"
}

# The host asks 100 times in each of three states of the guest's daemon:
# running, stopped, killed; then 100 times more under global memory
# pressure while it reconfigures the guest.  Every request gets exactly one
# answer of cause request, and the guest's driver agrees.
test_request_answers() {
	local cfg_loop p
	guest_start working-set=on,working-set-bins=5 --timeout 600 || return
	wait_mark READY 200 || return
	retry 60 host config 1000,5000,20000,60000 1000 0 >/dev/null ||
		{ bad "working-set-config: $retry_err"; return; }
	# the answers are judged against that CONFIG's refresh_ms: it landed
	# first (the guest's 120 s for it, within this wait, name what did not)
	wait_mark CONFIGURED 200 || return
	request_phase balloon_requests_answered_once_with_daemon_running 1 1000
	wait_mark DAEMON-STOPPED 60 || return
	# 16 at a time with no daemon: the request hook answers 8 at each of
	# its runs, 500 ms apart, so each batch takes two runs, the most it
	# answers at once and the rest at the next
	request_phase balloon_requests_answered_once_with_daemon_stopped 16
	wait_mark DAEMON-KILLED 60 || return
	# the dead daemon's claim (the guest wrote it CLAIM_S before its mark)
	# holds the first requests, then runs out: the hook answers every 500 ms
	request_phase balloon_requests_answered_once_with_daemon_killed 16 "" \
		1000 $(((CLAIM_S + 2) * 1000))
	wait_mark PHASE3-DONE 60 || return
	qmp "{\"execute\":\"balloon\",\"arguments\":{\"value\":$((G_RAM - (192 << 20)))}}" >/dev/null ||
		{ bad "QMP balloon refused"; return; }
	wait_mark RECLAIMING 150 || return
	# a CONFIG every 0.2 s: answers race new bins (-ESTALE) and are retried
	( for p in $(seq 1 600); do
		host config $((1000 + p % 2 * 500)),5000,20000,60000 1000 0 >/dev/null 2>&1
		sleep 0.2
	done ) &
	cfg_loop=$!
	request_phase balloon_requests_answered_once_under_pressure_and_configs 1
	kill "$cfg_loop" 2>/dev/null
	wait "$cfg_loop" 2>/dev/null
	wait_mark SWAPOUTS 60 || return
	# reclaim went on while the requests were answered
	[ "${MARK# }" -gt 0 ] 2>/dev/null ||
		bad "the guest did not reclaim while it answered (swap-outs +${MARK# })"
	qmp "{\"execute\":\"balloon\",\"arguments\":{\"value\":$G_RAM}}" >/dev/null
	guest_done 120
}

run_test balloon_requests_answered_once_guest_agrees \
	--also balloon_requests_answered_once_with_daemon_running \
	--also balloon_requests_answered_once_with_daemon_stopped \
	--also balloon_requests_answered_once_with_daemon_killed \
	--also balloon_requests_answered_once_under_pressure_and_configs \
	test_request_answers
