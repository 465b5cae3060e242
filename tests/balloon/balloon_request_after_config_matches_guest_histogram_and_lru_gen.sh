# shellcheck shell=bash
# The report answering a REQUEST matches the guest's own histogram and
# lru_gen.
#
# Alone: vmtests/run-test tests/balloon/balloon_request_after_config_matches_guest_histogram_and_lru_gen.sh
#
# Guest half of balloon_request_after_config_matches_guest_histogram_and_lru_gen:
# a known workload (128 MiB of anon on node 1) and the daemon serving the
# device; once the host's request is answered, the guest's own totals per
# node, as ground truth:
#   TOTALS LRUGEN <node> <anon pages> <file pages>   (/sys/kernel/debug/lru_gen)
#   TOTALS WSR <node> <anon pages> <file pages>      (wsr show, no aging)
guest_half() {
	# shellcheck source=../guest/lib.sh
	. /wsr/bin/tests/lib.sh
	# shellcheck source=transport-lib.sh
	. /host/transport-lib.sh

	start_daemon
	start_workload --hot 32 --cold 96 --node 1 >/dev/null
	mark READY
	wait_until 120 ws_at_least sent 1 || fail "no report sent for the request: $(ws_state)"
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

# The host configures, then requests: the report has the configured bins
# per node and the guest's totals, by wsr and by the kernel's lru_gen.
test_request_matches_guest() {
	local bounds=1000,5000,20000,60000,9223372036854775807 n anon file bins b src ga gf
	guest_start working-set=on,working-set-bins=5 --node-mem 1024 || return
	wait_mark READY 200 || return
	retry 60 host config 1000,5000,20000,60000 0 0 >/dev/null ||
		{ bad "working-set-config: $retry_err"; return; }
	# the guest reposts its notify buffer after the CONFIG: until then QEMU refuses
	retry 30 host request >/dev/null || { bad "working-set-request: $retry_err"; return; }
	wait_mark REPORTED 150 || return
	host show >"$tmp/show" 2>&1 || { bad "wsr-host show: $(cat "$tmp/show")"; return; }
	# refresh_ms 0: the daemon aged everything just before it answered
	grep -q '^cause=request data_age_ms=[0-9]*$' "$tmp/show" ||
		bad "report header: $(head -n 1 "$tmp/show"), expected cause=request data_age_ms=N"
	awk -F= '/^cause=/ { exit !($3 + 0 <= 1000) }' "$tmp/show" ||
		bad "answer's data is $(sed -n 's/^cause=.*data_age_ms=//p' "$tmp/show") ms old, refresh_ms 0"
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
	test_request_matches_guest
