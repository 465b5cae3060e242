# shellcheck shell=bash
# A libvirt of the tests' own (sourced): virtlogd and libvirtd started
# here with a private configuration and socket, TCG domains that boot our
# kernel and initramfs on the patched QEMU, and the tear-down of all of
# it.  Needs vmtests/lib.sh (WSR_ROOT, WSR_CACHE) sourced first.
#
# A root daemon in a mount namespace of its own, not a session daemon:
# the issue's qemu.conf (user and group root, no security driver, no
# cgroup controllers) is the privileged driver's, as a host runs it, and
# a session daemon under a test user would need that user to read the
# cache's QEMU, kernels and the test's files.  Root's libvirtd keeps its
# state in fixed places (/etc/libvirt, /run/libvirt, /var/lib/libvirt,
# /var/log/libvirt, /var/cache/libvirt), so the namespace lays the
# test's folder over them: /etc/libvirt is the test's configuration,
# /run a fresh tmpfs, and /var an overlay whose writes land in the
# test's folder (/var/tmp's cache stays readable).  The host's own
# /etc/libvirt, /run and /var are never written, and another libvirtd on
# the machine is never seen.  Only the QEMU driver is loaded
# (LIBVIRT_DRIVER_DIR): no network, nwfilter or storage driver, so the
# host's networking is never looked at.  Clients reach the daemon on
# LV_URI, a socket in the test's folder.
#
# Each daemon writes its pid file in the test's folder; lv_stop ends
# those pids alone, then the domains' QEMUs that this daemon started
# (their pids from its state files), then removes the folder.

LV_DIR="" LV_URI="" LV_NS_PID=""
LV_DRIVERS=/usr/lib/x86_64-linux-gnu/libvirt/connection-driver

# lv_virsh ARG...: virsh on the test's daemon (the harness's tool; wsr-host
# itself never runs it)
lv_virsh() { timeout 60 virsh -q -c "$LV_URI" "$@"; }

# lv_ns CMD...: CMD in the daemons' mount namespace
lv_ns() { nsenter --mount="/proc/$LV_NS_PID/ns/mnt" -- "$@"; }

# lv_libvirtd: start libvirtd in the namespace, return once it answers
lv_libvirtd() {
	rm -f "$LV_DIR/libvirtd.pid"
	lv_ns env LIBVIRT_DRIVER_DIR="$LV_DIR/drivers" \
		libvirtd -d -f "$LV_DIR/etc/libvirtd.conf" -p "$LV_DIR/libvirtd.pid" ||
		{ echo "libvirtd did not start: $(tail -n 3 "$LV_DIR/libvirtd.log")"; return 1; }
	for _ in $(seq 1 150); do
		timeout 5 virsh -q -c "$LV_URI" uri >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "libvirtd does not answer on $LV_URI: $(tail -n 3 "$LV_DIR/libvirtd.log")"
	return 1
}

# lv_stop_libvirtd: end the libvirtd this harness started (its domains run on)
lv_stop_libvirtd() {
	local pid
	pid=$(cat "$LV_DIR/libvirtd.pid" 2>/dev/null) || return 0
	kill "$pid" 2>/dev/null
	for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
	kill -9 "$pid" 2>/dev/null
}

