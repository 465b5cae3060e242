// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the virtual generations in bpf/vgen.h, against a small
 * model of MGLRU's own bookkeeping: aging promotes the pages found young to
 * the youngest generation, then (with four generations) merges the oldest
 * into the next, as try_to_inc_max_seq() and inc_max_seq() do.
 */
#include <string.h>
#include "vgen.h"
#include "unit.h"

/* a lruvec of anon pages only, and what wsr keeps of it */
struct sim {
	struct wsr_gens g;
	struct wsr_vgen v;
};

static void sim_init(struct sim *m, __u64 now)
{
	memset(m, 0, sizeof(*m));
	/* a new lruvec: four generations, born together */
	m->g.max_seq = 3;
	m->g.min_seq[0] = m->g.min_seq[1] = 0;
	m->g.now = now;
	for (int i = 0; i < 4; i++)
		m->g.birth[i] = now;
}

static __u64 *gen_pages(struct sim *m, __u64 seq)
{
	return &m->g.pages[seq % WSR_NR_GENS][0];
}

/*
 * One aging at @now: @young[k] pages of generation min_seq + k are found
 * young (k < 4) and move to the youngest, then a generation is added,
 * merging the oldest if there are four.
 */
static void sim_age(struct sim *m, __u64 now, const __u64 young[4])
{
	__u64 seq, from = m->g.max_seq;
	int k;

	m->g.now = now;
	wsr_vgen_begin(&m->v, &m->g, from, 1);
	for (k = 0; k < 4; k++) {
		seq = m->g.min_seq[0] + k;
		if (seq >= m->g.max_seq)
			break;
		*gen_pages(m, seq) -= young[k];
		*gen_pages(m, m->g.max_seq) += young[k];
	}
	if (m->g.max_seq - m->g.min_seq[0] + 1 == WSR_NR_GENS) {
		seq = m->g.min_seq[0];
		*gen_pages(m, seq + 1) += *gen_pages(m, seq);
		*gen_pages(m, seq) = 0;
		m->g.min_seq[0]++;
		m->g.min_seq[1]++;
	}
	m->g.max_seq++;
	m->g.birth[m->g.max_seq % WSR_NR_GENS] = now;
	wsr_vgen_end(&m->v, &m->g, from, 1);
}

/* a read at @now: what read_gens() hands the binning */
static struct wsr_vgens sim_read(struct sim *m, __u64 now)
{
	struct wsr_vgen v = m->v;

	m->g.now = now;
	wsr_vgen_read(&v, &m->g);
	return v.parts;
}

static void sim_bin(struct sim *m, __u64 now, const struct wsr_bounds *b, struct wsr_hist *h)
{
	struct wsr_vgens vt = sim_read(m, now);

	memset(h, 0, sizeof(*h));
	wsr_bin_gens(&m->g, &vt, b, h, &(struct wsr_span){0});
}

static __u64 total(const __u64 *v)
{
	__u64 s = 0;

	for (int i = 0; i < WSR_MAX_BINS; i++)
		s += v[i];
	return s;
}

/*
 * 1000 cold pages idle since the start, 100 hot pages found young at each
 * of 60 agings 100 jiffies apart: the cold ones stay older than 5000
 * jiffies, where MGLRU's own births would make them 300 old.
 */
static const char *cold_pages_keep_their_age_through_merges(void)
{
	struct wsr_bounds b = { .j = {500, 2000, 5000}, .n = 3 };
	struct sim m;
	struct wsr_hist h;
	__u64 t;

	sim_init(&m, 0);
	*gen_pages(&m, 0) = 1000;
	*gen_pages(&m, 3) = 100;
	for (t = 100; t <= 6000; t += 100) {
		/* the hot pages are wherever the last aging put them */
		__u64 young[4] = {0};

		for (int k = 0; k < 4; k++)
			if (m.g.min_seq[0] + k < m.g.max_seq && k > 0)
				young[k] = *gen_pages(&m, m.g.min_seq[0] + k);
		/* the oldest holds the cold pages and no hot ones */
		sim_age(&m, t, young);
	}
	sim_bin(&m, 6050, &b, &h);
	ASSERT_EQ(h.anon[3], 1000, "cold pages in the catch-all bin");
	ASSERT_EQ(h.anon[0], 100, "hot pages in the youngest bin");
	ASSERT_LE(m.v.parts.t[0].nr, WSR_VGEN_PARTS, "parts");
	return NULL;
}

