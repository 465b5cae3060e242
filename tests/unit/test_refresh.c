// SPDX-License-Identifier: GPL-2.0
/* Unit tests of what a refresh ages, bpf/refresh.h. */
#include "refresh.h"
#include "unit.h"

/* a read of node 1 with refresh_ms 1000, begun at jiffy 5000 */
static struct wsr_refresh_args read_args(void)
{
	struct wsr_refresh_args a = { .nodes = 1 << 1, .swap_free = 100000, .start_j = 5000,
				      .swappiness = 60 };

	a.refresh_ms[1] = 1000;
	return a;
}

/* a lruvec of a new memcg: four generations, the three old ones empty */
static const struct wsr_refresh_facts new_lruvec = {
	.birth_j = 4000, .age_ms = 1500, .swap_room = 100000, .gens = { 4, 4 },
};

static const char *due_as_the_seed(void)
{
	struct wsr_refresh_args a = read_args();
	struct wsr_refresh_facts f = new_lruvec;

	ASSERT_TRUE(wsr_refresh_due(&a, 1, &f, 1), "due with empty old generations");
	ASSERT_FALSE(wsr_refresh_due(&a, 0, &f, 1), "due on a node the read does not cover");
	f.age_ms = 999;
	ASSERT_FALSE(wsr_refresh_due(&a, 1, &f, 1), "due before refresh_ms");
	f.age_ms = 1000;
	ASSERT_TRUE(wsr_refresh_due(&a, 1, &f, 1), "due at refresh_ms");
	a.refresh_ms[1] = 0;
	ASSERT_FALSE(wsr_refresh_due(&a, 1, &f, 1), "due with refresh_ms 0");
	a.refresh_ms[1] = 1000;
	f.protected = 1;
	ASSERT_FALSE(wsr_refresh_due(&a, 1, &f, 1), "due below memory.min");
	f.protected = 0;
	f.oldest[1] = 5;
	ASSERT_FALSE(wsr_refresh_due(&a, 1, &f, 1), "due when file pages would merge");
	f.oldest[1] = 0;
	f.oldest[0] = 5;
	ASSERT_FALSE(wsr_refresh_due(&a, 1, &f, 1), "due when anon pages would merge");
	ASSERT_TRUE(wsr_refresh_due(&a, 1, &f, 0), "due with full anon generations, no swap");
	f.gens[0] = 3;
	ASSERT_TRUE(wsr_refresh_due(&a, 1, &f, 1), "due with three generations");
	f.birth_j = 5000;
	ASSERT_FALSE(wsr_refresh_due(&a, 1, &f, 1), "due again in one refresh");
	return NULL;
}

/*
 * The daemon's aging for the balloon device: every lruvec with pages at
 * least refresh_ms old (0: all), merging or not, none below memory.min.
 * (The device's answers themselves age as the seed: due_as_the_seed.)
 */
static const char *balloon_aging_ages_full_lruvecs_with_pages(void)
{
	struct wsr_refresh_args a = read_args();
	struct wsr_refresh_facts f = new_lruvec;

	a.merge = WSR_REFRESH_BALLOON;
	f.oldest[0] = f.oldest[1] = 5;
	f.pages = 10;
	ASSERT_TRUE(wsr_refresh_due(&a, 1, &f, 1), "a full lruvec due for the balloon");
	f.age_ms = 999;
	ASSERT_FALSE(wsr_refresh_due(&a, 1, &f, 1), "due before refresh_ms");
	a.refresh_ms[1] = 0;
	ASSERT_TRUE(wsr_refresh_due(&a, 1, &f, 1), "due with refresh_ms 0 (the period covers it)");
	f.protected = 1;
	ASSERT_FALSE(wsr_refresh_due(&a, 1, &f, 1), "due below memory.min");
	f.protected = 0;
	f.pages = 0;
	ASSERT_FALSE(wsr_refresh_due(&a, 1, &f, 1), "due with no pages");
	f.pages = 10;
	f.birth_j = 5001;
	ASSERT_FALSE(wsr_refresh_due(&a, 1, &f, 1), "due again in one refresh");
	return NULL;
}

static const char *can_swap_needs_a_batch_of_swap(void)
{
	struct wsr_refresh_args a = read_args();
	struct wsr_refresh_facts f = { .swap_room = 1000 };

	a.swap_free = 64;
	ASSERT_TRUE(wsr_refresh_can_swap(&f, &a), "can swap with 64 free swap pages");
	a.swap_free = 63;
	ASSERT_FALSE(wsr_refresh_can_swap(&f, &a), "can swap with 63 free swap pages");
	a.swap_free = 100000;
	a.swappiness = 0;
	ASSERT_FALSE(wsr_refresh_can_swap(&f, &a), "can swap with swappiness 0");
	a.swappiness = 60;
	f.swap_room = 10;
	ASSERT_FALSE(wsr_refresh_can_swap(&f, &a), "can swap with no swap room in the memcg");
	return NULL;
}

