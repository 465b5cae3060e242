# wsr metrics: its working-set samples are wsr show's histograms in bytes
# (pages x 4096) with wsr-host's labels: exactly for a memcg's reclaim
# report, which both read, and within what two reads apart differ for the
# node level and the nodes read live.  A memcg path with a quote and a
# backslash is escaped in its label, and so is a byte that is not UTF-8
# (a cgroup name may hold any byte, a label only UTF-8); --all-memcgs
# names each configured memcg once and no other; --output replaces its
# file whole (mode 0644, no temporary file left); bad input is refused.
# The host runs promtool on the exposition, which this test prints on the
# console between markers (vmtests/check.sh: the guest has no promtool).
. "$(dirname "$0")/lib.sh"
wsr_start
name='gm"q\x'
# the label value as the exposition escapes it
esc='/gm\"q\\x'
cg=$(make_memcg "$name")
make_memcg gm-unconfigured >/dev/null
# a name with the byte 0xff, which begins no UTF-8 sequence: written \\xff
bad=$(printf 'gm\377')
make_memcg "$bad" >/dev/null
echo 24M >"$cg/memory.max"
# bins no page crosses during the test at the node level; the memcg's
# report is one histogram, whatever its bins
expect_ok wsr set intervals_ms 3600000,7200000,10800000
expect_ok wsr set --memcg "/$name" intervals_ms 1000,10000,60000
expect_ok wsr set --memcg "/$bad" intervals_ms 1000,10000,60000
# one report on reclaim, then none for 10 minutes, and reads return it
expect_ok wsr set --memcg "/$name" refresh_ms 600000
expect_ok wsr set --memcg "/$name" report_ms 600000
wsr watch --memcg "/$name" --node 0 --count 1 >/tmp/gm.watch 2>&1 &
w=$!
sleep 0.5
wsr-workload --hot 40 --cold 0 --node 0 --cgroup "$cg" >/dev/null &
load=$!
for _ in $(seq 1 120); do
	kill -0 $w 2>/dev/null || break
	sleep 0.5
done
kill $load
kill $w 2>/dev/null && fail "no reclaim report of /$name in 60 s"
wait $load

wsr metrics --all-memcgs --memcg "/$name" --memcg / >/tmp/gm.prom 2>/tmp/gm.err ||
	fail "wsr metrics failed: $(cat /tmp/gm.err)"
wsr show --json --memcg "/$name" >/tmp/gm.json || fail "wsr show --json failed"
wsr show --memcg "/$name" >/tmp/gm.show || fail "wsr show failed"
wsr show >/tmp/root.show || fail "wsr show failed"
# for the host's promtool
{ echo "wsr-metrics-exposition: begin"; cat /tmp/gm.prom; echo "wsr-metrics-exposition: end"; } \
	>/dev/console
info "wsr metrics:"; sed 's/^/    /' /tmp/gm.prom

# show_samples FILE: "node idle_le_ms type bytes" per bin, as the exposition
show_samples() {
	awk '/^N[0-9]+$/ { n = substr($1, 2); next } {
		ms = $1 == "9223372036854775807" ? "+Inf" : $1
		for (i = 2; i <= 3; i++) {
			split($i, kv, "=")
			printf "%s %s %s %.0f\n", n, ms, kv[1], kv[2] * 4096
		}
	}' "$1" | sort
}
# prom_samples LABEL: the same of the memcg whose escaped label is LABEL
prom_samples() {
	grep -F "wsr_working_set_bytes{memcg=\"$1\"," /tmp/gm.prom |
		sed -E 's/.*,node="([0-9]+)",type="(anon|file)",idle_le_ms="([^"]+)"\} ([0-9]+)$/\1 \3 \2 \4/' |
		sort
}
show_samples /tmp/gm.show >/tmp/gm.want
prom_samples "$esc" >/tmp/gm.got
[ -s /tmp/gm.got ] || fail "no working-set sample labelled memcg=\"$esc\""
[ "$(wc -l </tmp/gm.got)" = 16 ] || fail "$(wc -l </tmp/gm.got) samples of /$name, not 2 nodes x 4 bins x 2 types"
# the nodes whose histogram is the reclaim report: node 0 at least
sed 's/},{"memcg"/}\n{"memcg"/g' /tmp/gm.json | grep '"cause":"reclaim"' |
	sed 's/.*"histogram":{"node":\([0-9]*\).*/\1/' >/tmp/gm.reported
grep -qx 0 /tmp/gm.reported || fail "wsr show did not read /$name's reclaim report on node 0"
while read -r n; do
	grep "^$n " /tmp/gm.want >/tmp/gm.want.n
	grep "^$n " /tmp/gm.got >/tmp/gm.got.n
	cmp -s /tmp/gm.want.n /tmp/gm.got.n ||
		fail "node $n of /$name: metrics $(paste -sd';' /tmp/gm.got.n), show $(paste -sd';' /tmp/gm.want.n)"
