# bpffs lets anyone create folders (mode 1777): wsr refuses a pin folder
# that is not a real folder owned by root with no group or other access,
# and leaves nothing in it.
. "$(dirname "$0")/lib.sh"
wsr unload 2>/dev/null
# refused DIR WHAT: "wsr daemon" on DIR exits at once with an error (a
# daemon that took the folder would run on until timeout's status:
# coreutils' 124, busybox's 143)
refused() {
	timeout 10 wsr --pin-dir "$1" daemon >/tmp/pin.out 2>&1
	rc=$?
	{ [ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$rc" != 143 ]; } ||
		fail "the daemon used $2 $1 (status $rc)"
}
for mode in 1777 0770 0755; do
	d=/sys/fs/bpf/wsr-evil-$mode
	{ mkdir -p "$d" && chmod "$mode" "$d"; } || fail "cannot make $d"
	refused "$d" "a folder of mode $mode"
	grep -q "refusing\|write" /tmp/pin.out || fail "no clear error for mode $mode: $(cat /tmp/pin.out)"
	[ -z "$(ls -A "$d")" ] || fail "pins left in $d: $(ls "$d")"
	if wsr --pin-dir "$d" show >/tmp/pin.out 2>&1; then fail "show used $d (mode $mode)"; fi
	rmdir "$d"
done
d=/sys/fs/bpf/wsr-evil-owner
{ mkdir -p "$d" && chown 1000 "$d" && chmod 0700 "$d"; } || fail "cannot make $d"
refused "$d" "a folder of uid 1000"
grep -q "uid 1000" /tmp/pin.out || fail "no clear error for uid 1000: $(cat /tmp/pin.out)"
rmdir "$d"
# a symlink to a folder wsr would take (root's, mode 0700): refused for
# being a symlink, and nothing pinned through it
d=/sys/fs/bpf/wsr-link-target
{ mkdir -p "$d" && chmod 0700 "$d"; } || fail "cannot make $d"
ln -s "$d" /tmp/wsr-link || fail "cannot make the symlink /tmp/wsr-link"
refused /tmp/wsr-link "a symlink"
grep -q "is a symlink" /tmp/pin.out || fail "no clear error for a symlink: $(cat /tmp/pin.out)"
[ -z "$(ls -A "$d")" ] || fail "pins left in $d through the symlink: $(ls "$d")"
rm -f /tmp/wsr-link
rmdir "$d"
