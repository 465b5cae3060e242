// SPDX-License-Identifier: GPL-2.0
/* Unit tests of what a refresh ages, loader/refresh.c. */
#include <string.h>
#include "refresh.h"
#include "unit.h"

/* memcg 7 on node 1: youngest 1500 ms old, unprotected, plenty of swap */
#define LINE "7 1 42 1500 0 100000 4 0 4 0\n"

static const char *lines_parse_exactly(void)
{
	static const char *const bad[] = {
		"", "7 1 42 1500 0 100000 4 0 4", "7 1 42 1500 2 100000 4 0 4 0",
		"7 16 42 1500 0 100000 4 0 4 0", "7 1 42 1500 0 100000 4 0 4 0 9",
		" 7 1 42 1500 0 100000 4 0 4 0", "x 1 42 1500 0 100000 4 0 4 0",
	};
	struct wsr_refresh_lruvec lv;
	unsigned int i;

	CHECK(!wsr_refresh_parse(LINE, &lv), "a good line refused");
	CHECK(lv.memcg_id == 7 && lv.node == 1 && lv.max_seq == 42 && lv.age_ms == 1500 &&
	      !lv.protected && lv.gens[0] == 4 && lv.oldest[1] == 0, "fields misread");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(wsr_refresh_parse(bad[i], &lv), "accepted '%s'", bad[i]);
	return NULL;
}

static const char *due_as_the_seed(void)
{
	__u64 ms[WSR_MAX_NODES] = { [1] = 1000 };
	struct wsr_refresh_lruvec lv;

	wsr_refresh_parse(LINE, &lv);
	CHECK(wsr_refresh_due(&lv, ms, true), "empty old generations kept a lruvec from aging");
	lv.age_ms = 999;
	CHECK(!wsr_refresh_due(&lv, ms, true), "aged before refresh_ms");
	lv.age_ms = 1000;
	CHECK(wsr_refresh_due(&lv, ms, true), "not aged at refresh_ms");
	ms[1] = 0;
	CHECK(!wsr_refresh_due(&lv, ms, true), "refresh_ms 0 aged");
	ms[1] = 1000;
	lv.protected = true;
	CHECK(!wsr_refresh_due(&lv, ms, true), "a memcg below memory.min aged");
	lv.protected = false;
	lv.oldest[1] = 5;
	CHECK(!wsr_refresh_due(&lv, ms, true), "aged although file pages would merge");
	lv.oldest[1] = 0;
	lv.oldest[0] = 5;
	CHECK(!wsr_refresh_due(&lv, ms, true), "aged although anon pages would merge");
	CHECK(wsr_refresh_due(&lv, ms, false), "without swap, anon generations kept it unaged");
	lv.gens[0] = 3;
	CHECK(wsr_refresh_due(&lv, ms, true), "three generations kept it unaged");
	return NULL;
}

static const char *can_swap_needs_a_batch_of_swap(void)
{
	struct wsr_refresh_lruvec lv = { .swap_room = 1000 };

	CHECK(wsr_refresh_can_swap(&lv, 60, 64), "64 free swap pages refused");
	CHECK(!wsr_refresh_can_swap(&lv, 60, 63), "63 free swap pages accepted");
	CHECK(!wsr_refresh_can_swap(&lv, 0, 100000), "swappiness 0 accepted");
	lv.swap_room = 10;
	CHECK(!wsr_refresh_can_swap(&lv, 60, 100000), "a memcg with no swap room accepted");
	return NULL;
}

static const char *commands_give_can_swap_and_force_scan(void)
{
	struct wsr_refresh_lruvec lv;
	char buf[96];

	wsr_refresh_parse(LINE, &lv);
	wsr_refresh_cmd(&lv, true, true, buf, sizeof(buf));
	CHECK(!strcmp(buf, "+ 7 1 42 1 1\n"), "got '%s'", buf);
	wsr_refresh_cmd(&lv, false, false, buf, sizeof(buf));
	CHECK(!strcmp(buf, "+ 7 1 42 0 0\n"), "got '%s'", buf);
	return NULL;
}

static const struct unit_test tests[] = {
	{ "lines_parse_exactly", lines_parse_exactly },
	{ "due_as_the_seed", due_as_the_seed },
	{ "can_swap_needs_a_batch_of_swap", can_swap_needs_a_batch_of_swap },
	{ "commands_give_can_swap_and_force_scan", commands_give_can_swap_and_force_scan },
};

UNIT_MAIN(tests)
