# shellcheck shell=bash
# Working set reporting survives a live migration, and a destination with
# other bins refuses it.
#
# Alone: vmtests/run-test tests/balloon/balloon_migration_keeps_working_set_state.sh
#
# Guest half of balloon_migration_keeps_working_set_state: configured and
# asked once, the guest stops its daemon; the host sends a REQUEST, stops
# the VM at once (before the BPF hook answers, 500 ms later), migrates it
# into a file (QMP migrate "exec:cat > FILE"), and vmtests/run --migrate
# starts the destination from it.  The guest, none the wiser, answers on
# the destination; then, its daemon running again, it answers the host's
# next requests and keeps the host's configuration.
guest_half() {
	# shellcheck source=../guest/lib.sh
	. /wsr/bin/tests/lib.sh
	# shellcheck source=transport-lib.sh
	. /host/transport-lib.sh

	# answered_all N: the driver answered N requests and has none waiting
	# shellcheck disable=SC2317 # called by wait_until
	answered_all() { [ "$(ws answered)" = "$1" ] && [ "$(ws requests)" = "$1" ]; }

	start_daemon
	mark READY
	wait_until 120 answered_all 1 || fail "the first request was not answered: $(ws_state)"
	kill -STOP "$daemon" || fail "cannot stop the daemon"
	mark DAEMON-STOPPED
	wait_until 300 answered_all 2 || fail "the request sent before the migration was not answered: $(ws_state)"
	kill -CONT "$daemon" || fail "cannot continue the daemon"
	mark MIGRATED-ANSWERED
	wait_until 120 answered_all 5 || fail "requests after the migration not all answered: $(ws_state)"
	intervals_are 1000,5000,20000,60000 ||
		fail "the host's configuration was not kept: intervals $(ws intervals_ms)"
	[ "$(ws refresh_ms)/$(ws report_ms)" = 0/1000 ] ||
		fail "the host's configuration was not kept: $(ws_state)"
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

# ws_info: the device's guest-working-set property, on one line
ws_info() {
	qmp '{"execute":"qom-get","arguments":{"path":"/machine/peripheral/balloon0","property":"guest-working-set"}}' |
		tr -d ' \n'
}

# migrated: QMP's query-migrate says the migration completed
# shellcheck disable=SC2317 # called by retry-like loops
migrated() { qmp '{"execute":"query-migrate"}' 2>/dev/null | grep -q '"status": *"completed"'; }

# mismatched_destination BINS: a destination QEMU from the source's command
# line with working-set-bins=BINS, no sockets, the disk unlocked (the
# source still has it), loading $tmp/mig; prints what it said
mismatched_destination() {
	local -a cmd out=()
	local a
	eval "cmd=($(cat "$tmp/mig.cmd"))"
	for a in "${cmd[@]}"; do
		case "$a" in
		unix:*) out=("${out[@]:0:${#out[@]}-1}"); continue ;;
		file:*status) a=null ;;
		virtio-balloon-pci,*) a=${a/working-set-bins=5/working-set-bins=$1} ;;
		file=*disk.img,*) a=$a,file.locking=off ;;
		esac
		out+=("$a")
	done
	timeout 60 "${out[@]}" -incoming "exec:cat $tmp/mig" </dev/null 2>&1 | tail -n 5
}

test_migration() {
	local before after events n said
	guest_start working-set=on,working-set-bins=5 --migrate "$tmp/mig" || return
	wait_mark READY 200 || return
	retry 60 host config 1000,5000,20000,60000 0 1000 >/dev/null ||
		{ bad "working-set-config: $retry_err"; return; }
	timeout 60 "$HOST" --qmp "$G_EVENTS" request --count 1 --timeout-ms 30000 >/dev/null 2>"$tmp/req.err" ||
		{ bad "the first request got no answer: $(tail -n 1 "$tmp/req.err")"; return; }
	wait_mark DAEMON-STOPPED 60 || return
	before=$(ws_info)
	case "$before" in *'"nodes":[{'*) ;; *) bad "no report on the source: $before"; return ;; esac
	# the request, then the VM stopped before the hook's answer (500 ms)
	qmp '{"execute":"working-set-request"}' >/dev/null || { bad "working-set-request refused"; return; }
	qmp '{"execute":"stop"}' >/dev/null || { bad "stop refused"; return; }
	qmp "{\"execute\":\"migrate\",\"arguments\":{\"uri\":\"exec:cat > $tmp/mig\"}}" >/dev/null ||
		{ bad "migrate refused"; return; }
	for n in $(seq 1 600); do migrated && break; sleep 0.1; done
	migrated || { bad "the migration did not complete: $(qmp '{"execute":"query-migrate"}' 2>&1 | tr -d '\n')"; return; }
	# a destination with other bins refuses, and says why
	said=$(mismatched_destination 6)
	case "$said" in
	*"working-set-bins=5, this device 6"*) also_verdict balloon_migration_to_other_bins_is_refused ;;
	*) also_verdict balloon_migration_to_other_bins_is_refused \
		"a destination with working-set-bins=6 did not refuse with the reason: $(tr '\n' ' ' <<<"$said")" ;;
	esac
	qmp '{"execute":"quit"}' >/dev/null 2>&1
	# vmtests/run starts the destination on the same sockets; it has
	# loaded the stream when it leaves "inmigrate" (for "paused": the
	# source was stopped)
	for n in $(seq 1 600); do
		sleep 0.1
		qmp '{"execute":"query-status"}' 2>/dev/null | grep -q '"status": *"paused"' && break
	done
	qmp '{"execute":"query-status"}' 2>/dev/null | grep -q '"status": *"paused"' ||
		{ bad "the destination did not load the migration: $(qmp '{"execute":"query-status"}' 2>&1 | tr -d '\n')"; return; }
	after=$(ws_info)
	[ "$after" = "$before" ] ||
		{ bad "the destination's guest-working-set differs: before $before, after $after"; return; }
	"$HOST" --qmp "$G_EVENTS" watch --json >"$tmp/events" 2>&1 &
	events=$!
	sleep 1
	qmp '{"execute":"cont"}' >/dev/null || { bad "cont refused on the destination"; kill "$events"; return; }
	wait_mark MIGRATED-ANSWERED 120 || { kill "$events"; return; }
	sleep 1
	kill "$events"
	n=$(grep -c '"cause": *"request"' "$tmp/events")
	[ "$n" = 1 ] || { bad "$n answers of cause request on the destination, not 1: $(head -c 300 "$tmp/events")"; return; }
	timeout 60 "$HOST" --qmp "$G_EVENTS" request --count 3 --timeout-ms 30000 >/dev/null 2>"$tmp/req.err" ||
		{ bad "requests after the migration: $(tail -n 1 "$tmp/req.err")"; return; }
	guest_done 60
}

run_test balloon_migration_keeps_working_set_state \
	--also balloon_migration_to_other_bins_is_refused \
	test_migration
