# wsr: working-set reporting for overcommitted Linux guests.
#
# The targets ("make help" prints the lines that start with "## "):
## make demo        set up, build, boot a guest running a workload, show its working set (the main job)
## make check       set up, build, run every test: unit, lint, QMP, qtest, balloon, harness, guest (time: docs/testing.md)
## make check-long  the long tests (about 55 min): 10,000 device fuzz cases, 20,000 hostile-driver ones, long_*.sh
## make bench       benchmarks: figures next to a baseline from the same run (BENCHMARKS.md)
## make bench-quick the balance bench alone: set 1, every policy once, 240 s each (about 43 min)
## make lint        make check's lint step alone: shellcheck, checkpatch on both series, their self-tests
## make all         build wsr into $(BUILD)/ (the default; the patched kernel too, for a unit test of its BTF)
## make dkms        the series' virtio_balloon for Debian's stock 6.1 kernel with DKMS, in $(BUILD)/dkms (docs/deploy.md)
## make setup       install the Debian packages wsr needs (vmtests/setup-host.sh, as root)
## make compile-commands  $(BUILD)/compile_commands.json for clangd and editors (bear; rebuilds wsr)
## make install     install wsr, wsr-host, libwsr, --help texts, systemd units (PREFIX, DESTDIR; builds no kernel)
## make uninstall   remove what make install put (the same PREFIX, DESTDIR)
## make deb         Debian packages wsr (guest), wsr-dkms, wsr-host with debhelper, then lintian, in $(BUILD)/deb
## make install-qemu  the patched QEMU for libvirt's domains, its firmware under PREFIX (builds it if not cached; docs/deploy.md)
## make kernel-headers  kernel-headers/ anew from our kernel's BTF and the series' uapi header (after a series change)
## make clean       remove $(BUILD)/
## make distclean   also remove $(WSR_CACHE): the kernel and QEMU trees and builds (all rebuilt next)
## make help        this list
##
## BUILD=DIR (now $(BUILD)), WSR_CACHE=DIR (now $(WSR_CACHE)); V=1 shows the commands run
#
# Kernel and QEMU trees and their builds live in $(WSR_CACHE), keyed by
# what built them; the project's own outputs live in $(BUILD).

BUILD     ?= build
WSR_CACHE ?= /var/tmp/wsr-cache
export WSR_CACHE

