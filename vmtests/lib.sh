# shellcheck shell=bash
# Shared helpers for the vmtests scripts (sourced, not run).
#
# Trees and build outputs live in $WSR_CACHE, outside the repository.  A
# finished build is stored under a folder named after a hash of everything
# that built it (source version, patches, config, build script), so an
# unchanged input rebuilds nothing.  The tree it is built in is shared
# between keys and kept as a git work tree: switching patch sets checks out
# only the files that differ, so make rebuilds incrementally.

# shellcheck disable=SC2034 # for the scripts that source this file
WSR_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WSR_CACHE=${WSR_CACHE:-/var/tmp/wsr-cache}
JOBS=${JOBS:-$(($(nproc) + 1))}

log() { echo "wsr: $*" >&2; }

# children_cpu VAR: set VAR to the CPU time, in ticks of 1/100 s (Linux's
# USER_HZ), of this shell's children that it has waited for (and theirs):
# the user and system time of /proc/PID/stat (fields 16 and 17).  Sets a
# variable, prints nothing: in a command substitution $BASHPID is a
# subshell, whose children are not the caller's.  Two readings around a
# piece of work give what it cost the machine, whatever the other lanes
# did to its wall-clock time.
children_cpu() {
	local _stat
	_stat=$(</proc/"$BASHPID"/stat)
	_stat=${_stat##*) }
	# shellcheck disable=SC2086 # the fields, split on purpose
	set -- "$1" $_stat
	printf -v "$1" %s $((${15} + ${16}))
}

# cpu_since TICKS VAR: set VAR to the seconds, to 0.1 s, of children_cpu
# since TICKS
cpu_since() {
	local _now
	children_cpu _now
	_now=$(((_now - $1 + 5) / 10))
	printf -v "$2" %d.%d $((_now / 10)) $((_now % 10))
}
die() { echo "wsr: error: $*" >&2; exit 1; }

# progress_start, progress_stop: what a long build shows while it runs
# shellcheck source=progress.sh
. "$WSR_ROOT/vmtests/progress.sh"

# hash_inputs FILE... : a short hash of the named files' contents and names.
# A shell script's progress_start and progress_stop lines (progress.sh)
# are left out: they only show how far a build is, and adding them must
# not rebuild a kernel.  A line with more than the call (; & | < > ( ) or
# a backquote) is hashed as any other.
hash_inputs() {
	local f
	for f in "$@"; do
		[ -e "$f" ] || continue
		echo "== ${f##*/}"
		case "$f" in
		*.sh) grep -Ev '^[[:space:]]*progress_(start|stop)([[:space:]][^;&|<>()`]*)?$' "$f" || true ;;
		*) cat "$f" ;;
		esac
	done | sha256sum | cut -c1-16
}

# pkg_version PKG : the installed version of a Debian package
pkg_version() {
	dpkg-query -W -f='${Version}' "$1" 2>/dev/null || die "package $1 is not installed"
}

# stock_kernel_pkg: "PACKAGE VERSION" of Debian's cloud kernel image
# (linux-image-6.1.*-cloud-amd64) that apt would install; the stock
# guest boots it, and the DKMS module is built against its headers
stock_kernel_pkg() {
	local pkg version
	pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
		awk '/Depends: linux-image-6\.1/ { print $2; exit }')
	[ -n "$pkg" ] || die "no linux-image-6.1.*-cloud-amd64 package known to apt"
	version=$(apt-cache policy "$pkg" | awk '/Candidate:/ { print $2 }')
	echo "$pkg $version"
}