/*
 * Warm pages merged into the oldest generation next to cold ones, then
 * found young: they come off the youngest parts, and the cold part keeps
 * every page.
 */
static const char *pages_found_young_leave_the_youngest_parts(void)
{
	struct sim m;
	__u64 none[4] = {0}, young[4] = {0};
	const struct wsr_vgen_type *t = &m.v.parts.t[0];
	__u64 cold;

	sim_init(&m, 0);
	*gen_pages(&m, 0) = 1000;	/* cold */
	*gen_pages(&m, 1) = 200;	/* warm */
	sim_age(&m, 100, none);		/* merges 0 into 1 */
	ASSERT_EQ(t->nr, 2, "parts after a merge");
	ASSERT_EQ(t->part[0].pages, 1000, "part 0's pages after a merge");
	ASSERT_EQ(t->part[1].pages, 200, "part 1's pages after a merge");
	young[0] = 200;			/* the oldest loses the warm pages */
	sim_age(&m, 200, young);	/* and is merged into the next, empty */
	cold = 0;
	for (__u32 i = 0; i < t->nr; i++)
		if (t->part[i].birth == 0 && t->part[i].end == 0)
			cold += t->part[i].pages;
	ASSERT_EQ(cold, 1000, "pages of the cold part (of %u parts)", t->nr);
	ASSERT_EQ(wsr_vgen_sum(t), *gen_pages(&m, m.g.min_seq[0]), "pages of the parts");
	return NULL;
}

/* Pages leaving outside an aging were evicted: the oldest parts lose them. */
static const char *evicted_pages_leave_the_oldest_parts(void)
{
	struct sim m;
	__u64 none[4] = {0};
	struct wsr_vgens vt;

	sim_init(&m, 0);
	*gen_pages(&m, 0) = 1000;
	*gen_pages(&m, 1) = 200;
	sim_age(&m, 100, none);
	*gen_pages(&m, m.g.min_seq[0]) -= 300;	/* reclaim */
	vt = sim_read(&m, 150);
	ASSERT_EQ(vt.t[0].nr, 2, "parts after evicting 300");
	ASSERT_EQ(vt.t[0].part[0].pages, 700, "part 0's pages after evicting 300");
	ASSERT_EQ(vt.t[0].part[1].pages, 200, "part 1's pages after evicting 300");
	/* reads keep nothing: from 1000 + 200 again, cold file pages join it */
	*gen_pages(&m, m.g.min_seq[0]) += 350;
	vt = sim_read(&m, 150);
	ASSERT_EQ(vt.t[0].part[0].pages, 1000, "part 0's pages after 50 joined");
	ASSERT_EQ(vt.t[0].part[1].pages, 250, "the own part's pages after 50 joined");
	return NULL;
}

/*
 * 200 agings, each merging a generation that still holds pages: the parts
 * stay within WSR_VGEN_PARTS, hold every page, keep the oldest birth first
 * and the own part last.
 */
static const char *parts_are_bounded_and_keep_every_page(void)
{
	struct sim m;
	__u64 none[4] = {0}, t;
	const struct wsr_vgen_type *vt = &m.v.parts.t[0];

	sim_init(&m, 0);
	*gen_pages(&m, 0) = 1000;
	for (t = 1; t <= 200; t++) {
		*gen_pages(&m, m.g.max_seq) += 10;	/* new pages, never touched again */
		sim_age(&m, t * 100, none);
		ASSERT_GE(vt->nr, 1, "parts after aging %llu", t);
		ASSERT_LE(vt->nr, WSR_VGEN_PARTS, "parts after aging %llu", t);
		ASSERT_EQ(wsr_vgen_sum(vt), *gen_pages(&m, m.g.min_seq[0]),
			  "pages of the parts after aging %llu", t);
	}
	ASSERT_EQ(vt->part[0].birth, 0, "the first part's birth");
	ASSERT_GE(vt->part[0].pages, 1000, "the first part's pages");
	ASSERT_EQ(vt->part[vt->nr - 1].birth, m.g.birth[m.g.min_seq[0] % 4],
		  "the last part's birth");
	for (__u32 i = 1; i < vt->nr; i++)
		ASSERT_LE(vt->part[i - 1].end, vt->part[i].birth,
			  "part %u's end against part %u's birth", i - 1, i);
	return NULL;
}

