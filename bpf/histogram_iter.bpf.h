/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The cgroup iterator that collects a subtree's live histogram per node
 * (no aging) and prints it in the seed's format: pinned, it is the file
 * /sys/fs/bpf/wsr/histogram; libwsr reads it for wsr show.
 *
 * It walks the memcg tree itself from the iterator's first cgroup, as
 * reclaim reports do (subtree_walk.bpf.h), rather than taking the
 * cgroups the iterator visits: a removed cgroup whose memcg still has
 * pages charged (a zombie) is still in the memcg tree, but its cgroup no
 * longer points at its memcg, and a read must count what a report counts.
 *
 * Part of the estimator (wsr.bpf.c, whose config map it reads).
 */
#ifndef __WSR_HISTOGRAM_ITER_BPF_H
#define __WSR_HISTOGRAM_ITER_BPF_H

#include "subtree_walk.bpf.h"

/* the histogram the last iterator walk computed (live, no aging) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* as config (wsr.bpf.c) */
	__uint(max_entries, WSR_MAX_KEYS);
	__type(key, struct wsr_key);
	__type(value, struct wsr_report);
} live SEC(".maps");

/*
 * Each node's histogram of @css's subtree, with the bins configured for
 * (@root, node): stored as the root's live histograms and printed.
 */
static __noinline int read_subtree(struct seq_file *seq, struct cgroup_subsys_state *css,
				   __u64 root)
{
	struct scratch *s = get_scratch();
	__u32 n, i;

	if (!s)
		return 0;
	for (n = 0; n < WSR_MAX_NODES && n < nr_nodes; n++) {
		struct wsr_key key = { .cgroup_id = root, .node = n };
		struct wsr_report *old = bpf_map_lookup_elem(&live, &key);
		struct wsr_config *cfg = bpf_map_lookup_elem(&config, &key);
		struct wsr_hist *h = &s->nhist[n];

		/* one read of the knobs for the whole walk (struct scratch says why) */
		if (cfg) {
			s->cfg = *cfg;
			cfg = &s->cfg;
		}
		s->report.flags = walk_subtree(css, n, n + 1, cfg, s);
		s->report.seq = old ? old->seq + 1 : 1;
		s->report.time_ns = bpf_ktime_get_boot_ns();
		s->report.cause = WSR_CAUSE_READ;
		s->report.hist = *h;
		/* no memory for a new entry: the read prints, but wsr show fails */
		if (bpf_map_update_elem(&live, &key, &s->report, BPF_ANY))
			STAT_INC(maps_full);

		BPF_SEQ_PRINTF(seq, "N%u\n", n);
		for (i = 0; i < WSR_MAX_BINS && i < h->nr_bins; i++)
			BPF_SEQ_PRINTF(seq, "%llu anon=%llu file=%llu\n",
				       h->bound_ms[i], h->anon[i], h->file[i]);
	}
	return 0;
}

SEC("iter/cgroup")
int wsr_histogram(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct mem_cgroup *memcg;

	/* pre-order: the first cgroup is the root; the walk covers the rest */
	if (!cgrp || ctx->meta->seq_num != 0)
		return 1;
	memcg = cgroup_memcg(cgrp);
	if (memcg)
		read_subtree(ctx->meta->seq, &memcg->css, cgrp->kn->id);
	return 1;
}

#endif /* __WSR_HISTOGRAM_ITER_BPF_H */
