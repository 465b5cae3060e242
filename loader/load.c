// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Loading the estimator's BPF object (bpf/wsr.bpf.c) and pinning its maps,
 * programs and links in pin_dir (wsr daemon); wsr unload.  The balloon's
 * object loads apart, in balloon-attach.c.
 */
#define _GNU_SOURCE	/* dl_iterate_phdr() */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>
#include "cli.h"
#include "wsr.skel.h"

/*
 * Is every function we attach to in the kernel's BTF (not inlined away)?
 * The aging hooks only with @merge_hooks (not for --seed-aging).
 */
static int check_attach_targets(struct wsr_bpf *skel, bool merge_hooks)
{
	static const char *const required[] = { "shrink_node", "mem_cgroup_css_offline" };
	struct btf *btf = btf__load_vmlinux_btf();
	unsigned int i;
	int err = 0;

	if (!btf) {
		err_msg("cannot load the kernel's BTF (/sys/kernel/btf/vmlinux): "
			"CONFIG_DEBUG_INFO_BTF is needed");
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(required); i++) {
		if (btf__find_by_name_kind(btf, required[i], BTF_KIND_FUNC) < 0) {
			err_msg("attach target %s not found in the kernel's BTF "
				"(needs CONFIG_LRU_GEN and CONFIG_MEMCG; inlined?)", required[i]);
			err = -1;
		}
	}
	if (btf__find_by_name_kind(btf, "bpf_iter__cgroup", BTF_KIND_STRUCT) < 0) {
		err_msg("kernel has no cgroup iterator (bpf_iter__cgroup): Linux 6.1+ needed");
		err = -1;
	}
	/* without the aging hooks, merged generations take MGLRU's births */
	if (merge_hooks && btf__find_by_name_kind(btf, "try_to_inc_max_seq", BTF_KIND_FUNC) < 0) {
		err_msg("attach target try_to_inc_max_seq not found: merged generations take "
			"MGLRU's births, and the daemon does not age on its own");
		merge_hooks = false;
	}
	if (!merge_hooks) {
		bpf_program__set_autoload(skel->progs.wsr_aging_begin, false);
		bpf_program__set_autoload(skel->progs.wsr_aging_end, false);
	}
	/* node_reclaim()'s tracepoints (CONFIG_NUMA): without them its passes report */
	if (btf__find_by_name_kind(btf, "btf_trace_mm_vmscan_node_reclaim_begin",
				   BTF_KIND_TYPEDEF) < 0) {
		err_msg("tracepoint mm_vmscan_node_reclaim_begin not found: passes of "
			"node_reclaim (zone_reclaim_mode) make reports");
		bpf_program__set_autoload(skel->progs.wsr_node_reclaim_begin, false);
		bpf_program__set_autoload(skel->progs.wsr_node_reclaim_end, false);
	}
	/* reaccess is optional: without it the rest still works */
	if (btf__find_by_name_kind(btf, "reset_batch_size", BTF_KIND_FUNC) < 0) {
		err_msg("attach target reset_batch_size not found: reaccess histograms disabled");
		bpf_program__set_autoload(skel->progs.wsr_reaccess, false);
	}
	btf__free(btf);
	return err;
}

/* pin_link(): @link pinned as @name in pin_dir, or a message and -1 */
static int pin_link(struct bpf_link *link, const char *name)
{
	struct wsr_err err;

	if (!wsr_pin_link(pin_dir, link, name, &err))
		return 0;
	err_msg("%s", err.msg);
	return -1;
}

/* the estimator's object with its maps set to their pins */
static struct wsr_bpf *open_skel(__u32 walk_steps)
{
	struct bpf_program *prog;
	struct bpf_map *map;
	struct wsr_bpf *skel;
	char path[PATH_MAX];

	skel = wsr_bpf__open();
	if (!skel) {
		err_msg("cannot open the BPF object");
		return NULL;
	}
	skel->rodata->nr_nodes = wsr_possible_nodes(&sys);
	skel->rodata->walk_steps = walk_steps;
	/* with -v, each program's verifier cost (BPF_LOG_STATS) */
	if (verbose)
		bpf_object__for_each_program(prog, skel->obj)
			bpf_program__set_log_level(prog, 4);
	/* pinned maps are reused: config and history survive a reload */
	bpf_object__for_each_map(map, skel->obj) {
		/* internal maps (.rodata, .bss) belong to this load only */
		if (strchr(bpf_map__name(map), '.'))
			continue;
		wsr_pin_path(pin_dir, bpf_map__name(map), path, sizeof(path));
		bpf_map__set_pin_path(map, path);
	}
	return skel;
}