# kernel_source_files VERSION DEST PATH...: the PATHs (files or folders)
# of Debian's linux-source-6.1 VERSION, unpatched, into DEST.  The
# installed version's come from the kernel build's unpacked tree when
# there is one (read from its pristine commit, the tree left as it is;
# a second), else from its tarball (20 s); another version's tarball is
# fetched once into the cache (apt-get download).
kernel_source_files() {
	local version=$1 dest=$2 tree tar deb
	shift 2
	tree=$WSR_CACHE/linux-src-$version
	mkdir -p "$dest"
	if [ "$(pkg_version linux-source-6.1)" = "$version" ] &&
		[ -e "$tree/.git/refs/heads/pristine" ]; then
		git -C "$tree" archive pristine -- "$@" | tar -x -C "$dest"
		return
	fi
	tar=/usr/src/linux-source-6.1.tar.xz
	if [ "$(pkg_version linux-source-6.1)" != "$version" ]; then
		deb=$WSR_CACHE/linux-source-$version
		tar=$deb/usr/src/linux-source-6.1.tar.xz
		if [ ! -e "$tar" ]; then
			log "fetching linux-source-6.1 $version"
			rm -rf "$deb" && mkdir -p "$deb.tmp"
			(cd "$deb.tmp" && apt-get download -qq "linux-source-6.1=$version" 2>/dev/null) ||
				die "apt-get download linux-source-6.1=$version failed"
			dpkg-deb -x "$deb.tmp"/*.deb "$deb.tmp" && rm "$deb.tmp"/*.deb
			mv "$deb.tmp" "$deb"
		fi
	fi
	tar -xf "$tar" -C "$dest" --strip-components=1 "${@/#/linux-source-6.1/}" ||
		die "$* not in $tar"
}

# lock_build_tree TREE WHAT OUT : one build at a time on the source tree
# TREE, which every build of it resets and patches: two checkouts sharing
# the cache (git worktrees) that build into the same folder at once break
# each other's objects.  Takes TREE.lock on fd 9, held until the script
# exits, waiting (and saying so, for a WHAT build) while another build
# holds it.  The build waited for may be this one: if OUT/done exists
# once the lock is held, prints OUT and exits 0, as a build found in the
# cache does.
lock_build_tree() {
	local tree=$1 what=$2 out=$3
	mkdir -p "$WSR_CACHE"
	exec 9>"$tree.lock"
	if ! flock -n 9; then
		log "waiting for another $what build on $tree"
		flock 9
	fi
	if [ -e "$out/done" ]; then
		echo "$out"
		exit 0
	fi
}

# git_tree_reset DIR : make DIR's work tree its pristine commit again.
# Files are rewritten only where they differ, with a fresh mtime.
git_tree_reset() {
	git -C "$1" checkout -q -f pristine
	git -C "$1" clean -q -fdx
}

# git_tree_init DIR : record DIR's current contents as the pristine commit
git_tree_init() {
	git -C "$1" init -q
	git -C "$1" add -A -f
	git -C "$1" -c user.name=wsr -c user.email=wsr@localhost \
		commit -q -m pristine --no-verify
	git -C "$1" branch -q -f pristine
	git -C "$1" checkout -q pristine
}

# apply_patches DIR PATCH... : apply a series in order, failing loudly
apply_patches() {
	local dir=$1 p
	shift
	for p in "$@"; do
		# a series' cover letter carries no diff
		case "$p" in */0000-cover-letter.patch) continue ;; esac
		[ -e "$p" ] || continue
		git -C "$dir" apply --whitespace=nowarn "$p" ||
			die "patch ${p##*/} does not apply to $dir"
	done
}

# report_times FILE: "<QEMU time stamp, s.us> <first bin bound> <total bytes>"
# per WORKING_SET_EVENT line (wsr-host watch --json) of FILE
report_times() {
	awk '{
		match($0, /"seconds": *[0-9]+/); s = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", s)
		match($0, /"microseconds": *[0-9]+/); u = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", u)
		match($0, /"idle-age-ms": *[0-9]+/); b = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", b)
		tot = 0; line = $0
		while (match(line, /"(anon|file)-bytes": *[0-9]+/)) {
			v = substr(line, RSTART, RLENGTH); gsub(/[^0-9]/, "", v); tot += v
			line = substr(line, RSTART + RLENGTH) }
		printf "%d.%06d %s %.0f\n", s, u, b, tot }' "$1"
}

