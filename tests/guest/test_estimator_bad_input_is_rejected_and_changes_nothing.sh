# Every malformed knob value or option is rejected with a message and a
# non-zero status, and the configuration stays as it was.
. "$(dirname "$0")/lib.sh"
wsr_start
make_memcg est-bad >/dev/null
expect_ok wsr set --memcg /est-bad intervals_ms 1000,2000,3000
expect_ok wsr set --memcg /est-bad report_ms 500
expect_ok wsr set --memcg /est-bad refresh_ms 700
expect_ok wsr set --memcg /est-bad reaccess_intervals_ms 10,20,30
snapshot() {
	for k in intervals_ms report_ms refresh_ms reaccess_intervals_ms; do
		wsr get --memcg /est-bad $k
	done
}
before=$(snapshot)
# what was set, so that failed reads cannot compare equal below
case "$before" in
"N0=1000,2000,3000,"*" N1=1000,2000,3000,"*"
N0=500 N1=500
N0=700 N1=700
N0=10,20,30,"*" N1=10,20,30,"*) ;;
*) fail "the configuration reads '$before' after setting it" ;;
esac
n=0
reject() {
	n=$((n + 1))
	if wsr "$@" >/tmp/bad.out 2>/tmp/bad.err; then
		fail "accepted: wsr $*"
	fi
	[ -s /tmp/bad.err ] || fail "no error message for: wsr $*"
	info "wsr $* -> $(head -n 1 /tmp/bad.err)"
	[ "$(snapshot)" = "$before" ] || fail "configuration changed by: wsr $*"
}
reject set --memcg /est-bad intervals_ms 1000,500,2000
reject set --memcg /est-bad intervals_ms 1000,1000,2000
reject set --memcg /est-bad intervals_ms 1000,2000
reject set --memcg /est-bad intervals_ms 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16
reject set --memcg /est-bad intervals_ms 0,10,20
reject set --memcg /est-bad intervals_ms 10,abc,30
reject set --memcg /est-bad intervals_ms 10,,30
reject set --memcg /est-bad intervals_ms -5,10,20
reject set --memcg /est-bad intervals_ms 10,20,30x
reject set --memcg /est-bad intervals_ms N7=10,20,30
reject set --memcg /est-bad report_ms Nx=100
reject set --memcg /est-bad report_ms 12abc
reject set --memcg /est-bad report_ms 99999999999999999999999
reject set --memcg /est-bad report_ms ""
reject set --memcg /est-bad report_ms " 5"
reject set --memcg /est-bad refresh_ms -1
reject set --memcg /does-not-exist report_ms 10
reject set --memcg /est-bad no_such_knob 10
reject set --memcg /est-bad report_ms
reject set --memcg /est-bad --node 1 report_ms N0=5
reject set --memcg /est-bad --node 9 report_ms 5
reject show --memcg /est-bad --node 7
reject show --memcg /nope
reject get --memcg /est-bad
reject watch --memcg /est-bad --count 0
reject frobnicate
# times are bounded so that ms * 10^6 cannot wrap (wsr.h: WSR_MAX_MS)
reject set --memcg /est-bad report_ms 1000000000001
reject set --memcg /est-bad refresh_ms 1000000000001
reject set --memcg /est-bad intervals_ms 1,2,1000000000001
reject daemon --interval-ms 3600001
reject daemon --max-walk-steps 0
info "$n bad inputs rejected"
# and the bound itself is accepted
expect_ok wsr set --memcg /est-bad report_ms 1000000000000
expect_ok wsr set --memcg /est-bad refresh_ms 1000000000000
expect_ok wsr set --memcg /est-bad intervals_ms 1,2,1000000000000
[ "$(wsr get --memcg /est-bad --node 0 report_ms)" = 1000000000000 ] ||
	fail "report_ms at the bound reads back as $(wsr get --memcg /est-bad --node 0 report_ms)"
