/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a refresh ages, as the seed's refresh_wss() decides.  Pure
 * functions, included by refresh_list.bpf.h (the iterator
 * wsr_refresh_list) and by the host unit tests, so that the rule the guest runs is the one tested.
 */
#ifndef __WSR_REFRESH_H
#define __WSR_REFRESH_H

#include "wsr.h"
#include "pure.h"

/* memcg levels below a refresh's root whose protection is computed exactly */
#define WSR_PROT_LEVELS		8

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
 * Anon generations count only when @can_swap.  Reads and balloon answers
 * (WSR_REFRESH_SEED) age by this rule.  The daemon's own aging ages
 * merging or not (the aging hooks keep what a merge merges, vgen.h), not
 * below memory.min: for memcgs (WSR_REFRESH_BACKGROUND), every lruvec of a
 * batch of pages or more at least refresh_ms old, refresh_ms not 0; for the
 * balloon device (WSR_REFRESH_BALLOON), every lruvec with pages at least
 * refresh_ms old, 0 meaning all: the daemon passes the device's refresh_ms
 * less its own period, so that an answer's data is never older than the
 * device's refresh_ms (data_age_ms counts every lruvec with pages but
 * an offline memcg's, which no refresh can reach).
 */
static __always_inline int wsr_refresh_due(const struct wsr_refresh_args *a, __u32 node,
					   const struct wsr_refresh_facts *f, int can_swap)
{
	__u64 ms;

	if (node >= WSR_MAX_NODES || !(a->nodes >> node & 1) || f->birth_j >= a->start_j)
		return 0;
	ms = a->refresh_ms[node];
	if (a->merge == WSR_REFRESH_BALLOON)
		return f->age_ms >= ms && !f->protected && f->pages;
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

/*
 * mm/memcontrol.c's effective_protection() of 6.1 for memory.min, in
 * pages: the protection a memcg of @usage with memory.min @setting gets
 * from a parent of @parent_usage that has @parent_effective, when its
 * children protect @siblings_protected together (the parent's
 * children_min_usage).  Children that claim more than their parent has
 * share it in proportion; with cgroup2's memory_recursiveprot
 * (@recursive), what the children leave unclaimed goes to each in
 * proportion to its unprotected usage.
 */
static __always_inline __u64 wsr_effective_min(__u64 usage, __u64 parent_usage, __u64 setting,
					       __u64 parent_effective, __u64 siblings_protected,
					       int recursive)
{
	__u64 protected = usage < setting ? usage : setting;

	if (siblings_protected > parent_effective)
		return protected * parent_effective / siblings_protected;
	if (recursive && parent_effective > siblings_protected &&
	    parent_usage > siblings_protected && usage > protected)
		protected += (parent_effective - siblings_protected) * (usage - protected) /
			     (parent_usage - siblings_protected);
	return protected;
}

/* one memcg on the way down to the one a refresh asks about */
struct wsr_prot_level {
	__u64 usage;		/* pages charged */
	__u64 min;		/* memory.min, pages */
	__u64 children_min;	/* children_min_usage: what its children protect */
};

/*
 * Is the last of @lv below its memory.min, as a reclaim of the walk's root
 * sees it (the seed's mem_cgroup_calculate_protection(root, memcg), then
 * mem_cgroup_below_min())?  @lv[0] is a child of the root, @lv[@n - 1] the
 * memcg; the kernel computes the effective protection top-down, and so
 * does this.  The root itself (@n 0) is never protected (as the seed's
 * kernel has it: 6.1 would read the target's stale emin).  Nor is a memcg
 * with nothing charged, where the kernel reads a stale emin >= 0 as
 * protected: wsr ages it, which costs nothing and lets a read show that
 * it walked there (estimator_reports_walk_2000_lruvecs).
 */
static __always_inline int wsr_below_min(const struct wsr_prot_level *lv, __u32 n, int recursive)
{
	__u64 emin = 0;
	__u32 i;

	if (n == 0 || n > WSR_PROT_LEVELS)
		return 0;
	if (!lv[n - 1].usage)
		return 0;
	for (i = 0; i < WSR_PROT_LEVELS && i < n; i++) {
		/* a parent with nothing charged above a child with some: a race */
		if (!lv[i].usage)
			return 0;
		emin = i == 0 ? lv[0].min :
		       wsr_effective_min(lv[i].usage, lv[i - 1].usage, lv[i].min, emin,
					 lv[i - 1].children_min, recursive);
	}
	return emin >= lv[n - 1].usage;
}

#endif /* __WSR_REFRESH_H */