/*
 * Eviction empties the oldest generation and MGLRU moves min_seq past it
 * (try_to_inc_min_seq(), no aging): its parts go, and the new oldest
 * generation starts as one part of its own.
 */
static const char *emptied_oldest_generation_drops_its_parts(void)
{
	struct sim m;
	__u64 none[4] = {0};
	struct wsr_vgens vt;

	sim_init(&m, 0);
	*gen_pages(&m, 0) = 1000;
	*gen_pages(&m, 1) = 200;
	*gen_pages(&m, 2) = 30;
	sim_age(&m, 100, none);
	*gen_pages(&m, m.g.min_seq[0]) = 0;
	m.g.min_seq[0]++;
	vt = sim_read(&m, 150);
	ASSERT_EQ(vt.t[0].nr, 1, "parts");
	ASSERT_EQ(vt.t[0].part[0].pages, 30, "the part's pages");
	ASSERT_EQ(vt.t[0].part[0].birth, m.g.birth[m.g.min_seq[0] % 4], "the part's birth");
	return NULL;
}

/*
 * Two agers at once (two daemons, or a reader's refresh during the
 * daemon's aging): the second begins after the first merged but before
 * the first's end is seen.  The merge is still kept.
 */
static const char *overlapping_agings_keep_the_merge(void)
{
	struct sim m;
	__u64 seq;
	const struct wsr_vgen_type *t = &m.v.parts.t[0];

	sim_init(&m, 0);
	*gen_pages(&m, 0) = 1000;	/* cold */
	*gen_pages(&m, 1) = 200;
	m.g.now = 100;
	wsr_vgen_begin(&m.v, &m.g, m.g.max_seq, 1);	/* A begins */
	/* A merges 0 into 1 and adds a generation, its end not yet seen */
	seq = m.g.min_seq[0];
	*gen_pages(&m, seq + 1) += *gen_pages(&m, seq);
	*gen_pages(&m, seq) = 0;
	m.g.min_seq[0]++;
	m.g.min_seq[1]++;
	m.g.max_seq++;
	m.g.birth[m.g.max_seq % 4] = 100;
	m.g.now = 110;
	wsr_vgen_begin(&m.v, &m.g, m.g.max_seq, 1);	/* B begins */
	wsr_vgen_end(&m.v, &m.g, m.g.max_seq - 1, 1);	/* A ends */
	wsr_vgen_end(&m.v, &m.g, m.g.max_seq, 1);	/* B ends, having done nothing */
	ASSERT_EQ(t->nr, 2, "parts");
	ASSERT_EQ(t->part[0].birth, 0, "the first part's birth");
	ASSERT_EQ(t->part[0].pages, 1000, "the first part's pages");
	ASSERT_EQ(t->part[1].pages, 200, "the second part's pages");
	ASSERT_EQ(m.v.agings, 0, "agings under way");
	return NULL;
}

/* An aging whose end was never seen does not leave the parts stuck. */
static const char *missed_end_runs_out(void)
{
	struct sim m;
	__u64 none[4] = {0};

	sim_init(&m, 0);
	*gen_pages(&m, 0) = 1000;
	m.g.now = 50;
	wsr_vgen_begin(&m.v, &m.g, m.g.max_seq, 1);	/* an aging whose end is lost */
	m.v.snap.max_seq = 0;		/* long ago */
	sim_age(&m, 100, none);
	ASSERT_EQ(m.v.agings, 0, "agings counted");
	ASSERT_EQ(wsr_vgen_sum(&m.v.parts.t[0]), *gen_pages(&m, m.g.min_seq[0]),
		  "pages of the parts");
	return NULL;
}

/*
 * Anon aged without swap (can_swap 0): inc_min_seq() moves min_seq on and
 * leaves the pages where they are, in what is now the youngest generation.
 * No merge happened: the old parts go.
 */