# SANITIZER_RE, what a sanitizer kernel prints when it finds something:
# tests/testlib.sh's, the one pattern the guests' own checks read too
# shellcheck source=../tests/testlib.sh
. "$WSR_ROOT/tests/testlib.sh"

# kernel_dir KERNEL: the folder of KERNEL's build (ours, debug, stock or
# stock-dkms), built or fetched first if its inputs changed
kernel_dir() {
	case "$1" in
	ours|debug) "$WSR_ROOT"/vmtests/build-kernel.sh "$1" ;;
	stock) "$WSR_ROOT"/vmtests/fetch-stock-kernel.sh ;;
	stock-dkms) "$WSR_ROOT"/vmtests/build-dkms.sh ;;
	*) die "unknown kernel '$1'" ;;
	esac
}

# panic_report LOG: 120 lines of a console LOG from its first sign of
# what panicked it (an RCU stall, a BUG, an oops, else the panic itself;
# not a warning, which a guest may print at boot and go on),
# which name the stuck or failing CPU's stack: CI keeps what a run
# prints, never its console logs.  From that line's last copy: a panic
# replays the whole kernel log (vmtests/run's panic_print), in which the
# lines the loglevel kept from the console first time (each CPU's
# backtrace) follow it
panic_report() {
	tr -d '\r' <"$1" | awk '
		{ line[NR] = $0 }
		!first && /rcu: INFO|detected stalls|BUG:|Oops|general protection|Kernel panic/ { first = $0 }
		first != "" && $0 == first { from = NR }
		END { for (i = from; from && i < from + 120 && i <= NR; i++) print line[i] }'
}

# sanitizer_report LOG: print each report in a debug kernel's console LOG
# after vmtests/init.sh's start marker, with the 20 lines that follow it;
# fails if there is none
sanitizer_report() {
	tr -d '\r' <"$1" | awk -v re="$SANITIZER_RE" '
		/^wsr-init: sanitizers watching/ { on = 1; next }
		on && $0 ~ re { found = 1; left = 21 }
		left > 0 { print; left-- }
		END { exit !found }'
}

# host_memcg_setup: where the tests that measure a QEMU's host memory make
# their cgroups (under this shell's own: cgroup v1's memory controller, or
# v2 with the memory controller on for its children), in HOST_MEMCG, and
# what they read there: HOST_MEMCG_USAGE (the usage file), HOST_MEMCG_ANON
# and HOST_MEMCG_FILE (memory.stat's keys), HOST_MEMCG_KMEM (v1's kernel
# memory file; v2 has memory.stat's "kernel").  Dies when there is none.
host_memcg_setup() {
	local root
	root=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
	if [ -n "$root" ]; then
		HOST_MEMCG=$root$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3; exit }' /proc/self/cgroup)
		HOST_MEMCG_USAGE=memory.usage_in_bytes
		HOST_MEMCG_ANON=rss HOST_MEMCG_FILE=cache HOST_MEMCG_KMEM=memory.kmem.usage_in_bytes
	else
		root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
		[ -n "$root" ] || die "no memory cgroup (v1 or v2) mounted"
		HOST_MEMCG=$root$(awk -F: '$1 == "0" { print $3; exit }' /proc/self/cgroup)
		grep -qw memory "$HOST_MEMCG/cgroup.subtree_control" 2>/dev/null ||
			die "cgroup v2 without the memory controller on for $HOST_MEMCG's children"
		HOST_MEMCG_USAGE=memory.current
		HOST_MEMCG_ANON=anon HOST_MEMCG_FILE=file HOST_MEMCG_KMEM=""
	fi
	HOST_MEMCG=${HOST_MEMCG%/}
	[ -w "$HOST_MEMCG" ] || die "cannot make cgroups under $HOST_MEMCG"
}

