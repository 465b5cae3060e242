# A reaccess read refreshes as the seed's memory.reaccess.histogram read
# does (wss_refresh()): on a node with intervals_ms, it ages the lruvecs
# due, and that aging is what finds pages accessed again.  With the
# daemon aging nothing on its own (--seed-aging), 16 MiB left idle about
# 3 s and touched again are counted by "wsr reaccess" alone, in the bin
# of the age they had; "--no-refresh" before it counts nothing.
. "$(dirname "$0")/lib.sh"
wsr_start --seed-aging
cg=$(make_memcg est-reaccess-read)
expect_ok wsr set --memcg /est-reaccess-read intervals_ms N0=1000,10000,60000
expect_ok wsr set --memcg /est-reaccess-read refresh_ms N0=500
expect_ok wsr set --memcg /est-reaccess-read reaccess_intervals_ms N0=1000,2000,60000
ready=/tmp/reaccess-read.ready
rm -f "$ready" "$ready.reaccess"
wsr-workload --ready $ready --hot 0 --cold 16 --node 0 --cgroup "$cg" \
	--reaccess-after-ms 3000 >/dev/null &
load=$!
wait_until 60 [ -e $ready ] || fail "the workload did not get ready"
lru_gen_age "$cg" 0	# clears the accessed bits of the fresh pages
# count from now on (new intervals clear what that aging counted)
expect_ok wsr set --memcg /est-reaccess-read reaccess_intervals_ms N0=1000,2000,60000
wait_until 60 [ -e $ready.reaccess ] || fail "the workload did not touch its pages again"
sleep 0.5
wsr reaccess --memcg /est-reaccess-read --node 0 --no-refresh >/tmp/rr0 2>&1 ||
	fail "wsr reaccess --no-refresh failed: $(cat /tmp/rr0)"
none=$(hist_sum /tmp/rr0 anon 1 4)
[ "$none" = 0 ] || fail "$none pages counted before any read aged: something else ages"
wsr reaccess --memcg /est-reaccess-read --node 0 >/tmp/rr 2>&1 || fail "wsr reaccess failed: $(cat /tmp/rr)"
info "reaccess histogram after a refreshing read:"; sed 's/^/    /' /tmp/rr
[ "$(grep -c 'anon=' /tmp/rr)" = 4 ] || fail "wsr reaccess printed no 4 bins: $(cat /tmp/rr)"
mid=$(hist_sum /tmp/rr anon 3 3)
within_pct "$mid" 4096 10 ||
	fail "bin 2000-60000 ms holds $mid reaccessed pages after a refreshing read, expected 4096"
kill "$load"
