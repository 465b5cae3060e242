/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Virtual generations: the oldest MGLRU generation of a lruvec, split into
 * parts by when their pages were last found young.
 *
 * MGLRU keeps at most four generations.  Aging a lruvec that has four
 * merges the oldest into the next (inc_min_seq()), and the merged pages take
 * that one's birth: aged every second, a region idle for ten minutes reads
 * as idle for three seconds.  Aged rarely, a hot set sits in a generation
 * born at the last aging and reads as old.  wsr records around each aging
 * (fentry and fexit of try_to_inc_max_seq()) what a merge merged, and when
 * it was born, as parts of the oldest generation, so that aging as often as
 * the young end needs loses nothing at the old end.
 *
 * The model, whose error bounds docs/estimator.md gives:
 * - a part keeps the span [birth, end] of the generation it was, and its
 *   pages are spread evenly over it, as those of a real generation are;
 * - pages that leave the oldest generation during an aging's page-table
 *   walk were found young: they come off its youngest parts first; pages
 *   that leave it at other times were evicted: oldest parts first;
 * - pages that join it (lru_gen_add_folio() puts some there) join its own
 *   part, the youngest;
 * - beyond WSR_VGEN_PARTS, the two adjacent parts whose union spans the
 *   least time become one (never the own part).
 *
 * Pure arithmetic with no kernel types, included by the BPF programs
 * (aging_hooks.bpf.h, lruvec_hist.bpf.h) and by the host unit tests, so
 * that the rules the guest runs are the ones tested.
 */
#ifndef __WSR_VGEN_H
#define __WSR_VGEN_H

#include "binning.h"

/* what wsr keeps of a lruvec (the map "vgens"), once it has four generations */
struct wsr_vgen {
	struct wsr_vgens parts;
	struct wsr_gens snap;		/* as the last aging found it when it began */
	__u64 busy;			/* a CPU is updating it (see lock_parts()) */
	__u64 seq;			/* odd while it is updated, for readers */
	__u64 agings;			/* agings under way: leaving pages were found young */
	__u64 can_swap;			/* the snapshot's aging moves anon pages */
};

/* the span in jiffies of generation @seq, given its lruvec's births */
static __always_inline void wsr_seq_span(const __u64 *birth, __u64 max_seq, __u64 now,
					 __u64 seq, __u64 *from, __u64 *to)
{
	__u64 lo = birth[seq % WSR_NR_GENS];
	__u64 hi = seq == max_seq ? now : birth[(seq + 1) % WSR_NR_GENS];

	/* timestamps are racy reads: keep the span ordered and in the past */
	if (hi > now)
		hi = now;
	if (lo > hi)
		lo = hi;
	*from = lo;
	*to = hi;
}

static __always_inline __u64 wsr_vgen_sum(const struct wsr_vgen_type *t)
{
	__u64 sum = 0;
	__u32 i;

	for (i = 0; i < WSR_VGEN_PARTS; i++)
		if (i < t->nr)
			sum += t->part[i].pages;
	return sum;
}

/* join parts @i and @i + 1 */
static __always_inline void wsr_vgen_join(struct wsr_vgen_type *t, __u32 i)
{
	__u32 j;

	if (i + 1 >= t->nr || i + 1 >= WSR_VGEN_PARTS)
		return;
	/* masks the BPF verifier can see: t->nr is map memory */
	barrier_var(i);
	i &= WSR_VGEN_PARTS - 1;
	t->part[i].end = t->part[(i + 1) & (WSR_VGEN_PARTS - 1)].end;
	t->part[i].pages += t->part[(i + 1) & (WSR_VGEN_PARTS - 1)].pages;
	for (j = 0; j < WSR_VGEN_PARTS - 1; j++)
		if (j > i && j + 1 < t->nr)
			t->part[j] = t->part[j + 1];
	t->nr--;
}

/* make room for one more part: join the closest two, the own part aside */
static __always_inline void wsr_vgen_make_room(struct wsr_vgen_type *t)
{
	__u64 best = ~0ULL, span;
	__u32 i, at = 0;

	for (i = 0; i + 2 < WSR_VGEN_PARTS; i++) {
		if (i + 2 >= t->nr)
			break;
		span = t->part[i + 1].end - t->part[i].birth;
		if (span < best) {
			best = span;
			at = i;
		}
	}
	wsr_vgen_join(t, at);
}

static __always_inline void wsr_vgen_append(struct wsr_vgen_type *t, __u64 birth, __u64 end,
					    __u64 pages)
{
	__u32 i;

	if (t->nr >= WSR_VGEN_PARTS)
		wsr_vgen_make_room(t);
	i = t->nr;
	if (i >= WSR_VGEN_PARTS)
		return;
	/* keep the mask, which the compiler would drop: the verifier needs it */
	barrier_var(i);
	i &= WSR_VGEN_PARTS - 1;
	t->part[i].birth = birth;
	t->part[i].end = end;
	t->part[i].pages = pages;
	t->nr = i + 1;
}