# lv_start: the folder, the configuration, virtlogd and libvirtd; prints
# why on failure
lv_start() {
	LV_DIR=$(mktemp -d "${TMPDIR:-/tmp}/wsr-libvirt.XXXXXX")
	LV_URI="qemu:///system?socket=$LV_DIR/sock/libvirt-sock"
	mkdir -p "$LV_DIR"/{etc/qemu,sock,drivers,var-upper,var-work,domains}
	ln -s "$LV_DRIVERS/libvirt_driver_qemu.so" "$LV_DIR/drivers/"
	cat >"$LV_DIR/etc/libvirtd.conf" <<-EOF
		unix_sock_dir = "$LV_DIR/sock"
		unix_sock_rw_perms = "0700"
		unix_sock_ro_perms = "0700"
		auth_unix_rw = "none"
		auth_unix_ro = "none"
		log_outputs = "3:file:$LV_DIR/libvirtd.log"
	EOF
	cat >"$LV_DIR/etc/virtlogd.conf" <<-EOF
		log_outputs = "3:file:$LV_DIR/virtlogd.log"
	EOF
	# no namespace of QEMU's own for /dev (root in a container may not
	# make one), nothing remembered of files' owners: nothing to chown
	cat >"$LV_DIR/etc/qemu.conf" <<-EOF
		user = "root"
		group = "root"
		security_driver = "none"
		cgroup_controllers = [ ]
		namespaces = [ ]
		remember_owner = 0
	EOF
	# the namespace lives as long as this sleeper, whose pid names it;
	# the daemons start inside it
	# shellcheck disable=SC2016 # the inner shell's $1
	unshare --mount --propagation private -- sh -c '
		mount --bind "$1/etc" /etc/libvirt &&
		mount -t tmpfs -o mode=0755 lv-run /run &&
		mount -t overlay lv-var -o "lowerdir=/var,upperdir=$1/var-upper,workdir=$1/var-work" /var &&
		exec sleep infinity' lv-ns "$LV_DIR" </dev/null >"$LV_DIR/ns.log" 2>&1 &
	LV_NS_PID=$!
	for _ in $(seq 1 50); do
		[ "$(readlink "/proc/$LV_NS_PID/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] &&
			[ "$(cat "/proc/$LV_NS_PID/comm" 2>/dev/null)" = sleep ] && break
		kill -0 "$LV_NS_PID" 2>/dev/null || { echo "no mount namespace: $(cat "$LV_DIR/ns.log")"; return 1; }
		sleep 0.1
	done
	lv_ns virtlogd -d -f "$LV_DIR/etc/virtlogd.conf" -p "$LV_DIR/virtlogd.pid" ||
		{ echo "virtlogd did not start"; return 1; }
	lv_libvirtd
}

# lv_stop: destroy every domain of this daemon, end the daemons and the
# namespace, remove the folder
lv_stop() {
	local d pid f
	[ -n "$LV_DIR" ] || return 0
	if [ -e "$LV_DIR/libvirtd.pid" ]; then
		for d in $(timeout 20 virsh -q -c "$LV_URI" list --name 2>/dev/null); do
			timeout 20 virsh -q -c "$LV_URI" destroy "$d" >/dev/null 2>&1
		done
	fi
	lv_stop_libvirtd
	# QEMUs the daemon started and could not destroy (libvirt's pid
	# files, in the namespace's /run): only a process whose command
	# line names this test's folder
	for f in $(lv_ns sh -c 'ls /run/libvirt/qemu/*.pid' 2>/dev/null); do
		pid=$(lv_ns cat "$f" 2>/dev/null)
		[ -n "$pid" ] && grep -qF "$LV_DIR" "/proc/$pid/cmdline" 2>/dev/null && kill -9 "$pid"
	done
	pid=$(cat "$LV_DIR/virtlogd.pid" 2>/dev/null) && kill "$pid" 2>/dev/null
	[ -z "$LV_NS_PID" ] || { kill "$LV_NS_PID" 2>/dev/null; wait "$LV_NS_PID" 2>/dev/null; }
	rm -rf "$LV_DIR"
	LV_DIR="" LV_NS_PID=""
}