/*
 * Load and pin, with the pin folder locked (load_and_pin()): the reclaim
 * link, which says "loaded" (wsr_loaded()), pinned last, so that a load
 * killed midway leaves no folder that looks loaded; what such a load did
 * pin (but the maps, which keep the knobs) is removed first.
 */
static int load_locked(__u32 walk_steps, bool merge_hooks)
{
	LIBBPF_OPTS(bpf_iter_attach_opts, iopts);
	union bpf_iter_link_info linfo = {};
	struct wsr_bpf *skel;
	char path[PATH_MAX];
	int err = -1, cg = -1, ret;

	wsr_unpin_estimator_progs(pin_dir);
	skel = open_skel(walk_steps);
	if (!skel)
		return -1;
	if (check_attach_targets(skel, merge_hooks))
		goto out;
	ret = wsr_bpf__load(skel);
	/* refused before any verifier ran: no capability for BPF or tracing */
	if (ret == -EPERM && !have_cap(CAP_SYS_ADMIN) &&
	    (!have_cap(CAP_BPF) || !have_cap(CAP_PERFMON))) {
		err_msg("cannot load the BPF programs: not permitted without %s%s%s (they need "
			"CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)",
			have_cap(CAP_BPF) ? "" : "CAP_BPF",
			!have_cap(CAP_BPF) && !have_cap(CAP_PERFMON) ? " and " : "",
			have_cap(CAP_PERFMON) ? "" : "CAP_PERFMON");
		goto out;
	}
	if (ret) {
		err_msg("cannot load the BPF programs (run with -v for the verifier log)");
		goto out;
	}
	/* for the balloon object loaded later, and for the warnings */
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.stats), &(__u32){ 0 },
				&(struct wsr_stats){ .walk_steps = walk_steps }, BPF_ANY)) {
		err_msg("cannot store the walk limit: %s", strerror(errno));
		goto out;
	}
	cg = open(sys.cgroup, O_RDONLY | O_DIRECTORY);
	linfo.cgroup.cgroup_fd = cg;
	linfo.cgroup.order = BPF_CGROUP_ITER_DESCENDANTS_PRE;
	iopts.link_info = &linfo;
	iopts.link_info_len = sizeof(linfo);
	wsr_pin_path(pin_dir, WSR_PIN_PROG_HISTOGRAM, path, sizeof(path));
	if (pin_link(bpf_program__attach(skel->progs.wsr_offline), WSR_PIN_LINK_OFFLINE) ||
	    pin_link(bpf_program__attach_iter(skel->progs.wsr_histogram, &iopts),
		     WSR_PIN_HISTOGRAM) ||
	    bpf_program__pin(skel->progs.wsr_histogram, path))
		goto out;
	wsr_pin_path(pin_dir, WSR_PIN_PROG_REFRESH, path, sizeof(path));
	if (bpf_program__pin(skel->progs.wsr_refresh_list, path))
		goto out;
	if (bpf_program__autoload(skel->progs.wsr_reaccess) &&
	    pin_link(bpf_program__attach(skel->progs.wsr_reaccess), WSR_PIN_LINK_REACCESS))
		goto out;
	if (bpf_program__autoload(skel->progs.wsr_node_reclaim_begin) &&
	    (pin_link(bpf_program__attach(skel->progs.wsr_node_reclaim_begin),
		      WSR_PIN_LINK_NODE_RECLAIM_BEGIN) ||
	     pin_link(bpf_program__attach(skel->progs.wsr_node_reclaim_end),
		      WSR_PIN_LINK_NODE_RECLAIM_END)))
		goto out;
	if (bpf_program__autoload(skel->progs.wsr_aging_begin) &&
	    (pin_link(bpf_program__attach(skel->progs.wsr_aging_begin), WSR_PIN_LINK_AGING_BEGIN) ||
	     pin_link(bpf_program__attach(skel->progs.wsr_aging_end), WSR_PIN_LINK_AGING_END)))
		goto out;
	if (pin_link(bpf_program__attach(skel->progs.wsr_reclaim), WSR_PIN_LINK_RECLAIM))
		goto out;
	err = 0;
