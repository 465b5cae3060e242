/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * One lruvec into a histogram: its generations binned by the configured
 * bounds, the oldest generations at the ages of their kept parts (the
 * pinned map vgens, written by aging_hooks.bpf.h; the rules in vgen.h and
 * binning.h).  Used by every histogram: reads, reclaim reports, balloon
 * reports.
 */
#ifndef __WSR_LRUVEC_HIST_BPF_H
#define __WSR_LRUVEC_HIST_BPF_H

#include "kernel.bpf.h"
#include "binning.h"
#include "vgen.h"

/* @lruvec's key in the maps: its memcg's cgroup id and its node */
static __always_inline void lruvec_key(struct lruvec *lruvec, struct wsr_key *key)
{
	key->cgroup_id = css_cgroup_id(&lruvec_memcg(lruvec)->css);
	key->node = BPF_CORE_READ(lruvec, pgdat, node_id);
	key->pad = 0;
}

/*
 * A global function, like bin_gens(): the verifier checks it once on its
 * own, not inside every program that reads a histogram.
 */
__noinline int vgen_read(struct wsr_vgen *v, const struct wsr_gens *g)
{
	if (!v || !g)
		return 0;
	wsr_vgen_read(v, g);
	return 0;
}

struct parts_ctx {
	struct wsr_vgen *v;
	struct scratch *s;
	__u64 ok;
};

/*
 * One try at a copy of c->v while no CPU updates it (v->seq even and
 * unchanged across the copy).  A bpf_loop() step: unrolled, the 584-byte
 * copies made the verifier check every caller of read_parts() many times
 * over (seconds of load time under emulation).
 */
static int parts_try(__u32 i, struct parts_ctx *c)
{
	struct wsr_vgen *v = c->v;
	struct scratch *s = c->s;
	__u64 seq;

	if (!v || !s)
		return 1;
	/* atomic reads: full barriers around the copy */
	seq = __sync_fetch_and_add(&v->seq, 0);
	if (seq & 1)
		return 0;
	s->v = *v;
	if (__sync_fetch_and_add(&v->seq, 0) != seq)
		return 0;
	c->ok = 1;
	return 1;
}

/*
 * The parts of @lruvec's oldest generations, as of s->gens, into
 * s->v.parts; none if they are being updated at each of 16 tries (an
 * update is a few hundred instructions): the oldest generations are then
 * binned at MGLRU's births (docs/estimator.md "Aging and idle ages").
 */
static __noinline int read_parts(struct lruvec *lruvec, struct scratch *s)
{
	struct parts_ctx c = { .s = s };
	struct wsr_key key;

	lruvec_key(lruvec, &key);
	c.v = bpf_map_lookup_elem(&vgens, &key);
	if (c.v)
		bpf_loop(16, parts_try, &c, 0);
	if (c.ok) {
		vgen_read(&s->v, &s->gens);
		return 0;
	}
	s->v.parts.t[0].nr = 0;
	s->v.parts.t[1].nr = 0;
	return 0;
}

/* bin bounds of @cfg in jiffies into s->bounds */
static __always_inline void load_bounds(const struct wsr_config *cfg, bool reaccess,
					struct scratch *s)
{
	const __u64 *ms = reaccess ? cfg->reaccess_intervals_ms : cfg->intervals_ms;
	__u32 n = reaccess ? cfg->reaccess_nr_intervals : cfg->nr_intervals, i;

	for (i = 0; i < WSR_MAX_INTERVALS; i++)
		s->bounds.j[i] = wsr_ms_to_jiffies(ms[i], CONFIG_HZ);
	s->bounds.n = n > WSR_MAX_INTERVALS ? WSR_MAX_INTERVALS : n;
}

/*
 * A global function: the verifier checks it once on its own instead of
 * at every call site, which keeps loading fast even under emulation.
 */
__noinline int bin_gens(const struct wsr_gens *g, const struct wsr_vgens *vt,
			const struct wsr_bounds *b, struct wsr_hist *h, struct wsr_span *span)
{
	if (!g || !vt || !b || !h || !span)
		return 0;
	wsr_bin_gens(g, vt, b, h, span);
	return 0;
}

/*
 * Empty histogram with the bounds of @cfg (a catch-all bin if no config).
 * Two loops, not one with a test on n per bin: there, each value of n
 * left a state of its own that walked the remaining bins, about 2,000
 * instructions verified per histogram, 16 of them per subtree walk.
 */
static __always_inline void init_hist(struct wsr_hist *h, const struct wsr_config *cfg,
				      bool reaccess)
{
	const __u64 *ms = NULL;
	__u32 n = 0, i;

	if (cfg) {
		n = reaccess ? cfg->reaccess_nr_intervals : cfg->nr_intervals;
		ms = reaccess ? cfg->reaccess_intervals_ms : cfg->intervals_ms;
	}
	if (n > WSR_MAX_INTERVALS)
		n = WSR_MAX_INTERVALS;
	for (i = 0; i < WSR_MAX_BINS; i++) {
		h->anon[i] = 0;
		h->file[i] = 0;
		h->bound_ms[i] = WSR_BIN_INF;
	}
	for (i = 0; ms && i < WSR_MAX_INTERVALS && i < n; i++) {
		barrier_var(i);		/* a loop, not a memcpy of n * 8 bytes */
		h->bound_ms[i] = ms[i];
	}
	h->nr_bins = n + 1;
	h->flags = 0;
}

/*
 * Add the live generations of the lruvec at @lruvec_addr into @h, its anon
 * only if its memcg can swap (WSR_HIST_NOSWAP); s->data_age_j keeps the
 * oldest (wsr_gens_data_age(): not an offline memcg's).  Global, as bin_gens(): checked once per program, where a static
 * one was checked again on every node of every walk, which grew with the
 * square of the nodes (about 13,000 instructions each).
 */
__noinline int add_lruvec(__u64 lruvec_addr, const struct wsr_config *cfg,
			  struct wsr_hist *h, struct scratch *s)
{
	struct lruvec *lruvec = (void *)lruvec_addr;
	int can_swap;
	__u32 gen;
	__u64 age;

	if (!h || !s)
		return 0;
	can_swap = memcg_can_swap((__u64)lruvec_memcg(lruvec));
	if (read_gens(lruvec, s))
		return -1;
	s->bounds.n = 0;
	if (cfg)
		load_bounds(cfg, false, s);
	s->gens.now = bpf_jiffies64();
	s->gens.skip = 0;
	/* no local for it: one more value live across the calls was too much stack */
	s->gens.offline = !(BPF_CORE_READ(lruvec_memcg(lruvec), css.flags) & CSS_ONLINE);
	read_parts(lruvec, s);
	h->flags |= can_swap ? WSR_HIST_SWAP : WSR_HIST_NOSWAP;
	if (!can_swap) {
		for (gen = 0; gen < WSR_NR_GENS; gen++)
			s->gens.pages[gen][0] = 0;
		s->v.parts.t[0].nr = 0;
	}
	age = wsr_gens_data_age(&s->gens);
	if (age > s->data_age_j)
		s->data_age_j = age;
	return bin_gens(&s->gens, &s->v.parts, &s->bounds, h, &s->span);
}

#endif /* __WSR_LRUVEC_HIST_BPF_H */
