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

/* what this reclaim pass reports (see bpf/reclaim.h) */
static __always_inline enum wsr_reclaim_report pass_reports(struct scan_control *sc)
{
	return wsr_reclaim_reports(BPF_CORE_READ(sc, priority),
				   BPF_CORE_READ_BITFIELD_PROBED(sc, proactive),
				   BPF_CORE_READ(sc, target_mem_cgroup) != NULL);
}

#endif /* __WSR_KERNEL_BPF_H */
