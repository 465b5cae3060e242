/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a refresh ages, as the seed's refresh_wss() decides.  Pure
 * functions, included by wsr.bpf.c (the iterator wsr_refresh_list) and by
 * the host unit tests, so that the rule the guest runs is the one tested.
 */
#ifndef __WSR_REFRESH_H
#define __WSR_REFRESH_H

#include "wsr.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define WSR_MIN_LRU_BATCH	64	/* mm/vmscan.c: BITS_PER_LONG */

/* one lruvec as the iterator sees it */
struct wsr_refresh_facts {
	__u64 birth_j;		/* jiffies: its youngest generation's birth */
	__u64 age_ms;		/* since then */
	__u64 swap_room;	/* swap pages its memcg limits allow */
	__u64 gens[2];		/* generations of anon, file */
	__u64 oldest[2];	/* pages in the oldest one of each */
	__u64 pages;		/* in all its generations */
	__u32 protected;	/* below memory.min */
	__u32 pad;
};

/*
 * Would MGLRU age the lruvec with anon pages (get_swappiness() != 0)?
 * vm.swappiness is not 0 and at least MIN_LRU_BATCH swap pages are left
 * to its memcg.
 */
static __always_inline int wsr_refresh_can_swap(const struct wsr_refresh_facts *f,
						const struct wsr_refresh_args *a)
{
	__u64 room = f->swap_room < a->swap_free ? f->swap_room : a->swap_free;

	return a->swappiness > 0 && room >= WSR_MIN_LRU_BATCH;
}

/* would aging merge the oldest generation of @type, holding pages? */
static __always_inline int wsr_refresh_merges(const struct wsr_refresh_facts *f, int type)
{
	return f->gens[type & 1] >= 4 && f->oldest[type & 1];
}

/*
 * Age the lruvec on @node?  Never one aged since this refresh began.  As
 * the seed's refresh_wss(): refresh_ms of its node is not 0, its youngest
 * generation is at least that old, its memcg is not below memory.min, and
 * it has fewer than four generations, so that aging merges none.  Empty
 * generations at the old end do not count: MGLRU drops them only on
 * eviction, so a lruvec never reclaimed keeps four from its birth, three
 * of them empty, and would never age; merging an empty one loses nothing.
 * Anon generations count only when @can_swap.  For a balloon answer
 * (WSR_REFRESH_ALL), every lruvec at least refresh_ms old (0: all); for the
 * daemon's own aging (WSR_REFRESH_BACKGROUND), every one at least
 * refresh_ms old, refresh_ms not 0, not below memory.min, with a batch of
 * pages, merging or not: the aging hooks keep what a merge merges (vgen.h).
 */
static __always_inline int wsr_refresh_due(const struct wsr_refresh_args *a, __u32 node,
					   const struct wsr_refresh_facts *f, int can_swap)
{
	__u64 ms;

	if (node >= WSR_MAX_NODES || !(a->nodes >> node & 1) || f->birth_j >= a->start_j)
		return 0;
	ms = a->refresh_ms[node];
	if (a->merge == WSR_REFRESH_ALL)
		return f->age_ms >= ms;
	/* a page-table walk is not worth a lruvec of fewer pages than a batch */
	if (a->merge == WSR_REFRESH_BACKGROUND)
		return ms && f->age_ms >= ms && !f->protected && f->pages >= WSR_MIN_LRU_BATCH;
	return ms && f->age_ms >= ms && !f->protected &&
	       !(can_swap && wsr_refresh_merges(f, 0)) && !wsr_refresh_merges(f, 1);
}

/*
 * force_scan for the lru_gen command: needed when a counted type has four
 * generations (the kernel refuses, or warns, without it), and only then:
 * it also makes the page-table walk skip none of its filters.
 */
static __always_inline int wsr_refresh_force(const struct wsr_refresh_facts *f, int can_swap)
{
	return f->gens[1] >= 4 || (can_swap && f->gens[0] >= 4);
}

#endif /* __WSR_REFRESH_H */
