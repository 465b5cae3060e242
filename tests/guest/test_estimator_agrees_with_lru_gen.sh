# With bin bounds at the generation boundaries that the kernel's own
# /sys/kernel/debug/lru_gen shows, each bin holds exactly one generation:
# read back to back, they agree up to the pages that moved in between and
# the few ms that passed (5% of the total, plus 64 pages).
. "$(dirname "$0")/lib.sh"
wsr_start
cg=$(make_memcg est-lrugen)
start_workload --hot 16 --cold 48 --node 0 --cgroup "$cg" >/dev/null
# generations 1.5 s apart: more than the time between the two reads
# below (a "wsr set" and a "wsr show" under TCG), by which each
# generation is older than its bound
for i in 1 2 3; do
	sleep 1.5
	lru_gen_age "$cg" 0
done
lru_gen_gens "$cg" 0 >/tmp/gens
info "generations (seq age_ms anon file):"; sed 's/^/    /' /tmp/gens
[ "$(wc -l </tmp/gens)" = 4 ] || fail "expected 4 generations after 3 agings"
# The generations, youngest first, span the ages [0, a(max)], [a(max),
# a(max-1)], ... where a(s) is the age of generation s's birth.  Just after
# an aging the youngest is empty, so bins bounded by a(max-1), a(max-2),
# a(max-3) hold: generations max and max-1, then max-2, then max-3.
bounds=$(tac /tmp/gens | sed -n 2,4p | awk '{ print $2 }' | paste -sd, -)
expect_ok wsr set --memcg /est-lrugen intervals_ms "N0=$bounds"
wsr show --memcg /est-lrugen --node 0 --no-refresh >/tmp/h || fail "wsr show failed"
info "histogram with bounds $bounds:"; sed 's/^/    /' /tmp/h
total=$(awk '{ s += $3 + $4 } END { print s }' /tmp/gens)
slack=$((total / 20 + 64))
# expected per bin: "anon file" of the generations it covers
tac /tmp/gens | awk 'NR <= 2 { a += $3; f += $4; next } NR == 3 { print a, f }
	NR >= 3 { print $3, $4 } END { print 0, 0 }' >/tmp/want
i=1
while read -r anon file; do
	a=$(hist_sum /tmp/h anon $i $i)
	f=$(hist_sum /tmp/h file $i $i)
	d=$((a > anon ? a - anon : anon - a))
	[ "$d" -le "$slack" ] || fail "bin $i: anon=$a, lru_gen has $anon (slack $slack)"
	d=$((f > file ? f - file : file - f))
	[ "$d" -le "$slack" ] || fail "bin $i: file=$f, lru_gen has $file (slack $slack)"
	i=$((i + 1))
done </tmp/want
[ "$i" = 5 ] || fail "compared $((i - 1)) bins, expected 4"
