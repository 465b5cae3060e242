/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Binning of MGLRU generations into an idle-age histogram.
 *
 * Pure arithmetic with no kernel types, included by wsr.bpf.c and by the
 * host unit tests, so that the algorithm the guest runs is the one tested.
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

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define WSR_NR_GENS	4	/* MAX_NR_GENS of MGLRU */
#define WSR_NO_BOUND	(~0ULL)

/* A lruvec's generations as read at one instant, in jiffies */
struct wsr_gens {
	__u64 max_seq;
	__u64 min_seq[2];		/* anon, file */
	__u64 birth[WSR_NR_GENS];	/* indexed by seq % WSR_NR_GENS */
	__u64 pages[WSR_NR_GENS][2];	/* [gen][anon/file], already >= 0 */
};

/* ms to jiffies, rounding up like msecs_to_jiffies(), saturating */
static __always_inline __u64 wsr_ms_to_jiffies(__u64 ms, __u64 hz)
{
	if (ms >= WSR_NO_BOUND / 1024)
		return WSR_NO_BOUND;
	return (ms * hz + 999) / 1000;
}

/* upper bound in jiffies of bin i: the catch-all bin has none */
static __always_inline __u64 wsr_bound(const __u64 *bound_j, __u32 nr_intervals, __u32 i)
{
	if (i >= nr_intervals || i >= WSR_MAX_INTERVALS)
		return WSR_NO_BOUND;
	return bound_j[i];
}

/*
 * Add @pages whose idle ages are spread evenly over [young, old] into
 * @bins (nr_intervals + 1 of them).  Bin i holds ages in
 * [bound[i - 1], bound[i]).
 */
static __always_inline void wsr_bin_span(__u64 *bins, const __u64 *bound_j,
					 __u32 nr_intervals, __u64 young,
					 __u64 old, __u64 pages)
{
	__u64 span = old - young, left = pages;
	__u32 i, last = 0, sh = 0;

	if (!pages)
		return;
	/* keep pages * overlap within 64 bits for pages < 2^32 */
	while ((span >> sh) > 0xffffffffULL && sh < 32)
		sh++;
	for (i = 0; i <= WSR_MAX_INTERVALS && i <= nr_intervals; i++) {
		__u64 b_lo = i ? wsr_bound(bound_j, nr_intervals, i - 1) : 0;
		__u64 b_hi = wsr_bound(bound_j, nr_intervals, i);
		__u64 from, to, share;

		if (span == 0) {
			/* a zero-length generation: all its pages at one age */
			if (young < b_hi) {
				bins[i] += pages;
				return;
			}
			continue;
		}
		from = young > b_lo ? young : b_lo;
		to = old < b_hi ? old : b_hi;
		if (to <= from)
			continue;
		share = pages * ((to - from) >> sh) / (span >> sh);
		bins[i] += share;
		left -= share;
		last = i;
	}
	bins[last & (WSR_MAX_BINS - 1)] += left;
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

/*
 * Add a lruvec's generations into @anon and @file.  @bound_j holds the
 * bin bounds in jiffies.  Generations below min_seq[type] are empty.
 */
static __always_inline void wsr_bin_gens(const struct wsr_gens *g, __u64 now,
					 const __u64 *bound_j, __u32 nr_intervals,
					 __u64 *anon, __u64 *file)
{
	__u32 k, type;

	for (type = 0; type < 2; type++) {
		for (k = 0; k < WSR_NR_GENS; k++) {
			__u64 seq = g->max_seq - k, young, old;

			if (k > g->max_seq || seq < g->min_seq[type])
				break;
			wsr_gen_span(g, seq, now, &young, &old);
			wsr_bin_span(type ? file : anon, bound_j, nr_intervals,
				     young, old, g->pages[seq % WSR_NR_GENS][type]);
		}
	}
}

#endif /* __WSR_BINNING_H */
