/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Binning of MGLRU generations into an idle-age histogram.
 *
 * Pure arithmetic with no kernel types, included by the BPF programs
 * (lruvec_hist.bpf.h) and by the host unit tests, so that the algorithm
 * the guest runs is the one tested.
 *
 * A generation spans the idle ages [now - end, now - birth], where end is
 * the birth of the next younger generation (now for the youngest).  Where
 * bin boundaries fall inside that span, the generation's pages are split
 * in proportion to the overlap, as the seed's collect_wss() intends; unlike
 * the seed ("size / gen_len * proportion"), we multiply first, so a
 * generation with fewer pages than jiffies in its span is not lost to
 * truncation, and the rounding remainder goes to the oldest bin touched so
 * that no page is dropped.
 */
#ifndef __WSR_BINNING_H
#define __WSR_BINNING_H

#include "wsr.h"
#include "pure.h"

#define WSR_NR_GENS	4	/* MAX_NR_GENS of MGLRU */
#define WSR_NO_BOUND	(~0ULL)

/* A lruvec's generations as read at one instant, in jiffies */
struct wsr_gens {
	__u64 max_seq;
	__u64 min_seq[2];		/* anon, file */
	__u64 birth[WSR_NR_GENS];	/* indexed by seq % WSR_NR_GENS */
	__u64 pages[WSR_NR_GENS][2];	/* [gen][anon/file], already >= 0 */
	__u64 now;			/* jiffies when read */
	__u32 skip;			/* leave out the @skip youngest */
	__u32 offline;			/* its memcg is offline (removed) */
};

/*
 * Jiffies since @g's youngest generation was born: since the accessed bits
 * were last collected, so how old the data of a histogram of @g is.  0 if
 * @g holds no pages: an empty lruvec has no data to be old.  0 too if its
 * memcg is offline (a removed memcg still charged, a zombie): 6.1 lets
 * nothing outside the kernel age it (lru_gen's file names a memcg by its
 * ID, which offlining releases), so its age would only grow, and every
 * report covering it would look stale.
 */
static __always_inline __u64 wsr_gens_data_age(const struct wsr_gens *g)
{
	__u64 birth = g->birth[g->max_seq % WSR_NR_GENS], pages = 0;
	__u32 gen;

	if (g->offline)
		return 0;
	for (gen = 0; gen < WSR_NR_GENS; gen++)
		pages += g->pages[gen][0] + g->pages[gen][1];
	return pages && g->now > birth ? g->now - birth : 0;
}

/*
 * The oldest generation of one type split into parts by when their pages
 * were last found young (see vgen.h); nr 0 when not split.
 */
#define WSR_VGEN_PARTS	8

struct wsr_vpart {
	__u64 birth, end;	/* jiffies: last found young within [birth, end] */
	__u64 pages;
};

struct wsr_vgen_type {
	__u64 min_seq;		/* the generation the parts make up */
	__u32 nr;		/* parts in use, oldest first; the last is its own */
	__u32 merging;		/* a read's: they stand for min_seq + 1 too (vgen.h) */
	struct wsr_vpart part[WSR_VGEN_PARTS];
};

/* the parts of a lruvec's oldest generations */
struct wsr_vgens {
	struct wsr_vgen_type t[2];	/* anon, file */
};

/* ms to jiffies, rounding up like msecs_to_jiffies(), saturating */
static __always_inline __u64 wsr_ms_to_jiffies(__u64 ms, __u64 hz)
{
	if (ms >= WSR_NO_BOUND / 1024)
		return WSR_NO_BOUND;
	return (ms * hz + 999) / 1000;
}

/* bin bounds in jiffies: n intervals, then the catch-all bin */
struct wsr_bounds {
	__u64 j[WSR_MAX_BINS];		/* one spare: indices are masked */
	__u32 n;
	__u32 pad;
};

/* upper bound in jiffies of bin i: the catch-all bin has none */
static __always_inline __u64 wsr_bound(const struct wsr_bounds *b, __u64 i)
{
	if (i >= b->n || i >= WSR_MAX_INTERVALS)
		return WSR_NO_BOUND;
	/* keep the mask, which the compiler would drop: the verifier needs it */
	barrier_var(i);
	return b->j[i & (WSR_MAX_BINS - 1)];
}

/*
 * Loops run through bpf_loop() in BPF, so that the verifier checks a loop
 * body once instead of every path through every iteration, and as plain
 * loops on the host.
 */
