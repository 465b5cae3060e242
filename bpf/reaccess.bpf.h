/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The reaccess histograms: pages the page-table walk finds accessed again
 * (they leave an older generation for the youngest), counted by the age
 * they had, for the memcg of their lruvec and each of its ancestors.
 *
 * Part of the estimator (wsr.bpf.c, whose config map it reads).
 */
#ifndef __WSR_REACCESS_BPF_H
#define __WSR_REACCESS_BPF_H

#include "lruvec_hist.bpf.h"

/* per (memcg, node): pages found accessed again, by the age they had */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* as config (wsr.bpf.c) */
	__uint(max_entries, WSR_MAX_KEYS);
	__type(key, struct wsr_key);
	__type(value, struct wsr_hist);
} reaccess SEC(".maps");

/*
 * Bin the generation deltas of one page-table walk batch: a page found
 * accessed again moves from its generation to max_seq, so a negative
 * delta in an older generation counts reaccesses at that generation's age.
 */
static __noinline int bin_reaccess(__u64 root, __u32 node, struct scratch *s)
{
	struct wsr_key key = { .cgroup_id = root, .node = node };
	struct wsr_config *cfg = bpf_map_lookup_elem(&config, &key);
	struct wsr_hist *h;
	__u32 i;

	if (!cfg)
		return 0;
	/* one read of the knobs (struct scratch says why) */
	s->cfg = *cfg;
	cfg = &s->cfg;
	if (!cfg->reaccess_nr_intervals)
		return 0;
	h = bpf_map_lookup_elem(&reaccess, &key);
	/*
	 * wsr set made it (loader/lib/hist.c says why); with interrupts off
	 * here, an entry made now has only the map's per-CPU spares
	 */
	if (!h) {
		init_hist(&s->delta, cfg, true);
		bpf_map_update_elem(&reaccess, &key, &s->delta, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&reaccess, &key);
		if (!h) {
			STAT_INC(maps_full);
			return 0;
		}
	}
	load_bounds(cfg, true, s);
	init_hist(&s->delta, cfg, true);
	/* max_seq is where reaccessed pages go: count the others */
	s->gens.now = bpf_jiffies64();
	s->gens.skip = 1;
	/* a reaccessed page's age is its generation's: no parts */
	s->v.parts.t[0].nr = 0;
	s->v.parts.t[1].nr = 0;
	bin_gens(&s->gens, &s->v.parts, &s->bounds, &s->delta, &s->span);
	for (i = 0; i < WSR_MAX_BINS; i++) {
		if (s->delta.anon[i])
			__sync_fetch_and_add(&h->anon[i], s->delta.anon[i]);
		if (s->delta.file[i])
			__sync_fetch_and_add(&h->file[i], s->delta.file[i]);
	}
	return 0;
}

struct ancestor_ctx {
	struct cgroup_subsys_state *css;
	__u32 node;
};

/*
 * One ancestor per bpf_loop step: the verifier checks bin_reaccess() once,
 * where an unrolled loop had it check a copy per level (seconds of load
 * time, ten times that on a sanitizer kernel).
 */
static int ancestor_step(__u32 i, struct ancestor_ctx *c)
{
	struct cgroup_subsys_state *css = c->css;
	struct scratch *s = get_scratch();

	/* css in a local: inside BPF_CORE_READ, c->css would be relocated too */
	if (!css || !s)
		return 1;
	bin_reaccess(css_cgroup_id(css), c->node, s);
	c->css = BPF_CORE_READ(css, parent);
	return 0;
}

SEC("fentry/reset_batch_size")
int BPF_PROG(wsr_reaccess, struct lruvec *lruvec, struct lru_gen_mm_walk *walk)
{
	__u32 node = BPF_CORE_READ(lruvec, pgdat, node_id);
	__u32 nz = nr_zones(), size, gen, type, zone;
	struct scratch *s = get_scratch();
	struct ancestor_ctx c;
	int deltas[WSR_NR_GENS * 2 * 8];

	if (!s || node >= WSR_MAX_NODES)
		return 0;
	size = bpf_core_field_size(walk->nr_pages);
	if (size > sizeof(deltas) ||
	    bpf_probe_read_kernel(deltas, size & 0xff, &walk->nr_pages))
		return 0;
	s->gens.max_seq = BPF_CORE_READ(walk, max_seq);
	s->gens.min_seq[0] = BPF_CORE_READ(lruvec, lrugen.min_seq[0]);
	s->gens.min_seq[1] = BPF_CORE_READ(lruvec, lrugen.min_seq[1]);
	if (bpf_core_read(s->gens.birth, sizeof(s->gens.birth), &lruvec->lrugen.timestamps))
		return 0;
	/* pages[gen][type] = pages that left the generation */
	for (gen = 0; gen < WSR_NR_GENS; gen++) {
		for (type = 0; type < 2; type++) {
			__u64 left = 0;

			for (zone = 0; zone < 8 && zone < nz; zone++) {
				int d = deltas[((gen * 2 + type) * nz + zone) & 63];

				left += d < 0 ? -d : 0;
			}
			s->gens.pages[gen][type] = left;
		}
	}
	/* the memcg and each of its ancestors, up to the root */
	c.css = &lruvec_memcg(lruvec)->css;
	c.node = node;
	bpf_loop(WSR_MAX_ANCESTORS, ancestor_step, &c, 0);
	if (c.css)
		STAT_INC(ancestors_truncated);
	return 0;
}

#endif /* __WSR_REACCESS_BPF_H */
