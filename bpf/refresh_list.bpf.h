/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * What a refresh may age (the seed's refresh_wss()): the cgroup iterator
 * pinned as prog_refresh prints an lru_gen aging command for each lruvec
 * of the subtree that is due, not below memory.min, as the kernel computes
 * it; the rules in refresh.h.  Reads and the daemon's aging use it.
 *
 * Part of the estimator (wsr.bpf.c).
 */
#ifndef __WSR_REFRESH_LIST_BPF_H
#define __WSR_REFRESH_LIST_BPF_H

#include "kernel.bpf.h"
#include "refresh.h"

/* per iterator session: the cgroup id of the walk's root */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u64);
} refresh_walks SEC(".maps");

/* memcg_protected()'s walk up, one level a bpf_loop() step */
struct prot_walk {
	__u64 css;		/* the level this step reads */
	__u64 root_id;		/* the walk's root, where it stops */
	__u64 emin;		/* the smallest memory.min on the way */
	__u32 n;		/* levels read */
	struct wsr_prot_level lv[WSR_PROT_LEVELS];	/* bottom-up from the last */
};

static long prot_step(__u32 i, struct prot_walk *w)
{
	struct cgroup_subsys_state *css = (void *)w->css, *parent;
	struct mem_cgroup *m = css_memcg(css);
	struct wsr_prot_level *lv;
	__u64 min;
	__u32 k;

	parent = BPF_CORE_READ(css, parent);
	if (!parent || css_cgroup_id(css) == w->root_id)
		return 1;
	min = BPF_CORE_READ(m, memory.min);
	if (min < w->emin)
		w->emin = min;
	if (i < WSR_PROT_LEVELS) {
		/* masked where the compiler cannot drop it: a bounded offset */
		k = WSR_PROT_LEVELS - 1 - i;
		barrier_var(k);
		lv = &w->lv[k & (WSR_PROT_LEVELS - 1)];
		lv->usage = BPF_CORE_READ(m, memory.usage.counter);
		lv->min = min;
		lv->children_min = BPF_CORE_READ(m, memory.children_min_usage.counter);
	}
	w->n = i + 1;
	w->css = (__u64)parent;
	return 0;
}

/*
 * Is the memcg at @memcg_addr below its memory.min as seen from a reclaim
 * of @root_id (the seed's mem_cgroup_calculate_protection(root, memcg),
 * then mem_cgroup_below_min())?  The kernel keeps the effective protection
 * (memory.emin) only as the last reclaim computed it, top-down; this
 * computes it now, top-down too (wsr_below_min()), with cgroup2's
 * memory_recursiveprot and siblings that claim more than their parent has.
 * The root of the walk and the root memcg are never protected.  Deeper
 * than WSR_PROT_LEVELS below the root, the protection is taken as the
 * smallest memory.min on the way up: right unless siblings overcommit or
 * memory_recursiveprot hands down what a parent's children leave.
 *
 * A global function, walking up in bpf_loop() steps: the verifier checks
 * it once, and its caller once whatever it returns.  With this walk and
 * memcg_swap_room()'s as loops, wsr_refresh_list took 92,000 instructions
 * of verification, 5,800 now.
 */
__noinline int memcg_protected(__u64 memcg_addr, __u64 root_id)
{
	struct mem_cgroup *memcg = (struct mem_cgroup *)memcg_addr;
	struct prot_walk w = { .css = (__u64)&memcg->css, .root_id = root_id, .emin = ~0ULL };
	__u64 usage = BPF_CORE_READ(memcg, memory.usage.counter);
	int recursive;

	bpf_loop(WSR_MAX_ANCESTORS, prot_step, &w, 0);
	if (w.n == 0)
		return 0;
	if (w.n > WSR_PROT_LEVELS)
		return w.emin && usage <= w.emin;
	recursive = !!(BPF_CORE_READ(memcg, css.cgroup, root, flags) &
		       CGRP_ROOT_MEMORY_RECURSIVE_PROT);
	/* the levels read end lv[]: each count at an offset the verifier knows */
	switch (w.n) {
#define WSR_LEVELS(k) case k: return wsr_below_min(&w.lv[WSR_PROT_LEVELS - k], k, recursive)
	WSR_LEVELS(1); WSR_LEVELS(2); WSR_LEVELS(3); WSR_LEVELS(4);
	WSR_LEVELS(5); WSR_LEVELS(6); WSR_LEVELS(7); WSR_LEVELS(8);
#undef WSR_LEVELS
	}
	return 0;
}