#ifdef __bpf__
#define WSR_LOOP(n, fn, ctx) bpf_loop(n, fn, ctx, 0)
#else
#define WSR_LOOP(n, fn, ctx)						\
	do {								\
		__u32 __i;						\
		for (__i = 0; __i < (n); __i++)				\
			if (fn(__i, ctx))				\
				break;					\
	} while (0)
#endif

/*
 * The running state of a span being split into bins.  Scalars only, so
 * that BPF can keep it in map memory: the 6.1 verifier checks a bpf_loop()
 * callback once, with the state the caller's stack had at the call, and
 * would prune branches of the callback as dead if that state were known
 * constants there (fixed in Linux 6.7).  Map memory is always unknown.
 */
struct wsr_span {
	__u64 young, old, pages, span, left;
	__u32 type;		/* 0: anon, 1: file */
	__u32 sh, last;
	__u32 active;		/* the generation still has bins to fill */
};

/* what a binning works on: pointers only, never changed while it runs */
struct wsr_binning {
	const struct wsr_gens *g;
	const struct wsr_vgens *vt;
	const struct wsr_bounds *b;
	struct wsr_hist *h;
	struct wsr_span *s;
	__u32 slots;			/* per type: 4 generations, then parts */
};

/* add @n pages to bin @i of type @type */
static __always_inline void wsr_hist_add(struct wsr_hist *h, __u32 type, __u64 i, __u64 n)
{
	/* constant offsets only: what the BPF verifier can bound */
	if (type)
		h->file[i & (WSR_MAX_BINS - 1)] += n;
	else
		h->anon[i & (WSR_MAX_BINS - 1)] += n;
}

/* shift that brings @v below 2^32, so that pages * overlap fits 64 bits */
static __always_inline __u32 wsr_shift_32(__u64 v)
{
	__u64 t = v >> 32;
	__u32 sh = 0, step;

	/* bit length of v >> 32, by halving steps */
	for (step = 16; step; step >>= 1) {
		if (t >> step) {
			sh += step;
			t >>= step;
		}
	}
	return sh + (__u32)t;
}

static __always_inline void wsr_span_start(struct wsr_span *s, __u32 type, __u64 young,
					   __u64 old, __u64 pages)
{
	s->type = type;
	s->young = young;
	s->old = old;
	s->pages = pages;
	s->span = old - young;
	s->left = pages;
	s->sh = wsr_shift_32(old - young);
	s->last = 0;
	s->active = 1;
}

/*
 * Bin @i of a span: its share of the pages.  Returns 1 when the span is
 * done; the caller then gives the rounding remainder to the last bin.
 */
static __always_inline int wsr_span_bin(struct wsr_span *s, const struct wsr_bounds *b,
					struct wsr_hist *h, __u64 i)
{
	__u64 b_lo, b_hi, from, to, share;

	if (i > b->n)
		return 1;
	b_lo = i ? wsr_bound(b, i - 1) : 0;
	b_hi = wsr_bound(b, i);
	if (s->span == 0) {
		/* a zero-length generation: all its pages at one age */
		if (s->young > b_hi)
			return 0;
		wsr_hist_add(h, s->type, i, s->pages);
		s->left = 0;
		return 1;
	}
	from = s->young > b_lo ? s->young : b_lo;
	to = s->old < b_hi ? s->old : b_hi;
	if (to <= from)
		return 0;
	share = s->pages * ((to - from) >> s->sh) / (s->span >> s->sh);
	wsr_hist_add(h, s->type, i, share);
	s->left -= share;
	s->last = i;
	return 0;
}

static __always_inline void wsr_span_finish(struct wsr_span *s, struct wsr_hist *h)
{
	wsr_hist_add(h, s->type, s->last, s->left);
	s->left = 0;
	s->active = 0;
}

/*
 * Add @pages of @type (0 anon, 1 file) whose idle ages are spread evenly
 * over [young, old] into @h (b->n + 1 bins).  Bin i holds ages in
 * (bound[i - 1], bound[i]], as the seed's and the balloon's bins do: it
 * matters only to a generation whose pages all have one age.  Assumes
 * pages < 2^32.
 */