static const char *anon_aged_without_swap_is_not_a_merge(void)
{
	struct sim m;
	__u64 none[4] = {0};
	const struct wsr_vgen_type *t = &m.v.parts.t[0];

	sim_init(&m, 0);
	*gen_pages(&m, 0) = 1000;
	*gen_pages(&m, 1) = 200;
	sim_age(&m, 100, none);		/* a merge, with swap: 2 parts */
	*gen_pages(&m, m.g.min_seq[0] + 1) = 50;
	m.g.now = 200;
	wsr_vgen_begin(&m.v, &m.g, m.g.max_seq, 0);
	/* the oldest (1200 pages) stays put and becomes the youngest */
	m.g.min_seq[0]++;
	m.g.min_seq[1]++;
	m.g.max_seq++;
	m.g.birth[m.g.max_seq % 4] = 200;
	wsr_vgen_end(&m.v, &m.g, m.g.max_seq - 1, 0);
	ASSERT_EQ(t->nr, 1, "parts");
	ASSERT_EQ(t->part[0].pages, *gen_pages(&m, m.g.min_seq[0]), "the part's pages");
	ASSERT_EQ(t->part[0].birth, m.g.birth[m.g.min_seq[0] % 4], "the part's birth");
	return NULL;
}

/* inc_min_seq() moving @n pages of the oldest generation into the next */
static void sim_move(struct sim *m, __u64 n)
{
	*gen_pages(m, m->g.min_seq[0]) -= n;
	*gen_pages(m, m->g.min_seq[0] + 1) += n;
}

/* the rest of inc_max_seq(): min_seq, then max_seq move on */
static void sim_finish_merge(struct sim *m, __u64 now, int max_too)
{
	sim_move(m, *gen_pages(m, m->g.min_seq[0]));
	m->g.min_seq[0]++;
	m->g.min_seq[1]++;
	if (!max_too)
		return;
	m->g.max_seq++;
	m->g.birth[m->g.max_seq % WSR_NR_GENS] = now;
}

/* a lruvec whose oldest generation holds 1000 cold pages in parts born at 0 */
static void sim_cold(struct sim *m)
{
	__u64 none[4] = {0};

	sim_init(m, 0);
	*gen_pages(m, 0) = 1000;
	sim_age(m, 1000, none);		/* merges 0 (cold) into 1 */
	m->g.birth[2] = 2000;
	m->g.birth[3] = 3000;
	*gen_pages(m, 2) = 100;		/* what the next merge brings: born at 2000 */
}

/*
 * Reads during an aging that merges, at each stage: the walk, inc_min_seq()
 * moving pages in batches of 64 with the lock dropped between them,
 * min_seq moved on but not yet max_seq, the aging over but its end hook
 * not yet run.  The cold pages read as old at every stage, and each read
 * bins every page once.
 */
static const char *reads_during_a_merge_keep_the_cold_ages(void)
{
	struct wsr_bounds b = { .j = {500, 2000, 5000}, .n = 3 };
	struct wsr_hist h;
	struct sim m;
	int stage;
	__u64 seq;

	sim_cold(&m);
	m.g.now = 4000;
	seq = m.g.max_seq;
	wsr_vgen_begin(&m.v, &m.g, seq, 1);
	for (stage = 0; stage < 6; stage++) {
		if (stage == 1 || stage == 2)
			sim_move(&m, 64);
		if (stage == 3)
			sim_finish_merge(&m, 4500, 0);
		if (stage == 4) {
			m.g.max_seq++;
			m.g.birth[m.g.max_seq % WSR_NR_GENS] = 4500;
		}
		if (stage == 5)
			wsr_vgen_end(&m.v, &m.g, seq, 1);
		sim_bin(&m, 6000, &b, &h);
		ASSERT_EQ(h.anon[3], 1000, "stage %d: cold pages idle for 5000 or more", stage);
		ASSERT_EQ(total(h.anon), 1100, "stage %d: pages binned", stage);
	}
	return NULL;
}

/*
 * After the merge in sim_cold()'s lruvec: its 1000 cold pages are still in
 * parts last young by 1000, next to the 100 the merge brought, and no
 * aging is counted as under way.
 */
static const char *cold_part_kept(const struct sim *m)
{
	const struct wsr_vgen_type *t = &m->v.parts.t[0];
	__u64 cold = 0;

	for (__u32 i = 0; i < t->nr; i++)
		if (t->part[i].end <= 1000)
			cold += t->part[i].pages;
	ASSERT_EQ(cold, 1000, "cold pages in parts last young by 1000 (of %u parts)", t->nr);
	ASSERT_EQ(wsr_vgen_sum(t), 1100, "pages of the parts");
	ASSERT_EQ(m->v.agings, 0, "agings under way");
	return NULL;
}

