// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the knob parsers and printers in loader/lib/parse.c. */
#include <errno.h>
#include <string.h>
#include "libwsr.h"
#include "unit.h"

static const char *intervals_accept_increasing_list(void)
{
	__u64 ms[WSR_MAX_INTERVALS];
	struct wsr_err err;
	__u32 n;

	ASSERT_OK(wsr_parse_intervals("1000,2000,4000", WSR_MAX_MS, ms, &n, &err), "%s", err.msg);
	ASSERT_EQ(n, 3, "intervals");
	ASSERT_EQ(ms[0], 1000, "interval 0");
	ASSERT_EQ(ms[2], 4000, "interval 2");
	ASSERT_EQ(ms[3], 0, "interval 3");
	return NULL;
}

/* what "get" prints, with the catch-all bin, can be written back */
static const char *intervals_accept_printed_catch_all(void)
{
	__u64 ms[WSR_MAX_INTERVALS];
	struct wsr_err err;
	__u32 n;

	ASSERT_OK(wsr_parse_intervals("1,2,3,9223372036854775807", WSR_MAX_MS, ms, &n, &err), "%s",
		  err.msg);
	ASSERT_EQ(n, 3, "intervals, the catch-all dropped");
	return NULL;
}

static const char *intervals_reject_malformed_lists(void)
{
	static const char *const bad[] = {
		"", "1000", "1000,2000", "2000,1000,3000", "1000,1000,2000", "0,1,2",
		"1,2,x", "1,,2,3", ",1,2,3", "1,2,3,", "-1,2,3", "+1,2,3", " 1,2,3",
		"1,2,3x", "1,2,99999999999999999999",
		"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
	};
	__u64 ms[WSR_MAX_INTERVALS] = { 7 };
	struct wsr_err err;
	__u32 n = 99, i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = 0;
		ASSERT_ERR(wsr_parse_intervals(bad[i], WSR_MAX_MS, ms, &n, &err), "'%s'", bad[i]);
		ASSERT_NEQ(err.msg[0], 0, "the message for '%s'", bad[i]);
		ASSERT_EQ(n, 99, "intervals after '%s'", bad[i]);
		ASSERT_EQ(ms[0], 7, "interval 0 after '%s'", bad[i]);
	}
	return NULL;
}

static const char *fifteen_intervals_is_the_maximum(void)
{
	__u64 ms[WSR_MAX_INTERVALS];
	struct wsr_err err;
	__u32 n;

	ASSERT_OK(wsr_parse_intervals("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", WSR_MAX_MS, ms, &n,
				      &err), "%s", err.msg);
	ASSERT_EQ(n, 15, "intervals");
	ASSERT_EQ(ms[14], 15, "interval 14");
	return NULL;
}

static const char *numbers_are_strict_decimal(void)
{
	struct wsr_err err;
	__u64 v;

	ASSERT_OK(wsr_parse_u64("0", &v, "x", &err), "0");
	ASSERT_EQ(v, 0, "0");
	ASSERT_OK(wsr_parse_u64("9223372036854775807", &v, "x", &err), "LLONG_MAX");
	ASSERT_EQ(v, 9223372036854775807ULL, "LLONG_MAX");
	ASSERT_ERR(wsr_parse_u64("9223372036854775808", &v, "x", &err), "LLONG_MAX + 1");
	ASSERT_ERR(wsr_parse_u64("0x10", &v, "x", &err), "hex");
	ASSERT_ERR(wsr_parse_u64("", &v, "x", &err), "empty");
	ASSERT_ERR(wsr_parse_u64("12 ", &v, "x", &err), "a trailing space");
	return NULL;
}

