# Reaccess: pages found accessed again by an aging walk are counted in the
# reaccess bin of the idle age they had; writing new reaccess intervals
# clears the histogram; before any count it prints the zeroed catch-all,
# as the seed does.
. "$(dirname "$0")/lib.sh"
wsr_start
cg=$(make_memcg est-reaccess)
# before any count, and with no reaccess_intervals_ms: the seed's zeroed catch-all
wsr reaccess --memcg /est-reaccess --node 0 >/tmp/r 2>&1 || fail "wsr reaccess failed: $(cat /tmp/r)"
[ "$(cat /tmp/r)" = "9223372036854775807 anon=0 file=0" ] ||
	fail "wsr reaccess before any count printed: $(cat /tmp/r)"
expect_ok wsr set --memcg /est-reaccess reaccess_intervals_ms N0=1000,2000,60000
ready=/tmp/reaccess.ready
# 48 MiB idle, touched again once 2.5 s after ready
wsr-workload --ready $ready --hot 0 --cold 48 --node 0 --cgroup "$cg" \
	--reaccess-after-ms 2500 >/dev/null &
while [ ! -e $ready ]; do sleep 0.1; done
lru_gen_age "$cg" 0	# clears the accessed bits of the fresh pages
# start counting now (new intervals clear what the first walk counted)
expect_ok wsr set --memcg /est-reaccess reaccess_intervals_ms N0=1000,2000,60000
while [ ! -e $ready.reaccess ]; do sleep 0.1; done
sleep 0.5
lru_gen_age "$cg" 0	# finds all of it accessed again, aged about 3 s
# reaccess_read: the histogram in /tmp/r, its four bins there (an empty
# read would sum to 0)
reaccess_read() {
	wsr reaccess --memcg /est-reaccess --node 0 >/tmp/r 2>&1 || fail "wsr reaccess failed: $(cat /tmp/r)"
	[ "$(grep -c 'anon=' /tmp/r)" = 4 ] || fail "wsr reaccess printed no 4 bins: $(cat /tmp/r)"
}
reaccess_read
info "reaccess histogram:"; sed 's/^/    /' /tmp/r
young=$(hist_sum /tmp/r anon 1 2)
mid=$(hist_sum /tmp/r anon 3 3)
within_pct "$mid" 12288 10 || fail "bin 2000-60000 ms holds $mid reaccessed pages, expected 12288"
[ "$young" -lt 1229 ] || fail "$young pages counted as reaccessed younger than 2 s"
expect_ok wsr set --memcg /est-reaccess reaccess_intervals_ms N0=1000,2000,60000
reaccess_read
total=$(hist_sum /tmp/r anon 1 4)
[ "$total" = 0 ] || fail "new reaccess intervals left $total pages counted"
