# shellcheck shell=bash
# An inflation gives the host back the huge pages it takes, even when the
# guest's free memory is mostly holes between pages in use.
#
# Alone: vmtests/run-test tests/balloon/balloon_inflation_returns_whole_huge_pages_to_the_host.sh
#
# Guest half: every page of the guest's free memory is touched once (so
# that the host backs it, in huge pages), then given back; then a
# workload takes 160 MiB and frees every second page of it.  Of the
# guest's free memory, 80 MiB is then single pages between pages in use,
# the rest whole blocks.  The host inflates the balloon by 64 MiB and
# deflates it again (follow_balloon).  One NUMA node, so that the
# balloon takes its pages where the holes are.
HOLES_MIB=160

guest_half() {
	# shellcheck source=../guest/lib.sh
	. /wsr/bin/tests/lib.sh
	# shellcheck source=transport-lib.sh
	. /host/transport-lib.sh
	local fill pid

	fill=$(($(meminfo MemAvailable) / 1024 - 48))
	wsr-workload --hot 0 --cold "$fill" --period-ms 1000 --ready /tmp/fill.ready >/dev/null &
	pid=$!
	wait_until 120 [ -e /tmp/fill.ready ] || fail "the fill of $fill MiB did not get ready"
	kill "$pid"
	wait "$pid"
	wsr-workload --hot 0 --cold "$HOLES_MIB" --cold-holes --period-ms 1000 \
		--ready /tmp/holes.ready >/dev/null &
	pid=$!
	wait_until 60 [ -e /tmp/holes.ready ] || fail "the workload with holes did not get ready"
	total0=$(meminfo MemTotal)
	mark "READY filled=${fill}MiB MemFree=$(meminfo MemFree)kB"
	follow_balloon "$total0"
	kill "$pid"
}
# In the guest, "sh /host/THIS.sh guest ARG..." stops reading this file at
# finish, which exits: what follows is bash, for the host.
[ "${1:-}" != guest ] || { shift; guest_half "$@"; finish; }

# ---- host half: sourced by vmtests/run-test after vmtests/balloon-lib.sh
# shellcheck source=../../vmtests/balloon-lib.sh
[ -n "${BALLOON_LIB:-}" ] || . "$(dirname "${BASH_SOURCE[0]}")/../../vmtests/balloon-lib.sh"

# The host's own memory is the measure: QEMU runs alone in a memory cgroup
# made for it, with the host's transparent huge pages (QEMU asks for them
# on guest RAM).  The cgroup's usage must fall by at least 3/4 of what the
# balloon took, 2 s after the balloon got there, with no reclaim on the
# host.  A balloon that took single pages from the holes gives back none:
# each hole's huge page stays in use, and charged.
test_inflation_returns_huge_pages() {
	local cg thp u0 u1 freed inflate=$((64 << 20))
	thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
	case "$thp" in
	*'[always]'* | *'[madvise]'*) ;;
	*) bad "the host's transparent huge pages are off ('$thp'): this test measures them"; return ;;
	esac
	host_memcg_setup
	cg=$HOST_MEMCG/wsr-thp-$$
	mkdir "$cg" || { bad "cannot make the cgroup $cg"; return; }
	# one node: the balloon's pages come from the node the holes are on
	if guest_start free-page-reporting=off --nodes 1 --node-mem 512 --cgroup "$cg" &&
		wait_mark READY 240; then
		echo "    | $MARK" >&2
		u0=$(cat "$cg/$HOST_MEMCG_USAGE")
		qmp "{\"execute\":\"balloon\",\"arguments\":{\"value\":$((G_RAM - inflate))}}" >/dev/null
		if wait_actual $((G_RAM - inflate)) 120 && wait_mark INFLATED 60; then
			sleep 2
			u1=$(cat "$cg/$HOST_MEMCG_USAGE")
			freed=$(((u0 - u1) >> 20))
			echo "    | the host's cgroup: $((u0 >> 20)) MiB before, $((u1 >> 20)) MiB after;" \
				"$freed MiB of $((inflate >> 20)) back" >&2
			[ $((u0 - u1)) -ge $((inflate * 3 / 4)) ] ||
				bad "the balloon took $((inflate >> 20)) MiB and the host got $freed MiB back (at least $((inflate * 3 / 4 >> 20)) wanted)"
			qmp "{\"execute\":\"balloon\",\"arguments\":{\"value\":$G_RAM}}" >/dev/null
			wait_mark DEFLATED 120 && guest_done 60
		fi
	fi
	guest_stop
	rmdir "$cg" 2>/dev/null
}

run_test balloon_inflation_returns_whole_huge_pages_to_the_host test_inflation_returns_huge_pages
