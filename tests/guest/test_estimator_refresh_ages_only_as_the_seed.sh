# Seed rules alone: wsr daemon --seed-aging (no aging of its own, no hooks
# that keep merged generations' ages).
# refresh_ms as the seed's refresh_wss(): a read ages a lruvec only when
# its youngest generation is older than refresh_ms, it has fewer than
# MGLRU's four generations (empty ones at the old end, which MGLRU drops
# only on eviction, do not count), and its memcg is not below memory.min;
# refresh_ms 0 means reads never age.  Two memcgs under /est-refresh hold
# a workload each on node 0; "prot" has a memory.min above its usage.
. "$(dirname "$0")/lib.sh"
wsr_start --seed-aging
# the seed has nothing that keeps merged generations' ages
for l in link_aging_begin link_aging_end; do
	[ ! -e /sys/fs/bpf/wsr/$l ] || fail "--seed-aging attached the aging hook $l"
done
top=$(make_memcg est-refresh)
echo +memory >"$top/cgroup.subtree_control" || fail "cannot enable memory in $top"
free=$(make_memcg est-refresh/free)
prot=$(make_memcg est-refresh/prot)
echo 512M >"$prot/memory.min" || fail "cannot set memory.min"
start_workload --hot 4 --cold 8 --node 0 --cgroup "$free" >/dev/null
start_workload --hot 4 --cold 8 --node 0 --cgroup "$prot" >/dev/null
seq_of() { lru_gen_max_seq "$1" 0; }
# full PATH: four generations and pages in the oldest
full() {
	lru_gen_gens "$1" 0 | awk 'NR == 1 { old = $3 + $4 } END { exit !(NR >= 4 && old > 0) }'
}
read_top() { expect_ok wsr show --memcg /est-refresh; }

expect_ok wsr set --memcg /est-refresh refresh_ms 0
f0=$(seq_of "$free") p0=$(seq_of "$prot")
# numbers, or every "not aged" below would compare two empty reads
{ is_num "$f0" && is_num "$p0"; } || fail "no max_seq in lru_gen for the memcgs: '$f0' '$p0'"
sleep 1.2
read_top
read_top
[ "$(seq_of "$free")" = "$f0" ] || fail "refresh_ms 0: a read aged (max_seq $f0 -> $(seq_of "$free"))"

expect_ok wsr set --memcg /est-refresh refresh_ms 1000
read_top
f1=$(seq_of "$free")
[ "$f1" = $((f0 + 1)) ] || fail "a due lruvec was not aged once (max_seq $f0 -> $f1)"
read_top
[ "$(seq_of "$free")" = "$f1" ] || fail "a read within refresh_ms of the aging aged again"
# each read after refresh_ms ages until the oldest generation holds pages
i=0
while ! full "$free" && [ $i -lt 6 ]; do
	sleep 1.1
	read_top
	i=$((i + 1))
done
info "after $i more reads: max_seq $(seq_of "$free"), generations (seq age_ms anon file):"
lru_gen_gens "$free" 0 | sed 's/^/    /'
full "$free" || fail "never reached four generations with pages in the oldest"
f2=$(seq_of "$free")
sleep 1.1
read_top
[ "$(seq_of "$free")" = "$f2" ] ||
	fail "aged although that merges a generation holding pages (max_seq $f2 -> $(seq_of "$free"))"
[ "$(seq_of "$prot")" = "$p0" ] ||
	fail "a memcg below memory.min was aged (max_seq $p0 -> $(seq_of "$prot"))"
echo 0 >"$prot/memory.min"
read_top
[ "$(seq_of "$prot")" = $((p0 + 1)) ] ||
	fail "unprotected, the memcg was not aged (max_seq $p0 -> $(seq_of "$prot"))"