out:
	if (cg >= 0)
		close(cg);
	/* links and maps live on in bpffs; our references can go */
	wsr_bpf__destroy(skel);
	return err;
}

/*
 * Is each map pinned in pin_dir as this build's object declares it?  Pins
 * of an older wsr (another value size: a field added) would be misread by
 * our programs and commands, or refused by libbpf with less to go on.
 */
static int check_pinned_layouts(__u32 walk_steps)
{
	struct wsr_bpf *skel = open_skel(walk_steps);
	struct wsr_map_layout want;
	struct wsr_err werr;
	struct bpf_map *map;
	int fd, err = 0;

	if (!skel)
		return -1;
	bpf_object__for_each_map(map, skel->obj) {
		if (!bpf_map__pin_path(map))
			continue;
		fd = bpf_obj_get(bpf_map__pin_path(map));
		if (fd < 0)
			continue;	/* not pinned yet: the load makes it */
		want = (struct wsr_map_layout){ bpf_map__name(map), bpf_map__type(map),
						bpf_map__key_size(map), bpf_map__value_size(map),
						bpf_map__max_entries(map), bpf_map__map_flags(map),
						false };
		err = wsr_check_map_layout(fd, pin_dir, &want, &werr);
		close(fd);
		if (err) {
			err_msg("%s", werr.msg);
			break;
		}
	}
	wsr_bpf__destroy(skel);
	return err ? -1 : 0;
}

/* dl_iterate_phdr(): drop @info's read-only segments (release_load_memory()) */
static int drop_read_only(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t page = *(long *)data, lo, hi;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W))
			continue;
		lo = (info->dlpi_addr + ph->p_vaddr) & ~(page - 1);
		hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + page - 1) & ~(page - 1);
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
	}
	return 0;
}

void release_load_memory(void)
{
	long page = sysconf(_SC_PAGESIZE);

	/* locked pages cannot be dropped (EINVAL): unlocked meanwhile */
	if (memory_locked)
		munlockall();
	/*
	 * Our code and read-only data, never written (PF_W apart): a page
	 * dropped is read again from its file at its next use, and only
	 * those the daemon uses after a load come back.  The BPF objects in
	 * them (the skeletons' ELF), libbpf's and libelf's code are a load's.
	 */
	dl_iterate_phdr(drop_read_only, &page);
	malloc_trim(0);
	/* what is left, locked again, and what the daemon touches from now */
	if (memory_locked && mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT))
		err_msg("warning: mlockall failed: %s", strerror(errno));
}

int load_and_pin(__u32 walk_steps, bool merge_hooks)
{
	struct wsr_err werr;
	int dir, ret;

	/* a daemon that started with us may have loaded while we waited */
	dir = wsr_lock_pin_dir(pin_dir, WSR_LOAD_LOCK_TIMEOUT_MS, &werr);
	if (dir < 0) {
		err_msg("%s", werr.msg);
		return -1;
	}
	ret = check_pinned_layouts(walk_steps);
	if (!ret)
		ret = wsr_loaded(pin_dir) ? 1 : load_locked(walk_steps, merge_hooks);
	close(dir);
	return ret;
}

static int do_unload(int argc, char **argv)
{
	/* the global options only */
	if (cmd_getopt(argc, argv, "", NULL) != -1)
		return 2;
	if (!cmd_args(argc, argv, 0, "unload takes no arguments"))
		return 2;
	wsr_unpin(pin_dir, false);
	wsr_balloon_clear_detached(pin_dir);
	if (rmdir(pin_dir) && errno != ENOENT) {
		err_msg("cannot remove %s: %s", pin_dir, strerror(errno));
		return 1;
	}
	return 0;
}

const struct wsr_cmd cmd_unload = {
	.name = "unload",
	.fn = do_unload,
	.synopsis = "",
	.help =
"Detach the programs and remove the pins.\n",
};
