#!/usr/bin/env bash
# make install, make uninstall and the systemd units (make check):
# installs into scratch DESTDIRs only, and checks what make install would
# build from clean (no kernel, no set-up), what lands there, that
# ARCHITECTURE.md's libwsr example builds against the installed libwsr
# with pkg-config, that uninstall takes it all away, and that both units
# pass systemd-analyze verify.  No guest.  Prints "PASS name" /
# "FAIL name: reason"; exits non-zero if one fails.
set -u
. "$(dirname "$0")/lib.sh"
. "$WSR_ROOT/tests/testlib.sh"
BUILD=${BUILD:-$WSR_ROOT/build}
failed=0

check() {
	verdict "$1" "${2:-}"
	[ -z "${2:-}" ] || failed=$((failed + 1))
}

d=$(mktemp -d "${TMPDIR:-/tmp}/wsr-install.XXXXXX")
trap 'rm -rf "$d"' EXIT
# what a package build runs: PREFIX as installed, DESTDIR the staging
# tree ($d/root, or the one given)
make_install() {
	make -s -C "$WSR_ROOT" BUILD="$BUILD" DESTDIR="${1:-$d/root}" PREFIX=/usr install >"$d/make.out" 2>&1
}

# make install from a clean build folder builds only what it installs:
# make's plan (-n) for an empty BUILD runs no set-up, builds no kernel,
# makes no uapi header from the kernel's source, reads nothing in the
# cache, and writes only the objects of wsr, wsr-host and libwsr
why=""
if ! make -n -C "$WSR_ROOT" BUILD="$d/fresh" DESTDIR="$d/plan" PREFIX=/usr install >"$d/plan.out" 2>&1; then
	why="make -n install: $(tail -n 2 "$d/plan.out" | tr '\n' ' ')"
elif grep -qE 'setup-host|build-kernel|uapi-header|kernel\.path|linux-source' "$d/plan.out" ||
	grep -qF "$WSR_CACHE" "$d/plan.out"; then
	why="install's plan sets up or builds a kernel: $(grep -E 'setup-host|build-kernel|uapi-header|kernel\.path|linux-source' "$d/plan.out" | head -n 3 | tr '\n' ' ')"
else
	# every file the plan writes in the build folder
	extra=$(grep -oE "(-o |>)$d/fresh/[^ ;\"']+" "$d/plan.out" | sed "s|^.*$d/fresh/||" | sort -u |
		grep -vxE 'obj/(loader|host)/[a-z/-]+\.o|libwsr\.a|(wsr|balloon)\.(bpf\.o|skel\.h)|guest/wsr|wsr-host|uapi/virtio_balloon_ws\.h\.tmp' |
		tr '\n' ' ')
	[ -z "$extra" ] || why="install builds what it does not install: $extra"
	grep -q -- "-o $d/fresh/guest/wsr " "$d/plan.out" || why="${why}no link of wsr in the plan"
fi
check make_install_builds_no_kernel_and_runs_no_setup "$why"

# everything lands under DESTDIR, where PREFIX says, and runs from there;
# the units name the installed paths, not DESTDIR's
want="etc/default/wsr-host-balance
usr/bin/wsr
usr/bin/wsr-host
usr/include/wsr/libwsr.h
usr/include/wsr/virtio_balloon_ws.h
usr/include/wsr/wsr.h
usr/lib/libwsr.a
usr/lib/pkgconfig/libwsr.pc
usr/lib/systemd/system/wsr-fs.service
usr/lib/systemd/system/wsr-host-balance.service
usr/lib/systemd/system/wsr.service
usr/share/doc/wsr/wsr-host-balance.txt
usr/share/doc/wsr/wsr-host.txt
usr/share/doc/wsr/wsr.txt"
why=""
if ! make_install; then
	why="make install: $(tail -n 2 "$d/make.out" | tr '\n' ' ')"
elif [ "$(cd "$d/root" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)" != "$want" ]; then
	why="installed files: $(cd "$d/root" && find . -type f | tr '\n' ' ')"
elif ! "$d/root/usr/bin/wsr-host" --help >/dev/null || ! "$d/root/usr/bin/wsr" --help >/dev/null; then
	why="an installed binary does not run"
