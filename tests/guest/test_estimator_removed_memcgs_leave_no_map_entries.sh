# A memcg that goes away takes its entries with it: 60 memcgs, each
# configured (knobs), read (live histograms), reported on (reclaim within
# its limit) and aged (kept parts of its generations), then removed, leave
# every map with the entries it had before they were made.
. "$(dirname "$0")/lib.sh"
wsr_start
maps="config reports live reaccess vgens"
# count MAP: "key" fields of a pinned map's dump (bpftool prints each
# entry's key raw and formatted: twice the entries, before as after)
count() {
	bpftool -j map dump pinned "/sys/fs/bpf/wsr/$1" 2>/tmp/bt.err | grep -o '"key":' | wc -l
}
# reports made on reclaim: entries whose seq moved (wsr set makes a
# memcg's entries, with no report yet, when it sets report_ms)
made() {
	bpftool -j map dump pinned /sys/fs/bpf/wsr/reports 2>/tmp/bt.err | grep -o '"seq":[1-9]' | wc -l
}
before=""
for m in $maps; do before="$before $m=$(count "$m")"; done
made_before=$(made)
info "before:$before"
for i in $(seq 1 60); do
	d=$(make_memcg "est-gone$i")
	expect_ok wsr set --memcg "/est-gone$i" intervals_ms 1000,2000,4000
	expect_ok wsr set --memcg "/est-gone$i" report_ms 100
	expect_ok wsr set --memcg "/est-gone$i" refresh_ms 1
	[ "$i" -gt 3 ] || echo 8M >"$d/memory.max"
done
# three of them under their limit: reclaim reports and agings
pids=""
for i in 1 2 3; do
	wsr-workload --hot 12 --cold 0 --period-ms 50 --cgroup "/sys/fs/cgroup/est-gone$i" >/dev/null &
	pids="$pids $!"
done
# n_of MAP LIST: MAP's count in LIST ("map=n ...")
n_of() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# until their reclaim has made reports and the daemon has aged them (30 s
# at most; a fixed 3 s before)
# shellcheck disable=SC2317 # called by wait_until
reported_and_aged() {
	[ "$(made)" -ge $((made_before + 3)) ] &&
		[ "$(count vgens)" -gt "$(n_of vgens "$before")" ]
}
wait_until 30 reported_and_aged ||
	fail "no reports or agings of the three under their limit: reports made $(made) ($made_before before), vgens $(count vgens);$before"
for i in $(seq 1 60); do
	wsr show --memcg "/est-gone$i" >/dev/null || fail "wsr show of /est-gone$i failed"
done
during=""
for m in $maps; do during="$during $m=$(count "$m")"; done
info "with the 60:$during"
# shellcheck disable=SC2086 # one word per pid
kill $pids
# shellcheck disable=SC2086
wait $pids 2>/dev/null
# more_by MAP N: MAP had at least N more entries with the 60 memcgs
more_by() {
	local n b
	n=$(n_of "$1" "$during")
	b=$(n_of "$1" "$before")
	[ "$n" -ge $((b + $2)) ] || fail "$1 has $n entries with the 60 memcgs, $b before: nothing to remove"
}
more_by config 60
more_by live 60
more_by reports 3
for i in $(seq 1 60); do rmdir "/sys/fs/cgroup/est-gone$i" || fail "cannot remove est-gone$i"; done
after=""
for m in $maps; do after="$after $m=$(count "$m")"; done
info "after:$after"
[ "$after" = "$before" ] || fail "entries before:$before, after removing the 60:$after"