CC       ?= gcc
CLANG    ?= clang
BPFTOOL  ?= bpftool
CFLAGS   ?= -O2 -g -Wall -Wextra -Werror
# each object's header dependencies, in a .d file beside it
DEPFLAGS := -MMD -MP
# JSON by json-c (libjson-c-dev), in the guest's wsr and in wsr-host;
# balance's metrics served by libmicrohttpd (libmicrohttpd-dev).  Read
# when this file is, before "make setup" may have installed them: quiet
# then, and the usual flags (make demo and make check run make all again
# after set-up, which reads them anew)
JSONC_CFLAGS := $(shell pkg-config --cflags json-c 2>/dev/null)
JSONC_LIBS   := $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)
MHD_CFLAGS   := $(shell pkg-config --cflags libmicrohttpd 2>/dev/null)
# wsr fs's FUSE (libfuse3-dev), linked statically into the guest's wsr as
# its other libraries are (libfuse3.a, and what it needs: --static)
FUSE_CFLAGS  := $(shell pkg-config --cflags fuse3 2>/dev/null || echo -I/usr/include/fuse3)
FUSE_LIBS    := $(shell pkg-config --static --libs fuse3 2>/dev/null || echo -lfuse3 -lpthread -ldl)
MHD_LIBS     := $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)
# wsr-host's libvirt transport (libvirt-dev): libvirt's API and its QEMU
# monitor's (host/virt.c), in threads of their own
VIRT_LIBS    := $(shell pkg-config --libs libvirt libvirt-qemu 2>/dev/null || echo -lvirt -lvirt-qemu) -pthread
# The kernel's headers the build reads, copies kept in the tree
# (vmtests/kernel-headers.sh makes them, make lint checks them against the
# kernel): our kernel's BTF as vmlinux.h, and the series' uapi header.  So
# no build of wsr needs the kernel's source or a kernel build, and none
# depends on the kernel the build machine runs.
KHDR     := kernel-headers
# the balloon wire's values, from the kernel series' uapi header (wsr.h)
UAPI     := $(BUILD)/uapi
UAPI_H   := $(UAPI)/virtio_balloon_ws.h
# every C file includes from include/ (wsr.h, libwsr.h) and no other
# project folder but its own; the CLI also its BPF skeletons
INCLUDES := -Iinclude -I$(UAPI) $(JSONC_CFLAGS)
GUEST    := $(BUILD)/guest
OBJ      := $(BUILD)/obj
LIBS     := -lbpf -lelf -lz -lzstd $(JSONC_LIBS) $(FUSE_LIBS)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# Objects by what links them, each compiled once (libbpf-tools' COMMON_OBJ).
# libwsr (include/libwsr.h, loader/lib/) is what the programs share: the
# CLI, the daemon, wsr-host and the unit tests link it, each taking the
# members it calls (wsr-host none that needs BPF).
LIBWSR      := $(BUILD)/libwsr.a
LIBWSR_OBJ  := $(patsubst %.c,$(OBJ)/%.o,$(wildcard loader/lib/*.c))
CLI_OBJ     := $(patsubst %.c,$(OBJ)/%.o,$(wildcard loader/*.c))
# wsr-host's, but its main(): its unit tests link them too
HOST_OBJ    := $(patsubst %.c,$(OBJ)/%.o,$(filter-out host/wsr-host.c,$(wildcard host/*.c)))
UNIT_OBJ    := $(patsubst %.c,$(OBJ)/%.o,$(wildcard tests/unit/*.c))
ALL_OBJ     := $(LIBWSR_OBJ) $(CLI_OBJ) $(HOST_OBJ) $(OBJ)/host/wsr-host.o $(UNIT_OBJ) \
	$(OBJ)/tests/balloon/progs/kfunc_probe.o $(OBJ)/tests/balloon/progs/send_hold.o \
	$(OBJ)/vmtests/progs/wsr-workload.o $(OBJ)/vmtests/progs/wsr-fs-user.o \
	$(OBJ)/vmtests/progs/wsr-nothp.o $(OBJ)/vmtests/progs/wsr-pin-foe.o \
	$(OBJ)/vmtests/progs/wsr-compare-read.o $(OBJ)/vmtests/progs/wsr-cpu.o

GUEST_PROGS := $(GUEST)/wsr $(GUEST)/wsr-workload $(GUEST)/wsr-fs-user $(GUEST)/kfunc-probe $(GUEST)/send-hold \
	$(GUEST)/wsr-pin-foe $(GUEST)/wsr-compare-read $(GUEST)/wsr-cpu
GUEST_TESTS := $(wildcard tests/guest/*.sh)
UNIT_TESTS  := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(wildcard tests/unit/*.c))

.PHONY: install uninstall install-qemu deb kernel-headers all dkms setup check check-long bench bench-quick demo lint compile-commands clean distclean help FORCE
.DELETE_ON_ERROR:
.SECONDARY:

all: $(GUEST_PROGS) $(GUEST)/run-tests $(GUEST)/wsr.service $(GUEST)/wsr-fs.service $(GUEST)/wsr.service.syscalls $(GUEST)/wsr-demo $(GUEST)/wsr-bench $(GUEST)/wsr-tiers $(GUEST)/wsr-compare $(GUEST)/wsr-memcost $(UNIT_TESTS) \
	$(BUILD)/wsr-host $(BUILD)/wsr-nothp $(GUEST)/asan/wsr

setup:
	$(Q)vmtests/setup-host.sh

# The kernel build is keyed by its inputs inside the script; this file
# changes only when the kernel's cache folder does.
$(BUILD)/kernel.path: FORCE | setup $(BUILD)
	$(Q)p=$$(vmtests/build-kernel.sh) && echo "$$p" >$@.new && \
		{ cmp -s $@.new $@ && rm $@.new || mv $@.new $@; }

# after a change to the series: the tree's copies anew (then commit them)
kernel-headers: setup
	$(Q)vmtests/kernel-headers.sh

# The kernel series' include/uapi/linux/virtio_balloon.h's
# VIRTIO_BALLOON_WS_* values alone, without its types: BPF programs have
# those from vmlinux.h, and include wsr.h too.
$(UAPI_H): $(KHDR)/uapi/linux/virtio_balloon.h
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q){ printf '/* made from %s: the wire values alone */\n' '$<'; \
		printf '#ifndef __WSR_VIRTIO_BALLOON_WS_H\n#define __WSR_VIRTIO_BALLOON_WS_H\n'; \
		$(CC) -E -dM $< | grep -E '^#define VIRTIO_BALLOON_(F_)?WS_' | sort; \
		printf '#endif\n'; } >$@.tmp && mv $@.tmp $@

# BPF objects: the estimator's and the balloon's (bpf/), and the test-only
# programs that call the balloon kfuncs the ways a careless or a busy
# tracing program would, or hold the driver's send work where its removal
# must find it (tests/balloon/progs/)
BPF_CFLAGS = -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86 $(DEPFLAGS) \
	-Iinclude -I$(UAPI) -I$(KHDR)
$(BUILD)/%.bpf.o: bpf/%.bpf.c $(KHDR)/vmlinux.h | $(UAPI_H)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -Ibpf -c $< -o $@

$(BUILD)/%.bpf.o: tests/balloon/progs/%.bpf.c $(KHDR)/vmlinux.h | $(UAPI_H)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -Itests/balloon/progs -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< >$@

# One rule compiles every C file; a folder adds its own includes and
# flags, a program its name before its messages (WSR_PROG, libwsr.h).
# The generated headers come first (order only: each object's .d names
# what it includes once it is built).
$(OBJ)/%.o: %.c | $(UAPI_H)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) $(INCLUDES) $(EXTRA_CFLAGS) -c -o $@ $<

