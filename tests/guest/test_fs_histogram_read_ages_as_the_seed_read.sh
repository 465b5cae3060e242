# A read of memory.wss.histogram under "wsr fs" refreshes as the seed's
# read does (and wsr show): after refresh_ms, written through the mount,
# it ages the memcg's lruvec once (its max_seq in lru_gen, the ground
# truth, goes up by one); a second read within refresh_ms ages nothing.
# The daemon runs with the seed's rules alone (--seed-aging): no aging of
# its own that would move max_seq.
. "$(dirname "$0")/lib.sh"
wsr_start --seed-aging
cg=$(make_memcg fs-refresh)
start_workload --hot 4 --cold 8 --node 0 --cgroup "$cg" >/dev/null
fs_start
H=$FSDIR/fs/cgroup/fs-refresh/memory.wss.histogram
echo N0=1000,2000,4000 >"$FSDIR/fs/cgroup/fs-refresh/memory.wss.intervals_ms" ||
	fail "cannot write memory.wss.intervals_ms"
echo N0=1000 >"$FSDIR/fs/cgroup/fs-refresh/memory.wss.refresh_ms" ||
	fail "cannot write memory.wss.refresh_ms"
s0=$(lru_gen_max_seq "$cg" 0)
is_num "$s0" || fail "no max_seq in lru_gen for $cg: '$s0'"
sleep 1.2
cat "$H" >/tmp/h1 || fail "cat $H failed"
s1=$(lru_gen_max_seq "$cg" 0)
[ "$s1" = $((s0 + 1)) ] || fail "a read after refresh_ms did not age once (max_seq $s0 -> $s1)"
cat "$H" >/tmp/h2 || fail "cat $H failed"
[ "$(lru_gen_max_seq "$cg" 0)" = "$s1" ] ||
	fail "a read within refresh_ms aged again (max_seq $s1 -> $(lru_gen_max_seq "$cg" 0))"
# refresh_ms 0: the node's reads never age (wsr's rule, docs/estimator.md)
echo N0=0 >"$FSDIR/fs/cgroup/fs-refresh/memory.wss.refresh_ms"
sleep 1.2
cat "$H" >/dev/null
[ "$(lru_gen_max_seq "$cg" 0)" = "$s1" ] || fail "refresh_ms 0: a read aged"
info "max_seq $s0 -> $s1 on the first read, unchanged after"
