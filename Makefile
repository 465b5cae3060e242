# wsr: working-set reporting for overcommitted Linux guests.
#
# The targets ("make help" prints the lines that start with "## "):
## make demo        set up, build, boot a guest running a workload, show its working set (the main job)
## make check       set up, build, run every test: unit, lint, QMP, qtest, balloon, harness, guest (~21 min)
## make check-long  the long tests: 10,000 device fuzz cases, 20,000 hostile-driver ones, long_*.sh
## make bench       benchmarks: figures next to a baseline from the same run (BENCHMARKS.md)
## make lint        make check's lint step alone: shellcheck, checkpatch on both series, their self-tests
## make all         build wsr into $(BUILD)/ (the default; builds the patched kernel first, for its BTF)
## make setup       install the Debian packages wsr needs (vmtests/setup-host.sh, as root)
## make compile-commands  $(BUILD)/compile_commands.json for clangd and editors (bear; rebuilds wsr)
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
# JSON by json-c (libjson-c-dev), in the guest's wsr and in wsr-host.
# Read when this file is, before "make setup" may have installed it:
# quiet then, and the usual flags (make demo and make check run make all
# again after set-up, which reads them anew)
JSONC_CFLAGS := $(shell pkg-config --cflags json-c 2>/dev/null)
JSONC_LIBS   := $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)
INCLUDES := -Iinclude -Iloader -I$(BUILD) $(JSONC_CFLAGS)
GUEST    := $(BUILD)/guest
LIBS     := -lbpf -lelf -lz -lzstd $(JSONC_LIBS)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

