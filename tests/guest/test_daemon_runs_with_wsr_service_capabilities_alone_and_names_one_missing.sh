# wsr.service's capabilities suffice and each is needed: the daemon run
# as the unit runs it (root, with the unit's CapabilityBoundingSet and
# AmbientCapabilities and, with NoNewPrivileges=yes, no new privileges;
# the guests boot no systemd, so util-linux's setpriv does what systemd
# would) loads, pins, attaches the balloon's programs and locks itself in
# memory, and what it loaded serves a read and a reclaim report.  With
# any one capability fewer, what needs it fails and the daemon's messages
# name it.  The set is read from the unit that make install writes
# ($(GUEST)/wsr.service, by the same sed as make install), not copied.
. "$(dirname "$0")/lib.sh"
unit=/wsr/bin/wsr.service
# busybox's setpriv, /bin/setpriv, has no --bounding-set
setpriv=/usr/bin/setpriv
[ -r "$unit" ] || fail "no $unit (make all writes it)"
"$setpriv" --help 2>&1 | grep -q -- --bounding-set ||
	fail "$setpriv has no --bounding-set: not util-linux's (vmtests/mkinitramfs.sh adds it)"
key() { sed -n "s/^$1=//p" "$unit"; }
caps=$(key CapabilityBoundingSet)
case "$caps" in
'' | *@* | '~'*) fail "CapabilityBoundingSet='$caps' in $unit: none, not filled in, or a set to drop" ;;
esac
[ "$(key AmbientCapabilities)" = "$caps" ] ||
	fail "AmbientCapabilities='$(key AmbientCapabilities)' is not CapabilityBoundingSet='$caps'"
nnp=""
case "$(key NoNewPrivileges)" in yes | true | on | 1) nnp=--nnp ;; esac
info "wsr.service: $caps${nnp:+, no new privileges}"

# setpriv's list of CAPS (CAP_X ...): -all,+x,...
setpriv_list() {
	local c l=-all
	for c in $1; do
		l=$l,+$(echo "${c#CAP_}" | tr '[:upper:]' '[:lower:]')
	done
	echo "$l"
}
# as_unit CAPS CMD...: CMD with CAPS alone, as the unit starts the daemon
as_unit() {
	local l
	l=$(setpriv_list "$1")
	shift
	# shellcheck disable=SC2086 # $nnp: one option or none
	"$setpriv" --bounding-set "$l" --inh-caps "$l" --ambient-caps "$l" $nnp -- "$@"
}
# without CAP CAPS: CAPS but CAP
without() { echo "$2" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' '; }
has() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }
said() { grep -q "$1" /tmp/caps.log; }
gone() { ! kill -0 "$D" 2>/dev/null; }
# told: TOLD, what the daemon said, and its status if it has exited.  Not
# printed: the status is this shell's to wait for.
told() {
	TOLD=$(tr '\n' '|' </tmp/caps.log)
	if gone; then
		wait "$D"
		TOLD="$TOLD(exited with status $?)"
	fi
}
loaded_or_gone() { said "loaded and pinned" || gone; }
# status FIELD: the daemon's /proc status field (the first word of its value)
status() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$D/status"; }
# daemon CAPS: a fresh daemon with CAPS alone ($D, its messages in
# /tmp/caps.log), once it has loaded or exited.  setpriv itself in the
# background, not as_unit: $! would be the subshell of a function, whose
# capabilities are root's
daemon() {
	local l
	l=$(setpriv_list "$1")
	wsr unload 2>/dev/null
	# emptied here, not only by the daemon's redirection: until a child
	# slow to start (make check's load) had opened it, the last daemon's
	# "loaded and pinned" was read as this one's
	: >/tmp/caps.log
	# shellcheck disable=SC2086 # $nnp: one option or none
	"$setpriv" --bounding-set "$l" --inh-caps "$l" --ambient-caps "$l" $nnp -- \
		wsr daemon --interval-ms 500 >/tmp/caps.log 2>&1 &
	D=$!
	wait_until 60 loaded_or_gone || fail "daemon with $1: neither loaded nor gone in 60 s"
}
stop() {
	kill "$D" 2>/dev/null
	wait "$D" 2>/dev/null
	wsr unload 2>/dev/null
}
trap stop EXIT
# the balloon's kfuncs in a module (our kernel's virtio_balloon, not
# built in as on the debug kernel, nor without them as on Debian's): what
# CAP_SYS_ADMIN is needed for
module=0
! grep -q ' bpf_virtio_balloon_ws_report[[:space:]]*\[virtio_balloon\]' /proc/kallsyms || module=1

