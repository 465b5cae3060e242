# Every system call the daemon makes is one that wsr.service's
# SystemCallFilter= allows (its expansion, made on the host by
# vmtests/syscall-filter.sh: the guests boot no systemd): the daemon,
# under strace -f, loads and pins, attaches the balloon's programs where
# the driver has the kfuncs, ages, serves a read and a reclaim report,
# and stops on SIGTERM.
. "$(dirname "$0")/lib.sh"
allowed=/wsr/bin/wsr.service.syscalls
[ -s "$allowed" ] || fail "no $allowed (make all writes it)"
[ -x /usr/bin/strace ] || fail "no /usr/bin/strace in the guest (vmtests/mkinitramfs.sh adds it)"
wsr unload 2>/dev/null
/usr/bin/strace -f -qq -c -o /tmp/calls -- wsr daemon --interval-ms 500 >/tmp/wsrd.log 2>&1 &
S=$!
wait_until 120 grep -q "loaded and pinned" /tmp/wsrd.log ||
	fail "the daemon under strace did not load: $(tr '\n' '|' </tmp/wsrd.log)"
if grep -q ' bpf_virtio_balloon_ws_report[[:space:]]*\[virtio_balloon\]' /proc/kallsyms; then
	wait_until 30 grep -q "balloon programs attached" /tmp/wsrd.log ||
		fail "the balloon's programs not attached under strace: $(tr '\n' '|' </tmp/wsrd.log)"
fi
cg=$(make_memcg syscalls)
echo 24M >"$cg/memory.max"
expect_ok wsr set --memcg /syscalls intervals_ms 1000,10000,60000
expect_ok wsr set --memcg /syscalls report_ms N0=300
wsr show >/dev/null || fail "wsr show failed"
wsr watch --memcg /syscalls --node 0 --count 1 >/tmp/sc.watch 2>&1 &
w=$!
wsr-workload --hot 40 --cold 0 --node 0 --cgroup "$cg" >/dev/null &
load=$!
wait_until 30 sh -c "! kill -0 $w 2>/dev/null" || { kill "$w"; fail "no reclaim report in 30 s"; }
kill "$load"
wait "$load" 2>/dev/null
# the daemon: strace's child (busybox has no pgrep)
D=""
for p in /proc/[0-9]*; do
	read -r pid _ _ ppid _ <"$p/stat" 2>/dev/null || continue
	[ "$ppid" != "$S" ] || D=$pid
done
[ -n "$D" ] || fail "no daemon under strace ($S)"
kill -TERM "$D"
wait "$S"
calls=$(awk 'NR > 2 && $NF ~ /^[a-z_0-9]+$/ && $NF != "total" { print $NF }' /tmp/calls | sort -u)
[ -n "$calls" ] || fail "strace counted no call: $(head -n 5 /tmp/calls | tr '\n' '|')"
bad=""
for c in $calls; do grep -qx "$c" "$allowed" || bad="$bad $c"; done
[ -z "$bad" ] || fail "the daemon made calls that wsr.service's SystemCallFilter= denies:$bad"
info "$(echo "$calls" | wc -l) kinds of system calls, each allowed by wsr.service"
rmdir "$cg" 2>/dev/null
true
