// SPDX-License-Identifier: GPL-2.0
/* Unit tests of which reclaim passes report, bpf/reclaim.h. */
#include "reclaim.h"
#include "unit.h"

static const char *first_pass_never_reports(void)
{
	ASSERT_EQ(wsr_reclaim_reports(WSR_DEF_PRIORITY, 0, 0, 0), WSR_REPORT_NONE,
		  "global reclaim at DEF_PRIORITY");
	ASSERT_EQ(wsr_reclaim_reports(WSR_DEF_PRIORITY, 0, 1, 0), WSR_REPORT_NONE,
		  "memcg reclaim at DEF_PRIORITY");
	return NULL;
}

static const char *global_reclaim_reports_the_node_level(void)
{
	int prio;

	for (prio = WSR_DEF_PRIORITY - 1; prio >= 0; prio--)
		ASSERT_EQ(wsr_reclaim_reports(prio, 0, 0, 0), WSR_REPORT_NODE,
			  "global reclaim at priority %d", prio);
	return NULL;
}

static const char *memcg_reclaim_reports_only_its_target(void)
{
	ASSERT_EQ(wsr_reclaim_reports(WSR_DEF_PRIORITY - 1, 0, 1, 0), WSR_REPORT_TARGET,
		  "memcg reclaim below DEF_PRIORITY");
	ASSERT_EQ(wsr_reclaim_reports(0, 0, 1, 0), WSR_REPORT_TARGET, "memcg reclaim at priority 0");
	return NULL;
}

static const char *proactive_reclaim_never_reports(void)
{
	ASSERT_EQ(wsr_reclaim_reports(3, 1, 1, 0), WSR_REPORT_NONE, "memory.reclaim");
	ASSERT_EQ(wsr_reclaim_reports(3, 1, 0, 0), WSR_REPORT_NONE,
		  "proactive reclaim without a target");
	return NULL;
}

/* zone_reclaim_mode's node_reclaim(): the seed reports from none of its passes */
static const char *node_reclaim_never_reports(void)
{
	int prio;

	for (prio = WSR_DEF_PRIORITY; prio >= 0; prio--)
		ASSERT_EQ(wsr_reclaim_reports(prio, 0, 0, 1), WSR_REPORT_NONE,
			  "node_reclaim at priority %d", prio);
	return NULL;
}

/* the seed's global limit: 3 reports in a window of 1 s, then a new window */
static const char *three_reports_a_second_in_all(void)
{
	__u64 st = 0, t = 5000;
	int ok, i;

	for (i = 0; i < WSR_REPORT_BURST; i++) {
		st = wsr_report_rate(st, t + i * 100, &ok);
		ASSERT_TRUE(ok, "report %d of a window refused", i + 1);
	}
	st = wsr_report_rate(st, t + 999, &ok);
	ASSERT_FALSE(ok, "a fourth report within 1 s");
	st = wsr_report_rate(st, t + 999, &ok);
	ASSERT_FALSE(ok, "a fifth report within 1 s");
	st = wsr_report_rate(st, t + 1000, &ok);
	ASSERT_TRUE(ok, "the first report of the next window refused");
	st = wsr_report_rate(st, t + 1999, &ok);
	ASSERT_TRUE(ok, "the second report of the next window refused");
	st = wsr_report_rate(0, 0, &ok);
	ASSERT_TRUE(ok && st, "the first report ever, at time 0");
	return NULL;
}

static const struct unit_test tests[] = {
	{ "first_pass_never_reports", first_pass_never_reports },
	{ "global_reclaim_reports_the_node_level", global_reclaim_reports_the_node_level },
	{ "memcg_reclaim_reports_only_its_target", memcg_reclaim_reports_only_its_target },
	{ "node_reclaim_never_reports", node_reclaim_never_reports },
	{ "proactive_reclaim_never_reports", proactive_reclaim_never_reports },
	{ "three_reports_a_second_in_all", three_reports_a_second_in_all },
};

UNIT_MAIN(tests)