elif ! grep -q '^ExecStart=/usr/bin/wsr daemon$' "$d/root/usr/lib/systemd/system/wsr.service" ||
	! grep -q '^ExecStart=/usr/bin/wsr fs /run/wsr-fs$' "$d/root/usr/lib/systemd/system/wsr-fs.service" ||
	! grep -q '^ExecStart=/usr/bin/wsr-host balance ' "$d/root/usr/lib/systemd/system/wsr-host-balance.service" ||
	! grep -q '^EnvironmentFile=/etc/default/wsr-host-balance$' "$d/root/usr/lib/systemd/system/wsr-host-balance.service" ||
	grep -rq '@[A-Z]*@\|wsr-install\.' "$d/root/usr/lib/systemd/system/"; then
	why="the units do not name the installed paths: $(grep -h '^ExecStart\|^EnvironmentFile\|@' "$d/root/usr/lib/systemd/system/"*.service | tr '\n' ' ')"
elif ! grep -q 'usage: wsr-host balance' "$d/root/usr/share/doc/wsr/wsr-host-balance.txt"; then
	why="no balance --help in the doc folder"
fi
check make_install_puts_everything_under_destdir "$why"

# a second install keeps the administrator's environment file
why=""
echo "WSR_CONNECT=qemu:///session # ours" >"$d/root/etc/default/wsr-host-balance"
if ! make_install; then
	why="make install again: $(tail -n 2 "$d/make.out" | tr '\n' ' ')"
elif ! grep -q '# ours' "$d/root/etc/default/wsr-host-balance"; then
	why="the environment file was replaced"
fi
check make_install_keeps_an_existing_environment_file "$why"

# ARCHITECTURE.md's libwsr example, in a main() of its own, compiled and
# linked against the installed libwsr alone, with the flags pkg-config
# gives for the DESTDIR (its sysroot); it runs, and says what is missing
# on this machine (the pins, or cgroup v2)
why=""
mkdir -p "$d/ex"
awk '/^  ```c$/ { on = 1; next } on && /^  ```$/ { exit } on' "$WSR_ROOT/ARCHITECTURE.md" >"$d/ex/snippet"
{
	echo '#include <libwsr.h>'
	echo 'int main(void)'
	echo '{'
	cat "$d/ex/snippet"
	echo '	return 0;'
	echo '}'
} >"$d/ex/example.c"
pc=(env PKG_CONFIG_PATH="$d/root/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$d/root" pkg-config)
# shellcheck disable=SC2086 # pkg-config's flags, a word each
if ! grep -q wsr_read_hists "$d/ex/snippet"; then
	why="no libwsr example (a C block calling wsr_read_hists) in ARCHITECTURE.md"
elif ! flags=$("${pc[@]}" --cflags --libs libwsr 2>"$d/ex/pc.err"); then
	why="pkg-config libwsr: $(head -n 2 "$d/ex/pc.err" | tr '\n' ' ')"
elif [[ "$flags" != *"-I$d/root/usr/include/wsr"*"-L$d/root/usr/lib"* ]]; then
	why="pkg-config's flags are not the DESTDIR's: $flags"
elif ! (cd "$d/ex" && ${CC:-cc} -Wall -Werror -o example example.c $flags) >"$d/ex/cc.out" 2>&1; then
	why="the example does not build against the installed copy: $(head -n 3 "$d/ex/cc.out" | tr '\n' ' ')"
elif ! "$d/ex/example" >"$d/ex/run.out" 2>&1 || ! [ -s "$d/ex/run.out" ]; then
	why="the example did not run and say why it read nothing: $(head -n 2 "$d/ex/run.out" | tr '\n' ' ')"
else
	echo "  the example says: $(head -n 1 "$d/ex/run.out")"
fi
check libwsr_example_builds_against_the_installed_copy_with_pkg_config "$why"

# make uninstall removes every file install put and wsr's own folders;
# an environment file edited since is the administrator's, and stays
why=""
u=$d/uninstall
if ! make_install "$u"; then
	why="make install: $(tail -n 2 "$d/make.out" | tr '\n' ' ')"
elif ! make -s -C "$WSR_ROOT" BUILD="$BUILD" DESTDIR="$u" PREFIX=/usr uninstall >"$d/make.out" 2>&1; then
	why="make uninstall: $(tail -n 2 "$d/make.out" | tr '\n' ' ')"
elif [ -n "$(find "$u" -type f)" ] || [ -e "$u/usr/include/wsr" ] || [ -e "$u/usr/share/doc/wsr" ]; then
	why="left behind: $(find "$u" -type f -o -name wsr | sed "s|^$u/||" | tr '\n' ' ')"