/* what each reader's refresh ages, by its tgid (see struct wsr_refresh_args) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct wsr_refresh_args);
} refresh_args SEC(".maps");

/* the facts bpf/refresh.h decides on, of the lruvec read into s->gens */
static __always_inline void refresh_facts(struct wsr_refresh_facts *f, struct scratch *s,
					  __u64 now, __u64 swap_room, int prot)
{
	struct wsr_gens *g = &s->gens;
	__u32 i;

	f->birth_j = g->birth[g->max_seq & (WSR_NR_GENS - 1)];
	f->age_ms = now > f->birth_j ? (now - f->birth_j) * 1000 / CONFIG_HZ : 0;
	f->swap_room = swap_room;
	f->protected = prot;
	f->gens[0] = g->max_seq - g->min_seq[0] + 1;
	f->oldest[0] = g->pages[g->min_seq[0] & (WSR_NR_GENS - 1)][0];
	f->gens[1] = g->max_seq - g->min_seq[1] + 1;
	f->oldest[1] = g->pages[g->min_seq[1] & (WSR_NR_GENS - 1)][1];
	f->pages = 0;
	for (i = 0; i < WSR_NR_GENS; i++)
		f->pages += g->pages[i][0] + g->pages[i][1];
}

/*
 * The lru_gen commands that age the lruvecs of the subtree due under the
 * reader's refresh_args: "+ <memcg id> <node> <max_seq> <can_swap>
 * <force_scan>" per line.  A cgroup iterator cannot go on past the first
 * read's buffer (6.1: -EOPNOTSUPP), so the reader ages what it got and
 * reads again: a lruvec aged since the refresh began is never due again.
 */
SEC("iter/cgroup")
int wsr_refresh_list(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	__u64 session = ctx->meta->session_id, *root, now = bpf_jiffies64();
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct wsr_refresh_args *args;
	struct wsr_refresh_facts f;
	struct mem_cgroup *memcg;
	struct scratch *s;
	__u32 n, id;
	__s64 room;
	int prot, can_swap;

	if (!cgrp) {
		bpf_map_delete_elem(&refresh_walks, &session);
		return 0;
	}
	args = bpf_map_lookup_elem(&refresh_args, &tgid);
	if (!args)
		return 0;
	if (!args->start_j)
		args->start_j = now;
	if (ctx->meta->seq_num == 0) {
		__u64 id0 = cgrp->kn->id;

		bpf_map_update_elem(&refresh_walks, &session, &id0, BPF_ANY);
	}
	root = bpf_map_lookup_elem(&refresh_walks, &session);
	memcg = cgroup_memcg(cgrp);
	s = get_scratch();
	if (!root || !memcg || !s)
		return 0;
	prot = memcg_protected((__u64)memcg, *root);
	room = memcg_swap_room((__u64)memcg);
	id = BPF_CORE_READ(memcg, id.id);
	for (n = 0; n < WSR_MAX_NODES && n < nr_nodes; n++) {
		struct mem_cgroup_per_node *mz = BPF_CORE_READ(memcg, nodeinfo[n]);

		if (!mz || read_gens(&mz->lruvec, s))
			continue;
		refresh_facts(&f, s, now, room, prot);
		can_swap = wsr_refresh_can_swap(&f, args);
		if (!wsr_refresh_due(args, n, &f, can_swap))
			continue;
		BPF_SEQ_PRINTF(ctx->meta->seq, "+ %u %u %llu %d %d\n", id, n, s->gens.max_seq,
			       can_swap, wsr_refresh_force(&f, can_swap));
	}
	return 0;
}

#endif /* __WSR_REFRESH_LIST_BPF_H */