/* drop the empty parts but the own one, keeping the order */
static __always_inline void wsr_vgen_compact(struct wsr_vgen_type *t)
{
	__u32 i, n = 0;

	for (i = 0; i < WSR_VGEN_PARTS; i++) {
		if (i >= t->nr)
			break;
		if (!t->part[i].pages && i + 1 < t->nr)
			continue;
		if (n != i) {
			barrier_var(n);
			t->part[n & (WSR_VGEN_PARTS - 1)] = t->part[i];
		}
		n++;
	}
	t->nr = n;
}

/*
 * Make the parts hold @real pages: more join the own part; fewer come off
 * the youngest parts (@found_young: they left in a page-table walk) or the
 * oldest (evicted).
 */
static __always_inline void wsr_vgen_fit(struct wsr_vgen_type *t, __u64 real, int found_young)
{
	__u64 sum = wsr_vgen_sum(t), take, n;
	__u32 i, k;

	if (!t->nr)
		return;
	if (real >= sum) {
		k = t->nr - 1;
		barrier_var(k);
		t->part[k & (WSR_VGEN_PARTS - 1)].pages += real - sum;
		return;
	}
	take = sum - real;
	for (i = 0; i < WSR_VGEN_PARTS && take; i++) {
		if (i >= t->nr)
			break;
		k = found_young ? t->nr - 1 - i : i;
		barrier_var(k);
		k &= WSR_VGEN_PARTS - 1;
		n = t->part[k].pages < take ? t->part[k].pages : take;
		t->part[k].pages -= n;
		take -= n;
	}
	wsr_vgen_compact(t);
}

/* parts for generation @seq of a lruvec with no history: itself */
static __always_inline void wsr_vgen_init(struct wsr_vgen_type *t, const struct wsr_gens *g,
					  __u32 type)
{
	__u64 seq = g->min_seq[type & 1], from, to;

	wsr_seq_span(g->birth, g->max_seq, g->now, seq, &from, &to);
	t->nr = 0;
	t->min_seq = seq;
	wsr_vgen_append(t, from, to, g->pages[seq % WSR_NR_GENS][type & 1]);
}

/* how wsr_vgen_sync() reads a change */
#define WSR_SYNC_SNAP	1	/* the snapshot is from before an aging under way or just ended */
#define WSR_SYNC_YOUNG	2	/* pages that left the oldest generation were found young */
#define WSR_SYNC_READ	4	/* a read during that aging: a merge under way counts as done */

/* aging from @snap merges the oldest generation of @type (it has four) */
static __always_inline int wsr_snap_merges(const struct wsr_gens *snap, __u32 type)
{
	return snap->max_seq - snap->min_seq[type & 1] + 1 >= WSR_NR_GENS;
}

/*
 * Bring the parts of @type in line with @g, the lruvec as read now.
 *
 * With WSR_SYNC_SNAP, @snap is the lruvec as an aging found it when it
 * began.  If that aging merged (inc_min_seq(): min_seq moved on by one
 * and max_seq followed), what the next generation held in @snap becomes a
 * part after the old ones.  A read (WSR_SYNC_READ) may come while the
 * merge is under way: inc_min_seq() moves the folios 4,096 at a time
 * (MAX_LRU_BATCH), and one by one as a reader sees them, dropping
 * the lock between batches, and max_seq moves last.  Such a read bins
 * the merge as done: the next generation becomes a part whatever its
 * pages' progress, and its parts then stand for both generations
 * (t->merging), which the binning leaves out.
 *
 * Any other move of min_seq is eviction emptying generations
 * (try_to_inc_min_seq()), or anon aged without swap, whose pages stay
 * where they are and so become the youngest (the caller passes no
 * snapshot): the old parts go.
 */
static __always_inline void wsr_vgen_sync(struct wsr_vgen_type *t, const struct wsr_gens *g,
					  __u32 type, const struct wsr_gens *snap, int how)
{
	__u64 min = g->min_seq[type & 1], smin = snap->min_seq[type & 1], real, from, to;
	int read = how & WSR_SYNC_READ;
	int snap_ok = (how & WSR_SYNC_SNAP) && smin == t->min_seq && wsr_snap_merges(snap, type);
	int merged = snap_ok && min == smin + 1 &&
		     (snap->max_seq + 1 == g->max_seq || (read && snap->max_seq == g->max_seq));
	int merging = snap_ok && read && min == smin && snap->max_seq == g->max_seq;

	t->merging = 0;
	if (!t->nr || min < t->min_seq || min > g->max_seq || (min > t->min_seq && !merged)) {
		wsr_vgen_init(t, g, type);
		return;
	}
	if (merged || merging) {
		wsr_seq_span(snap->birth, snap->max_seq, snap->now, smin + 1, &from, &to);
		wsr_vgen_append(t, from, to, snap->pages[(smin + 1) % WSR_NR_GENS][type & 1]);
	}
	t->min_seq = min;
	real = g->pages[min % WSR_NR_GENS][type & 1];
	if (merging) {
		real += g->pages[(min + 1) % WSR_NR_GENS][type & 1];
		t->merging = 1;
	}
	wsr_vgen_fit(t, real, how & WSR_SYNC_YOUNG);
}

