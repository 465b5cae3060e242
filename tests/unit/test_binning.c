// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the generation-to-bin arithmetic in bpf/binning.h. */
#include <string.h>
#include "binning.h"
#include "unit.h"

static __u64 sum(const __u64 *v, int n)
{
	__u64 s = 0;

	while (n--)
		s += v[n];
	return s;
}

/* A generation wholly inside one bin lands there. */
static const char *generation_inside_one_bin_lands_there(void)
{
	struct wsr_hist h = {0};
	__u64 *bins = h.anon;
	struct wsr_bounds b = { .j = {100, 200, 300}, .n = 3 };

	wsr_bin_span(&h, 0, &b, 120, 180, 1000);
	ASSERT_EQ(bins[1], 1000, "bin 1");
	ASSERT_EQ(sum(bins, 4), 1000, "total");
	return NULL;
}

/* A generation across a boundary is split in proportion to the overlap. */
static const char *generation_across_boundary_splits_proportionally(void)
{
	struct wsr_hist h = {0};
	__u64 *bins = h.anon;
	struct wsr_bounds b = { .j = {100, 200, 300}, .n = 3 };

	/* ages 50..250: 50 in bin 0, 100 in bin 1, 50 in bin 2 */
	wsr_bin_span(&h, 0, &b, 50, 250, 400);
	ASSERT_EQ(bins[0], 100, "bin 0");
	ASSERT_EQ(bins[1], 200, "bin 1");
	ASSERT_EQ(bins[2], 100, "bin 2");
	return NULL;
}

/*
 * The seed computed size / gen_len * proportion, which is 0 when a
 * generation has fewer pages than jiffies in its span.  Multiplying first
 * keeps them: 10 pages over 1000 jiffies, 300 of them in bin 0.
 */
static const char *few_pages_over_long_span_are_not_truncated(void)
{
	struct wsr_hist h = {0};
	__u64 *bins = h.anon;
	struct wsr_bounds b = { .j = {300, 2000, 3000}, .n = 3 };

	wsr_bin_span(&h, 0, &b, 0, 1000, 10);
	ASSERT_EQ(bins[0], 3, "bin 0");
	ASSERT_EQ(bins[1], 7, "bin 1");
	return NULL;
}

/* Rounding never loses or invents a page. */
static const char *rounding_keeps_every_page(void)
{
	struct wsr_hist h = {0};
	__u64 *bins = h.anon;
	struct wsr_bounds b = { .j = {7, 13, 29, 31}, .n = 4 };
	__u64 total = 0, young, pages;

	for (young = 0; young < 40; young += 3)
		for (pages = 1; pages < 50; pages += 7) {
			wsr_bin_span(&h, 0, &b, young, young + 17, pages);
			total += pages;
		}
	ASSERT_EQ(sum(bins, 5), total, "pages binned");
	return NULL;
}

/* Ages at or past the last bound go to the catch-all bin. */
static const char *old_pages_go_to_catch_all_bin(void)
{
	struct wsr_hist h = {0};
	__u64 *bins = h.anon;
	struct wsr_bounds b = { .j = {10, 20, 30}, .n = 3 };

	wsr_bin_span(&h, 0, &b, 30, 5000, 77);
	ASSERT_EQ(bins[3], 77, "catch-all bin");
	return NULL;
}

/* With no intervals set, everything is in the single catch-all bin. */
static const char *no_intervals_means_one_bin(void)
{
	struct wsr_hist h = {0};
	__u64 *bins = h.anon;
	struct wsr_bounds b = { .n = 0 };

	wsr_bin_span(&h, 0, &b, 0, 100, 5);
	ASSERT_EQ(bins[0], 5, "bin 0");
	ASSERT_EQ(sum(bins, WSR_MAX_BINS), 5, "total");
	return NULL;
}

/*
 * A zero-length generation goes where its single age belongs: a bin holds
 * ages above the previous bound and at most its own, as the seed's.
 */
