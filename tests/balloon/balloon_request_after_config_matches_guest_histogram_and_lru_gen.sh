# shellcheck shell=bash
# The report answering a REQUEST matches the guest's own histogram and
# lru_gen; before the host's first CONFIG, and with refresh_ms 0, nothing
# is aged for the device.
#
# Alone: vmtests/run-test tests/balloon/balloon_request_after_config_matches_guest_histogram_and_lru_gen.sh
#
# Guest half of balloon_request_after_config_matches_guest_histogram_and_lru_gen
# and the checks sharing its guest: a known workload (128 MiB of anon on
# node 1) and the daemon serving the device, aging on its own (no
# --seed-aging).  Before any CONFIG it ages nothing for the device, though
# the driver's default refresh_ms is 1000, and a REQUEST then is answered
# without aging (AGED-BEFORE-CONFIG, AGED-BY-EARLY-ANSWER: the lruvecs
# whose youngest generation changed, "none").  After a CONFIG with
# refresh_ms 0 (CONFIGURED), the answer ages nothing either
# (AGED-BY-ANSWER).  Once the
# request is answered, the guest's own totals per node, as ground truth:
#   TOTALS LRUGEN <node> <anon pages> <file pages>   (/sys/kernel/debug/lru_gen)
#   TOTALS WSR <node> <anon pages> <file pages>      (wsr show, no aging)
guest_half() {
	# shellcheck source=../guest/lib.sh
	. /wsr/bin/tests/lib.sh
	# shellcheck source=transport-lib.sh
	. /host/transport-lib.sh

	# aged_since SEQS: the lruvecs whose youngest generation is not in
	# SEQS, or "none"
	aged_since() {
		local aged
		aged=$(lru_gen_seqs | grep -vxF "$1" | tr '\n' ' ')
		echo "${aged:-none}"
	}

	start_daemon --own-aging
	start_workload --hot 32 --cold 96 --node 1 >/dev/null
	# 4 s: the daemon's periods (1 s) with the driver's default refresh_ms
	# of 1 s, from its start on (3 s more before, when an aging in them
	# went unseen)
	seqs=$(lru_gen_seqs)
	sleep 4
	mark "AGED-BEFORE-CONFIG $(aged_since "$seqs")"
	mark READY
	wait_until 120 ws_at_least answered 1 || fail "the early request was not answered: $(ws_state)"
	mark "AGED-BY-EARLY-ANSWER $(aged_since "$seqs")"
	wait_until 120 ws_at_least configs 1 || fail "no CONFIG arrived: $(ws_state)"
	# an aging under way when the CONFIG came has ended
	sleep 2
	seqs=$(lru_gen_seqs)
	mark CONFIGURED
	wait_until 120 ws_at_least answered 2 || fail "no report sent for the request: $(ws_state)"
	# the daemon's aging too: refresh_ms 0 is none
	sleep 2
	mark "AGED-BY-ANSWER $(aged_since "$seqs")"
	awk '$1 == "node" { n = $2; next }
	     NF == 4 && $1 ~ /^[0-9]+$/ { a[n] += $3; f[n] += $4 }
	     END { for (k in a) print "wsr-balloon: TOTALS LRUGEN", k, a[k], f[k] }' /sys/kernel/debug/lru_gen
	wsr show --no-refresh | awk '/^N/ { n = substr($1, 2); next }
		{ split($2, a, "="); split($3, f, "="); an[n] += a[2]; fi[n] += f[2] }
		END { for (k in an) print "wsr-balloon: TOTALS WSR", k, an[k], fi[k] }'
	mark REPORTED
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

# host_totals FILE: per node of "wsr-host show" output FILE,
# "<node> <anon pages> <file pages> <bins> <bounds,...>"
host_totals() {
	awk '/^cause=/ { next } /^N/ { n = substr($1, 2); nodes[n] = 1; next }
	     { split($2, a, "="); split($3, f, "="); an[n] += a[2]; fi[n] += f[2]; b[n]++
	       bounds[n] = bounds[n] (bounds[n] == "" ? "" : ",") $1 }
	     END { for (k in nodes) print k, an[k], fi[k], b[k], bounds[k] }' "$1"
}

# close_enough A B: within 10% of B, or 512 pages (2 MiB) for small counts
close_enough() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d;
		exit !(d <= b * 0.10 || d <= 512) }'
}