static __always_inline void wsr_bin_span(struct wsr_hist *h, __u32 type,
					 const struct wsr_bounds *b,
					 __u64 young, __u64 old, __u64 pages)
{
	struct wsr_span s;
	__u32 i;

	wsr_span_start(&s, type, young, old, pages);
	for (i = 0; i < WSR_MAX_BINS; i++)
		if (wsr_span_bin(&s, b, h, i))
			break;
	wsr_span_finish(&s, h);
}

/* idle-age edges of generation @seq at @now: [*young, *old] */
static __always_inline void wsr_gen_span(const struct wsr_gens *g, __u64 seq,
					 __u64 now, __u64 *young, __u64 *old)
{
	__u64 birth = g->birth[seq % WSR_NR_GENS];
	__u64 end = seq == g->max_seq ? now : g->birth[(seq + 1) % WSR_NR_GENS];

	/* timestamps are racy reads: keep the span ordered and in the past */
	if (end > now)
		end = now;
	if (birth > end)
		birth = end;
	*young = now - end;
	*old = now - birth;
}

/* the oldest generation of @type (and the next, if merging) is binned from its parts */
static __always_inline int wsr_split(const struct wsr_gens *g, const struct wsr_vgens *vt,
				     __u64 type)
{
	const struct wsr_vgen_type *t = &vt->t[type & 1];

	return t->nr && t->min_seq == g->min_seq[type & 1];
}

/*
 * Step @idx of wsr_bin_gens(): type (idx / (WSR_MAX_BINS * slots)), then
 * slot (idx / WSR_MAX_BINS % slots): generation max_seq - slot for the
 * first four, part slot - 4 of the oldest generation after; bin
 * (idx % WSR_MAX_BINS).
 */
static long wsr_bin_step(__u32 idx, void *ctx)
{
	const struct wsr_binning *c = ctx;
	const struct wsr_gens *g = c->g;
	struct wsr_span *s = c->s;
	__u64 slots = c->slots ? c->slots : WSR_NR_GENS;
	__u64 type = idx / (WSR_MAX_BINS * slots) & 1, k = idx / WSR_MAX_BINS % slots;
	__u64 bin = idx % WSR_MAX_BINS;
	__u64 young, old, seq = g->max_seq - k;

	if (bin == 0) {
		s->active = 0;
		if (k >= WSR_NR_GENS) {
			const struct wsr_vgen_type *t = &c->vt->t[type];
			const struct wsr_vpart *p = &t->part[(k - WSR_NR_GENS) & (WSR_VGEN_PARTS - 1)];

			if (!wsr_split(g, c->vt, type) || k - WSR_NR_GENS >= t->nr ||
			    k - WSR_NR_GENS >= WSR_VGEN_PARTS)
				return 0;
			young = g->now > p->end ? g->now - p->end : 0;
			old = g->now > p->birth ? g->now - p->birth : 0;
			wsr_span_start(s, type, young, old, p->pages);
		} else {
			/* generations below min_seq[type] are empty */
			if (k < g->skip || k > g->max_seq || seq < g->min_seq[type])
				return 0;
			if (seq <= g->min_seq[type] + c->vt->t[type].merging &&
			    wsr_split(g, c->vt, type))
				return 0;
			wsr_gen_span(g, seq, g->now, &young, &old);
			wsr_span_start(s, type, young, old, g->pages[seq % WSR_NR_GENS][type]);
		}
	}
	if (!s->active)
		return 0;
	if (wsr_span_bin(s, c->b, c->h, bin) || bin == WSR_MAX_BINS - 1)
		wsr_span_finish(s, c->h);
	return 0;
}

/*
 * Add a lruvec's generations, from max_seq - g->skip down to min_seq, at
 * their ages at g->now into @h; where @vt splits the oldest
 * generation of a type into parts, the parts instead.  @s is scratch space
 * (struct wsr_span).
 */
static __always_inline void wsr_bin_gens(const struct wsr_gens *g, const struct wsr_vgens *vt,
					 const struct wsr_bounds *b, struct wsr_hist *h,
					 struct wsr_span *s)
{
	struct wsr_binning c = { .g = g, .vt = vt, .b = b, .h = h, .s = s };
	__u32 parts = vt->t[0].nr > vt->t[1].nr ? vt->t[0].nr : vt->t[1].nr;

	if (parts > WSR_VGEN_PARTS)
		parts = WSR_VGEN_PARTS;
	c.slots = WSR_NR_GENS + parts;
	WSR_LOOP(2 * c.slots * WSR_MAX_BINS, wsr_bin_step, &c);
}

#endif /* __WSR_BINNING_H */
