# shellcheck shell=bash
# wsr's programs load on a guest with 16 NUMA nodes (wsr's most), and an answer has them all.
#
# Alone: vmtests/run-test tests/balloon/balloon_answer_covers_every_node_of_a_16_node_guest.sh
#
# Guest half of balloon_answer_covers_every_node_of_a_16_node_guest: the
# verifier's work on the subtree walk grew with the square of the nodes
# (each node's histogram and lruvec were checked again for every node), so
# a guest with more nodes than the tests' two could fail to load wsr at
# all (16 nodes did: wsr_histogram was refused).  Here the daemon must
# load and serve the balloon on 16 nodes, 14 of them memory alone, and
# "wsr show" must print every node's histogram.
guest_half() {
	# the host asks QEMU nothing after its second configuration, which
	# the guest waits for below: power off at once
	# shellcheck disable=SC2034 # for finish
	FINISH_NOW=1
	# shellcheck source=transport-lib.sh
	. /host/transport-lib.sh

	dev=$(balloon_dev) || fail "no virtio balloon device"
	nodes=$(cat /sys/devices/system/node/possible)
	[ "$nodes" = 0-15 ] || fail "the guest has nodes $nodes, not 0-15"
	wsr daemon 2>/tmp/daemon.log &
	daemon=$!
	# until it serves, or exits: a load the verifier refuses ends it
	wait_until 240 sh -c "grep -q 'serving the balloon' /tmp/daemon.log || ! kill -0 $daemon"
	grep -q "serving the balloon" /tmp/daemon.log ||
		fail "the daemon does not serve the balloon on 16 nodes: $(tr '\n' ' ' </tmp/daemon.log | cut -c1-400)"
	for n in $(seq 0 15); do
		wsr show --node "$n" >/tmp/show 2>&1 || fail "wsr show --node $n: $(head -c 200 /tmp/show)"
		grep -q '[0-9]' /tmp/show || fail "wsr show --node $n printed no bin: $(head -c 200 /tmp/show)"
	done
	# the host configures, requests, reads the answer from QEMU, then
	# configures again: the guest powers off only after that, or the
	# host's read could find QEMU gone ("cannot connect")
	c0=$(ws configs)
	[ -n "$c0" ] || fail "no working_set/configs: $(ws_state)"
	mark READY
	wait_until 120 ws_at_least answered 1 || fail "the request was not answered: $(ws_state)"
	mark ANSWERED
	wait_until 120 ws_at_least configs $((c0 + 2)) ||
		fail "no second configuration, which the host sends once it has read the answer: $(ws_state)"
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

# One answer to a request: QEMU must hold a report of nodes 0 to 15, each
# with the 5 bins configured, and some memory in node 0's.
test_sixteen_nodes() {
	local out nodes bounds want=1000,5000,10000,60000,9223372036854775807
	guest_start working-set=on,working-set-bins=5 --nodes 16 --node-mem 64 --timeout 400 || return
	wait_mark READY 300 || return
	retry 60 host config 1000,5000,10000,60000 1000 1000 >/dev/null ||
		{ bad "working-set-config: $retry_err"; return; }
	timeout 60 "$HOST" --qmp "$G_EVENTS" request --count 1 --timeout-ms 30000 >"$tmp/answer" 2>&1 ||
		{ bad "the request got no answer: $(tail -n 1 "$tmp/answer")"; return; }
	out=$(host show --json 2>"$tmp/show.err") || { bad "wsr-host show: $(head -c 300 "$tmp/show.err")"; return; }
	# the answer is read: the guest may power off once it sees this
	retry 60 host config 1000,5000,10000,60000 1000 1000 >/dev/null ||
		{ bad "the second working-set-config: $retry_err"; return; }
	nodes=$(grep -o '"node-id": *[0-9]*' <<<"$out" | sed 's/.*: *//' | paste -sd,)
	bounds=$(grep -o '"idle-age-ms": *[0-9]*' <<<"$out" | sed 's/.*: *//' | sort -u | paste -sd,)
	[ "$nodes" = "$(seq -s, 0 15)" ] ||
		{ bad "the answer has nodes '$nodes', not 0 to 15: ${out:0:300}"; return; }
	[ "$(tr ',' '\n' <<<"$bounds" | sort -n | paste -sd,)" = "$want" ] ||
		{ bad "the answer's bins are '$bounds', not $want on every node"; return; }
	grep -q '"\(anon\|file\)-bytes": *[1-9]' <<<"$out" ||
		{ bad "no memory in any bin of the answer: ${out:0:300}"; return; }
	wait_mark ANSWERED 60 || return
	guest_done 60
}

run_test balloon_answer_covers_every_node_of_a_16_node_guest test_sixteen_nodes
