#!/usr/bin/env bash
# docs/deploy.md's commands, run (make check): the blocks fenced as
# "```sh tested", in order, as one bash -e -o pipefail script, against a
# libvirtd of the tests' own (vmtests/libvirt-lib.sh) and in its mount
# namespace, where /usr and /etc are read-only, /usr/local and
# /etc/default overlays whose writes land in the test's folder, and
# qemu:///system is the test's daemon (libvirt's sockets in the
# namespace's own /run).  The machine's folders are never written.  Then
# what the page says of those commands: the installed QEMU has the
# device's working-set property, vm1 runs on it, and the dry run named
# vm1 and moved no balloon.  Prints "PASS name" / "FAIL name: reason"
# and "TIME name SECONDS"; exits non-zero if one fails.
#
#   deploy-doc-test.sh [DOC]   (docs/deploy.md by default; a copy, to
#                               see a broken command fail the test)
set -u
. "$(dirname "$0")/lib.sh"
. "$WSR_ROOT/tests/testlib.sh"
. "$WSR_ROOT/vmtests/libvirt-lib.sh"

doc=${1:-$WSR_ROOT/docs/deploy.md}
name=deploy_guide_commands_run_against_libvirt_and_dry_run_moves_no_balloon
t0=$EPOCHREALTIME
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wsr-deploy-doc.XXXXXX")
trap 'lv_stop; rm -rf "$tmp"' EXIT

# the tested blocks, in order, after a trap that names the command that
# failed; an unclosed block is an error
cat >"$tmp/script" <<'EOF'
trap 'echo "deploy-doc: failed in block $(awk -v l="$LINENO" '\''NR <= l && /^# block / { b = $3 } END { print b }'\'' "$0"): $BASH_COMMAND" >&2' ERR
EOF
awk '/^```sh tested$/ { if (on) exit 2; on = 1; n++; print "# block " n; next }
	on && /^```$/ { on = 0; next }
	on { print }
	END { if (on) exit 2 }' "$doc" >>"$tmp/script" ||
	{ verdict "$name" "an unclosed \`\`\`sh tested block in $doc"; exit 1; }
blocks=$(grep -c '^# block ' "$tmp/script")
[ "$blocks" -gt 0 ] || { verdict "$name" "no \`\`\`sh tested block in $doc"; exit 1; }

# the builds this needs are make check's, done before: said, not built
# here (vmtests/build-qemu.sh prints a cached folder at once)
why=""
lv_start >"$tmp/lv-start.out" 2>&1 || why="libvirtd: $(tail -n 3 "$tmp/lv-start.out" | tr '\n' ' ')"
if [ -z "$why" ]; then
	mkdir -p "$LV_DIR"/{ul-upper,ul-work,ed-upper,ed-work} "$tmp/work"
	ln -s "$WSR_ROOT" "$tmp/work/wsr"
	# shellcheck disable=SC2016 # the inner shell's $1
	lv_ns sh -c '
		mount --bind /usr /usr && mount -o remount,bind,ro /usr &&
		mount -t overlay dd-ul -o "lowerdir=/usr/local,upperdir=$1/ul-upper,workdir=$1/ul-work" /usr/local &&
		mount --rbind /etc /etc && mount -o remount,bind,ro /etc &&
		mount -t overlay dd-ed -o "lowerdir=/etc/default,upperdir=$1/ed-upper,workdir=$1/ed-work" /etc/default &&
		mkdir -p /run/libvirt /var/lib/libvirt/images &&
		ln -sf "$1/sock/libvirt-sock" /run/libvirt/libvirt-sock &&
		ln -sf "$1/sock/libvirt-sock-ro" /run/libvirt/libvirt-sock-ro &&
		truncate -s 64M /var/lib/libvirt/images/vm1.raw' dd "$LV_DIR" >"$tmp/ns.out" 2>&1 ||
		why="the namespace's folders: $(tail -n 2 "$tmp/ns.out" | tr '\n' ' ')"
fi
if [ -z "$why" ]; then
	# shellcheck disable=SC2016 # the inner shell's $1 and $2
	lv_ns env -u LIBVIRT_DEFAULT_URI -u DESTDIR -u PREFIX -u BUILD \
		PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin \
		bash -c 'cd "$1" && exec bash -e -o pipefail "$2"' dd "$tmp/work" "$tmp/script" \
		>"$tmp/run.out" 2>&1
	rc=$?
	sed 's/^/  | /' "$tmp/run.out" | tail -n 12
	if [ "$rc" != 0 ]; then
		why="the guide's commands failed (status $rc): $(grep -m1 '^deploy-doc: failed' "$tmp/run.out" ||
			tail -n 3 "$tmp/run.out" | tr '\n' ' ')"
	fi
fi
# what the page says they did
if [ -z "$why" ]; then
	pid=$(lv_qemu_pid vm1)
	exe=$(tr '\0' '\n' <"/proc/${pid:-0}/cmdline" 2>/dev/null | head -n 1)
	log=$tmp/work/dry-run.log
	dec=$(grep -c '^decision .* vm=vm1 .* dry_run=1' "$log" 2>/dev/null)
	actual=$(lv_virsh dommemstat vm1 2>/dev/null | awk '$1 == "actual" { print $2 }')
	if [ "$(lv_virsh domstate vm1 2>/dev/null)" != running ]; then
		why="vm1 is not running: $(lv_virsh domstate vm1 2>&1)"
	elif [ "$exe" != /usr/local/bin/qemu-system-x86_64 ]; then
		why="vm1 runs '$exe', not the installed /usr/local/bin/qemu-system-x86_64"
	elif ! grep -q 'working-set=' "$tmp/run.out"; then
		why="the installed QEMU's balloon showed no working-set property"
	elif [ "${dec:-0}" = 0 ]; then
		why="the dry run made no decision for vm1 with dry_run=1: $(tail -n 3 "$log" 2>/dev/null | tr '\n' ' ')"
	elif grep '^decision ' "$log" | grep -vq ' dry_run=1'; then
		why="a decision of the dry run without dry_run=1: $(grep '^decision ' "$log" | grep -v ' dry_run=1' | head -n 1)"
	elif [ "$actual" != $((1024 << 10)) ]; then
		why="vm1's balloon moved in the dry run: actual ${actual:-unknown} KiB of $((1024 << 10))"
	else
		echo "  | $blocks blocks ran; $dec decisions for vm1 in 20 s, each dry_run=1; vm1's balloon at $actual KiB"
		echo "  | the first: $(grep -m1 '^decision ' "$log" | cut -c1-150)"
	fi
fi
verdict "$name" "$why"
echo "TIME $name $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
[ -z "$why" ]
