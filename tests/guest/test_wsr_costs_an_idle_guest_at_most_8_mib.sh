# On an idle guest with a handful of memcgs, wsr (its maps, programs and
# the daemon with what it locks) takes at most 8 MiB of MemAvailable: the
# median of three loads, each measured from "wsr unload" to the daemon
# loaded, caches dropped before each reading.  Preallocated maps took 33
# MiB; this tree's loads took 3.4 to 6.5 MiB on our kernel under TCG
# (medians 4.5 and 4.9), above issue 50's 4 MiB, which this bound does
# not claim.  Another BPF user's JIT program is pinned first, as a
# guest's systemd has one: the JIT's first program takes a 2 MiB pack
# that every later one shares, and that pack is not wsr's
# (docs/estimator.md, "What wsr costs a guest").
. "$(dirname "$0")/lib.sh"
foe=/sys/fs/bpf/memcost-foe
trap 'kill $WSRD 2>/dev/null; rm -f $foe' EXIT
wsr unload 2>/dev/null
rm -f "$foe"
wsr-pin-foe jit "$foe" || fail "cannot pin another BPF user's program"
lost=""
for run in 1 2 3; do
	before=$(avail)
	vm0=$(kib VmallocUsed) slab0=$(kib Slab) pcpu0=$(kib Percpu)
	WSRD_PERIOD=default wsr_start
	wait_until 60 grep -q 'loaded and pinned' /tmp/wsrd.log ||
		fail "no load: $(cat /tmp/wsrd.log)"
	# the balloon's programs, if any, attach after the load
	sleep 5
	after=$(avail)
	rss=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$WSRD/status")
	{ is_num "$before" && is_num "$after"; } || fail "no MemAvailable: '$before' '$after'"
	l=$((before - after))
	info "load $run: MemAvailable lost $l KiB (vmalloc $(($(kib VmallocUsed) - vm0)), slab" \
		"$(($(kib Slab) - slab0)), percpu $(($(kib Percpu) - pcpu0)) KiB; daemon RSS $rss KiB)"
	lost="$lost $l"
	kill "$WSRD"
	wait "$WSRD" 2>/dev/null
	wsr unload || fail "wsr unload failed"
done
median=$(echo "$lost" | tr ' ' '\n' | grep . | sort -n | sed -n 2p)
info "MemAvailable lost: median $median KiB of$lost"
[ "$median" -le 8192 ] || fail "wsr took $median KiB of MemAvailable (median of$lost), more than 8 MiB"
