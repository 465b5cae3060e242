# Writes to "wsr fs"'s files that the seed refuses are refused with the
# seed's errno (write(2) as its users make it, by wsr-fs-user): EINVAL
# for a malformed value, a node without memory or a memcg value without
# its node; ERANGE for too many or too few intervals and numbers past
# their bound (the node files' report_ms and refresh_ms say EINVAL of
# any refused number, as their kstrtouint store does); EACCES for a
# histogram, which has no write.  None of them changes what wsr get reads
# (the pinned maps); a good write does.
. "$(dirname "$0")/lib.sh"
wsr_start
make_memcg fs-bad >/dev/null
fs_start
N=$FSDIR/devices/system/node/node0/wss
M=$FSDIR/fs/cgroup/fs-bad
knobs() {
	for k in intervals_ms report_ms refresh_ms; do wsr get --node 0 "$k"; done
	for k in intervals_ms report_ms refresh_ms reaccess_intervals_ms; do
		wsr get --memcg /fs-bad "$k"
	done
}
expect_ok wsr set --node 0 intervals_ms 1000,2000,4000
expect_ok wsr set --memcg /fs-bad report_ms N0=700
before=$(knobs)
bad=0
# expect ERRNO FILE VALUE
expect() {
	local got
	got=$(wsr-fs-user write "$2" "$3")
	[ "$got" = "$1" ] && return 0
	echo "  '$3' > ${2#"$FSDIR"/}: $got, the seed's $1"
	bad=$((bad + 1))
}
expect EINVAL "$N/report_ms" abc
expect EINVAL "$N/report_ms" -1
expect EINVAL "$N/report_ms" 99999999999999999999
expect EINVAL "$N/refresh_ms" 10s
expect EINVAL "$N/intervals_ms" 3000,2000,1000
expect EINVAL "$N/intervals_ms" 1000,x,3000
expect ERANGE "$N/intervals_ms" 1000,2000
expect ERANGE "$N/intervals_ms" 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16
expect ERANGE "$N/intervals_ms" 1,2,99999999999999999999
expect EACCES "$N/histogram" 1000
expect EINVAL "$M/memory.wss.report_ms" 1000
expect EINVAL "$M/memory.wss.report_ms" N7=1000
expect EINVAL "$M/memory.wss.report_ms" N0=abc
expect EINVAL "$M/memory.wss.report_ms" X0=1000
expect ERANGE "$M/memory.wss.report_ms" N0=99999999999999999999
expect ERANGE "$M/memory.wss.refresh_ms" N1=99999999999999999999
expect EINVAL "$M/memory.wss.intervals_ms" N0=3,2,1
expect ERANGE "$M/memory.wss.intervals_ms" N0=1,2
expect ERANGE "$M/memory.reaccess.intervals_ms" N1=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16
expect EACCES "$M/memory.wss.histogram" N0=1
expect EACCES "$M/memory.reaccess.histogram" N0=1
[ "$bad" = 0 ] || fail "$bad writes not refused with the seed's errno"
after=$(knobs)
[ "$before" = "$after" ] || fail "refused writes changed the knobs: '$before' -> '$after'"
# and a good one changes exactly what it says
expect ok "$M/memory.wss.report_ms" N1=900
[ "$bad" = 0 ] || fail "a good write refused"
[ "$(wsr get --memcg /fs-bad report_ms)" = "N0=700 N1=900" ] ||
	fail "N1=900 stored as '$(wsr get --memcg /fs-bad report_ms)'"