# ---- the unit's set ----
daemon "$caps"
said "loaded and pinned" || { told; fail "the daemon with $caps did not load: $TOLD"; }
if [ "$(status CapEff)" != "$(status CapBnd)" ] || [ "$(status CapPrm)" != "$(status CapBnd)" ]; then
	fail "the daemon's capabilities: effective $(status CapEff), permitted $(status CapPrm), bounding $(status CapBnd)"
fi
[ -z "$nnp" ] || [ "$(status NoNewPrivs)" = 1 ] || fail "the daemon may gain privileges (NoNewPrivs $(status NoNewPrivs))"
# the names of what it holds, as setpriv reads them started the same way
held=$(as_unit "$caps" "$setpriv" -d | sed -n 's/^Capability bounding set: //p' | tr ',' '\n' | sort | tr '\n' ' ')
want=$(for c in $caps; do echo "${c#CAP_}" | tr '[:upper:]' '[:lower:]'; done | sort | tr '\n' ' ')
[ "$held" = "$want" ] || fail "started as the unit, a process holds '$held', not '$want'"
[ "$(status VmLck)" -gt 0 ] || fail "the daemon is not locked in memory: $(tr '\n' '|' </tmp/caps.log)"
if [ "$module" = 1 ]; then
	wait_until 20 said "balloon programs attached" ||
		fail "the balloon's programs not attached with $caps: $(tr '\n' '|' </tmp/caps.log)"
fi
if ! wsr show >/tmp/caps.show 2>&1 || ! grep -q anon= /tmp/caps.show; then
	fail "wsr show with the daemon of $caps: $(head -n 3 /tmp/caps.show | tr '\n' '|')"
fi
cg=$(make_memcg caps)
echo 24M >"$cg/memory.max"
expect_ok wsr set --memcg /caps intervals_ms 1000,10000,60000
expect_ok wsr set --memcg /caps report_ms N0=300
wsr watch --memcg /caps --node 0 --count 1 >/tmp/caps.watch 2>&1 &
w=$!
wsr-workload --hot 40 --cold 0 --node 0 --cgroup "$cg" >/dev/null &
load=$!
wait_until 20 sh -c "! kill -0 $w 2>/dev/null" || { kill "$w"; fail "no reclaim report in 20 s"; }
kill "$load"
wait "$load" 2>/dev/null
grep -q '^N0$' /tmp/caps.watch || fail "the reclaim report: $(head -n 3 /tmp/caps.watch | tr '\n' '|')"
info "with $caps: loaded, $(status VmLck) kB locked, $([ "$module" = 1 ] && echo "balloon attached, ")a read and a reclaim report"
stop

# ---- one capability fewer: what needs it fails, and the daemon names it ----
for c in $caps; do
	case "$c" in
	CAP_IPC_LOCK)
		# runs unlocked: mlockall(MCL_FUTURE) under the locked-memory
		# limit would fail its next allocations (the kernel's BTF)
		daemon "$(without "$c" "$caps")"
		said "loaded and pinned" || { told; fail "without $c the daemon did not load: $TOLD"; }
		said "not locked in memory.*$c" || fail "without $c, no word of it: $(tr '\n' '|' </tmp/caps.log)"
		[ "$(status VmLck)" = 0 ] || fail "without $c, $(status VmLck) kB locked"
		;;
	CAP_SYS_ADMIN)
		# libbpf finds the balloon module's kfuncs by BTF id
		if [ "$module" = 0 ]; then
			info "no virtio_balloon module with the kfuncs here: $c not needed, not checked"
			continue
		fi
		daemon "$(without "$c" "$caps")"
		said "loaded and pinned" || { told; fail "without $c the estimator did not load: $TOLD"; }
		wait_until 20 said "cannot load the balloon programs.*$c" ||
			fail "without $c, no word of it: $(tr '\n' '|' </tmp/caps.log)"
		! said "balloon programs attached" || fail "the balloon's programs attached without $c"
		;;
	CAP_BPF | CAP_PERFMON)
		# CAP_SYS_ADMIN allows BPF and tracing too: one fewer of the
		# set that suffices without the balloon module
		daemon "$(without "$c" "$(without CAP_SYS_ADMIN "$caps")")"
		wait_until 10 gone || fail "without $c (and CAP_SYS_ADMIN) the daemon still runs: $(tr '\n' '|' </tmp/caps.log)"
		wait "$D" && fail "without $c the daemon exited with 0: $(tr '\n' '|' </tmp/caps.log)"
		said "not permitted without [A-Z_ ]*$c" || fail "without $c, no word of it: $(tr '\n' '|' </tmp/caps.log)"
		;;
	*)
		fail "wsr.service grants $c: say here what fails without it"
		;;
	esac
	info "without $c: $(grep -m 1 "$c" /tmp/caps.log | cut -c1-150)"
	stop
done
# the reclaim report's memcg, now that no workload holds it
rmdir "$cg" 2>/dev/null
true
