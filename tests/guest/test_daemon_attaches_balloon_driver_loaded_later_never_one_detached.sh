# The daemon attaches the balloon programs when virtio_balloon is loaded
# after it started, not only at its start; "wsr balloon detach" stays
# detached (for an rmmod) until the module is loaded again, even for a
# daemon started after the detach (whose attach is the same automatic one
# as an attach the daemon began just before a detach); "wsr balloon
# attach" attaches; "wsr balloon --json" says which.  Patched kernel only:
# the stock driver has no working-set kfuncs.
. "$(dirname "$0")/lib.sh"
ko=$(find /lib/modules -name virtio_balloon.ko | head -n 1)
[ -n "$ko" ] || fail "no virtio_balloon.ko in the guest"
link=/sys/fs/bpf/wsr/link_balloon_reclaim
wsr unload 2>/dev/null
[ ! -e /sys/module/virtio_balloon ] || rmmod virtio_balloon || fail "cannot rmmod virtio_balloon"
wsr_start
sleep 1
[ ! -e "$link" ] || fail "balloon programs attached without the driver"
insmod "$ko" || fail "insmod $ko failed"
wait_link() {
	i=0
	while [ ! -e "$link" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$link" ]
}
wait_link || fail "the daemon did not attach within 10 s of insmod: $(cat /tmp/wsrd.log)"
grep -q "virtio_balloon loaded" /tmp/wsrd.log || fail "the daemon did not say it attached"
# "wsr balloon --json" (json-c): one line, one object, attached or not
balloon_json() {
	out=$(wsr balloon --json) || fail "wsr balloon --json failed"
	[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "wsr balloon --json: not one line: $out"
	case "$out" in
	'{"device":'*',"attached":'"$1"','*'"reclaim_passes":'*',"last_report":{"sent":'*',"histograms":['*']}}') ;;
	*) fail "wsr balloon --json, attached $1: $out" ;;
	esac
}
balloon_json true
expect_ok wsr balloon detach
sleep 1.5
[ ! -e "$link" ] || fail "the daemon attached again after wsr balloon detach"
balloon_json false
rmmod virtio_balloon || fail "rmmod after detach failed"
insmod "$ko" || fail "insmod $ko failed again"
wait_link || fail "the daemon did not attach to the reloaded driver"

# A daemon started after a detach leaves the same driver detached, and
# rmmod works; "wsr balloon attach" attaches it and drops the record.
expect_ok wsr balloon detach
kill "$WSRD"
wait "$WSRD" 2>/dev/null
wsr daemon --interval-ms 500 >/tmp/wsrd2.log 2>&1 &
WSRD=$!
i=0
while ! grep -q "left detached" /tmp/wsrd2.log && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
grep -q "left detached" /tmp/wsrd2.log ||
	fail "the daemon started after a detach did not say it left the driver detached: $(cat /tmp/wsrd2.log)"
sleep 1
[ ! -e "$link" ] || fail "a daemon started after wsr balloon detach attached the driver again"
expect_ok wsr balloon attach
[ -e "$link" ] || fail "wsr balloon attach did not attach"
ls -d /sys/fs/bpf/wsr/balloon-detached-* 2>/dev/null &&
	fail "the detach record stays after wsr balloon attach"
# and the record of a detached instance does not hold back the next one
expect_ok wsr balloon detach
rmmod virtio_balloon || fail "rmmod after the second detach failed"
insmod "$ko" || fail "insmod $ko failed a third time"
wait_link || fail "the daemon did not attach to the driver loaded after a detach: $(cat /tmp/wsrd2.log)"
