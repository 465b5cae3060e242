# The ground-truth workload puts its hot and cold pages where the tests
# expect them: in its memcg, on its node, and after two forced agings 1 s
# apart the kernel's own lru_gen shows the cold set in the generations
# older than max_seq - 1 and the hot set in the two youngest (each within
# 10%).
. "$(dirname "$0")/lib.sh"
cg=$(make_memcg gt-workload)
start_workload --hot 32 --cold 64 --node 1 --cgroup "$cg" >/dev/null
sleep 1
lru_gen_age "$cg" 1
sleep 1
lru_gen_age "$cg" 1
sleep 0.3
gens=$(lru_gen_gens "$cg" 1)
info "node 1 generations (seq age_ms anon file):"
echo "$gens" | sed 's/^/    /'
cold=$(echo "$gens" | head -n -2 | awk '{ s += $3 } END { print s + 0 }')
hot=$(echo "$gens" | tail -n 2 | awk '{ s += $3 } END { print s + 0 }')
within_pct "$cold" $((64 * 256)) 10 || fail "old generations hold $cold anon pages, expected 16384"
within_pct "$hot" $((32 * 256)) 10 || fail "two youngest generations hold $hot anon pages, expected 8192"
node0=$(lru_gen_gens "$cg" 0 | awk '{ s += $3 } END { print s + 0 }')
[ "$node0" -lt 256 ] || fail "node 0 holds $node0 anon pages of a workload bound to node 1"
