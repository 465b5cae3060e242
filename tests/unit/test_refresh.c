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

	CHECK(wsr_refresh_due(&a, 1, &f, 1), "empty old generations kept a lruvec from aging");
	CHECK(!wsr_refresh_due(&a, 0, &f, 1), "aged on a node the read does not cover");
	f.age_ms = 999;
	CHECK(!wsr_refresh_due(&a, 1, &f, 1), "aged before refresh_ms");
	f.age_ms = 1000;
	CHECK(wsr_refresh_due(&a, 1, &f, 1), "not aged at refresh_ms");
	a.refresh_ms[1] = 0;
	CHECK(!wsr_refresh_due(&a, 1, &f, 1), "refresh_ms 0 aged");
	a.refresh_ms[1] = 1000;
	f.protected = 1;
	CHECK(!wsr_refresh_due(&a, 1, &f, 1), "a memcg below memory.min aged");
	f.protected = 0;
	f.oldest[1] = 5;
	CHECK(!wsr_refresh_due(&a, 1, &f, 1), "aged although file pages would merge");
	f.oldest[1] = 0;
	f.oldest[0] = 5;
	CHECK(!wsr_refresh_due(&a, 1, &f, 1), "aged although anon pages would merge");
	CHECK(wsr_refresh_due(&a, 1, &f, 0), "without swap, anon generations kept it unaged");
	f.gens[0] = 3;
	CHECK(wsr_refresh_due(&a, 1, &f, 1), "three generations kept it unaged");
	f.birth_j = 5000;
	CHECK(!wsr_refresh_due(&a, 1, &f, 1), "aged twice in one refresh");
	return NULL;
}

/* the balloon's answers: every lruvec at least refresh_ms old, merging */
static const char *merge_ages_full_lruvecs(void)
{
	struct wsr_refresh_args a = read_args();
	struct wsr_refresh_facts f = new_lruvec;

	a.merge = 1;
	f.oldest[0] = f.oldest[1] = 5;
	f.protected = 1;
	CHECK(wsr_refresh_due(&a, 1, &f, 1), "a full lruvec not aged for the balloon");
	a.refresh_ms[1] = 0;
	CHECK(wsr_refresh_due(&a, 1, &f, 1), "refresh_ms 0 did not age every lruvec");
	f.birth_j = 5001;
	CHECK(!wsr_refresh_due(&a, 1, &f, 1), "aged twice in one refresh");
	return NULL;
}

static const char *can_swap_needs_a_batch_of_swap(void)
{
	struct wsr_refresh_args a = read_args();
	struct wsr_refresh_facts f = { .swap_room = 1000 };

	a.swap_free = 64;
	CHECK(wsr_refresh_can_swap(&f, &a), "64 free swap pages refused");
	a.swap_free = 63;
	CHECK(!wsr_refresh_can_swap(&f, &a), "63 free swap pages accepted");
	a.swap_free = 100000;
	a.swappiness = 0;
	CHECK(!wsr_refresh_can_swap(&f, &a), "swappiness 0 accepted");
	a.swappiness = 60;
	f.swap_room = 10;
	CHECK(!wsr_refresh_can_swap(&f, &a), "a memcg with no swap room accepted");
	return NULL;
}

static const char *force_scan_only_when_full(void)
{
	struct wsr_refresh_facts f = { .gens = { 3, 3 } };

	CHECK(!wsr_refresh_force(&f, 1), "force_scan with three generations");
	f.gens[1] = 4;
	CHECK(wsr_refresh_force(&f, 0), "no force_scan with four file generations");
	f.gens[1] = 3;
	f.gens[0] = 4;
	CHECK(wsr_refresh_force(&f, 1), "no force_scan with four anon generations and swap");
	CHECK(!wsr_refresh_force(&f, 0), "force_scan for anon generations without swap");
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

	CHECK(wsr_below_min(one, 1, 0), "a child of the root at its memory.min is not protected");
	one[0].usage = 101;
	CHECK(!wsr_below_min(one, 1, 0), "a child of the root above its memory.min is protected");
	CHECK(!wsr_below_min(one, 0, 0), "the root itself is protected");
	CHECK(!wsr_below_min(nested, 2, 0),
	      "without memory_recursiveprot, a child with no memory.min is protected");
	CHECK(wsr_below_min(nested, 2, 1),
	      "with memory_recursiveprot, the parent's unclaimed protection did not reach the child");
	CHECK(!wsr_below_min(over, 2, 0),
	      "siblings claiming 4x what their parent has: a child is protected");
	CHECK(wsr_below_min(deep, 3, 0), "three levels, each protected: not protected");
	deep[1].min = 50;
	CHECK(!wsr_below_min(deep, 3, 0), "a level of 50 in the middle still protects 100");
	nested[1].usage = 0;
	CHECK(!wsr_below_min(nested, 2, 0),
	      "a memcg with nothing charged is protected (wsr ages it: README)");
	return NULL;
}

static const char *effective_min_as_the_kernel(void)
{
	unsigned long long ep;

	/* recursive: the parent's 1000, none claimed, split by usage: 300/400 */
	ep = wsr_effective_min(300, 400, 0, 1000, 0, 1);
	CHECK(ep == 750, "recursive share: %llu, want 750", ep);
	/* its own 100, and 900 unclaimed split by unprotected usage 200/300 */
	ep = wsr_effective_min(300, 400, 100, 1000, 100, 1);
	CHECK(ep == 100 + 900 * 200 / 300, "recursive share with own min: %llu", ep);
	ep = wsr_effective_min(300, 400, 100, 1000, 100, 0);
	CHECK(ep == 100, "non-recursive: %llu, more than min(usage, min)", ep);
	ep = wsr_effective_min(300, 400, 300, 100, 600, 0);
	CHECK(ep == 50, "overcommitted siblings: %llu, want 300 * 100 / 600", ep);
	ep = wsr_effective_min(50, 400, 300, 1000, 300, 0);
	CHECK(ep == 50, "protection above usage: %llu", ep);
	return NULL;
}

static const struct unit_test tests[] = {
	{ "below_min_from_the_top_down", below_min_from_the_top_down },
	{ "effective_min_as_the_kernel", effective_min_as_the_kernel },
	{ "due_as_the_seed", due_as_the_seed },
	{ "merge_ages_full_lruvecs", merge_ages_full_lruvecs },
	{ "can_swap_needs_a_batch_of_swap", can_swap_needs_a_batch_of_swap },
	{ "force_scan_only_when_full", force_scan_only_when_full },
};

UNIT_MAIN(tests)
