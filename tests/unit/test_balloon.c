// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the balloon programs' decisions in bpf/balloon.h. */
#include "balloon.h"
#include "unit.h"

#define MS 1000000ULL

/* Nothing cached yet: ask the driver. */
static const char *empty_cache_asks_the_driver(void)
{
	struct wsr_balloon b = {0};

	ASSERT_TRUE(wsr_balloon_ask_driver(&b, 5000 * MS), "ask with nothing cached");
	return NULL;
}

/* report_ms 0 cached less than a second ago: no kfunc call on aging. */
static const char *reports_off_skip_the_driver_within_a_second(void)
{
	struct wsr_balloon b = { .cache_ns = 5000 * MS, .cache_report_ms = 0 };

	ASSERT_FALSE(wsr_balloon_ask_driver(&b, 5000 * MS), "ask at once");
	ASSERT_FALSE(wsr_balloon_ask_driver(&b, 5999 * MS), "ask 999 ms after");
	/* else a new report_ms would never be seen */
	ASSERT_TRUE(wsr_balloon_ask_driver(&b, 6000 * MS), "ask 1000 ms after");
	return NULL;
}

/* With reports on, the driver is asked when one is due, not before. */
static const char *reports_on_ask_the_driver_when_due(void)
{
	struct wsr_balloon b = { .cache_ns = 5000 * MS, .cache_report_ms = 300,
				 .claim_ns = 5000 * MS };

	ASSERT_FALSE(wsr_balloon_ask_driver(&b, 5299 * MS), "ask 299 ms after the last report");
	ASSERT_TRUE(wsr_balloon_ask_driver(&b, 5300 * MS), "ask 300 ms after the last report");
	b.claim_ns = 0;
	ASSERT_TRUE(wsr_balloon_ask_driver(&b, 5001 * MS), "ask with no report yet");
	return NULL;
}

static const struct unit_test tests[] = {
	{ "empty_cache_asks_the_driver", empty_cache_asks_the_driver },
	{ "reports_off_skip_the_driver_within_a_second",
	  reports_off_skip_the_driver_within_a_second },
	{ "reports_on_ask_the_driver_when_due", reports_on_ask_the_driver_when_due },
};

UNIT_MAIN(tests)