elif ! make_install "$u" || ! echo "WSR_CONNECT=qemu:///session # ours" >"$u/etc/default/wsr-host-balance" ||
	! make -s -C "$WSR_ROOT" BUILD="$BUILD" DESTDIR="$u" PREFIX=/usr uninstall >"$d/make.out" 2>&1; then
	why="make install and uninstall again: $(tail -n 2 "$d/make.out" | tr '\n' ' ')"
elif [ "$(find "$u" -type f)" != "$u/etc/default/wsr-host-balance" ] || ! grep -q '^kept .*changed' "$d/make.out"; then
	why="an edited environment file not kept alone, with a word: $(find "$u" -type f | tr '\n' ' ')$(head -n 1 "$d/make.out")"
fi
check make_uninstall_removes_what_install_put "$why"

# systemd-analyze verify on the installed units, with DESTDIR as the root
# (systemd's own units copied in, which the units' dependencies need;
# this machine's systemd is not running)
why=""
cp -rn /lib/systemd/system/. "$d/root/usr/lib/systemd/system/"
# and the shell wsr.service's ExecStartPre= runs, which verify looks for
install -D /bin/sh "$d/root/bin/sh"
for u in wsr wsr-fs wsr-host-balance; do
	systemd-analyze verify --root="$d/root" "$d/root/usr/lib/systemd/system/$u.service" \
		>"$d/verify.out" 2>&1 || why="$why$u.service: $(head -n 3 "$d/verify.out" | tr '\n' ' ')"
done
check units_pass_systemd_analyze_verify "$why"

# wsr.service's ExecStartPre=, as systemd would run it (continued lines
# joined, "$$" unescaped), on files standing in for MGLRU's switch and
# /proc/swaps and a second NUMA node: MGLRU off (Debian's default) is
# turned on, with a word, without non-leaf young where there are two
# nodes; a value the administrator set is left alone; no swap is said,
# and a swap device is not
why=""
p=$d/pre
mkdir -p "$p"
pre=$(sed -n '/^ExecStartPre=/,/[^\\]$/p' "$d/root/usr/lib/systemd/system/wsr.service" |
	sed 's/\\$/ /; s/^ExecStartPre=//; s/^[[:space:]]*//' | tr -d '\n' | sed 's/\$\$/$/g')
