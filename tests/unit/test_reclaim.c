// SPDX-License-Identifier: GPL-2.0
/* Unit tests of which reclaim passes report, bpf/reclaim.h. */
#include "reclaim.h"
#include "unit.h"

static const char *first_pass_never_reports(void)
{
	ASSERT_EQ(wsr_reclaim_reports(WSR_DEF_PRIORITY, 0, 0), WSR_REPORT_NONE,
		  "global reclaim at DEF_PRIORITY");
	ASSERT_EQ(wsr_reclaim_reports(WSR_DEF_PRIORITY, 0, 1), WSR_REPORT_NONE,
		  "memcg reclaim at DEF_PRIORITY");
	return NULL;
}

static const char *global_reclaim_reports_the_node_level(void)
{
	int prio;

	for (prio = WSR_DEF_PRIORITY - 1; prio >= 0; prio--)
		ASSERT_EQ(wsr_reclaim_reports(prio, 0, 0), WSR_REPORT_NODE,
			  "global reclaim at priority %d", prio);
	return NULL;
}

static const char *memcg_reclaim_reports_only_its_target(void)
{
	ASSERT_EQ(wsr_reclaim_reports(WSR_DEF_PRIORITY - 1, 0, 1), WSR_REPORT_TARGET,
		  "memcg reclaim below DEF_PRIORITY");
	ASSERT_EQ(wsr_reclaim_reports(0, 0, 1), WSR_REPORT_TARGET, "memcg reclaim at priority 0");
	return NULL;
}

static const char *proactive_reclaim_never_reports(void)
{
	ASSERT_EQ(wsr_reclaim_reports(3, 1, 1), WSR_REPORT_NONE, "memory.reclaim");
	ASSERT_EQ(wsr_reclaim_reports(3, 1, 0), WSR_REPORT_NONE,
		  "proactive reclaim without a target");
	return NULL;
}

static const struct unit_test tests[] = {
	{ "first_pass_never_reports", first_pass_never_reports },
	{ "global_reclaim_reports_the_node_level", global_reclaim_reports_the_node_level },
	{ "memcg_reclaim_reports_only_its_target", memcg_reclaim_reports_only_its_target },
	{ "proactive_reclaim_never_reports", proactive_reclaim_never_reports },
};

UNIT_MAIN(tests)
