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

/*
 * Is @memcg below its memory.min as seen from a reclaim of @root_id (the
 * seed's mem_cgroup_calculate_protection(root, memcg), then
 * mem_cgroup_below_min())?  The kernel keeps the effective protection
 * (memory.emin) only as the last reclaim computed it, top-down; this
 * computes it now, top-down too (wsr_below_min()), with cgroup2's
 * memory_recursiveprot and siblings that claim more than their parent has.
 * The root of the walk and the root memcg are never protected.  Deeper
 * than WSR_PROT_LEVELS below the root, the protection is taken as the
 * smallest memory.min on the way up: right unless siblings overcommit or
 * memory_recursiveprot hands down what a parent's children leave.
 */
static __noinline int memcg_protected(struct mem_cgroup *memcg, __u64 root_id)
{
	struct cgroup_subsys_state *css = &memcg->css, *parent;
	struct wsr_prot_level lv[WSR_PROT_LEVELS];
	__u64 usage = BPF_CORE_READ(memcg, memory.usage.counter), emin = ~0ULL, min;
	__u32 i, n, k;
	int recursive;

	/* read below at an offset the verifier knows only by its bounds */
	__builtin_memset(lv, 0, sizeof(lv));
	/* the levels, bottom-up into lv[WSR_PROT_LEVELS - 1 - i] */
	for (i = 0; i < WSR_MAX_ANCESTORS; i++) {
		struct mem_cgroup *m = css_memcg(css);

		parent = BPF_CORE_READ(css, parent);
		if (!parent || css_cgroup_id(css) == root_id)
			break;
		min = BPF_CORE_READ(m, memory.min);
		if (min < emin)
			emin = min;
		if (i < WSR_PROT_LEVELS) {
			k = WSR_PROT_LEVELS - 1 - i;
			lv[k].usage = BPF_CORE_READ(m, memory.usage.counter);
			lv[k].min = min;
			lv[k].children_min = BPF_CORE_READ(m, memory.children_min_usage.counter);
		}
		css = parent;
	}
	if (i == 0)
		return 0;
	if (i > WSR_PROT_LEVELS)
		return emin && usage <= emin;
	n = i;
	recursive = !!(BPF_CORE_READ(memcg, css.cgroup, root, flags) &
		       CGRP_ROOT_MEMORY_RECURSIVE_PROT);
	return wsr_below_min(&lv[WSR_PROT_LEVELS - n], n, recursive);
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
	prot = memcg_protected(memcg, *root);
	room = memcg_swap_room(memcg);
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
