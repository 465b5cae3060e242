# A memcg's histogram is hierarchical: on every node, each bin of the
# parent equals the sum of its children's bins plus the parent's own
# pages (which lru_gen shows for the parent's lruvec).  The bins compared
# hold the workloads' anon pages: c1's and the parent's own on node 0,
# c2's on node 1 (all younger than the first bound, 10 minutes).
. "$(dirname "$0")/lib.sh"
wsr_start
p=$(make_memcg est-parent)
# pages charged to the parent itself, left behind when the task moves out
own=$(start_workload --hot 0 --cold 8 --node 0 --cgroup "$p")
echo "$own" >/sys/fs/cgroup/cgroup.procs || fail "cannot move task out of $p"
echo +memory >"$p/cgroup.subtree_control" || fail "cannot enable memory for children"
mkdir -p "$p/c1" "$p/c2"
start_workload --hot 4 --cold 12 --node 0 --cgroup "$p/c1" >/dev/null
start_workload --hot 4 --cold 20 --node 1 --cgroup "$p/c2" >/dev/null
for m in /est-parent /est-parent/c1 /est-parent/c2; do
	expect_ok wsr set --memcg $m intervals_ms 600000,1200000,1800000
	wsr show --memcg $m --no-refresh >"/tmp/h$(echo $m | tr / _)" || fail "wsr show $m failed"
done
for n in 0 1; do
	for t in anon file; do
		col=3; [ $t = file ] && col=4
		ownp=$(lru_gen_gens "$p" $n | awk -v c=$col '{ s += $c } END { print s + 0 }')
		tpar=0 tc1=0 tc2=0
		for b in 1 2 3 4; do
			# node-format line b of node n: skip the "N<n>" header lines
			pick() { awk -v n="N$n" -v b=$b -v t="$t=" '
				$1 ~ /^N[0-9]+$/ { on = ($1 == n); i = 0; next }
				on && ++i == b { for (k = 2; k <= NF; k++) if (index($k, t) == 1) print substr($k, length(t) + 1) }' "$1"; }
			par=$(pick /tmp/h_est-parent)
			c1=$(pick /tmp/h_est-parent_c1)
			c2=$(pick /tmp/h_est-parent_c2)
			{ [ -n "$par" ] && [ -n "$c1" ] && [ -n "$c2" ]; } ||
				fail "node $n bin $b: no $t count from wsr show (parent '$par', c1 '$c1', c2 '$c2')"
			tpar=$((tpar + par)) tc1=$((tc1 + c1)) tc2=$((tc2 + c2))
			[ $b = 1 ] && sum=$((c1 + c2 + ownp)) || sum=$((c1 + c2))
			d=$((par > sum ? par - sum : sum - par))
			[ "$d" -le $((sum / 100 + 16)) ] ||
				fail "node $n $t bin $b: parent $par, children $c1 + $c2 + own $([ $b = 1 ] && echo "$ownp" || echo 0)"
		done
		[ $t = anon ] || continue
		# at least 90% of each workload's MiB, in 4 KiB pages
		case $n in
		0) m1=$((16 * 230)) m2=0 mown=$((8 * 230)) ;;
		*) m1=0 m2=$((24 * 230)) mown=0 ;;
		esac
		info "node $n anon pages: parent $tpar, c1 $tc1, c2 $tc2, own $ownp"
		{ [ "$tc1" -ge $m1 ] && [ "$tc2" -ge $m2 ] && [ "$ownp" -ge $mown ] &&
			[ "$tpar" -ge $((m1 + m2 + mown)) ]; } ||
			fail "node $n anon: parent $tpar, c1 $tc1, c2 $tc2, own $ownp pages; expected at least $((m1 + m2 + mown)), $m1, $m2, $mown"
	done
done