static const char *zero_length_generation_goes_to_its_age(void)
{
	struct wsr_hist h = {0};
	__u64 *bins = h.anon;
	struct wsr_bounds b = { .j = {10, 20, 30}, .n = 3 };

	wsr_bin_span(&h, 0, &b, 20, 20, 9);	/* age 20 is at most 20 */
	ASSERT_EQ(bins[1], 9, "bin 1");
	wsr_bin_span(&h, 0, &b, 21, 21, 5);	/* 21 is above 20 */
	ASSERT_EQ(bins[2], 5, "bin 2");
	wsr_bin_span(&h, 0, &b, 31, 31, 3);	/* above the last bound */
	ASSERT_EQ(bins[3], 3, "the catch-all bin");
	ASSERT_EQ(sum(bins, 4), 17, "total");
	return NULL;
}

/* Huge spans and page counts do not overflow the multiplication. */
static const char *huge_span_does_not_overflow(void)
{
	struct wsr_hist h = {0};
	__u64 *bins = h.anon;
	struct wsr_bounds b = { .j = {1ULL << 40, 1ULL << 41, 1ULL << 42}, .n = 3 };
	__u64 pages = 1ULL << 31;

	wsr_bin_span(&h, 0, &b, 0, 1ULL << 42, pages);
	ASSERT_EQ(sum(bins, 4), pages, "total");
	ASSERT_EQ(bins[0], pages / 4, "bin 0");
	ASSERT_EQ(bins[1], pages / 4, "bin 1");
	ASSERT_EQ(bins[2], pages / 2, "bin 2");
	return NULL;
}

/*
 * Whole lruvec: 4 generations born at 0, 1000, 2000, 2500 jiffies, read at
 * 3000.  Youngest spans ages [0, 500], then [500, 1000], [1000, 2000],
 * [2000, 3000].  File pages only from min_seq[1] = 11.
 */
static const char *generations_map_to_their_ages(void)
{
	struct wsr_gens g = {
		.max_seq = 13, .min_seq = {10, 11},
		.birth = {[10 % 4] = 0, [11 % 4] = 1000, [12 % 4] = 2000, [13 % 4] = 2500},
	};
	struct wsr_bounds b = { .j = {500, 1000, 2000}, .n = 3 };
	struct wsr_hist h = {0};
	__u64 *anon = h.anon, *file = h.file;

	g.pages[13 % 4][0] = 10;	/* youngest: bin 0 */
	g.pages[12 % 4][0] = 20;	/* bin 1 */
	g.pages[11 % 4][0] = 30;	/* bin 2 */
	g.pages[10 % 4][0] = 40;	/* catch-all */
	g.pages[10 % 4][1] = 99;	/* below file min_seq: empty by definition */
	g.pages[13 % 4][1] = 5;
	g.now = 3000;
	wsr_bin_gens(&g, &(struct wsr_vgens){0}, &b, &h, &(struct wsr_span){0});
	ASSERT_EQ(anon[0], 10, "anon bin 0");
	ASSERT_EQ(anon[1], 20, "anon bin 1");
	ASSERT_EQ(anon[2], 30, "anon bin 2");
	ASSERT_EQ(anon[3], 40, "anon catch-all bin");
	ASSERT_EQ(file[0], 5, "file bin 0");
	ASSERT_EQ(sum(file, 4), 5, "file total");
	return NULL;
}

/* Skipping the youngest generation (reaccess counting) leaves it out. */
static const char *skip_leaves_out_youngest(void)
{
	struct wsr_gens g = { .max_seq = 5, .min_seq = {4, 4},
			      .birth = {[4 % 4] = 0, [5 % 4] = 100} };
	struct wsr_bounds b = { .j = {50, 500, 5000}, .n = 3 };
	struct wsr_hist h = {0};

	g.pages[5 % 4][0] = 7;
	g.pages[4 % 4][0] = 11;
	g.now = 200;
	g.skip = 1;
	wsr_bin_gens(&g, &(struct wsr_vgens){0}, &b, &h, &(struct wsr_span){0});
	ASSERT_EQ(h.anon[1], 11, "anon bin 1");
	ASSERT_EQ(sum(h.anon, 4), 11, "anon total");
	return NULL;
}