done </tmp/gm.reported
[ "$(awk '$4 > 0' /tmp/gm.got | wc -l)" -gt 0 ] || fail "/$name's samples are all 0"
# samples_close WANT GOT: the same series, values within 4 MiB (what
# the reading processes and their output files make of the node level)
samples_close() {
	awk 'NR == FNR { want[$1 " " $2 " " $3] = $4; next }
		{ k = $1 " " $2 " " $3; seen[k] = 1; d = $4 - want[k]; if (d < 0) d = -d
		  if (!(k in want) || d > 4194304) { print "series " k ": " $4 " against " want[k]; bad = 1 } }
		END { for (k in want) if (!(k in seen)) { print "missing " k; bad = 1 }; exit bad }' "$1" "$2"
}
samples_close /tmp/gm.want /tmp/gm.got >/tmp/gm.diff || fail "/$name: $(head -n 3 /tmp/gm.diff)"
show_samples /tmp/root.show >/tmp/root.want
prom_samples / >/tmp/root.got
samples_close /tmp/root.want /tmp/root.got >/tmp/root.diff || fail "node level: $(head -n 3 /tmp/root.diff)"
[ "$(awk '{ s += $4 } END { print (s > 0) }' /tmp/root.got)" = 1 ] || fail "the node level has no pages"

# each series once though / and /$name were named twice; no other memcg
dup=$(grep -v '^#' /tmp/gm.prom | cut -d' ' -f1 | sort | uniq -d | head -n 1)
[ -z "$dup" ] || fail "a series twice: $dup"
labels=$(grep -o '^wsr_reports_total{memcg="[^,]*,node="[0-9]*"' /tmp/gm.prom | sort -u | wc -l)
[ "$labels" = 6 ] || fail "wsr_reports_total has $labels series, not 3 memcgs x 2 nodes"
grep -qF 'wsr_reports_total{memcg="/gm\\xff",node="0",cause="reclaim"} ' /tmp/gm.prom ||
	fail "/gm<0xff> is not labelled memcg=\"/gm\\\\xff\": $(grep -a '^wsr_reports_total{memcg="/gm' /tmp/gm.prom | head -n 2)"
! od -An -tx1 -v /tmp/gm.prom | grep -q ' [89a-f][0-9a-f]' ||
	fail "the exposition holds bytes above 0x7f: $(grep -an "$bad" /tmp/gm.prom | head -n 1)"
grep -q 'memcg="/gm-unconfigured"' /tmp/gm.prom && fail "an unconfigured memcg is shown"
grep -qxF "wsr_reports_total{memcg=\"$esc\",node=\"0\",cause=\"reclaim\"} 1" /tmp/gm.prom ||
	fail "not 1 reclaim report of /$name on node 0: $(grep "^wsr_reports_total" /tmp/gm.prom | paste -sd' ')"
for m in wsr_working_set_bytes wsr_working_set_age_seconds wsr_working_set_incomplete \
	wsr_working_set_anon_reclaimable wsr_reports_total; do
	{ grep -q "^# HELP $m " /tmp/gm.prom && grep -q "^# TYPE $m " /tmp/gm.prom; } ||
		fail "no HELP and TYPE of $m"
done

# --output: the whole file, readable by node_exporter's user, nothing else left
mkdir -p /tmp/textfile
expect_ok wsr metrics --output /tmp/textfile/wsr.prom
ino=$(stat -c %i /tmp/textfile/wsr.prom)
expect_ok wsr metrics -o /tmp/textfile/wsr.prom
left=$(find /tmp/textfile -mindepth 1 | paste -sd' ')
[ "$left" = /tmp/textfile/wsr.prom ] || fail "--output left: $left"
[ "$(stat -c %a /tmp/textfile/wsr.prom)" = 644 ] || fail "--output made mode $(stat -c %a /tmp/textfile/wsr.prom)"
[ "$(stat -c %i /tmp/textfile/wsr.prom)" != "$ino" ] || fail "--output wrote in place, not by rename"
tail -n 1 /tmp/textfile/wsr.prom | grep -q '^wsr_reports_total{memcg="/",node="1",cause="reclaim"} ' ||
	fail "--output's file does not end with the last series: $(tail -n 1 /tmp/textfile/wsr.prom)"

# bad input: a clear message, nothing written
wsr metrics --memcg /no-such-memcg >/tmp/gm.out 2>&1 && fail "a missing memcg was accepted"
grep -q "memcg '/no-such-memcg' not found" /tmp/gm.out || fail "missing memcg: $(cat /tmp/gm.out)"
wsr metrics -o /no-such-folder/wsr.prom >/tmp/gm.out 2>&1 && fail "an output in no folder was accepted"
grep -q "no-such-folder/wsr.prom: cannot create" /tmp/gm.out || fail "bad --output: $(cat /tmp/gm.out)"
