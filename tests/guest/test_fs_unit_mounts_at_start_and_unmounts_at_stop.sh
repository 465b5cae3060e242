# wsr-fs.service's ExecStart and ExecStop, as make install writes them
# ($(GUEST)/wsr-fs.service, by the same sed), run as systemd would run
# them (the guests boot no systemd): ExecStart mounts the seed's files
# on the unit's RuntimeDirectory, which systemd makes first, and serves
# them; ExecStop unmounts it, and the ExecStart process then exits with
# status 0, which systemd takes as a clean stop.  So does SIGTERM, what
# systemd sends a unit's processes left after ExecStop: it unmounts too.
. "$(dirname "$0")/lib.sh"
unit=/wsr/bin/wsr-fs.service
[ -r "$unit" ] || fail "no $unit (make all writes it)"
key() { sed -n "s/^$1=//p" "$unit"; }
start=$(key ExecStart) stop=$(key ExecStop) rundir=/run/$(key RuntimeDirectory)
info "ExecStart=$start ExecStop=$stop RuntimeDirectory=$rundir"
case "$start" in *' '"$rundir") ;; *) fail "ExecStart does not mount on $rundir: '$start'" ;; esac
# the installed program (make install's BINDIR) is the guest's wsr here
bin=${start%% *}
[ -x "$bin" ] || bin=$(command -v wsr)
wsr_start
mkdir -p "$rundir"
# shellcheck disable=SC2086 # the unit's words, as systemd splits them
"$bin" ${start#* } >/tmp/unit.log 2>&1 &
s=$!
FSDIR=$rundir
wait_until 30 fs_mounted || { cat /tmp/unit.log; fail "ExecStart did not mount $rundir in 30 s"; }
[ -r "$rundir/devices/system/node/node0/wss/histogram" ] || fail "no node0/wss/histogram under $rundir"
grep -q '^9223372036854775807 anon=' "$rundir/devices/system/node/node0/wss/histogram" ||
	fail "node0/wss/histogram reads '$(head -c 100 "$rundir/devices/system/node/node0/wss/histogram")'"
sbin=${stop%% *}
[ -x "$sbin" ] || sbin=$(command -v wsr)
# shellcheck disable=SC2086
"$sbin" ${stop#* } || fail "ExecStop '$stop' failed"
fs_mounted && fail "ExecStop left $rundir mounted"
wait_until 10 sh -c "! kill -0 $s 2>/dev/null" || fail "wsr fs still runs 10 s after ExecStop"
wait "$s" || fail "wsr fs exited with status $? after ExecStop: $(cat /tmp/unit.log)"
# SIGTERM, as systemd's stop sends it
# shellcheck disable=SC2086
"$bin" ${start#* } >/tmp/unit.log 2>&1 &
s=$!
wait_until 30 fs_mounted || { cat /tmp/unit.log; fail "ExecStart did not mount $rundir again"; }
kill -TERM "$s"
wait "$s" || fail "wsr fs exited with status $? on SIGTERM: $(cat /tmp/unit.log)"
fs_mounted && fail "SIGTERM left $rundir mounted"
info "'$bin ${start#* }' mounted, served, and left at ExecStop and at SIGTERM"
