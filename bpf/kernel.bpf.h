/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Reading kernel state: a lruvec's generations, the memcg of a lruvec, a
 * css or a cgroup, the root memcg, and what a reclaim pass reports.  All
 * through CO-RE, so that one object runs on every 6.1+ kernel.
 */
#ifndef __WSR_KERNEL_BPF_H
#define __WSR_KERNEL_BPF_H

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "maps.bpf.h"
#include "reclaim.h"

static __always_inline __u32 nr_zones(void)
{
	__u32 nz = bpf_core_enum_value(enum zone_type, __MAX_NR_ZONES);

	return nz > 8 ? 8 : nz;
}

/* generations of @lruvec now; nr_pages summed over zones, a negative sum as 0 */
static __noinline int read_gens(struct lruvec *lruvec, struct scratch *s)
{
	struct wsr_gens *g = &s->gens;
	__u32 nz = nr_zones(), gen, type, zone;
	__u32 size = bpf_core_field_size(lruvec->lrugen.nr_pages);

	if (size > sizeof(s->nr_pages))
		return -1;
	g->max_seq = BPF_CORE_READ(lruvec, lrugen.max_seq);
	g->min_seq[0] = BPF_CORE_READ(lruvec, lrugen.min_seq[0]);
	g->min_seq[1] = BPF_CORE_READ(lruvec, lrugen.min_seq[1]);
	if (bpf_core_read(g->birth, sizeof(g->birth), &lruvec->lrugen.timestamps) ||
	    bpf_probe_read_kernel(s->nr_pages, size & 0x3ff, &lruvec->lrugen.nr_pages))
		return -1;
	for (gen = 0; gen < WSR_NR_GENS; gen++) {
		for (type = 0; type < 2; type++) {
			long sum = 0;

			for (zone = 0; zone < 8 && zone < nz; zone++) {
				sum += s->nr_pages[((gen * 2 + type) * nz + zone) & 63];
			}
			/*
			 * A zone's count goes negative while pages move between
			 * generations; summed over zones it cancels, as in lru_gen.
			 */
			g->pages[gen][type] = sum > 0 ? sum : 0;
		}
	}
	return 0;
}

/* the memcg owning @lruvec: it is embedded in a mem_cgroup_per_node */
static __always_inline struct mem_cgroup *lruvec_memcg(struct lruvec *lruvec)
{
	struct mem_cgroup_per_node *mz;

	mz = (void *)lruvec - bpf_core_field_offset(struct mem_cgroup_per_node, lruvec);
	return BPF_CORE_READ(mz, memcg);
}

static __always_inline struct mem_cgroup *css_memcg(struct cgroup_subsys_state *css)
{
	return (void *)css - bpf_core_field_offset(struct mem_cgroup, css);
}

/* the cgroup id (cgroup v2 inode number) of a memcg's css */
static __always_inline __u64 css_cgroup_id(struct cgroup_subsys_state *css)
{
	struct cgroup *cgrp = BPF_CORE_READ(css, cgroup);

	return cgrp ? BPF_CORE_READ(cgrp, kn, id) : WSR_ROOT_CGROUP;
}

/* the root memcg's css: the memory css of the default hierarchy's root */
static __always_inline struct cgroup_subsys_state *root_memcg_css(void)
{
	int id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
	struct task_struct *task = (void *)bpf_get_current_task();
	struct cgroup_root *root = BPF_CORE_READ(task, cgroups, dfl_cgrp, root);

	if (!root)
		return NULL;
	return BPF_CORE_READ(root, cgrp.subsys[id]);
}

/* the memcg of @cgrp, if the memory controller is on there */
static __always_inline struct mem_cgroup *cgroup_memcg(struct cgroup *cgrp)
{
	int id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
	struct cgroup_subsys_state *css;

	css = BPF_CORE_READ(cgrp, subsys[id]);
	if (!css)
		return NULL;
	return (void *)css - bpf_core_field_offset(struct mem_cgroup, css);
}

/*
 * mm's and PSI's globals.  Untyped: 6.1's BTF describes no global variable
 * that is not per-CPU, so libbpf finds them in kallsyms.  Weak: a kernel
 * without them (no swap, no PSI) still loads us; their address is then 0,
 * and reading it fails.
 */
extern const void nr_swap_pages __ksym __weak;
extern const void vm_swappiness __ksym __weak;
extern const void psi_system __ksym __weak;


/* memcg_swap_room()'s walk up, one level a bpf_loop() step */
struct swap_room_walk {
	__u64 css;		/* the level this step reads */
	__s64 room;		/* the least swap left so far */
};