static const char *node_prefix_selects_a_node(void)
{
	struct wsr_err err;
	const char *val;
	int node;

	ASSERT_OK(wsr_parse_node_value("N1=500", 2, &node, &val, &err), "%s", err.msg);
	ASSERT_EQ(node, 1, "N1=500's node");
	ASSERT_STREQ(val, "500", "N1=500's value");
	ASSERT_OK(wsr_parse_node_value("500", 2, &node, &val, &err), "a bare value");
	ASSERT_EQ(node, -1, "a bare value's node");
	ASSERT_ERR(wsr_parse_node_value("N2=500", 2, &node, &val, &err), "node 2 of 2");
	ASSERT_HAS_SUBSTR(err.msg, "does not exist", "node 2 of 2's message");
	ASSERT_ERR(wsr_parse_node_value("Nx=5", 2, &node, &val, &err), "Nx=5");
	ASSERT_ERR(wsr_parse_node_value("N=5", 2, &node, &val, &err), "N=5");
	ASSERT_ERR(wsr_parse_node_value("N1", 2, &node, &val, &err), "N1 without =");
	return NULL;
}

static const char *config_set_is_all_or_nothing(void)
{
	struct wsr_config cfg = { .report_ms = 5, .nr_intervals = 3,
				  .intervals_ms = { 1, 2, 3 } };
	struct wsr_err err;

	ASSERT_ERR(wsr_config_set(&cfg, WSR_KNOB_INTERVALS, "10,5,20", &err), "10,5,20");
	ASSERT_EQ(cfg.nr_intervals, 3, "intervals after a refused value");
	ASSERT_EQ(cfg.intervals_ms[0], 1, "interval 0 after a refused value");
	ASSERT_OK(wsr_config_set(&cfg, WSR_KNOB_REFRESH, "250", &err), "%s", err.msg);
	ASSERT_EQ(cfg.refresh_ms, 250, "refresh_ms");
	ASSERT_EQ(cfg.report_ms, 5, "report_ms after setting refresh_ms");
	return NULL;
}

/* ms * 1000000ULL must not wrap: WSR_MAX_MS is the largest time a knob takes */
static const char *config_ms_knobs_are_bounded(void)
{
	static const enum wsr_knob knobs[] = { WSR_KNOB_REPORT, WSR_KNOB_REFRESH };
	static const char *const names[] = { "report_ms", "refresh_ms" };
	struct wsr_config cfg = { .report_ms = 5, .refresh_ms = 6 }, old;
	char want[128];
	struct wsr_err err;
	__u32 i;

	ASSERT_EQ(WSR_MAX_MS * 1000000ULL / 1000000ULL, WSR_MAX_MS, "WSR_MAX_MS through ns");
	for (i = 0; i < 2; i++) {
		const char *name = names[i];

		ASSERT_OK(wsr_config_set(&cfg, knobs[i], "1000000000000", &err), "%s", err.msg);
		ASSERT_EQ(knobs[i] == WSR_KNOB_REPORT ? cfg.report_ms : cfg.refresh_ms, WSR_MAX_MS,
			  "%s at the bound", name);
		old = cfg;
		err.msg[0] = 0;
		ASSERT_ERR(wsr_config_set(&cfg, knobs[i], "1000000000001", &err),
			   "%s above the bound", name);
		ASSERT_MEMEQ(&cfg, &old, sizeof(cfg), "%s: cfg after a refused value", name);
		snprintf(want, sizeof(want),
			 "%s: 1000000000001 is too large (at most 1000000000000 ms)", name);
		ASSERT_STREQ(err.msg, want, "%s above the bound: the message", name);
		ASSERT_ERR(wsr_config_set(&cfg, knobs[i], "9223372036854775807", &err),
			   "%s: the catch-all value", name);
		ASSERT_MEMEQ(&cfg, &old, sizeof(cfg), "%s: cfg after a refused value", name);
	}
	return NULL;
}

