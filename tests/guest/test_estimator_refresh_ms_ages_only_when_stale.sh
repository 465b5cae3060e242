# refresh_ms: a read ages the memcg's lruvecs first (max_seq grows) only
# when its last report is older than refresh_ms; 0 ages on every read.
. "$(dirname "$0")/lib.sh"
wsr_start
cg=$(make_memcg est-refresh)
start_workload --hot 4 --cold 8 --node 0 --cgroup "$cg" >/dev/null
seq_now() { lru_gen_max_seq "$cg" 0; }
expect_ok wsr set --memcg /est-refresh refresh_ms 4000
s0=$(seq_now)
expect_ok wsr show --memcg /est-refresh
s1=$(seq_now)
[ "$s1" -gt "$s0" ] || fail "first read did not age (max_seq $s0 -> $s1)"
expect_ok wsr show --memcg /est-refresh
s2=$(seq_now)
[ "$s2" = "$s1" ] || fail "read within refresh_ms aged (max_seq $s1 -> $s2)"
sleep 4.5
expect_ok wsr show --memcg /est-refresh
s3=$(seq_now)
[ "$s3" -gt "$s2" ] || fail "read after refresh_ms did not age (max_seq $s2 -> $s3)"
expect_ok wsr set --memcg /est-refresh refresh_ms 0
expect_ok wsr show --memcg /est-refresh
expect_ok wsr show --memcg /est-refresh
s4=$(seq_now)
[ "$s4" -ge $((s3 + 2)) ] || fail "refresh_ms 0: two reads aged $((s4 - s3)) times, expected 2"
