# Without the wsr binary: "cat /sys/fs/bpf/wsr/histogram" prints every
# node's histogram in the seed's format, covering every memcg (its totals
# match lru_gen's), and bpftool dumps the pinned maps with
# their field names.  The CLI prints the knobs as the seed's files do,
# and with --json as one object of strings per node.
. "$(dirname "$0")/lib.sh"
wsr_start
expect_ok wsr set intervals_ms 1000,2000,3000
# node_totals_agree: every node's bins are the seed's, and its pages match
# lru_gen's; prints what differs
node_totals_agree() {
	cat /sys/fs/bpf/wsr/histogram >/tmp/cat || fail "cannot read the pinned histogram"
	for n in 0 1; do
		awk -v n="N$n" '$1 == n { on = 1; next } /^N/ { on = 0 } on' /tmp/cat >/tmp/node$n
		[ "$(awk '{ print $1 }' /tmp/node$n | paste -sd, -)" = 1000,2000,3000,9223372036854775807 ] ||
			fail "node $n: bins are not 1000,2000,3000,9223372036854775807"
		grep -qvE '^[0-9]+ anon=[0-9]+ file=[0-9]+$' /tmp/node$n &&
			fail "node $n: a line not in the seed's format"
		mine=$(( $(hist_sum /tmp/node$n anon 1 4) + $(hist_sum /tmp/node$n file 1 4) ))
		truth=$(awk -v n=$n '$1 == "node" { on = ($2 == n); next } on && NF == 4 { s += $3 + $4 }
			END { print s + 0 }' /sys/kernel/debug/lru_gen)
		# pages come and go between the two reads: 5%, and 64 pages
		# for a node that holds almost nothing
		d=$((mine > truth ? mine - truth : truth - mine))
		[ "$d" -le $((truth / 20 + 64)) ] || { echo "node $n: histogram has $mine pages, lru_gen $truth"; return 1; }
	done
}
# the daemon just started: its own pages move to the unevictable list
# (mlockall) while we read; three tries
tries=0
until node_totals_agree >/tmp/agree; do
	tries=$((tries + 1))
	[ $tries -lt 3 ] || fail "$(cat /tmp/agree)"
	sleep 1
done
info "cat /sys/fs/bpf/wsr/histogram:"; sed 's/^/    /' /tmp/cat
expect_ok wsr set --memcg / report_ms N1=250
[ "$(wsr get report_ms)" = "N0=0 N1=250" ] || fail "get report_ms printed '$(wsr get report_ms)'"
[ "$(wsr get --json report_ms)" = '{"0":"0","1":"250"}' ] ||
	fail "get --json report_ms printed '$(wsr get --json report_ms)'"
[ "$(wsr get --node 0 intervals_ms)" = 1000,2000,3000,9223372036854775807 ] ||
	fail "get --node 0 intervals_ms printed '$(wsr get --node 0 intervals_ms)'"
# what get prints can be written back
expect_ok wsr set intervals_ms "$(wsr get --node 0 intervals_ms)"
bpftool map dump pinned /sys/fs/bpf/wsr/config >/tmp/dump 2>&1 || fail "bpftool cannot dump the config map"
{ grep -q '"intervals_ms"' /tmp/dump && grep -q '"cgroup_id"' /tmp/dump; } ||
	{ head -n 20 /tmp/dump; fail "bpftool dump lacks field names"; }
# --bars, for a person: a header, then one row per bin with its bar
wsr show --node 0 --bars >/tmp/bars || fail "wsr show --bars failed"
info "wsr show --node 0 --bars:"; sed 's/^/    /' /tmp/bars
[ "$(sed -n 1p /tmp/bars | awk '{ print $1, $2, $3 }')" = "idle < ms" ] || fail "--bars: no header"
[ "$(sed 1d /tmp/bars | awk '{ print $1 }' | paste -sd, -)" = 1000,2000,3000,inf ] ||
	fail "--bars: the rows are not the bins 1000,2000,3000,inf"
# (an if: a test's status is its last command's)
if sed 1d /tmp/bars | grep -qvE '^ +([0-9]+|inf) : [0-9]+ +[0-9]+ +\|[*+ ]{40}\|$'; then
	fail "--bars: a row without its bar"
fi