static const char *intervals_are_bounded(void)
{
	struct wsr_config cfg = { .nr_intervals = 3, .intervals_ms = { 1, 2, 3 },
				  .reaccess_nr_intervals = 3,
				  .reaccess_intervals_ms = { 4, 5, 6 } }, old;
	__u64 ms[WSR_MAX_INTERVALS] = { 7 };
	struct wsr_err err;
	__u32 n = 99;

	ASSERT_OK(wsr_parse_intervals("1,2,1000000000000", WSR_MAX_MS, ms, &n, &err), "%s",
		  err.msg);
	ASSERT_EQ(n, 3, "intervals");
	ASSERT_EQ(ms[2], WSR_MAX_MS, "interval 2");
	ASSERT_OK(wsr_parse_intervals("1,2,1000000000000,9223372036854775807", WSR_MAX_MS, ms, &n,
				      &err), "the catch-all after the bound: %s", err.msg);
	ASSERT_EQ(n, 3, "intervals, the catch-all dropped");
	ms[0] = 7;
	n = 99;
	ASSERT_ERR(wsr_parse_intervals("1,2,1000000000001", WSR_MAX_MS, ms, &n, &err),
		   "above the bound");
	ASSERT_EQ(n, 99, "intervals after a refused list");
	ASSERT_EQ(ms[0], 7, "interval 0 after a refused list");
	ASSERT_STREQ(err.msg, "intervals: 1000000000001 is too large (at most 1000000000000 ms)",
		     "above the bound: the message");
	/* just below the catch-all is a time like any other */
	ASSERT_ERR(wsr_parse_intervals("1,2,9223372036854775806", WSR_MAX_MS, ms, &n, &err),
		   "LLONG_MAX - 1");
	ASSERT_ERR(wsr_parse_intervals("1,9223372036854775807,3", WSR_MAX_MS, ms, &n, &err),
		   "the catch-all inside");
	old = cfg;
	ASSERT_ERR(wsr_config_set(&cfg, WSR_KNOB_INTERVALS, "1,2,1000000000001", &err),
		   "intervals_ms above the bound");
	ASSERT_ERR(wsr_config_set(&cfg, WSR_KNOB_REACCESS_INTERVALS, "1,2,1000000000001", &err),
		   "reaccess_intervals_ms above the bound");
	ASSERT_MEMEQ(&cfg, &old, sizeof(cfg), "cfg after refused intervals");
	return NULL;
}

static const char *ms_numbers_take_a_bound(void)
{
	struct wsr_err err;
	__u64 v = 3;

	ASSERT_OK(wsr_parse_ms("10", &v, 10, "x", &err), "%s", err.msg);
	ASSERT_EQ(v, 10, "10 at most 10");
	v = 3;
	ASSERT_ERR(wsr_parse_ms("11", &v, 10, "x", &err), "11 at most 10");
	ASSERT_STREQ(err.msg, "x: 11 is too large (at most 10 ms)", "11 at most 10: the message");
	ASSERT_EQ(v, 3, "the value after 11");
	ASSERT_ERR(wsr_parse_ms("99999999999999999999", &v, 10, "x", &err), "an overflow");
	ASSERT_EQ(v, 3, "the value after an overflow");
	ASSERT_ERR(wsr_parse_ms("-1", &v, 10, "x", &err), "-1");
	ASSERT_EQ(v, 3, "the value after -1");
	ASSERT_ERR(wsr_parse_ms("", &v, 10, "x", &err), "empty");
	ASSERT_EQ(v, 3, "the value after empty");
	return NULL;
}

static const char *node_list_items_and_ranges(void)
{
	static const struct {
		const char *s;
		__u64 mask;
	} ok[] = {
		{ "0", 0x1 }, { "0\n", 0x1 }, { "0-1,3", 0xb }, { "0-1,3\n", 0xb },
		{ "0-3\n", 0xf }, { "2", 0x4 }, { "1-1", 0x2 }, { "0,2-4,7-8", 0x19d },
		{ "3,0", 0x9 }, { "0-15", 0xffff }, { "", 0 }, { "\n", 0 },
	};
	struct wsr_err err;
	__u32 i;
	__u64 m;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		m = 0xdead;
		ASSERT_OK(wsr_parse_node_list(ok[i].s, &m, &err), "'%s': %s", ok[i].s, err.msg);
		ASSERT_EQ(m, ok[i].mask, "the mask of '%s'", ok[i].s);
	}
	return NULL;
}