# the CLI's BPF skeletons (the estimator's in load.c, the balloon's in
# balloon-attach.c)
$(OBJ)/loader/%.o: EXTRA_CFLAGS = -I$(BUILD) -DWSR_PROG='"wsr"' $(FUSE_CFLAGS)
$(OBJ)/loader/lib/%.o: EXTRA_CFLAGS =
$(OBJ)/loader/load.o: $(BUILD)/wsr.skel.h
$(OBJ)/loader/balloon-attach.o: $(BUILD)/balloon.skel.h
$(OBJ)/host/%.o: EXTRA_CFLAGS = $(MHD_CFLAGS) -DWSR_PROG='"wsr-host"'
$(OBJ)/tests/balloon/progs/%.o: EXTRA_CFLAGS = -I$(BUILD) -Itests/balloon/progs
$(OBJ)/tests/balloon/progs/kfunc_probe.o: $(BUILD)/kfunc_probe.skel.h
$(OBJ)/tests/balloon/progs/send_hold.o: $(BUILD)/send_hold.skel.h
# unit tests see the headers of what they test
$(OBJ)/tests/unit/%.o: EXTRA_CFLAGS = -Ibpf -Ihost $(MHD_CFLAGS) $(UNIT_DEFS)

-include $(ALL_OBJ:.o=.d) $(wildcard $(BUILD)/*.bpf.d)

# made anew, so that a removed source leaves no stale member
$(LIBWSR): $(LIBWSR_OBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# static, so that it runs in a busybox initramfs (WSR_STATIC= links it
# dynamically: ASan cannot link statically); two BPF objects, the
# estimator's (load.c) and the balloon's (balloon-attach.c), which loads
# only where the virtio_balloon driver is
WSR_STATIC ?= -static
# (linked again when the Makefile changes: its link flags are there)
$(GUEST)/wsr: $(CLI_OBJ) $(LIBWSR) $(firstword $(MAKEFILE_LIST)) | $(GUEST)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(WSR_STATIC) -o $@ $(CLI_OBJ) $(LIBWSR) $(LIBS)

# the host-side QMP tool: QMP's JSON by json-c, numbers, intervals and
# the exposition's pieces by libwsr, balance's metrics served by
# libmicrohttpd
$(BUILD)/wsr-host: $(OBJ)/host/wsr-host.o $(HOST_OBJ) $(LIBWSR) | $(BUILD)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(LIBWSR) $(JSONC_LIBS) $(MHD_LIBS) $(VIRT_LIBS)

$(GUEST)/kfunc-probe: $(OBJ)/tests/balloon/progs/kfunc_probe.o | $(GUEST)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -static -o $@ $< $(LIBS)

$(GUEST)/send-hold: $(OBJ)/tests/balloon/progs/send_hold.o | $(GUEST)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -static -o $@ $< $(LIBS)

$(GUEST)/wsr-workload: $(OBJ)/vmtests/progs/wsr-workload.o | $(GUEST)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -static -o $@ $<

# what the seed's users do to its files, for wsr fs's tests: poll() a
# histogram for POLLPRI, write a knob and tell the errno
$(GUEST)/wsr-fs-user: $(OBJ)/vmtests/progs/wsr-fs-user.o | $(GUEST)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -static -o $@ $<

# DAMON and idle page tracking binned as wsr bins, for the comparison
# bench and its test (vmtests/compare-guest.sh)
$(GUEST)/wsr-compare-read: $(OBJ)/vmtests/progs/wsr-compare-read.o | $(GUEST)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -static -o $@ $<

# the CPU time of a command's runs (vmtests/memcost-guest.sh: what a read costs)
$(GUEST)/wsr-cpu: $(OBJ)/vmtests/progs/wsr-cpu.o | $(GUEST)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -static -o $@ $<

# what the guest tests do to the pin folder (a lock held, old pins)
$(GUEST)/wsr-pin-foe: $(OBJ)/vmtests/progs/wsr-pin-foe.o | $(GUEST)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -static -o $@ $< $(LIBS)

# the balance bench's QEMUs run under it (host memory as the measure)
$(BUILD)/wsr-nothp: $(OBJ)/vmtests/progs/wsr-nothp.o | $(BUILD)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

# the guest tests with the vocabulary all tests share (tests/testlib.sh)
$(GUEST)/run-tests: vmtests/guest-run-tests.sh $(GUEST_TESTS) tests/testlib.sh | $(GUEST)
	$(Q)rm -rf $(GUEST)/tests && mkdir -p $(GUEST)/tests
	$(Q)cp $(GUEST_TESTS) tests/testlib.sh $(GUEST)/tests/
	$(Q)install -m 755 $< $@

# wsr.service as make install writes it: the guest test that runs the
# daemon with the unit's capabilities alone reads them from it
$(GUEST)/wsr.service: systemd/wsr.service.in Makefile | $(GUEST)
	$(call msg,GEN,$@)
	$(Q)sed '$(UNIT_SED)' $< >$@

# and wsr-fs.service, whose ExecStart and ExecStop a guest test runs
$(GUEST)/wsr-fs.service: systemd/wsr-fs.service.in Makefile | $(GUEST)
	$(call msg,GEN,$@)
	$(Q)sed '$(UNIT_SED)' $< >$@

# the system calls its SystemCallFilter= allows, expanded here (the guest
# has no systemd-analyze) for the guest test that straces the daemon
$(GUEST)/wsr.service.syscalls: $(GUEST)/wsr.service vmtests/syscall-filter.sh
	$(call msg,GEN,$@)
	$(Q)vmtests/syscall-filter.sh $< >$@.tmp && mv $@.tmp $@

$(GUEST)/wsr-%: vmtests/%-guest.sh | $(GUEST)
	$(Q)install -m 755 $< $@

# One rule links every unit test: its object, the objects it tests (below)
# and libwsr; what else it needs to run comes first, unlinked.
$(BUILD)/unit/%: $(OBJ)/tests/unit/%.o $(LIBWSR) | $(BUILD)/unit
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $(filter $(OBJ)/%.o,$^) $(LIBWSR) $(LIBS) $(MHD_LIBS) $(VIRT_LIBS)

# the CLI's option parsing, through the built binary (it runs on the host:
# options are parsed before anything needs BPF)
$(BUILD)/unit/test_cli: $(GUEST)/wsr
$(OBJ)/tests/unit/test_cli.o: UNIT_DEFS = -DWSR_BIN='"$(abspath $(GUEST)/wsr)"'
# the two BPF objects' shape, opened and not loaded (see the test)
$(BUILD)/unit/test_bpf_objects: $(BUILD)/wsr.bpf.o $(BUILD)/balloon.bpf.o
$(OBJ)/tests/unit/test_bpf_objects.o: UNIT_DEFS = -DWSR_BPF_DIR='"$(abspath $(BUILD))"'
# each public header compiled alone, as make compiles
$(OBJ)/tests/unit/test_headers.o: UNIT_DEFS = -DWSR_CC='"$(CC)"' -DWSR_CFLAGS='"$(CFLAGS)"' \
	-DWSR_SRC_ROOT='"$(CURDIR)"' -DWSR_UAPI='"$(abspath $(UAPI))"'
# the balloon kfuncs' arguments against the built kernel's BTF
$(BUILD)/unit/test_kfunc_layout: $(BUILD)/kernel.path
$(OBJ)/tests/unit/test_kfunc_layout.o: UNIT_DEFS = -DWSR_KERNEL_PATH='"$(abspath $(BUILD)/kernel.path)"'
# both exporters' expositions, checked by promtool too
$(OBJ)/tests/unit/test_metrics.o $(OBJ)/tests/unit/test_host_metrics.o: \
	UNIT_DEFS = -DWSR_SRC_ROOT='"$(CURDIR)"'
# wsr-host's QMP messages, reports, connection (against a fake QEMU, and
# the wsr-host binary for what it sends), balance's loop against two fake
# QEMUs, its exposition and its decisions
$(BUILD)/unit/test_host_qmp $(BUILD)/unit/test_host_report: $(OBJ)/host/qmp.o $(OBJ)/host/report.o
$(BUILD)/unit/test_host_client: $(OBJ)/host/client.o $(OBJ)/host/qmp.o $(OBJ)/host/hostmem.o \
	$(BUILD)/wsr-host
$(OBJ)/tests/unit/test_host_client.o: UNIT_DEFS = -DWSR_HOST_BIN='"$(abspath $(BUILD)/wsr-host)"'
$(BUILD)/unit/test_host_balance: $(HOST_OBJ)
# balance's view of a VM through QMP and through libvirt
$(BUILD)/unit/test_host_transport: $(OBJ)/host/transport.o $(OBJ)/host/virt-said.o \
	$(OBJ)/host/virt.o $(OBJ)/host/qmp.o $(OBJ)/host/report.o
$(BUILD)/unit/test_host_metrics: $(OBJ)/host/metrics.o
$(BUILD)/unit/test_host_policy: $(OBJ)/host/policy.o $(OBJ)/host/report.o $(OBJ)/host/costaware.o \
	$(OBJ)/host/senpai.o $(OBJ)/host/baselines.o
$(BUILD)/unit/test_host_baselines: $(OBJ)/host/baselines.o $(OBJ)/host/report.o $(OBJ)/host/hostmem.o \
	$(OBJ)/host/policy.o $(OBJ)/host/costaware.o $(OBJ)/host/senpai.o
$(BUILD)/unit/test_host_senpai: $(OBJ)/host/senpai.o
# balance's command line against docs/policies.md's table of knobs
$(BUILD)/unit/test_host_args: $(OBJ)/host/balance-args.o $(OBJ)/host/report.o $(OBJ)/host/metrics.o \
	$(OBJ)/host/policy.o $(OBJ)/host/costaware.o $(OBJ)/host/senpai.o $(OBJ)/host/baselines.o
$(OBJ)/tests/unit/test_host_args.o: UNIT_DEFS = -DWSR_SRC_ROOT='"$(CURDIR)"'

# The DKMS package's folder (a copy to put in a guest's /usr/src), the
# module dkms built with it for the stock kernel, and the resolve_btfids
# that wrote the module's kfunc ids (Debian's linux-kbuild-6.1 has none):
# vmtests/build-dkms.sh, from kernel-patches/, in a private dkms tree
dkms: setup | $(BUILD)
	$(Q)d=$$(vmtests/build-dkms.sh) && h=$$(vmtests/fetch-stock-headers.sh) && \
		rm -rf $(BUILD)/dkms && mkdir -p $(BUILD)/dkms && \
		cp -r "$$d"/src/. "$$d"/install/. $(BUILD)/dkms/ && \
		cp "$$h"/tools/bpf/resolve_btfids/resolve_btfids $(BUILD)/dkms/ && \
		find $(BUILD)/dkms -name dkms.conf -o -name '*.ko' -o -name resolve_btfids | sed 's/^/  DKMS     /'

$(BUILD) $(GUEST) $(BUILD)/unit:
	$(Q)mkdir -p $@

check: setup
	$(Q)$(MAKE) --no-print-directory all $(BUILD)/asan/wsr-host
	$(Q)vmtests/check.sh

# wsr-host a second time with AddressSanitizer and UBSan (any report
# fatal), in its own build folder, for the argument fuzzing of make check
# (vmtests/fuzz-host-args.sh)
ASAN_CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all -Wall -Wextra -Werror
$(BUILD)/asan/wsr-host: FORCE
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/asan CFLAGS="$(ASAN_CFLAGS)" $@
# and wsr, for the guest's argument fuzzing (tests/guest/test_wsr_args_fuzz_*),
# which starts it once a case: the sanitizers' runtimes and our libraries
# linked in, only the C library's left dynamic (ASan cannot link it
# statically; vmtests/mkinitramfs.sh adds it to the guest), and not
# position-independent.  Under TCG that start takes 63 ms, not 112 with
# every library dynamic and PIE: 500 cases take about 25 s less.
ASAN_GUEST_LINK := -no-pie -static-libasan -static-libubsan -Wl,-Bstatic \
	$(LIBS) -Wl,-Bdynamic
$(BUILD)/asan/guest/wsr: FORCE
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/asan CFLAGS="$(ASAN_CFLAGS)" \
		WSR_STATIC= LIBS="$(ASAN_GUEST_LINK)" $@
$(GUEST)/asan/wsr: $(BUILD)/asan/guest/wsr
	$(Q)mkdir -p $(@D) && cp $< $@

# each step's own status counts, not only its FAIL lines (the script says)
check-long: setup
	$(Q)$(MAKE) --no-print-directory all $(BUILD)/asan/wsr-host
	$(Q)BUILD=$(BUILD) vmtests/check-long.sh

bench: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)vmtests/bench.sh

bench-quick: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)vmtests/balance-bench.sh --set 1 --runs 1 --secs 240

demo: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)vmtests/demo.sh

# make check's lint step alone; checkpatch needs the kernel and QEMU trees
# that make check's builds unpack
lint: setup
	$(Q)vmtests/lint.sh

# bear records the compiler commands of a build; -B, since a command
# that does not run is not recorded.  The patched kernel's, if it is
# built, by the kernel's own script from its .cmd files, into its build
# folder (the source tree is reset at each build).
compile-commands: | $(BUILD)
	$(Q)bear --output $(abspath $(BUILD))/compile_commands.json -- \
		$(MAKE) --no-print-directory -B all
	$(call msg,GEN,$(BUILD)/compile_commands.json)
	$(Q)v=$$(dpkg-query -W -f='$${Version}' linux-source-6.1 2>/dev/null); \
	b=$(WSR_CACHE)/linux-build-$$v; \
	if [ -n "$$v" ] && [ -e "$$b/vmlinux" ]; then \
		python3 $(WSR_CACHE)/linux-src-$$v/scripts/clang-tools/gen_compile_commands.py \
			-d "$$b" -o "$$b/compile_commands.json" && \
		printf '  %-8s %s\n' GEN "$$b/compile_commands.json"; \
	fi

# make install: the two programs (the BPF objects are inside wsr, as
# skeletons), their --help as text, the systemd units with this install's
# paths, balance's environment file, which an existing one is kept over,
# and libwsr for programs of others: its archive, its headers in a folder
# of their own and its pkg-config file.  It builds only what it installs:
# the kernel headers are the tree's (kernel-headers/), so no set-up and
# no kernel build, only the -dev packages wsr compiles against.  WSR_CAPS
# is the guest daemon's capability set: its unit grants it and no more,
# and the capability test runs the daemon with the unit's lines
# ($(GUEST)/wsr.service, made by the same sed).
VERSION    := 0.1
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
DOCDIR     ?= $(PREFIX)/share/doc/wsr
UNITDIR    ?= $(PREFIX)/lib/systemd/system
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
SYSCONFDIR ?= /etc
WSR_CAPS   := CAP_BPF CAP_PERFMON CAP_SYS_ADMIN CAP_IPC_LOCK
UNIT_SED   := s|@BINDIR@|$(BINDIR)|g; s|@DOCDIR@|$(DOCDIR)|g; s|@SYSCONFDIR@|$(SYSCONFDIR)|g; \
	s|@CAPS@|$(WSR_CAPS)|g
PC_SED     := s|@PREFIX@|$(PREFIX)|g; s|@LIBDIR@|$(LIBDIR)|g; s|@INCLUDEDIR@|$(INCLUDEDIR)|g; \
	s|@VERSION@|$(VERSION)|g
# what install puts and uninstall removes, one list each
INST_BINS    := wsr wsr-host
INST_DOCS    := wsr.txt wsr-host.txt wsr-host-balance.txt
INST_UNITS   := wsr.service wsr-fs.service wsr-host-balance.service
INST_HEADERS := include/libwsr.h include/wsr.h $(UAPI_H)
ENVFILE      := $(DESTDIR)$(SYSCONFDIR)/default/wsr-host-balance

install: $(GUEST)/wsr $(BUILD)/wsr-host $(LIBWSR) $(INST_HEADERS) loader/lib/libwsr.pc.in
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(SYSCONFDIR)/default $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(INCLUDEDIR)/wsr $(DESTDIR)$(PKGCONFIGDIR)
	install -m 0755 $(GUEST)/wsr $(BUILD)/wsr-host $(DESTDIR)$(BINDIR)/
	$(GUEST)/wsr --help >$(DESTDIR)$(DOCDIR)/wsr.txt
	$(BUILD)/wsr-host --help >$(DESTDIR)$(DOCDIR)/wsr-host.txt
	$(BUILD)/wsr-host balance --help >$(DESTDIR)$(DOCDIR)/wsr-host-balance.txt
	for u in $(INST_UNITS); do \
		sed '$(UNIT_SED)' systemd/$$u.in >$(DESTDIR)$(UNITDIR)/$$u && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	[ -e $(ENVFILE) ] || install -m 0644 systemd/wsr-host-balance.default $(ENVFILE)
	install -m 0644 $(LIBWSR) $(DESTDIR)$(LIBDIR)/
	install -m 0644 $(INST_HEADERS) $(DESTDIR)$(INCLUDEDIR)/wsr/
	sed '$(PC_SED)' loader/lib/libwsr.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/libwsr.pc
	chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/libwsr.pc

# what install put, and the folders of wsr's own once empty; the
# environment file only as install wrote it (an edited one is the
# administrator's, kept, as dpkg keeps a changed conffile)
uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(INST_BINS)) \
		$(addprefix $(DESTDIR)$(DOCDIR)/,$(INST_DOCS)) \
		$(addprefix $(DESTDIR)$(UNITDIR)/,$(INST_UNITS)) \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/wsr/,$(notdir $(INST_HEADERS))) \
		$(DESTDIR)$(LIBDIR)/libwsr.a $(DESTDIR)$(PKGCONFIGDIR)/libwsr.pc
	if cmp -s systemd/wsr-host-balance.default $(ENVFILE); then rm -f $(ENVFILE); \
	elif [ -e $(ENVFILE) ]; then echo "kept $(ENVFILE): changed since make install"; fi
	for d in $(DESTDIR)$(DOCDIR) $(DESTDIR)$(INCLUDEDIR)/wsr; do \
		[ ! -d $$d ] || rmdir --ignore-fail-on-non-empty $$d || exit 1; \
	done

# make install-qemu: QEMU with qemu-patches/, the QEMU the tests run
# (vmtests/build-qemu.sh: built here if not cached, about 5 min), as
# PREFIX/bin/qemu-system-x86_64 (PREFIX /usr/local by default, beside
# Debian's /usr/bin one), and its firmware in PREFIX/share/qemu, where
# that QEMU looks (its paths are relative to the binary): the build's
# ROMs, SeaBIOS's and Debian's qemu-system-data's, copied, and iPXE's
# option ROMs for the NICs (libvirt's virtio interfaces need
# efi-virtio.rom) when the ipxe-qemu package is there
QEMU_DATADIR ?= $(PREFIX)/share/qemu
IPXE_ROMS    ?= /usr/lib/ipxe/qemu
install-qemu: setup
	$(Q)d=$$(vmtests/build-qemu.sh plain) && \
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(QEMU_DATADIR) && \
	install -m 0755 "$$d"/qemu-system-x86_64 $(DESTDIR)$(BINDIR)/ && \
	cp -L "$$d"/pc-bios/* $(DESTDIR)$(QEMU_DATADIR)/ && \
	chmod 0644 $(DESTDIR)$(QEMU_DATADIR)/* && \
	echo "  INSTALL  $(DESTDIR)$(BINDIR)/qemu-system-x86_64, firmware in $(DESTDIR)$(QEMU_DATADIR)"
	$(Q)if [ -d $(IPXE_ROMS) ]; then install -m 0644 $(IPXE_ROMS)/*.rom $(DESTDIR)$(QEMU_DATADIR)/; \
	else echo "  no $(IPXE_ROMS) (apt install ipxe-qemu): a domain with a NIC needs its option ROM"; fi

# the packages of debian/, built in a copy of the tree with the DKMS
# source and resolve_btfids beside it (vmtests/make-deb.sh)
deb: setup
	$(Q)BUILD=$(BUILD) vmtests/make-deb.sh

clean:
	rm -rf $(BUILD)

# Also drop the kernel and QEMU trees and builds (a full rebuild follows)
distclean: clean
	rm -rf $(WSR_CACHE)

help:
	@sed -n 's/^## \{0,1\}//p' $(firstword $(MAKEFILE_LIST)) | \
		sed 's|\$$(BUILD)|$(BUILD)|g; s|\$$(WSR_CACHE)|$(WSR_CACHE)|g'

FORCE:
