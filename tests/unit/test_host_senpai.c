// SPDX-License-Identifier: GPL-2.0
/*
 * The pressure policy's rule (host/senpai.c) on recorded sequences of the
 * guest's memory stall, with oomd Senpai's defaults: probes every 6 ticks
 * while the stall stays under 10 ms, backoff at once above it.
 */
#include <string.h>
#include "senpai.h"
#include "unit.h"

#define MIB (1ULL << 20)
#define GIB (1ULL << 30)

static struct senpai_knobs knobs(void)
{
	struct senpai_knobs k;

	senpai_knobs_default(&k);
	return k;
}

/* a guest with no stall: nothing for 6 ticks, then a 1% probe */
static const char *probe_after_interval_by_max_probe(void)
{
	struct senpai_knobs k = knobs();
	struct senpai_state s;
	unsigned int i;

	senpai_start(&k, &s, GIB, 5000);
	for (i = 0; i < 6; i++) {
		ASSERT_TRUE(senpai_tick(&k, &s, 5000, 0, 2 * GIB) == 0, "tick %u adjusts nothing", i);
		ASSERT_EQ(s.limit, GIB, "the limit at tick %u", i);
	}
	ASSERT_TRUE(senpai_tick(&k, &s, 5000, 0, 2 * GIB) == -0.01, "the 7th tick probes 1%%");
	ASSERT_EQ(s.limit, (__u64)(GIB * 0.99) & ~0xfffULL, "the limit after the probe");
	ASSERT_EQ(s.ticks, 6, "the countdown after the probe");
	return NULL;
}

/* half the target's stall over an interval: a probe of (0.2)^2 * 1% */
static const char *probe_shrinks_with_the_square_of_the_stall(void)
{
	struct senpai_knobs k = knobs();
	struct senpai_state s;
	__u64 total = 0;
	double f = 0;
	unsigned int i;

	senpai_start(&k, &s, GIB, total);
	for (i = 0; i < 7; i++) {
		total += i < 5 ? 1000 : 0;	/* 5 ms in all */
		f = senpai_tick(&k, &s, total, 0, 2 * GIB);
	}
	ASSERT_TRUE(f < -0.000399 && f > -0.000401, "the factor %g is -0.0004", f);
	return NULL;
}

/* the target reached in one tick: a backoff at once, (1/20)^2 */
static const char *backoff_at_once_on_the_target(void)
{
	struct senpai_knobs k = knobs();
	struct senpai_state s;
	double f;

	senpai_start(&k, &s, GIB, 0);
	f = senpai_tick(&k, &s, 10000, 0, 2 * GIB);
	ASSERT_TRUE(f > 0.00249 && f < 0.00251, "the factor %g is 0.0025", f);
	ASSERT_GT(s.limit, GIB, "the limit after the backoff");
	ASSERT_EQ(s.cumulative_us, 0, "the stall sum after the backoff");
	ASSERT_EQ(s.ticks, 6, "the countdown after the backoff");
	return NULL;
}

/* 20 times the target: the whole max_backoff, no more, and max holds */
static const char *backoff_capped_by_max_backoff_and_max(void)
{
	struct senpai_knobs k = knobs();
	struct senpai_state s;
	double f;

	senpai_start(&k, &s, GIB, 0);
	f = senpai_tick(&k, &s, 400000, 0, 4 * GIB);
	ASSERT_TRUE(f == 1.0, "the factor %g is 1", f);
	ASSERT_EQ(s.limit, 2 * GIB, "the limit after a full backoff");
	senpai_tick(&k, &s, 800000, 0, 3 * GIB);
	ASSERT_EQ(s.limit, 3 * GIB, "the limit held at max");
	return NULL;
}

/* stall spread over ticks adds up to a backoff */
static const char *stall_accumulates_across_ticks(void)
{
	struct senpai_knobs k = knobs();
	struct senpai_state s;
	__u64 total = 0;
	unsigned int i;

	senpai_start(&k, &s, GIB, 0);
	for (i = 0; i < 3; i++) {
		total += 3000;
		ASSERT_TRUE(senpai_tick(&k, &s, total, 0, 2 * GIB) == 0, "tick %u adjusts nothing at %llu us",
			    i, total);
	}
	total += 3000;
	ASSERT_TRUE(senpai_tick(&k, &s, total, 0, 2 * GIB) > 0, "12 ms over 4 ticks backs off");
	return NULL;
}

/* probes stop at min */
static const char *probe_never_below_min(void)
{
	struct senpai_knobs k = knobs();
	struct senpai_state s;
	unsigned int i;

	senpai_start(&k, &s, 300 * MIB, 0);
	for (i = 0; i < 7 * 200; i++)
		senpai_tick(&k, &s, 0, 256 * MIB, GIB);
	ASSERT_EQ(s.limit, 256 * MIB, "the limit after 200 probes");
	return NULL;
}

/* a stall total that went backwards (the guest rebooted): a fresh start */
static const char *rebooted_guest_restarts(void)
{
	struct senpai_knobs k = knobs();
	struct senpai_state s;

	senpai_start(&k, &s, GIB, 900000);
	ASSERT_TRUE(senpai_tick(&k, &s, 100, 0, 2 * GIB) == 0, "a backwards total adjusts nothing");
	ASSERT_EQ(s.last_total_us, 100, "the last total after a restart");
	ASSERT_EQ(s.cumulative_us, 0, "the stall sum after a restart");
	ASSERT_EQ(s.ticks, 6, "the countdown after a restart");
	return NULL;
}

/*
 * A guest whose working set is 600 MiB stalls 1 ms per tick for each 8 MiB
 * the limit is below it.  From 1 GiB, the rule probes down to the working
 * set and then stays within a few percent of it, never far below.
 */
static const char *converges_on_a_working_set(void)
{
	struct senpai_knobs k = knobs();
	struct senpai_state s;
	__u64 ws = 600 * MIB, total = 0, lo = GIB, hi = 0;
	unsigned int i;

	senpai_start(&k, &s, GIB, 0);
	for (i = 0; i < 20000; i++) {
		if (s.limit < ws)
			total += (ws - s.limit) / (8 * MIB) * 1000;
		senpai_tick(&k, &s, total, 100 * MIB, 2 * GIB);
		if (i >= 15000) {
			lo = s.limit < lo ? s.limit : lo;
			hi = s.limit > hi ? s.limit : hi;
		}
	}
	ASSERT_GE(lo / MIB, (ws - ws / 20) / MIB, "the lowest limit (MiB) against 5%% under the working set");
	ASSERT_LE(hi / MIB, (ws + ws / 10) / MIB, "the highest limit (MiB) against 10%% over the working set");
	return NULL;
}

static const struct unit_test tests[] = {
	{ "probe_after_interval_by_max_probe", probe_after_interval_by_max_probe },
	{ "probe_shrinks_with_the_square_of_the_stall", probe_shrinks_with_the_square_of_the_stall },
	{ "backoff_at_once_on_the_target", backoff_at_once_on_the_target },
	{ "backoff_capped_by_max_backoff_and_max", backoff_capped_by_max_backoff_and_max },
	{ "stall_accumulates_across_ticks", stall_accumulates_across_ticks },
	{ "probe_never_below_min", probe_never_below_min },
	{ "rebooted_guest_restarts", rebooted_guest_restarts },
	{ "converges_on_a_working_set", converges_on_a_working_set },
};

UNIT_MAIN(tests)
