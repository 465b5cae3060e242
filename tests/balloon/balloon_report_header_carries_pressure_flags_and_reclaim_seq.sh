# shellcheck shell=bash
# The report header tells the host what the bins cannot: the guest's
# memory pressure, whether it can reclaim anon, whether it counted all of
# its memory, and how many reclaim reports it made.
#
# Alone: vmtests/run-test tests/balloon/balloon_report_header_carries_pressure_flags_and_reclaim_seq.sh
#
# Guest half of balloon_report_header_carries_pressure_flags_and_reclaim_seq:
# the daemon serves the host's requests while the guest goes through, one
# after the other (each step waits for the host's next request to be
# answered):
#   1. nothing special (ANSWERED1, its PSI totals);
#   2. a memcg thrashing at its memory.max for 6 s (THRASHED: PSI totals
#      before the request, ANSWERED2: after its answer);
#   3. swap off (NOSWAP);
#   4. a daemon whose memcg walk has 10 steps, 30 memcgs (SHORTWALK);
#   5. global reclaim for 8 s (RECLAIM-START, RECLAIM-END) while the host
#      asks for reclaim reports every 100 ms, which QEMU paces to one
#      event a second.
guest_half() {
	# shellcheck source=../guest/lib.sh
	. /wsr/bin/tests/lib.sh
	# shellcheck source=transport-lib.sh
	. /host/transport-lib.sh

	# psi: "some full" totals of /proc/pressure/memory, in us
	psi() {
		awk '{ sub("total=", "", $5); t[$1] = $5 } END { print t["some"], t["full"] }' \
			/proc/pressure/memory
	}
	answered() { wait_until 120 ws_at_least answered "$1" || fail "request $1 unanswered: $(ws_state)"; }

	[ -r /proc/pressure/memory ] || fail "no /proc/pressure/memory (CONFIG_PSI)"
	start_daemon
	mark READY
	answered 1
	mark "ANSWERED1 $(psi)"
	limited=$(make_memcg header_thrash)
	echo 24M >"$limited/memory.max"
	wsr-workload --hot 40 --cold 0 --period-ms 20 --cgroup "$limited" >/dev/null &
	w=$!
	sleep 6
	kill "$w"
	# PSI's averaging work sums the totals every 2 s; reading the file sums them now
	mark "THRASHED $(psi)"
	answered 2
	mark "ANSWERED2 $(psi)"
	swaps=$(tail -n +2 /proc/swaps | awk '{ print $1 }')
	# shellcheck disable=SC2086 # one word per device
	swapoff $swaps || fail "swapoff failed"
	mark NOSWAP
	answered 3
	# shellcheck disable=SC2086
	swapon $swaps || fail "swapon failed"
	kill "$daemon"
	wait "$daemon"
	wsr unload
	for i in $(seq 1 30); do make_memcg "header_walk$i" >/dev/null; done
	wsr daemon --seed-aging --max-walk-steps 10 2>/tmp/daemon.log &
	daemon=$!
	wait_until 60 grep -q "serving the balloon" /tmp/daemon.log ||
		fail "the daemon does not serve the balloon: $(tr '\n' ' ' </tmp/daemon.log)"
	mark SHORTWALK
	answered 4
	mark "RECLAIM-START sent=$(ws sent) dropped=$(ws dropped)"
	# more than the guest has free, with swap: kswapd and direct reclaim
	wsr-workload --hot 0 --cold $((($(meminfo MemAvailable) >> 10) + 96)) >/dev/null &
	w=$!
	sleep 8
	kill "$w"
	sleep 1
	mark "RECLAIM-END sent=$(ws sent) dropped=$(ws dropped) answered=$(ws answered)"
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

# answer N: request, wait for the guest's mark N, keep "wsr-host show --json" in $tmp/show.N
answer() {
	retry 30 host request >/dev/null || { bad "request $1: $retry_err"; return 1; }
	wait_mark "$2" 150 || return 1
	host show --json >"$tmp/show.$1" 2>&1 || { bad "wsr-host show: $(cat "$tmp/show.$1")"; return 1; }
}

# anon_total FILE: anon bytes of every bin of a "show --json" output
anon_total() {
	grep -o '"anon-bytes": *[0-9]*' "$1" | awk -F: '{ s += $2 } END { print s + 0 }'
}

test_report_header() {
	local s1 f1 s2 f2 ps pf ps2 pf2 n seqs first last reports
	guest_start working-set=on,working-set-bins=4 || return
	wait_mark READY 200 || return
	retry 60 host config 1000,5000,20000 0 0 >/dev/null || { bad "working-set-config: $retry_err"; return; }
	answer 1 ANSWERED1 || return
	s1=$(json_num mem-some-us <"$tmp/show.1") f1=$(json_num mem-full-us <"$tmp/show.1")
	# shellcheck disable=SC2015 # bad unless both hold
	[ -n "$s1" ] && [ -n "$f1" ] || { bad "no pressure in the report: $(head -c 400 "$tmp/show.1")"; return; }
	grep -q '"anon-reclaimable": *true' "$tmp/show.1" || bad "anon not reclaimable with swap"
	grep -q '"incomplete": *false' "$tmp/show.1" || bad "a full walk reported incomplete"
	[ "$(anon_total "$tmp/show.1")" -gt 0 ] || bad "no anon with swap: $(head -c 400 "$tmp/show.1")"

	# pressure: the answer after the thrash has the guest's totals as they
	# were between its two reads of /proc/pressure/memory
	wait_mark THRASHED 120 || return
	read -r ps pf <<<"$MARK"
	answer 2 ANSWERED2 || return
	read -r ps2 pf2 <<<"$MARK"
	s2=$(json_num mem-some-us <"$tmp/show.2") f2=$(json_num mem-full-us <"$tmp/show.2")
	echo "    | PSI some/full (us): report 1 $s1/$f1; guest after the thrash $ps/$pf;" \
		"report 2 $s2/$f2; guest after it $ps2/$pf2" >&2
	# shellcheck disable=SC2015 # bad unless both hold
	[ "${s2:-0}" -gt "$s1" ] && [ "${f2:-0}" -gt "$f1" ] ||
		bad "the thrash did not raise both totals: $s1/$f1 then $s2/$f2"
	# shellcheck disable=SC2015
	[ "${s2:-0}" -ge "$ps" ] && [ "${s2:-0}" -le "$ps2" ] && [ "${f2:-0}" -ge "$pf" ] &&
		[ "${f2:-0}" -le "$pf2" ] || bad "report 2's totals $s2/$f2 are not between the guest's $ps/$pf and $ps2/$pf2"

	wait_mark NOSWAP 120 || return
	answer 3 NOSWAP || return
	# the mark came before the answer: wait for the answer itself
	n=0
	while [ "$(json_num reports <"$tmp/show.3")" -lt 3 ] && [ $n -lt 100 ]; do
		sleep 0.2; host show --json >"$tmp/show.3" 2>&1; n=$((n + 1))
	done
	grep -q '"anon-reclaimable": *false' "$tmp/show.3" ||
		bad "anon reclaimable without swap: $(head -c 400 "$tmp/show.3")"
	[ "$(anon_total "$tmp/show.3")" = 0 ] || bad "$(anon_total "$tmp/show.3") anon bytes without swap"
	grep -q '"file-bytes": *[1-9]' "$tmp/show.3" || bad "no file bytes either: read nothing?"

	wait_mark SHORTWALK 120 || return
	host request >/dev/null || { bad "request 4 refused"; return; }
	n=0
	while [ "$(host show --json | tee "$tmp/show.4" | json_num reports)" -lt 4 ] && [ $n -lt 150 ]; do
		sleep 0.2; n=$((n + 1))
	done
	grep -q '"incomplete": *true' "$tmp/show.4" ||
		bad "a walk of 10 steps over 30 memcgs not reported incomplete: $(head -c 300 "$tmp/show.4")"

	# reclaim: QEMU paces the events; their sequence numbers jump by the
	# reports the host did not see, and the device's last one counts them all
	"$HOST" --qmp "$G_EVENTS" watch --json >"$tmp/events" 2>&1 &
	local watcher=$!
	host config 1000,5000,20000 0 100 >/dev/null || { bad "config report_ms 100 refused"; kill $watcher; return; }
	wait_mark RECLAIM-END 150 || { kill $watcher; return; }
	sleep 1.5
	kill $watcher
	host show --json >"$tmp/show.5" 2>&1
	seqs=$(grep '"reclaim"' "$tmp/events" | grep -o '"reclaim-seq": *[0-9]*' | sed 's/.*: *//')
	n=$(echo "$seqs" | grep -c .)
	first=$(echo "$seqs" | head -n 1) last=$(echo "$seqs" | tail -n 1)
	reports=$(json_num reports <"$tmp/show.5")
	# reports the guest's driver dropped (the device behind) were numbered too
	local d0 d1
	d1=$(echo "$MARK" | sed -n 's/.*dropped=\([0-9]*\).*/\1/p')
	wait_mark RECLAIM-START 1 || return
	d0=$(echo "$MARK" | sed -n 's/.*dropped=\([0-9]*\).*/\1/p')
	echo "    | $n reclaim events, reclaim-seq $first..$last; the device received $reports" \
		"reports, 4 of them answers; guest: $MARK" >&2
	[ "$n" -ge 3 ] || { bad "only $n reclaim events"; return; }
	echo "$seqs" | awk 'NR > 1 && $1 <= p { bad = 1 } { p = $1 } END { exit bad }' ||
		bad "reclaim-seq not increasing: $(echo "$seqs" | tr '\n' ' ')"
	[ "$((last - first + 1))" -gt "$n" ] || bad "no event missed at report_ms 100: $(echo "$seqs" | tr '\n' ' ')"
	grep -q '"cause": *"reclaim"' "$tmp/show.5" || bad "the device's last report is not a reclaim one"
	# every report the device received is an answer or a numbered reclaim report
	[ "$(json_num reclaim-seq <"$tmp/show.5")" = "$((reports - 4 + d1 - d0))" ] ||
		bad "the last reclaim-seq is $(json_num reclaim-seq <"$tmp/show.5"), the device received" \
			"$((reports - 4)) reclaim reports and the guest dropped $((d1 - d0))"
	guest_done 60
}

run_test balloon_report_header_carries_pressure_flags_and_reclaim_seq test_report_header