/*
 * Two walkers of one aging (the same max_seq): the one that does not merge
 * ends while the other's inc_min_seq() is moving pages.  The parts are
 * left to the merging one, and the cold part keeps all its pages.
 */
static const char *walker_ending_during_anothers_merge_leaves_the_parts(void)
{
	struct sim m;
	__u64 seq;

	sim_cold(&m);
	m.g.now = 4000;
	seq = m.g.max_seq;
	wsr_vgen_begin(&m.v, &m.g, seq, 1);	/* A */
	wsr_vgen_begin(&m.v, &m.g, seq, 1);	/* B, sharing A's walk */
	sim_move(&m, 640);			/* A merging */
	wsr_vgen_end(&m.v, &m.g, seq, 1);	/* B ends, having not aged */
	sim_finish_merge(&m, 4500, 1);
	wsr_vgen_end(&m.v, &m.g, seq, 1);	/* A ends */
	return cold_part_kept(&m);
}

/*
 * A walker that read max_seq before the last aging (preempted meanwhile)
 * begins and ends in the middle of the next aging's merge: it does not
 * touch the parts, and the cold part keeps all its pages.
 */
static const char *stale_walkers_during_a_merge_leave_the_parts(void)
{
	struct sim m;
	__u64 seq;

	sim_cold(&m);
	m.g.now = 4000;
	seq = m.g.max_seq;
	wsr_vgen_begin(&m.v, &m.g, seq, 1);	/* A */
	sim_move(&m, 640);			/* A merging */
	wsr_vgen_begin(&m.v, &m.g, seq - 1, 1);	/* D, from an older max_seq */
	wsr_vgen_end(&m.v, &m.g, seq - 1, 1);	/* D ends, having not aged */
	sim_finish_merge(&m, 4500, 1);
	wsr_vgen_end(&m.v, &m.g, seq, 1);	/* A ends */
	return cold_part_kept(&m);
}

/* Without kept parts, the binning is MGLRU's own. */
static const char *no_parts_bins_as_mglru(void)
{
	struct wsr_bounds b = { .j = {500, 2000, 5000}, .n = 3 };
	struct wsr_hist h1 = {0}, h2 = {0};
	struct sim m;

	sim_init(&m, 0);
	m.g.birth[1] = 1000;
	m.g.birth[2] = 2000;
	m.g.birth[3] = 3000;
	*gen_pages(&m, 0) = 70;
	*gen_pages(&m, 2) = 30;
	m.g.now = 4000;
	wsr_bin_gens(&m.g, &(struct wsr_vgens){0}, &b, &h1, &(struct wsr_span){0});
	sim_bin(&m, 4000, &b, &h2);
	for (int i = 0; i < WSR_MAX_BINS; i++)
		ASSERT_EQ(h2.anon[i], h1.anon[i], "bin %d, against wsr_bin_gens()'s", i);
	ASSERT_EQ(total(h2.anon), 100, "pages binned");
	return NULL;
}

static const struct unit_test tests[] = {
	{ "cold_pages_keep_their_age_through_merges", cold_pages_keep_their_age_through_merges },
	{ "pages_found_young_leave_the_youngest_parts", pages_found_young_leave_the_youngest_parts },
	{ "evicted_pages_leave_the_oldest_parts", evicted_pages_leave_the_oldest_parts },
	{ "parts_are_bounded_and_keep_every_page", parts_are_bounded_and_keep_every_page },
	{ "emptied_oldest_generation_drops_its_parts", emptied_oldest_generation_drops_its_parts },
	{ "overlapping_agings_keep_the_merge", overlapping_agings_keep_the_merge },
	{ "missed_end_runs_out", missed_end_runs_out },
	{ "anon_aged_without_swap_is_not_a_merge", anon_aged_without_swap_is_not_a_merge },
	{ "no_parts_bins_as_mglru", no_parts_bins_as_mglru },
	{ "reads_during_a_merge_keep_the_cold_ages", reads_during_a_merge_keep_the_cold_ages },
	{ "walker_ending_during_anothers_merge_leaves_the_parts",
	  walker_ending_during_anothers_merge_leaves_the_parts },
	{ "stale_walkers_during_a_merge_leave_the_parts",
	  stale_walkers_during_a_merge_leave_the_parts },
};

UNIT_MAIN(tests)