/* @how for type @type: an aging without swap merges no anon generation */
static __always_inline int wsr_vgen_how(__u32 type, int can_swap, int how)
{
	return type == 0 && !can_swap ? how & ~WSR_SYNC_SNAP : how;
}

/* would aging this lruvec merge a generation? (only then is it tracked) */
static __always_inline int wsr_gens_full(const struct wsr_gens *g)
{
	return wsr_snap_merges(g, 0) || wsr_snap_merges(g, 1);
}

/*
 * An aging of @v's lruvec from @max_seq (try_to_inc_max_seq()'s argument),
 * now read as @g, begins; it moves anon pages if @can_swap.
 *
 * MGLRU ages a lruvec from a given max_seq once: walkers that share it
 * (reclaim on several CPUs, the daemon's write to lru_gen) split the
 * page-table walk, and the last one to finish merges and moves max_seq.
 * So a walker from the snapshot's max_seq joins that aging, whose merge
 * may be under way: the snapshot stays.  So does a walker from an older
 * max_seq (it read max_seq before another aging, and will not age): it
 * may come in the middle of a merge.  A walker from a later max_seq comes
 * after that aging's end, seen or not: its merge is kept, and @g becomes
 * the snapshot.  A count of agings whose end was missed (a lost update)
 * runs out once max_seq has moved on by two.
 */
static __always_inline void wsr_vgen_begin(struct wsr_vgen *v, const struct wsr_gens *g,
					   __u64 max_seq, int can_swap)
{
	int how;

	if (v->agings && g->max_seq > v->snap.max_seq + 1)
		v->agings = 0;
	if ((v->agings && max_seq <= v->snap.max_seq) || max_seq < g->max_seq) {
		v->agings++;
		return;
	}
	how = v->agings ? WSR_SYNC_SNAP | WSR_SYNC_YOUNG : 0;
	/* no loop over the types: BPF's CFG check refused what clang made of one */
	wsr_vgen_sync(&v->parts.t[0], g, 0, &v->snap, wsr_vgen_how(0, v->can_swap, how));
	wsr_vgen_sync(&v->parts.t[1], g, 1, &v->snap, how);
	v->snap = *g;
	v->can_swap = can_swap;
	v->agings++;
}

/*
 * An aging of @v's lruvec from @max_seq, now read as @g, ends.  If
 * max_seq has not moved since the walker read it, this walker did not
 * age, and another may be merging now: the parts are left to that one.
 * Likewise while a later aging (the snapshot's) is under way, or may be.
 * Otherwise the aging from @max_seq is over, merge included (max_seq
 * moves last).
 */
static __always_inline void wsr_vgen_end(struct wsr_vgen *v, const struct wsr_gens *g,
					 __u64 max_seq, int can_swap)
{
	int how = v->agings ? WSR_SYNC_SNAP | WSR_SYNC_YOUNG : WSR_SYNC_YOUNG;

	if (g->max_seq == max_seq || max_seq < v->snap.max_seq ||
	    (v->agings > 1 && g->max_seq == v->snap.max_seq)) {
		if (v->agings)
			v->agings--;
		return;
	}
	wsr_vgen_sync(&v->parts.t[0], g, 0, &v->snap, wsr_vgen_how(0, can_swap, how));
	wsr_vgen_sync(&v->parts.t[1], g, 1, &v->snap, how);
	if (v->agings)
		v->agings--;
}

/*
 * What a read of @v, a copy, bins with @g, the lruvec read now: the parts
 * as they will be once an aging under way has ended.
 */
static __always_inline void wsr_vgen_read(struct wsr_vgen *v, const struct wsr_gens *g)
{
	int how = WSR_SYNC_SNAP | WSR_SYNC_YOUNG | WSR_SYNC_READ;

	if (!v->agings || g->max_seq > v->snap.max_seq + 1)
		how = 0;
	wsr_vgen_sync(&v->parts.t[0], g, 0, &v->snap, wsr_vgen_how(0, v->can_swap, how));
	wsr_vgen_sync(&v->parts.t[1], g, 1, &v->snap, how);
}

#endif /* __WSR_VGEN_H */
