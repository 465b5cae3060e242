# shellcheck shell=bash
# "wsr-host balance" does not inflate a guest without swap into an OOM kill.
#
# Alone: vmtests/run-test tests/balloon/balance_does_not_oom_a_guest_without_swap.sh
#
# Guest half of balance_does_not_oom_a_guest_without_swap: a workload
# holds 256 MiB of cold anon (written once, never touched again) and 16
# MiB of hot anon; aged twice with swap on, after which 240 MiB of anon
# must be in MGLRU's old generations (two or more below the youngest),
# then swap goes off.  Idle, that anon looks like the first thing to take; but
# without swap the guest cannot reclaim it, its reports say so (anon not
# reclaimable, no anon in the bins), and the balloon must leave it room.
# After "balance --policy working-set" has held MemTotal at its lowest
# for 15 s (45 s at most: an inflation into the anon kills within
# seconds), the workload must be alive and the guest must have had no
# OOM kill; and on the host, no target balance set was below the anon
# the guest held.
guest_half() {
	# the host asks QEMU nothing after the last mark: power off at once
	# shellcheck disable=SC2034 # for finish
	FINISH_NOW=1
	# shellcheck source=../guest/lib.sh
	. /wsr/bin/tests/lib.sh
	# shellcheck source=transport-lib.sh
	. /host/transport-lib.sh

	# as a user runs it: its own aging keeps the answers' data fresh
	start_daemon --own-aging
	w=$(start_workload --hot 16 --cold 256 --period-ms 100)
	# old_anon: the anon pages (of all lruvecs) in generations two or more
	# below their lruvec's youngest
	# shellcheck disable=SC2317 # called by wait_until
	old_anon() {
		awk 'function flush(i) { for (i = 1; i <= n; i++) if (seq[i] <= seq[n] - 2) old += anon[i]; n = 0 }
		     $1 == "memcg" || $1 == "node" { flush(); next }
		     NF == 4 && $1 ~ /^[0-9]+$/ { n++; seq[n] = $1; anon[n] = $3 }
		     END { flush(); print old + 0 }' /sys/kernel/debug/lru_gen
	}
	# two agings of every lruvec (MGLRU's debugfs file, swap on) move the
	# cold anon two generations down: the daemon ages nothing before the
	# host's first CONFIG (a wait of up to 15 s for it ran out before);
	# then swap goes: MGLRU leaves the anon where it is, and the guest
	# cannot reclaim it
	for i in 1 2; do
		seqs=$(lru_gen_seqs)
		[ -n "$seqs" ] || fail "no lruvec in /sys/kernel/debug/lru_gen"
		while read -r m n s; do
			echo "+ $m $n $s 1 1" >/sys/kernel/debug/lru_gen ||
				fail "cannot age memcg $m node $n through /sys/kernel/debug/lru_gen"
		done <<-EOF
			$seqs
		EOF
	done
	[ "$(old_anon)" -ge 61440 ] ||
		fail "only $(($(old_anon) / 256)) MiB of anon two generations down after two agings"
	aged="old anon $(($(old_anon) / 256)) MiB"
	swaps=$(tail -n +2 /proc/swaps | awk '{ print $1 }')
	[ -n "$swaps" ] || fail "no swap to turn off"
	# shellcheck disable=SC2086 # one word per device
	swapoff $swaps || fail "swapoff failed"
	total=$(meminfo MemTotal)
	mark "READY MemTotal=$total MemAvailable=$(meminfo MemAvailable) AnonPages=$(meminfo AnonPages) $aged"
	wait_until 120 ws_at_least configs 1 || fail "no configuration from the host: $(ws_state)"
	low=$total
	i=0 held=0
	while [ $i -lt 45 ] && [ $held -lt 15 ]; do
		sleep 1
		cur=$(meminfo MemTotal)
		if [ "$cur" -lt "$low" ]; then
			low=$cur held=0
		elif [ "$low" -lt "$total" ]; then
			held=$((held + 1))
		fi
		kill -0 "$w" 2>/dev/null || break
		i=$((i + 1))
	done
	kill -0 "$w" 2>/dev/null || fail "the workload died after ${i}s of balance (MemTotal down to $low kB)"
	dmesg | grep -q "Out of memory\|oom-kill" && fail "an OOM kill: $(dmesg | grep -m 1 'Out of memory')"
	mark "ALIVE lowest MemTotal=$low kB of $total; now $(meminfo MemTotal); ${i}s of balance"
	kill "$w"
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

test_balance_spares_swapless() {
	local bal
	guest_start working-set=on,working-set-bins=5 || return
	wait_mark READY 200 || return
	echo "    | $MARK" >&2
	local MARK_READY=$MARK
	# straight to the policy's want, no hold, no settling: the bottom at once
	"$HOST" balance --vm "guest=$G_QMP" --policy working-set --report-ms 1000 \
		--request-ms 1000 --step-mib 1024 --hold-ms 0 --steady-ms 0 >"$tmp/decisions" 2>"$tmp/balance.err" &
	bal=$!
	wait_mark ALIVE 150 && echo "    | $MARK" >&2
	kill "$bal" 2>/dev/null
	wait "$bal" 2>/dev/null
	# balance inflated at all: the test is not passing on an idle balance
	grep -q 'action=set' "$tmp/decisions" ||
		bad "balance set no target: $(tail -n 3 "$tmp/balance.err" | tr '\n' ' ')"
	# No target below the anon the guest holds: without swap it cannot
	# give any of it back.  The OOM check alone misses a policy that
	# wants the idle anon: the driver's inflation gives up when no page
	# is free (its allocations do not retry), and the guest lives on,
	# short of all its page cache.
	anon=$(sed -n 's/.* AnonPages=\([0-9]*\) .*/\1/p' <<<"$MARK_READY")
	if [ -z "$anon" ]; then
		bad "no AnonPages in the READY mark: $MARK_READY"
	else
		low=$(sed -n 's/.*action=set .* target=\([0-9]*\).*/\1/p' "$tmp/decisions" | sort -n | head -n 1)
		{ [ -n "$low" ] && [ "$low" -ge $((anon * 1024)) ]; } ||
			bad "a target of $((${low:-0} >> 20)) MiB, below the $((anon >> 10)) MiB of anon a guest without swap holds"
	fi
	echo "    | $(grep -c 'action=set' "$tmp/decisions") targets set; last:" \
		"$(grep 'action=set' "$tmp/decisions" | tail -n 1 | grep -o 'reason=[^ ]* .*target=[0-9]*')" >&2
	if [ -n "$why" ]; then
		echo "    | decisions: $(grep 'action=set' "$tmp/decisions" | tail -n 3 | cut -c1-200 | tr '\n' '|')" >&2
	fi
	guest_done 60
}

run_test balance_does_not_oom_a_guest_without_swap test_balance_spares_swapless
