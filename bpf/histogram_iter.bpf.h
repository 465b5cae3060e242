/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The cgroup iterator that collects a subtree's live histogram per node
 * (no aging) and prints it in the seed's format: pinned, it is the file
 * /sys/fs/bpf/wsr/histogram; libwsr reads it for wsr show.
 *
 * Part of the estimator (wsr.bpf.c, whose config map it reads).
 */
#ifndef __WSR_HISTOGRAM_ITER_BPF_H
#define __WSR_HISTOGRAM_ITER_BPF_H

#include "lruvec_hist.bpf.h"

/* the histogram the last iterator walk computed (live, no aging) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WSR_MAX_KEYS);
	__type(key, struct wsr_key);
	__type(value, struct wsr_report);
} live SEC(".maps");

/* per iterator session: one histogram per node for the walk's root */
struct walk_acc {
	__u64 root;
	struct wsr_hist hist[WSR_MAX_NODES];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, struct walk_acc);
} walks SEC(".maps");

static const struct walk_acc zero_acc;

static __noinline int walk_start(__u64 session, __u64 root)
{
	struct walk_acc *acc;
	__u32 n;

	bpf_map_update_elem(&walks, &session, &zero_acc, BPF_ANY);
	acc = bpf_map_lookup_elem(&walks, &session);
	if (!acc)
		return -1;
	acc->root = root;
	for (n = 0; n < WSR_MAX_NODES && n < nr_nodes; n++) {
		struct wsr_key key = { .cgroup_id = root, .node = n };

		init_hist(&acc->hist[n], bpf_map_lookup_elem(&config, &key), false);
	}
	return 0;
}

static __noinline int walk_add(struct walk_acc *acc, struct mem_cgroup *memcg)
{
	struct scratch *s = get_scratch();
	__u32 n;

	if (!s)
		return 0;
	for (n = 0; n < WSR_MAX_NODES && n < nr_nodes; n++) {
		struct wsr_key key = { .cgroup_id = acc->root, .node = n };
		struct mem_cgroup_per_node *mz = BPF_CORE_READ(memcg, nodeinfo[n]);
		struct lruvec *lruvec;

		if (!mz)
			continue;
		lruvec = &mz->lruvec;
		add_lruvec(lruvec, bpf_map_lookup_elem(&config, &key), &acc->hist[n], s);
	}
	return 0;
}

/* store the walk's histograms as the root's live histograms and print them */
static __noinline int walk_finish(struct seq_file *seq, struct walk_acc *acc)
{
	struct scratch *s = get_scratch();
	__u32 n, i;

	if (!s)
		return 0;
	for (n = 0; n < WSR_MAX_NODES && n < nr_nodes; n++) {
		struct wsr_key key = { .cgroup_id = acc->root, .node = n };
		struct wsr_hist *h = &acc->hist[n];
		struct wsr_report *old = bpf_map_lookup_elem(&live, &key);

		s->report.seq = old ? old->seq + 1 : 1;
		s->report.time_ns = bpf_ktime_get_boot_ns();
		s->report.cause = WSR_CAUSE_READ;
		s->report.hist = *h;
		bpf_map_update_elem(&live, &key, &s->report, BPF_ANY);

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
	__u64 session = ctx->meta->session_id;
	struct walk_acc *acc;
	struct mem_cgroup *memcg;

	/* pre-order: the first cgroup of the walk is its root */
	if (ctx->meta->seq_num == 0 && cgrp && walk_start(session, cgrp->kn->id))
		return 1;
	acc = bpf_map_lookup_elem(&walks, &session);
	if (!acc)
		return 0;
	if (!cgrp) {
		walk_finish(ctx->meta->seq, acc);
		bpf_map_delete_elem(&walks, &session);
		return 0;
	}
	memcg = cgroup_memcg(cgrp);
	if (memcg)
		walk_add(acc, memcg);
	return 0;
}

#endif /* __WSR_HISTOGRAM_ITER_BPF_H */