static long swap_room_step(__u32 i, struct swap_room_walk *w)
{
	struct cgroup_subsys_state *css = (void *)w->css, *parent;
	struct mem_cgroup *m = css_memcg(css);
	__s64 r;

	parent = BPF_CORE_READ(css, parent);
	if (!parent)
		return 1;
	r = (__s64)BPF_CORE_READ(m, swap.max) - BPF_CORE_READ(m, swap.usage.counter);
	if (r < w->room)
		w->room = r;
	w->css = (__u64)parent;
	return 0;
}

/*
 * Swap pages the memcg at @memcg_addr may still use, as
 * mem_cgroup_get_nr_swap_pages() limits them on the way up (without the
 * global count): with fewer than MIN_LRU_BATCH, MGLRU ages it without anon
 * (can_swap 0).  Inline: a bpf_loop() step is a call frame of its own,
 * and the balloon's request hook reaches this one's as its 8th, the
 * verifier's limit (the hook, balloon_answer, answer_step, balloon_build,
 * walk_step, add_lruvec, memcg_can_swap, swap_room_step).
 */
static __always_inline __s64 memcg_swap_room(__u64 memcg_addr)
{
	struct mem_cgroup *memcg = (struct mem_cgroup *)memcg_addr;
	struct swap_room_walk w = { .css = (__u64)&memcg->css, .room = 0x7fffffffffffffffLL };

	bpf_loop(WSR_MAX_ANCESTORS, swap_room_step, &w, 0);
	return w.room < 0 ? 0 : w.room;
}

/*
 * get_swappiness() != 0 for @memcg's lruvecs: can MGLRU age and reclaim
 * their anon?  vm.swappiness, which cgroup v2 uses for every memcg in 6.1,
 * is not 0, and MIN_LRU_BATCH swap pages are free on the machine and left
 * to the memcg.  (can_demote() is taken as false: a guest has no memory
 * tiers.)  Yes when the globals cannot be read.
 *
 * A global function, checked on its own: its answer is then unknown to
 * the verifier of its callers.  A static one's was not, and 6.1's verifier
 * removed the callers' code for "cannot swap" as dead after pruning that
 * path.
 */
__noinline int memcg_can_swap(__u64 memcg)
{
	long free = 0;
	int swappiness = 0;

	if (bpf_probe_read_kernel(&swappiness, sizeof(swappiness), &vm_swappiness) ||
	    bpf_probe_read_kernel(&free, sizeof(free), &nr_swap_pages))
		return 1;
	if (swappiness <= 0 || free < WSR_MIN_LRU_BATCH)
		return 0;
	return memcg_swap_room(memcg) >= WSR_MIN_LRU_BATCH;
}

/*
 * PSI's totals, wherever the running kernel keeps them in struct psi_group
 * (ns, [aggregator][state]: BTF has the array flat); our own flavour, so
 * that a vmlinux.h built without PSI compiles.  The indices are 6.1's,
 * unchanged since: PSI_AVGS 0, PSI_MEM_SOME 2, PSI_MEM_FULL 3.
 */
struct psi_group___wsr {
	__u64 total[12];
} __attribute__((preserve_access_index));

/*
 * The guest's memory pressure: the "total=" of /proc/pressure/memory's
 * "some" and "full" lines, in us, as PSI's averaging work last summed them
 * (every 2 s while tasks run, and at each read of the file).  0 without PSI.
 */
static __always_inline void mem_pressure(__u64 *some_us, __u64 *full_us)
{
	struct psi_group___wsr *g = (void *)&psi_system;
	__u64 some = 0, full = 0;

	*some_us = *full_us = 0;
	if (!g || !bpf_core_field_exists(g->total) ||
	    bpf_core_read(&some, sizeof(some), &g->total[2]) ||
	    bpf_core_read(&full, sizeof(full), &g->total[3]))
		return;
	*some_us = some / 1000;
	*full_us = full / 1000;
}

/* is the current task inside node_reclaim() (see map node_reclaiming)? */
static __always_inline int in_node_reclaim(void)
{
	__u32 *in = bpf_task_storage_get(&node_reclaiming, bpf_get_current_task_btf(), 0, 0);

	return in && *in;
}

/* what this reclaim pass reports (see bpf/reclaim.h) */
static __always_inline enum wsr_reclaim_report pass_reports(struct scan_control *sc)
{
	return wsr_reclaim_reports(BPF_CORE_READ(sc, priority),
				   BPF_CORE_READ_BITFIELD_PROBED(sc, proactive),
				   BPF_CORE_READ(sc, target_mem_cgroup) != NULL, in_node_reclaim());
}

#endif /* __WSR_KERNEL_BPF_H */
