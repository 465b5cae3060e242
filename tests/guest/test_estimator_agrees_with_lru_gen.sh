# With bin bounds at the generation boundaries that the kernel's own
# /sys/kernel/debug/lru_gen shows, each bin holds exactly one generation:
# read back to back, they agree up to the pages that moved in between and
# the few ms that passed (5% of the total, plus 64 pages).
. "$(dirname "$0")/lib.sh"
wsr_start
cg=$(make_memcg est-lrugen)
start_workload --hot 16 --cold 48 --node 0 --cgroup "$cg" >/dev/null
for i in 1 2 3; do
	sleep 2
	lru_gen_age "$cg" 0
done
lru_gen_gens "$cg" 0 >/tmp/gens
info "generations (seq age_ms anon file):"; sed 's/^/    /' /tmp/gens
[ "$(wc -l </tmp/gens)" = 4 ] || fail "expected 4 generations after 3 agings"
# youngest first; each generation's birth age bounds its bin
bounds=$(tac /tmp/gens | head -n 3 | awk '{ print $2 }' | paste -sd, -)
expect_ok wsr set --memcg /est-lrugen intervals_ms "N0=$bounds"
wsr show --memcg /est-lrugen --node 0 --no-refresh >/tmp/h || fail "wsr show failed"
info "histogram with bounds $bounds:"; sed 's/^/    /' /tmp/h
total=$(awk '{ s += $3 + $4 } END { print s }' /tmp/gens)
slack=$((total / 20 + 64))
i=1
tac /tmp/gens | while read -r seq age anon file; do
	a=$(hist_sum /tmp/h anon $i $i)
	f=$(hist_sum /tmp/h file $i $i)
	d=$((a > anon ? a - anon : anon - a))
	[ "$d" -le "$slack" ] || fail "bin $i: anon=$a, generation $seq has $anon (slack $slack)"
	d=$((f > file ? f - file : file - f))
	[ "$d" -le "$slack" ] || fail "bin $i: file=$f, generation $seq has $file (slack $slack)"
	i=$((i + 1))
done || exit 1
