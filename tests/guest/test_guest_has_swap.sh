# Swap is on in the guest (MGLRU ages anonymous pages only with swap).
. "$(dirname "$0")/lib.sh"
lines=$(tail -n +2 /proc/swaps | wc -l)
[ "$lines" -ge 1 ] || fail "no swap device in /proc/swaps"