GUEST_PROGS := $(GUEST)/wsr $(GUEST)/wsr-workload $(GUEST)/kfunc-probe
GUEST_TESTS := $(wildcard tests/guest/*.sh)
UNIT_TESTS  := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(wildcard tests/unit/*.c))

.PHONY: all setup check check-long bench demo lint compile-commands clean distclean help FORCE
.DELETE_ON_ERROR:
.SECONDARY:

all: $(GUEST_PROGS) $(GUEST)/run-tests $(GUEST)/wsr-demo $(GUEST)/wsr-bench $(GUEST)/wsr-tiers $(UNIT_TESTS) \
	$(BUILD)/wsr-host

setup:
	$(Q)vmtests/setup-host.sh

# The kernel build is keyed by its inputs inside the script; this file
# changes only when the kernel's cache folder does.
$(BUILD)/kernel.path: FORCE | setup $(BUILD)
	$(Q)p=$$(vmtests/build-kernel.sh) && echo "$$p" >$@.new && \
		{ cmp -s $@.new $@ && rm $@.new || mv $@.new $@; }

$(BUILD)/vmlinux.h: $(BUILD)/kernel.path
	$(call msg,BTF,$@)
	$(Q)$(BPFTOOL) btf dump file "$$(cat $<)/vmlinux" format c >$@

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(wildcard include/*.h bpf/*.h) $(BUILD)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86 \
		$(INCLUDES) -Ibpf -c $< -o $@

# test-only BPF programs (the balloon kfuncs called the ways a careless or
# a busy tracing program would)
$(BUILD)/%.bpf.o: tests/balloon/progs/%.bpf.c $(wildcard tests/balloon/progs/*.h) include/wsr.h $(BUILD)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86 \
		$(INCLUDES) -Itests/balloon/progs -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< >$@

# libwsr (include/libwsr.h): pins, memcgs, refresh, histograms, knobs,
# watch, metrics, the text formats of parse.c, pindir.c and prom.c and the
# JSON of json.c.  The CLI, the daemon and the unit tests link it;
# wsr-host links the objects of parse.c, json.c and prom.c (PARSE_OBJS:
# one set of rules for numbers and intervals, one JSON library, one
# Prometheus writer), which need no BPF.
LIBWSR_SRCS := $(wildcard loader/lib/*.c) loader/parse.c loader/pindir.c loader/json.c loader/prom.c
LIBWSR_OBJS := $(patsubst loader/%.c,$(BUILD)/libwsr/%.o,$(LIBWSR_SRCS))
LIBWSR      := $(BUILD)/libwsr.a
PARSE_OBJS  := $(BUILD)/libwsr/parse.o $(BUILD)/libwsr/json.o $(BUILD)/libwsr/prom.o
CLI_SRCS    := $(filter-out $(LIBWSR_SRCS),$(wildcard loader/*.c))

$(BUILD)/libwsr/%.o: loader/%.c $(wildcard loader/*.h include/*.h)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(INCLUDES) -c -o $@ $<

# made anew, so that a removed source leaves no stale member
$(LIBWSR): $(LIBWSR_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# static, so that it runs in a busybox initramfs; two BPF objects, the
# estimator's (load.c) and the balloon's (balloon-attach.c), which loads
# only where the virtio_balloon driver is
$(GUEST)/wsr: $(CLI_SRCS) $(LIBWSR) $(BUILD)/wsr.skel.h $(BUILD)/balloon.skel.h $(wildcard loader/*.h include/*.h) | $(GUEST)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(INCLUDES) -static -o $@ $(CLI_SRCS) $(LIBWSR) $(LIBS)

# the host-side QMP tool: QMP's JSON by json-c, numbers and intervals by
# the loader's parsers (PARSE_OBJS), balance's metrics served by
# libmicrohttpd (libmicrohttpd-dev), its exposition's pieces by
# loader/prom.c (in PARSE_OBJS), shared with "wsr metrics"
MHD_CFLAGS   = $(shell pkg-config --cflags libmicrohttpd 2>/dev/null)
MHD_LIBS     = $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)
HOST_SRCS := host/wsr-host.c host/client.c host/qmp.c host/policy.c host/balance.c \
	host/balance-args.c host/metrics.c
$(BUILD)/wsr-host: $(HOST_SRCS) $(PARSE_OBJS) $(wildcard host/*.h) | $(BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Iinclude -Iloader $(JSONC_CFLAGS) $(MHD_CFLAGS) -o $@ $(HOST_SRCS) \
		$(PARSE_OBJS) $(JSONC_LIBS) $(MHD_LIBS)

$(GUEST)/kfunc-probe: tests/balloon/progs/kfunc_probe.c tests/balloon/progs/kfunc_probe.h $(BUILD)/kfunc_probe.skel.h | $(GUEST)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(INCLUDES) -Itests/balloon/progs -static -o $@ $< $(LIBS)

$(GUEST)/wsr-workload: vmtests/progs/wsr-workload.c | $(GUEST)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -static -o $@ $<

# the guest tests with the vocabulary all tests share (tests/testlib.sh)
$(GUEST)/run-tests: vmtests/guest-run-tests.sh $(GUEST_TESTS) tests/testlib.sh | $(GUEST)
	$(Q)rm -rf $(GUEST)/tests && mkdir -p $(GUEST)/tests
	$(Q)cp $(GUEST_TESTS) tests/testlib.sh $(GUEST)/tests/
	$(Q)install -m 755 $< $@

$(GUEST)/wsr-%: vmtests/%-guest.sh | $(GUEST)
	$(Q)install -m 755 $< $@

$(BUILD)/unit/%: tests/unit/%.c $(LIBWSR) $(wildcard loader/*.h include/*.h bpf/*.h tests/unit/*.h) | $(BUILD)/unit
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(INCLUDES) -Ibpf -o $@ $< $(LIBWSR) $(LIBS)

# the CLI's option parsing, through the built binary (it runs on the host:
# options are parsed before anything needs BPF)
$(BUILD)/unit/test_cli: tests/unit/test_cli.c tests/unit/unit.h $(GUEST)/wsr | $(BUILD)/unit
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -DWSR_BIN='"$(abspath $(GUEST)/wsr)"' -o $@ $<

# the two BPF objects' shape, opened and not loaded (see the test)
$(BUILD)/unit/test_bpf_objects: tests/unit/test_bpf_objects.c tests/unit/unit.h $(BUILD)/wsr.bpf.o \
		$(BUILD)/balloon.bpf.o | $(BUILD)/unit
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -DWSR_BPF_DIR='"$(abspath $(BUILD))"' -o $@ $< $(LIBS)

# "wsr metrics"' exposition (libwsr), checked by promtool too
$(BUILD)/unit/test_metrics: tests/unit/test_metrics.c $(LIBWSR) $(wildcard loader/*.h include/*.h tests/unit/*.h) | $(BUILD)/unit
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(INCLUDES) -DWSR_SRC_ROOT=\"$(CURDIR)\" -o $@ $< $(LIBWSR) $(LIBS)

# wsr-host's QMP messages and reports: host/qmp.c and PARSE_OBJS with
# json-c, not the loader files the other unit tests link
$(BUILD)/unit/test_host_qmp $(BUILD)/unit/test_host_report: $(BUILD)/unit/%: tests/unit/%.c host/qmp.c \
		host/qmp.h host/policy.h $(PARSE_OBJS) tests/unit/unit.h | $(BUILD)/unit
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Iinclude -Iloader -Ihost $(JSONC_CFLAGS) -o $@ $< host/qmp.c \
		$(PARSE_OBJS) $(JSONC_LIBS)

# wsr-host's QMP over a socket, against a fake QEMU: host/client.c, and
# the wsr-host binary for what it sends
$(BUILD)/unit/test_host_client: tests/unit/test_host_client.c host/client.c host/qmp.c \
		$(wildcard host/*.h) $(PARSE_OBJS) tests/unit/unit.h $(BUILD)/wsr-host | $(BUILD)/unit
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Iinclude -Iloader -Ihost $(JSONC_CFLAGS) \
		-DWSR_HOST_BIN='"$(abspath $(BUILD)/wsr-host)"' -o $@ $< host/client.c host/qmp.c \
		$(PARSE_OBJS) $(JSONC_LIBS)

# wsr-host balance's loop against two fake QEMUs (the test serves QMP)
BALANCE_SRCS := host/balance.c host/balance-args.c host/client.c host/qmp.c host/policy.c \
	host/metrics.c
$(BUILD)/unit/test_host_balance: tests/unit/test_host_balance.c $(BALANCE_SRCS) $(PARSE_OBJS) \
		$(wildcard host/*.h) tests/unit/unit.h | $(BUILD)/unit
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Iinclude -Iloader -Ihost $(JSONC_CFLAGS) $(MHD_CFLAGS) -o $@ $< \
		$(BALANCE_SRCS) $(PARSE_OBJS) $(JSONC_LIBS) $(MHD_LIBS)

# wsr-host balance's exposition text: host/metrics.c (libmicrohttpd linked,
# not started)
$(BUILD)/unit/test_host_metrics: tests/unit/test_host_metrics.c host/metrics.c host/metrics.h \
		host/policy.h loader/prom.c loader/prom.h tests/unit/unit.h tests/unit/promtool.h | $(BUILD)/unit
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Iinclude -Iloader -Ihost $(MHD_CFLAGS) -DWSR_SRC_ROOT=\"$(CURDIR)\" -o $@ $< \
		host/metrics.c loader/prom.c $(MHD_LIBS)

# wsr-host balance's decisions: host/policy.c alone (pure, no json-c)
$(BUILD)/unit/test_host_policy: tests/unit/test_host_policy.c host/policy.c host/policy.h \
		tests/unit/unit.h | $(BUILD)/unit
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Iinclude -Ihost -o $@ $< host/policy.c

$(BUILD) $(GUEST) $(BUILD)/unit:
	$(Q)mkdir -p $@

check: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)vmtests/check.sh

# each step's own status counts, not only its FAIL lines (the script says)
check-long: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)BUILD=$(BUILD) vmtests/check-long.sh

bench: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)vmtests/bench.sh

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

clean:
	rm -rf $(BUILD)

# Also drop the kernel and QEMU trees and builds (a full rebuild follows)
distclean: clean
	rm -rf $(WSR_CACHE)

help:
	@sed -n 's/^## \{0,1\}//p' $(firstword $(MAKEFILE_LIST)) | \
		sed 's|\$$(BUILD)|$(BUILD)|g; s|\$$(WSR_CACHE)|$(WSR_CACHE)|g'

FORCE:
