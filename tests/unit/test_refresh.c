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

static const struct unit_test tests[] = {
	{ "due_as_the_seed", due_as_the_seed },
	{ "merge_ages_full_lruvecs", merge_ages_full_lruvecs },
	{ "can_swap_needs_a_batch_of_swap", can_swap_needs_a_batch_of_swap },
	{ "force_scan_only_when_full", force_scan_only_when_full },
};

UNIT_MAIN(tests)