static const char *force_scan_only_when_full(void)
{
	struct wsr_refresh_facts f = { .gens = { 3, 3 } };

	ASSERT_FALSE(wsr_refresh_force(&f, 1), "force_scan with three generations");
	f.gens[1] = 4;
	ASSERT_TRUE(wsr_refresh_force(&f, 0), "force_scan with four file generations");
	f.gens[1] = 3;
	f.gens[0] = 4;
	ASSERT_TRUE(wsr_refresh_force(&f, 1), "force_scan with four anon generations and swap");
	ASSERT_FALSE(wsr_refresh_force(&f, 0), "force_scan with four anon generations, no swap");
	return NULL;
}


/*
 * memory.min as the kernel's mem_cgroup_calculate_protection() computes it,
 * top-down from the child of the read's root; usages and settings in pages
 */
static const char *below_min_from_the_top_down(void)
{
	/* a child of the root: its own memory.min */
	struct wsr_prot_level one[] = { { .usage = 100, .min = 100 } };
	/* a parent with 512 protecting a child of 100 that sets none */
	struct wsr_prot_level nested[] = {
		{ .usage = 100, .min = 512, .children_min = 0 },
		{ .usage = 100, .min = 0 },
	};
	/* children claiming 200 of a parent's 50: each gets its share */
	struct wsr_prot_level over[] = {
		{ .usage = 200, .min = 50, .children_min = 200 },
		{ .usage = 100, .min = 512 },
	};
	/* two levels with enough protection all the way */
	struct wsr_prot_level deep[] = {
		{ .usage = 300, .min = 1000, .children_min = 100 },
		{ .usage = 100, .min = 1000, .children_min = 100 },
		{ .usage = 100, .min = 100 },
	};

	ASSERT_TRUE(wsr_below_min(one, 1, 0), "a child of the root at its memory.min");
	one[0].usage = 101;
	ASSERT_FALSE(wsr_below_min(one, 1, 0), "a child of the root above its memory.min");
	ASSERT_FALSE(wsr_below_min(one, 0, 0), "the root itself");
	ASSERT_FALSE(wsr_below_min(nested, 2, 0),
		     "a child with no memory.min, without memory_recursiveprot");
	/* the parent's unclaimed protection reaches the child */
	ASSERT_TRUE(wsr_below_min(nested, 2, 1),
		    "a child with no memory.min, with memory_recursiveprot");
	ASSERT_FALSE(wsr_below_min(over, 2, 0),
		     "a child of siblings claiming 4x what their parent has");
	ASSERT_TRUE(wsr_below_min(deep, 3, 0), "three levels, each protected");
	deep[1].min = 50;
	/* a level of 50 in the middle no longer protects 100 */
	ASSERT_FALSE(wsr_below_min(deep, 3, 0), "three levels, the middle one at 50");
	nested[1].usage = 0;
	/* wsr ages it (docs/estimator.md) */
	ASSERT_FALSE(wsr_below_min(nested, 2, 0), "a memcg with nothing charged");
	return NULL;
}

static const char *effective_min_as_the_kernel(void)
{
	unsigned long long ep;

	/* recursive: the parent's 1000, none claimed, split by usage: 300/400 */
	ep = wsr_effective_min(300, 400, 0, 1000, 0, 1);
	ASSERT_EQ(ep, 750, "recursive share");
	/* its own 100, and 900 unclaimed split by unprotected usage 200/300 */
	ep = wsr_effective_min(300, 400, 100, 1000, 100, 1);
	ASSERT_EQ(ep, 100 + 900 * 200 / 300, "recursive share with its own min");
	/* min(usage, min) at most */
	ep = wsr_effective_min(300, 400, 100, 1000, 100, 0);
	ASSERT_EQ(ep, 100, "non-recursive");
	ep = wsr_effective_min(300, 400, 300, 100, 600, 0);
	ASSERT_EQ(ep, 300 * 100 / 600, "overcommitted siblings");
	ep = wsr_effective_min(50, 400, 300, 1000, 300, 0);
	ASSERT_EQ(ep, 50, "protection above usage");
	return NULL;
}

static const struct unit_test tests[] = {
	{ "below_min_from_the_top_down", below_min_from_the_top_down },
	{ "effective_min_as_the_kernel", effective_min_as_the_kernel },
	{ "due_as_the_seed", due_as_the_seed },
	{ "balloon_aging_ages_full_lruvecs_with_pages", balloon_aging_ages_full_lruvecs_with_pages },
	{ "can_swap_needs_a_batch_of_swap", can_swap_needs_a_batch_of_swap },
	{ "force_scan_only_when_full", force_scan_only_when_full },
};

UNIT_MAIN(tests)
