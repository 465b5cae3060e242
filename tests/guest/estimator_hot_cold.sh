# Shared body of the hot/cold ground-truth tests: TYPE is anon or file;
# AGING is "lru_gen" (node 1 only, through debugfs) or "every-node" (node
# 0, then node 1 at once).
# A workload keeps 32 MiB hot and leaves 96 MiB idle on node 1 in its own
# memcg.  After two agings 1.5 s apart the hot pages are one generation
# below the youngest and the cold ones older: with a bin bound at that
# generation boundary, bin 1 must hold the hot set and the older bins the
# cold set, each within 10%, and node 0 must show neither.
. "$(dirname "$0")/lib.sh"
type=$1
aging=${2:-lru_gen}
field=$type
wsr_start
name=est-$type
[ "$aging" = lru_gen ] || name=est-$type-$aging
cg=$(make_memcg "$name")
if [ "$type" = file ]; then
	grep -q " /mnt " /proc/mounts || fail "no disk mounted on /mnt for file pages"
	start_workload --type file --file /mnt/est.dat --hot 32 --cold 96 --node 1 --cgroup "$cg" >/dev/null
else
	start_workload --hot 32 --cold 96 --node 1 --cgroup "$cg" >/dev/null
fi
# the cold generation spans from the workload's start to the first aging:
# make it long next to the few ms that pass between the reads below (1.5 s
# is 30 times the 50 ms the edge allows them; the hot set, touched every
# 100 ms, is touched 15 times between the agings)
age() {
	[ "$aging" = lru_gen ] || lru_gen_age "$cg" 0
	lru_gen_age "$cg" 1
}
sleep 1.5
age
sleep 1.5
age
lru_gen_gens "$cg" 1 >/tmp/gens
# the hot/cold edge: birth age of generation max_seq - 1, plus the time
# the next read takes
edge=$(tail -n 2 /tmp/gens | head -n 1 | awk '{ print $2 + 50 }')
info "generations (seq age_ms anon file):"; sed 's/^/    /' /tmp/gens
expect_ok wsr set --memcg "/$name" intervals_ms "N1=$edge,$((edge + 1000)),$((edge + 2000))"
wsr show --memcg "/$name" --node 1 --no-refresh >/tmp/h1 || fail "wsr show failed"
wsr show --memcg "/$name" --node 0 --no-refresh >/tmp/h0 || fail "wsr show failed"
info "histogram node 1:"; sed 's/^/    /' /tmp/h1
hot=$(hist_sum /tmp/h1 "$field" 1 1)
cold=$(hist_sum /tmp/h1 "$field" 2 4)
other=$(hist_sum /tmp/h0 "$field" 1 4)
within_pct "$hot" 8192 10 || fail "hot bin holds $hot $type pages, expected 8192 (32 MiB)"
within_pct "$cold" 24576 10 || fail "cold bins hold $cold $type pages, expected 24576 (96 MiB)"
[ "$other" -lt 330 ] || fail "node 0 shows $other $type pages of a workload bound to node 1"
