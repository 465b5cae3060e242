/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * A memcg subtree walked in pre-order, as css_next_descendant_pre(), in
 * bpf_loop() steps: every lruvec of the subtree summed into one histogram
 * per node.  Reclaim reports and balloon reports cover their subtree this
 * way, whenever its memcgs were made and however deep.
 */
#ifndef __WSR_SUBTREE_WALK_BPF_H
#define __WSR_SUBTREE_WALK_BPF_H

#include "lruvec_hist.bpf.h"

struct walk_ctx {
	const struct wsr_config *cfg;	/* bins of the histograms */
	struct scratch *s;		/* s->walk: the walk; s->nhist: the sums */
};

/* add @css's lruvecs on the walk's nodes into s->nhist */
static __always_inline int walk_visit(struct cgroup_subsys_state *css, struct walk_ctx *c)
{
	struct mem_cgroup *memcg = css_memcg(css);
	struct scratch *s = c->s;
	__u32 n;

	for (n = 0; n < WSR_MAX_NODES && n < nr_nodes; n++) {
		struct mem_cgroup_per_node *mz;

		if (n < s->walk.node_lo || n >= s->walk.node_hi)
			continue;
		mz = BPF_CORE_READ(memcg, nodeinfo[n]);
		if (mz)
			add_lruvec((__u64)&mz->lruvec, c->cfg, &s->nhist[n], s);
	}
	return 0;
}

/*
 * One step of a pre-order walk: visit the css just arrived at and go to
 * its first child, or go to the next sibling, or climb one level.  The
 * lists are RCU-protected and tracing programs run under rcu_read_lock();
 * a memcg removed meanwhile keeps its next pointers (list_del_rcu()).
 */
static long walk_step(__u32 i, struct walk_ctx *c)
{
	struct memcg_walk *w = &c->s->walk;
	struct cgroup_subsys_state *pos = (void *)w->pos, *parent;
	__u64 children = bpf_core_field_offset(struct cgroup_subsys_state, children);
	__u64 sibling = bpf_core_field_offset(struct cgroup_subsys_state, sibling);
	void *next;

	if (w->arrived) {
		walk_visit(pos, c);
		next = BPF_CORE_READ(pos, children.next);
		if (next && next != (void *)pos + children) {
			w->pos = (__u64)(next - sibling);
			return 0;
		}
		w->arrived = 0;
	}
	parent = BPF_CORE_READ(pos, parent);
	if (w->pos == w->root || !parent) {
		w->done = 1;
		return 1;
	}
	next = BPF_CORE_READ(pos, sibling.next);
	if (next && next != (void *)parent + children) {
		w->pos = (__u64)(next - sibling);
		w->arrived = 1;
	} else {
		w->pos = (__u64)parent;
	}
	return 0;
}

/*
 * Sum every lruvec of @root's subtree on nodes [lo, hi) into s->nhist,
 * each node's histogram with the bins of @cfg.  s->data_age_j gets the
 * oldest data age.  Returns WSR_REPORT_INCOMPLETE if the walk ran out of
 * steps (counted in stats), else 0.
 */
static __always_inline __u32 walk_subtree(struct cgroup_subsys_state *root, __u32 lo, __u32 hi,
					  const struct wsr_config *cfg, struct scratch *s)
{
	struct walk_ctx c = { .cfg = cfg, .s = s };
	__u32 n;

	/* every node the same bins: one built, copied (a copy has no branch) */
	init_hist(&s->nhist[0], cfg, false);
	for (n = 1; n < WSR_MAX_NODES; n++)
		s->nhist[n] = s->nhist[0];
	s->data_age_j = 0;
	s->walk.root = (__u64)root;
	s->walk.pos = (__u64)root;
	s->walk.arrived = 1;
	s->walk.done = 0;
	s->walk.node_lo = lo;
	s->walk.node_hi = hi;
	if (!root)
		return 0;
	bpf_loop(walk_steps, walk_step, &c, 0);
	if (s->walk.done)
		return 0;
	STAT_INC(walks_truncated);
	return WSR_REPORT_INCOMPLETE;
}

#endif /* __WSR_SUBTREE_WALK_BPF_H */