# Before any CONFIG: the guest ages nothing for the device, and a request
# is answered once with the driver's default bins (1, 2, 4, 8 s and the
# catch-all), aging nothing.  Then the host configures (refresh_ms 0) and
# requests: the report has the configured bins per node and the guest's
# totals, by wsr and by the kernel's lru_gen, and nothing was aged.
test_request_matches_guest() {
	local bounds=1000,5000,20000,60000,9223372036854775807 n anon file bins b src ga gf early=""
	guest_start working-set=on,working-set-bins=5 --node-mem 1024 || return
	wait_mark AGED-BEFORE-CONFIG 200 || return
	[ "$MARK" = none ] || early="the daemon aged before any CONFIG: $MARK"
	wait_mark READY 60 || return
	retry 30 host request >/dev/null || { bad "early working-set-request: $retry_err"; return; }
	wait_mark AGED-BY-EARLY-ANSWER 60 || return
	[ "$MARK" = none ] || [ -n "$early" ] || early="the answer before any CONFIG aged: $MARK"
	host show >"$tmp/early" 2>&1 || { bad "wsr-host show: $(cat "$tmp/early")"; return; }
	host_totals "$tmp/early" | awk '$4 != 5 || $5 != "1000,2000,4000,8000,9223372036854775807"' \
		>"$tmp/early.bad"
	if ! grep -q '^cause=request ' "$tmp/early" || [ -s "$tmp/early.bad" ]; then
		[ -n "$early" ] || early="the early answer has not the default bins: $(tr '\n' ' ' <"$tmp/early")"
	fi
	also_verdict balloon_no_aging_before_the_first_config "$early"
	retry 60 host config 1000,5000,20000,60000 0 0 >/dev/null ||
		{ bad "working-set-config: $retry_err"; return; }
	wait_mark CONFIGURED 60 || return
	# the guest reposts its notify buffer after the CONFIG: until then QEMU refuses
	retry 30 host request >/dev/null || { bad "working-set-request: $retry_err"; return; }
	wait_mark AGED-BY-ANSWER 150 || return
	if [ "$MARK" = none ]; then
		also_verdict balloon_refresh_ms_0_never_ages
	else
		also_verdict balloon_refresh_ms_0_never_ages "aged: $MARK"
	fi
	wait_mark REPORTED 60 || return
	host show >"$tmp/show" 2>&1 || { bad "wsr-host show: $(cat "$tmp/show")"; return; }
	grep -q '^cause=request data_age_ms=[0-9]*$' "$tmp/show" ||
		bad "report header: $(head -n 1 "$tmp/show"), expected cause=request data_age_ms=N"
	host_totals "$tmp/show" >"$tmp/totals"
	[ "$(wc -l <"$tmp/totals")" = 2 ] || { bad "not 2 nodes: $(tr '\n' ' ' <"$tmp/show")"; return; }
	while read -r n anon file bins b; do
		# shellcheck disable=SC2015 # bad unless both hold
		[ "$bins" = 5 ] && [ "$b" = "$bounds" ] || bad "node $n has bins $b"
		for src in LRUGEN WSR; do
			read -r ga gf < <(tr -d '\r' <"$G_LOG" |
				awk -v s=$src -v n="$n" '$2 == "TOTALS" && $3 == s && $4 == n { print $5, $6 }')
			[ -n "$ga" ] || { bad "no $src totals for node $n"; continue; }
			# shellcheck disable=SC2015 # bad unless both hold
			close_enough "$anon" "$ga" && close_enough "$file" "$gf" ||
				bad "node $n: host anon=$anon file=$file, guest $src anon=$ga file=$gf"
		done
	done <"$tmp/totals"
	# the workload's 128 MiB (32768 pages) on node 1
	awk '$1 == 1 && $2 >= 32768 * 0.9 { ok = 1 } END { exit !ok }' "$tmp/totals" ||
		bad "node 1 lacks the workload's pages: $(tr '\n' ' ' <"$tmp/totals")"
	guest_done 60
}

run_test balloon_request_after_config_matches_guest_histogram_and_lru_gen \
	--also balloon_no_aging_before_the_first_config \
	--also balloon_refresh_ms_0_never_ages \
	test_request_matches_guest
