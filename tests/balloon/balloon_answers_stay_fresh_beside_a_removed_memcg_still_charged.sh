# shellcheck shell=bash
# A balloon answer's data is no older than the device's refresh_ms while
# the guest holds a removed memcg whose page cache is still charged (a
# zombie): nothing outside the kernel can age a zombie on 6.1, and one
# counted in the data age made every answer look stale to the host
# ("wsr-host balance" keeps a guest whose data is older than --max-age-ms).
#
# Alone: vmtests/run-test tests/balloon/balloon_answers_stay_fresh_beside_a_removed_memcg_still_charged.sh
#
# Guest half of balloon_answers_stay_fresh_beside_a_removed_memcg_still_charged:
# 16 MiB of file pages written from a memcg that is then removed (READY
# once the root's cgroup.stat counts it dying), the daemon aging on its
# own; the guest ends once the host's requests are answered.
guest_half() {
	# shellcheck source=../guest/lib.sh
	. /wsr/bin/tests/lib.sh
	# shellcheck source=transport-lib.sh
	. /host/transport-lib.sh

	grep -q " /mnt " /proc/mounts || fail "no disk mounted on /mnt for file pages"
	gone=$(make_memcg fresh_gone)
	sh -c "echo \$\$ >$gone/cgroup.procs && exec dd if=/dev/zero of=/mnt/zombie bs=1M count=16" \
		2>/dev/null || fail "cannot write 16 MiB from $gone"
	rmdir "$gone" || fail "cannot remove $gone"
	dying=$(awk '$1 == "nr_dying_descendants" { print $2 }' /sys/fs/cgroup/cgroup.stat)
	[ "${dying:-0}" -ge 1 ] || fail "no dying memcg after the rmdir: nothing to test"
	start_daemon --own-aging
	mark "READY dying=$dying"
	wait_until 120 ws_at_least answered 4 || fail "the host's 4 requests were not answered: $(ws_state)"
	mark "ANSWERED dying=$(awk '$1 == "nr_dying_descendants" { print $2 }' /sys/fs/cgroup/cgroup.stat)"
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

# The host configures refresh_ms 1000, waits 12 s (data never aged would
# be older than that), then asks 4 times: every answer's data_age_ms is
# at most refresh_ms (docs/balloon.md), with the zombie still there.
test_answers_fresh_beside_zombie() {
	local ages
	guest_start working-set=on,working-set-bins=5 || return
	wait_mark READY 200 || return
	retry 60 host config 1000,2000,4000,8000 1000 0 >/dev/null ||
		{ bad "working-set-config: $retry_err"; return; }
	sleep 12
	timeout 120 "$HOST" --qmp "$G_EVENTS" request --count 4 --timeout-ms 30000 >"$tmp/answers" 2>&1 ||
		{ bad "request --count 4: $(tr '\n' ' ' <"$tmp/answers")"; return; }
	ages=$(sed -n 's/.* data_age_ms=\([0-9]*\).*/\1/p' "$tmp/answers" | tr '\n' ' ')
	echo "    | data ages of 4 answers (ms): $ages" >&2
	[ "$(wc -w <<<"$ages")" = 4 ] || { bad "not 4 answers: $(tr '\n' ' ' <"$tmp/answers")"; return; }
	for a in $ages; do
		[ "$a" -le 1000 ] || { bad "an answer's data is $a ms old, refresh_ms 1000 (answers: $ages)"; return; }
	done
	wait_mark ANSWERED 60 || return
	[ "$(mark_field dying)" -ge 1 ] || { bad "the zombie went before the answers: $MARK"; return; }
	guest_done 60 || return
	guest_errors_none
}

run_test balloon_answers_stay_fresh_beside_a_removed_memcg_still_charged \
	test_answers_fresh_beside_zombie