script=$(sed -n "s|^/bin/sh -c '\(.*\)'$|\1|p" <<<"$pre" |
	sed "s|/sys/kernel/mm/lru_gen/enabled|$p/enabled|g; s|/proc/swaps|$p/swaps|g
		s|/sys/devices/system/node/node1|$p/node1|g")
if [ -z "$script" ] || [[ "$script" != *"$p/enabled"* ]] || [[ "$script" != *"$p/swaps"* ]]; then
	why="no ExecStartPre=/bin/sh -c '...' on MGLRU's switch and /proc/swaps in wsr.service: $pre"
else
	echo 0x0000 >"$p/enabled"
	printf 'Filename\tType\tSize\tUsed\tPriority\n' >"$p/swaps"
	out=$(sh -c "$script" 2>&1) || why="it failed on MGLRU off and no swap: $out; "
	[ "$(cat "$p/enabled")" = y ] || why="${why}MGLRU off was not turned on (the switch reads '$(cat "$p/enabled")'); "
	grep -q 'MGLRU turned on' <<<"$out" || why="${why}no word that MGLRU was turned on: $out; "
	grep -q 'no swap' <<<"$out" || why="${why}no word of the missing swap: $out; "
	echo 0x0000 >"$p/enabled"
	mkdir "$p/node1"
	sh -c "$script" >/dev/null 2>&1
	[ "$(cat "$p/enabled")" = 0x0003 ] || why="${why}with two nodes, MGLRU reads '$(cat "$p/enabled")', not 0x0003; "
	echo 0x0007 >"$p/enabled"
	printf '/swapfile\tfile\t524284\t0\t-2\n' >>"$p/swaps"
	out=$(sh -c "$script" 2>&1) || why="${why}it failed on MGLRU on and a swap file: $out; "
	[ "$(cat "$p/enabled")" = 0x0007 ] || why="${why}MGLRU's 0x0007 was changed to '$(cat "$p/enabled")'; "
	[ -z "$out" ] || why="${why}it said '$out' with MGLRU on and a swap file; "
fi
check wsr_service_turns_mglru_on_and_says_when_swap_is_missing "$why"

# systemd-analyze security's exposure of each installed unit, at most
# its ceiling: the daemon needs root's BPF, balance only sockets
why=""
for u in wsr:5.0 wsr-host-balance:3.0; do
	f=$d/root/usr/lib/systemd/system/${u%:*}.service
	level=$(systemd-analyze security --offline=yes "$f" 2>&1 |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	echo "  ${u%:*}.service: exposure $level (at most ${u#*:})"
	awk -v l="$level" -v m="${u#*:}" 'BEGIN { exit !(l != "" && l + 0 <= m + 0) }' ||
		why="$why${u%:*}.service: exposure '$level', above ${u#*:}; "
done
check units_exposure_is_within_their_ceilings "$why"

# Every system call wsr-host balance makes is one its unit's filter
# allows: balance under strace -f, against a fake QEMU (a few lines of
# python3: the greeting, the answers balance reads, a balloon that moves
# at once) for 4 s of proxmox's decisions on a committed host (a balloon
# command), a metrics scrape, and its exit on SIGTERM (a deflation).
why=""
cat >"$d/fakeqemu.py" <<'PY'
import json, socket, sys
srv = socket.socket(socket.AF_UNIX)
srv.bind(sys.argv[1])
srv.listen(1)
conn, _ = srv.accept()
conn.sendall(b'{"QMP": {"version": {}, "capabilities": []}}\r\n')
buf, actual, n, dec = "", 1 << 30, 0, json.JSONDecoder()
while True:
    data = conn.recv(65536)
    if not data:
        break
    buf += data.decode()
    while buf.strip():
        try:
            cmd, end = dec.raw_decode(buf.lstrip())
        except ValueError:
            break
        buf = buf.lstrip()[end:]
        ex, ret, n = cmd.get("execute"), {}, n + 1
        if ex == "query-memory-size-summary":
            ret = {"base-memory": 1 << 30}
        elif ex == "query-balloon":
            ret = {"actual": actual}
        elif ex == "qom-get":
            ret = {"stats": {"stat-free-memory": 8 << 20, "stat-available-memory": 100 << 20},
                   "last-update": n}
        elif ex == "balloon":
            actual = cmd["arguments"]["value"]
        conn.sendall((json.dumps({"return": ret}) + "\r\n").encode())
PY
allowed=$("$WSR_ROOT/vmtests/syscall-filter.sh" "$d/root/usr/lib/systemd/system/wsr-host-balance.service") ||
	why="no filter from the unit; "
command -v strace >/dev/null || why="${why}no strace (vmtests/setup-host.sh installs it); "
if [ -z "$why" ]; then
	python3 "$d/fakeqemu.py" "$d/q.sock" &
	fake=$!
	for _ in $(seq 1 50); do [ -S "$d/q.sock" ] && break; sleep 0.1; done
	strace -f -qq -c -o "$d/calls" -- "$BUILD/wsr-host" balance --vm "fake=$d/q.sock" \
		--policy proxmox --host-budget-mib 800 --metrics 127.0.0.1:19917 >"$d/bal.out" 2>&1 &
	st=$!
	sleep 4
	curl -s --max-time 2 http://127.0.0.1:19917/metrics >"$d/scrape" || true
	kill -TERM "$(pgrep -P "$st" | head -n 1)" 2>/dev/null
	wait "$st"
	kill "$fake" 2>/dev/null
	wait "$fake" 2>/dev/null
	calls=$(awk 'NR > 2 && $NF ~ /^[a-z_0-9]+$/ && $NF != "total" { print $NF }' "$d/calls" | sort -u)
	denied=$(comm -23 <(echo "$calls") <(echo "$allowed") | tr '\n' ' ')
	echo "  wsr-host balance made $(echo "$calls" | wc -l) kinds of system calls under strace"
	if ! grep -q 'action=set reason=pve-shrink' "$d/bal.out" || ! grep -q '^wsr_' "$d/scrape"; then
		why="balance did not decide and serve under strace: $(tail -n 3 "$d/bal.out" | tr '\n' ' ')"
	elif [ -n "${denied// /}" ]; then
		why="calls its unit's SystemCallFilter= denies: $denied"
	fi
fi
check balance_makes_only_system_calls_its_unit_allows "$why"
[ "$failed" = 0 ]