/* a machine with more nodes than wsr's maps cover is refused, clearly */
static const char *node_list_ids_are_bounded(void)
{
	static const struct {
		const char *s, *msg;
	} bad[] = {
		{ "16", "node 16: wsr supports nodes 0-15" },
		{ "0-16", "node 16: wsr supports nodes 0-15" },
		{ "0-1,17\n", "node 17: wsr supports nodes 0-15" },
		{ "0-63", "node 63: wsr supports nodes 0-15" },
		{ "99999999999999999999", "node 99999999999999999999: wsr supports nodes 0-15" },
		/* 2^32 + 1: an id that wrapped would be node 1 */
		{ "4294967297", "node 4294967297: wsr supports nodes 0-15" },
	};
	struct wsr_err err;
	__u64 m = 0;
	__u32 i;

	ASSERT_OK(wsr_parse_node_list("15", &m, &err), "15: %s", err.msg);
	ASSERT_EQ(m, 1ULL << 15, "the mask of 15");
	ASSERT_OK(wsr_parse_node_list("14-15\n", &m, &err), "14-15: %s", err.msg);
	ASSERT_EQ(m, 3ULL << 14, "the mask of 14-15");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = 0xdead;
		ASSERT_ERR(wsr_parse_node_list(bad[i].s, &m, &err), "'%s'", bad[i].s);
		ASSERT_EQ(m, 0xdead, "the mask after '%s'", bad[i].s);
		ASSERT_STREQ(err.msg, bad[i].msg, "'%s': the message", bad[i].s);
	}
	return NULL;
}

static const char *node_list_rejects_malformed(void)
{
	static const char *const bad[] = {
		"1-", "3-1", "a", "1,,2", " 1", "1-2-3", "1,", ",1", "-1", "1 ", "1\n\n",
		"\n1", "\n\n", "1-\n", "0x1", "+1", "1;2", "1 - 2", "-", ",", "2-1,3",
	};
	struct wsr_err err;
	__u64 m;
	__u32 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = 0xdead;
		err.msg[0] = 0;
		ASSERT_ERR(wsr_parse_node_list(bad[i], &m, &err), "'%s'", bad[i]);
		ASSERT_EQ(m, 0xdead, "the mask after '%s'", bad[i]);
		ASSERT_NEQ(err.msg[0], 0, "the message for '%s'", bad[i]);
	}
	return NULL;
}

/* options in a range: the CLI's and wsr-host's one rule and message */
static const char *ranges_say_their_bounds(void)
{
	struct wsr_err err;
	__u64 v = 7;

	ASSERT_OK(wsr_parse_range("1", &v, 1, 10, "--x", &err), "1 in [1, 10]");
	ASSERT_EQ(v, 1, "1 in [1, 10]");
	ASSERT_OK(wsr_parse_range("10", &v, 1, 10, "--x", &err), "10 in [1, 10]");
	ASSERT_EQ(v, 10, "10 in [1, 10]");
	ASSERT_ERR(wsr_parse_range("0", &v, 1, 10, "--x", &err), "0 in [1, 10]");
	ASSERT_EQ(v, 10, "the value after 0 in [1, 10]");
	ASSERT_STREQ(err.msg, "--x must be 1 to 10", "0 in [1, 10]: the message");
	ASSERT_ERR(wsr_parse_range("11", &v, 1, 10, "--x", &err), "11 in [1, 10]");
	ASSERT_STREQ(err.msg, "--x must be 1 to 10", "11 in [1, 10]: the message");
	ASSERT_ERR(wsr_parse_range("0", &v, 1, WSR_BIN_INF, "--count", &err), "0, no upper bound");
	ASSERT_STREQ(err.msg, "--count must be at least 1", "0, no upper bound: the message");
	ASSERT_ERR(wsr_parse_range("-1", &v, 0, 10, "--x", &err), "-1");
	ASSERT_STREQ(err.msg, "--x: '-1' is not a number", "-1: the message");
	ASSERT_ERR(wsr_parse_range("9223372036854775808", &v, 0, WSR_BIN_INF, "--x", &err), "2^63");
	ASSERT_HAS_SUBSTR(err.msg, "too large", "2^63: the message");
	return NULL;
}

