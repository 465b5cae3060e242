# refresh_ms as the seed's refresh_wss(): a read ages a lruvec only when
# its youngest generation is older than refresh_ms, it has fewer than
# MGLRU's four generations, and its memcg is not below memory.min;
# refresh_ms 0 means reads never age.  Two memcgs under /est-refresh hold
# a workload each on node 0; "prot" has a memory.min above its usage.
. "$(dirname "$0")/lib.sh"
wsr_start
top=$(make_memcg est-refresh)
echo +memory >"$top/cgroup.subtree_control" || fail "cannot enable memory in $top"
free=$(make_memcg est-refresh/free)
prot=$(make_memcg est-refresh/prot)
echo 512M >"$prot/memory.min" || fail "cannot set memory.min"
start_workload --hot 4 --cold 8 --node 0 --cgroup "$free" >/dev/null
start_workload --hot 4 --cold 8 --node 0 --cgroup "$prot" >/dev/null
seq_of() { lru_gen_max_seq "$1" 0; }
nr_gens() { lru_gen_gens "$1" 0 | wc -l; }
# a new lruvec has four generations; reclaim drops the empty old ones
for cg in "$free" "$prot"; do
	echo 1M >"$cg/memory.reclaim" 2>/dev/null
	[ "$(nr_gens "$cg")" -lt 4 ] || fail "setup: $cg still has $(nr_gens "$cg") generations"
done
read_top() { expect_ok wsr show --memcg /est-refresh; }

expect_ok wsr set --memcg /est-refresh refresh_ms 0
f0=$(seq_of "$free") p0=$(seq_of "$prot")
sleep 1.2
read_top
read_top
[ "$(seq_of "$free")" = "$f0" ] || fail "refresh_ms 0: a read aged (max_seq $f0 -> $(seq_of "$free"))"

expect_ok wsr set --memcg /est-refresh refresh_ms 1000
read_top
f1=$(seq_of "$free")
[ "$f1" = $((f0 + 1)) ] || fail "a due lruvec was not aged once (max_seq $f0 -> $f1)"
[ "$(seq_of "$prot")" = "$p0" ] ||
	fail "a memcg below memory.min was aged (max_seq $p0 -> $(seq_of "$prot"))"
read_top
[ "$(seq_of "$free")" = "$f1" ] || fail "a read within refresh_ms of the aging aged again"
sleep 1.2
# youngest older than refresh_ms, but now four generations: not aged
[ "$(nr_gens "$free")" = 4 ] || info "free has $(nr_gens "$free") generations"
read_top
[ "$(nr_gens "$free")" -lt 4 ] || [ "$(seq_of "$free")" = "$f1" ] ||
	fail "a lruvec with four generations was aged (max_seq $f1 -> $(seq_of "$free"))"
echo 0 >"$prot/memory.min"
read_top
[ "$(seq_of "$prot")" = $((p0 + 1)) ] ||
	fail "unprotected, the memcg was not aged (max_seq $p0 -> $(seq_of "$prot"))"