# lv_domain NAME MIB VCPUS PROPS CMD...: write $LV_DIR/domains/NAME.xml, a TCG
# domain of MIB MiB and VCPUS vCPUs booting our kernel with an initramfs
# that runs CMD (as vmtests/run does), its console in NAME.console, its
# status port in NAME.status, a QMP socket of its own at NAME.qmp beside
# libvirt's monitor, and the balloon's PROPS ("working-set=on,..." or
# "") through <qemu:override> on libvirt's alias balloon0.  The initramfs
# has tests/balloon as /host.
lv_domain() {
	local name=$1 mib=$2 vcpus=$3 props=$4 kdir qemu cmd p d=$LV_DIR/domains over=""
	shift 4
	kdir=$("$WSR_ROOT"/vmtests/build-kernel.sh ours) || return 1
	qemu=$("$WSR_ROOT"/vmtests/build-qemu.sh) || return 1
	printf -v cmd '%q ' "$@"
	"$WSR_ROOT"/vmtests/mkinitramfs.sh "$d/$name.initrd" "$cmd" "$kdir/modules" \
		"$kdir/modules.list" "$WSR_ROOT/tests/balloon" || return 1
	truncate -s 64M "$d/$name.disk"
	mkfs.ext2 -q -F "$d/$name.disk" >/dev/null
	IFS=, read -ra p <<<"$props"
	for p in "${p[@]}"; do
		case "$p" in
		*=on|*=off) over+="<qemu:property name='${p%%=*}' type='bool' value='$([ "${p#*=}" = on ] && echo true || echo false)'/>" ;;
		*=*) over+="<qemu:property name='${p%%=*}' type='unsigned' value='${p#*=}'/>" ;;
		esac
	done
	[ -z "$over" ] || over="<qemu:override><qemu:device alias='balloon0'><qemu:frontend>$over</qemu:frontend></qemu:device></qemu:override>"
	cat >"$d/$name.xml" <<-EOF
		<domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>
		  <name>$name</name>
		  <memory unit='MiB'>$mib</memory>
		  <vcpu>$vcpus</vcpu>
		  <os>
		    <type arch='x86_64' machine='pc'>hvm</type>
		    <kernel>$kdir/bzImage</kernel>
		    <initrd>$d/$name.initrd</initrd>
		    <cmdline>console=ttyS0 quiet loglevel=4 pci=noacpi no_timer_check panic=-1 oops=panic rdinit=/init</cmdline>
		  </os>
		  <!-- without ACPI (libvirt's -no-acpi) the guest's poweroff halts, and QEMU stays -->
		  <features><acpi/></features>
		  <cpu mode='maximum' migratable='off'/>
		  <on_poweroff>destroy</on_poweroff>
		  <on_reboot>destroy</on_reboot>
		  <on_crash>destroy</on_crash>
		  <devices>
		    <emulator>$qemu/qemu-system-x86_64</emulator>
		    <disk type='file' device='disk'>
		      <driver name='qemu' type='raw' cache='unsafe'/>
		      <source file='$d/$name.disk'/>
		      <target dev='vda' bus='virtio'/>
		    </disk>
		    <serial type='file'><source path='$d/$name.console'/><target port='0'/></serial>
		    <serial type='file'><source path='$d/$name.status'/><target port='1'/></serial>
		    <memballoon model='virtio' freePageReporting='on'/>
		    <controller type='usb' model='none'/>
		  </devices>
		  <qemu:commandline>
		    <qemu:arg value='-L'/><qemu:arg value='$qemu/pc-bios'/>
		    <qemu:arg value='-L'/><qemu:arg value='/usr/share/seabios'/>
		    <qemu:arg value='-L'/><qemu:arg value='/usr/share/qemu'/>
		    <qemu:arg value='-qmp'/><qemu:arg value='unix:$d/$name.qmp,server=on,wait=off'/>
		  </qemu:commandline>
		  $over
		</domain>
	EOF
}

# lv_create NAME: start the domain of lv_domain NAME (transient: gone
# once it stops); return once its own QMP socket answers
lv_create() {
	local d=$LV_DIR/domains
	: >"$d/$1.console"
	rm -f "$d/$1.qmp"
	lv_virsh create "$d/$1.xml" >"$d/$1.create" 2>&1 ||
		{ echo "virsh create $1: $(tr '\n' ' ' <"$d/$1.create")"; return 1; }
	for _ in $(seq 1 100); do
		[ -S "$d/$1.qmp" ] && return 0
		sleep 0.1
	done
	echo "$1: no QMP socket"
	return 1
}

# lv_qemu_pid NAME: the running domain's QEMU, from libvirt's pid file
lv_qemu_pid() { lv_ns cat "/run/libvirt/qemu/$1.pid" 2>/dev/null; }