/* the seed's formats, byte for byte */
static const char *printers_match_seed_formats(void)
{
	struct wsr_config cfg = { .nr_intervals = 2, .intervals_ms = { 1000, 2000 },
				  .report_ms = 7 };
	struct wsr_hist h = { .nr_bins = 2, .bound_ms = { 1000, WSR_BIN_INF },
			      .anon = { 618, 1004 }, .file = { 10, 182 } };
	char buf[512] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	wsr_print_knob(f, &cfg, WSR_KNOB_INTERVALS);
	fputc('|', f);
	wsr_print_knob(f, &cfg, WSR_KNOB_REPORT);
	fputc('|', f);
	wsr_print_hist(f, &h);
	fclose(f);
	ASSERT_STREQ(buf, "1000,2000,9223372036854775807|7|"
			  "1000 anon=618 file=10\n9223372036854775807 anon=1004 file=182\n",
		     "knobs and histogram");
	return NULL;
}

/*
 * --bars: each bin's bar is scaled to the fullest bin, anon ('*') before
 * file ('+'); an empty bin has none, the catch-all bin reads "inf".
 */
static const char *bars_scale_to_the_fullest_bin(void)
{
	struct wsr_hist h = { .nr_bins = 3, .bound_ms = { 1000, 2000, WSR_BIN_INF },
			      .anon = { 10, 0, 15 }, .file = { 10, 0, 5 } };
	char buf[1024] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	wsr_print_hist_bars(f, &h, 8);
	fclose(f);
	ASSERT_STREQ(buf,
		     "      idle < ms : anon       file       distribution (* anon, + file)\n"
		     "           1000 : 10         10         |****++++|\n"
		     "           2000 : 0          0          |        |\n"
		     "            inf : 15         5          |******++|\n",
		     "bars");
	return NULL;
}

/* all bins empty: no bar, and no division by zero */
static const char *bars_of_an_empty_histogram(void)
{
	struct wsr_hist h = { .nr_bins = 1, .bound_ms = { WSR_BIN_INF } };
	char buf[256] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	wsr_print_hist_bars(f, &h, 4);
	fclose(f);
	ASSERT_HAS_SUBSTR(buf, "            inf : 0          0          |    |\n", "bars");
	return NULL;
}

static const char *balloon_answer_is_parsed_exactly(void)
{
	unsigned int n = 0;
	int err = 1;

	ASSERT_OK(wsr_parse_answer("answered 1 err 0\n", &n, &err), "answered 1 err 0");
	ASSERT_EQ(n, 1, "answered 1 err 0: answered");
	ASSERT_EQ(err, 0, "answered 1 err 0: err");
	ASSERT_OK(wsr_parse_answer("answered 0 err -114\n", &n, &err), "answered 0 err -114");
	ASSERT_EQ(n, 0, "answered 0 err -114: answered");
	ASSERT_EQ(err, -114, "answered 0 err -114: err");
	/* the largest errno the kernel returns (MAX_ERRNO) */
	ASSERT_OK(wsr_parse_answer("answered 0 err -4095\n", &n, &err), "answered 0 err -4095");
	ASSERT_EQ(err, -4095, "answered 0 err -4095: err");
	return NULL;
}

/* a request is answered only when the program says so: nothing else passes */
static const char *balloon_answer_garbage_is_an_error(void)
{
	static const char *const bad[] = {
		"", "\n", "0\n", "no balloon device reports\n", "answered 1 err 0",
		"answered 1 err 0\nanswered 1 err 0\n", "answered -1 err 0\n",
		"answered  1 err 0\n", "answered 1 err 5\n", "answered 1 err -\n",
		"answered 1 err +0\n", "answered 1 err 0x\n", "answered 99999999999 err 0\n",
		"answered 1 err -99999999999999999999\n", "answered x err 0\n",
		/* past MAX_ERRNO, and a positive err behind a leading 0 */
		"answered 0 err -4096\n", "answered 1 err 05\n",
	};
	unsigned int i, n;
	int err;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_ERR(wsr_parse_answer(bad[i], &n, &err), "\"%s\"", bad[i]);
	return NULL;
}

/* the causes by their QMP names, and "none" for a cause past the known ones */
static const char *causes_have_their_qmp_names(void)
{
	static const char *const names[WSR_NR_CAUSES] = { "none", "request", "reclaim", "read" };
	__u32 i;

	for (i = 0; i < WSR_NR_CAUSES; i++) {
		ASSERT_STREQ(wsr_cause_name(i), names[i], "cause %u's name", i);
		ASSERT_EQ(wsr_cause_by_name(names[i]), (int)i, "the cause named %s", names[i]);
	}
	ASSERT_STREQ(wsr_cause_name(WSR_NR_CAUSES), "none", "the name of a cause past the last");
	ASSERT_EQ(wsr_cause_by_name("oom"), -1, "the cause named oom");
	return NULL;
}