/* Intervals in ms become jiffies rounded up, saturating for huge values. */
static const char *ms_to_jiffies_rounds_up_and_saturates(void)
{
	ASSERT_EQ(wsr_ms_to_jiffies(1000, 250), 250, "1000 ms at 250 Hz");
	ASSERT_EQ(wsr_ms_to_jiffies(1, 100), 1, "1 ms at 100 Hz, rounded up");
	ASSERT_EQ(wsr_ms_to_jiffies(WSR_BIN_INF, 1000), WSR_NO_BOUND, "LLONG_MAX ms, saturated");
	return NULL;
}

/* A histogram's data is as old as its lruvec's last aging: the youngest birth. */
static const char *data_age_is_time_since_youngest_birth(void)
{
	struct wsr_gens g = { .max_seq = 6, .now = 10000 };

	g.birth[6 % WSR_NR_GENS] = 9000;	/* youngest */
	g.birth[5 % WSR_NR_GENS] = 2000;
	g.pages[5 % WSR_NR_GENS][1] = 10;
	ASSERT_EQ(wsr_gens_data_age(&g), 1000, "data age");
	return NULL;
}

/* An empty lruvec has no data to be old; a racy birth after now is not negative. */
static const char *data_age_of_empty_or_racy_lruvec_is_zero(void)
{
	struct wsr_gens g = { .max_seq = 3, .now = 10000 };

	g.birth[3] = 100;
	ASSERT_EQ(wsr_gens_data_age(&g), 0, "an empty lruvec's data age");
	g.pages[3][0] = 1;
	g.birth[3] = 10001;
	ASSERT_EQ(wsr_gens_data_age(&g), 0, "data age with a birth after now");
	return NULL;
}

/* A removed memcg's lruvec, which nothing outside the kernel can age, has none */
static const char *data_age_of_an_offline_memcgs_lruvec_is_zero(void)
{
	struct wsr_gens g = { .max_seq = 3, .now = 10000 };

	g.birth[3] = 100;
	g.pages[3][1] = 1;
	ASSERT_EQ(wsr_gens_data_age(&g), 9900, "an online lruvec's data age");
	g.offline = 1;
	ASSERT_EQ(wsr_gens_data_age(&g), 0, "an offline memcg's lruvec's data age");
	return NULL;
}

static const struct unit_test tests[] = {
	{ "generation_inside_one_bin_lands_there", generation_inside_one_bin_lands_there },
	{ "data_age_is_time_since_youngest_birth", data_age_is_time_since_youngest_birth },
	{ "data_age_of_empty_or_racy_lruvec_is_zero", data_age_of_empty_or_racy_lruvec_is_zero },
	{ "data_age_of_an_offline_memcgs_lruvec_is_zero",
	  data_age_of_an_offline_memcgs_lruvec_is_zero },
	{ "generation_across_boundary_splits_proportionally",
	  generation_across_boundary_splits_proportionally },
	{ "few_pages_over_long_span_are_not_truncated", few_pages_over_long_span_are_not_truncated },
	{ "rounding_keeps_every_page", rounding_keeps_every_page },
	{ "old_pages_go_to_catch_all_bin", old_pages_go_to_catch_all_bin },
	{ "no_intervals_means_one_bin", no_intervals_means_one_bin },
	{ "zero_length_generation_goes_to_its_age", zero_length_generation_goes_to_its_age },
	{ "huge_span_does_not_overflow", huge_span_does_not_overflow },
	{ "generations_map_to_their_ages", generations_map_to_their_ages },
	{ "skip_leaves_out_youngest", skip_leaves_out_youngest },
	{ "ms_to_jiffies_rounds_up_and_saturates", ms_to_jiffies_rounds_up_and_saturates },
};

UNIT_MAIN(tests)