/* a list as long as the parser's buffer is refused whole, not cut */
static const char *intervals_longer_than_the_buffer_are_refused(void)
{
	char s[513];
	struct wsr_err err;
	__u64 ms[WSR_MAX_INTERVALS];
	__u32 nr;

	memset(s, '1', sizeof(s) - 1);
	s[sizeof(s) - 1] = 0;
	ASSERT_ERR(wsr_parse_intervals(s, WSR_MAX_MS, ms, &nr, &err), "a %zu-byte list", strlen(s));
	ASSERT_STREQ(err.msg, "intervals: list too long", "a %zu-byte list: the message", strlen(s));
	return NULL;
}

/* the seed's errno for each refusal: what a write to wsr fs's files returns */
static const char *refusals_give_the_seeds_errno(void)
{
	static const struct {
		enum wsr_knob knob;
		const char *value;
		int err;
	} cases[] = {
		{ WSR_KNOB_INTERVALS, "1000,2000", -ERANGE },		/* too few */
		{ WSR_KNOB_INTERVALS, "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", -ERANGE },
		{ WSR_KNOB_INTERVALS, "1,2,99999999999999999999", -ERANGE },
		{ WSR_KNOB_REACCESS_INTERVALS, "1,2", -ERANGE },
		{ WSR_KNOB_REPORT, "99999999999999999999", -ERANGE },
		{ WSR_KNOB_INTERVALS, "3000,2000,1000", -EINVAL },	/* not increasing */
		{ WSR_KNOB_INTERVALS, "1,x,3", -EINVAL },
		{ WSR_KNOB_REFRESH, "-1", -EINVAL },
		{ WSR_KNOB_REPORT, "", -EINVAL },
	};
	struct wsr_config cfg = {};
	struct wsr_err err;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ASSERT_EQ(wsr_config_set(&cfg, cases[i].knob, cases[i].value, &err), cases[i].err,
			  "'%s'", cases[i].value);
	return NULL;
}

static const struct unit_test tests[] = {
	{ "refusals_give_the_seeds_errno", refusals_give_the_seeds_errno },
	{ "intervals_accept_increasing_list", intervals_accept_increasing_list },
	{ "intervals_accept_printed_catch_all", intervals_accept_printed_catch_all },
	{ "intervals_reject_malformed_lists", intervals_reject_malformed_lists },
	{ "fifteen_intervals_is_the_maximum", fifteen_intervals_is_the_maximum },
	{ "numbers_are_strict_decimal", numbers_are_strict_decimal },
	{ "node_prefix_selects_a_node", node_prefix_selects_a_node },
	{ "config_set_is_all_or_nothing", config_set_is_all_or_nothing },
	{ "config_ms_knobs_are_bounded", config_ms_knobs_are_bounded },
	{ "intervals_are_bounded", intervals_are_bounded },
	{ "ms_numbers_take_a_bound", ms_numbers_take_a_bound },
	{ "node_list_items_and_ranges", node_list_items_and_ranges },
	{ "node_list_ids_are_bounded", node_list_ids_are_bounded },
	{ "node_list_rejects_malformed", node_list_rejects_malformed },
	{ "ranges_say_their_bounds", ranges_say_their_bounds },
	{ "printers_match_seed_formats", printers_match_seed_formats },
	{ "bars_scale_to_the_fullest_bin", bars_scale_to_the_fullest_bin },
	{ "bars_of_an_empty_histogram", bars_of_an_empty_histogram },
	{ "balloon_answer_is_parsed_exactly", balloon_answer_is_parsed_exactly },
	{ "balloon_answer_garbage_is_an_error", balloon_answer_garbage_is_an_error },
	{ "causes_have_their_qmp_names", causes_have_their_qmp_names },
	{ "intervals_longer_than_the_buffer_are_refused",
	  intervals_longer_than_the_buffer_are_refused },
};

UNIT_MAIN(tests)
