// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the knob parsers and printers in loader/lib/parse.c. */
#include <string.h>
#include "libwsr.h"
#include "unit.h"

static const char *intervals_accept_increasing_list(void)
{
	__u64 ms[WSR_MAX_INTERVALS];
	struct wsr_err err;
	__u32 n;

	CHECK(!wsr_parse_intervals("1000,2000,4000", WSR_MAX_MS, ms, &n, &err), "%s", err.msg);
	CHECK(n == 3 && ms[0] == 1000 && ms[2] == 4000 && ms[3] == 0, "parsed n=%u", n);
	return NULL;
}

/* what "get" prints, with the catch-all bin, can be written back */
static const char *intervals_accept_printed_catch_all(void)
{
	__u64 ms[WSR_MAX_INTERVALS];
	struct wsr_err err;
	__u32 n;

	CHECK(!wsr_parse_intervals("1,2,3,9223372036854775807", WSR_MAX_MS, ms, &n, &err), "%s", err.msg);
	CHECK(n == 3, "n=%u, expected the catch-all dropped", n);
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
		CHECK(wsr_parse_intervals(bad[i], WSR_MAX_MS, ms, &n, &err), "accepted '%s'", bad[i]);
		CHECK(err.msg[0], "no message for '%s'", bad[i]);
		CHECK(n == 99 && ms[0] == 7, "'%s' changed the output", bad[i]);
	}
	return NULL;
}

static const char *fifteen_intervals_is_the_maximum(void)
{
	__u64 ms[WSR_MAX_INTERVALS];
	struct wsr_err err;
	__u32 n;

	CHECK(!wsr_parse_intervals("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", WSR_MAX_MS, ms, &n, &err),
	      "%s", err.msg);
	CHECK(n == 15 && ms[14] == 15, "n=%u", n);
	return NULL;
}

static const char *numbers_are_strict_decimal(void)
{
	struct wsr_err err;
	__u64 v;

	CHECK(!wsr_parse_u64("0", &v, "x", &err) && v == 0, "0");
	CHECK(!wsr_parse_u64("9223372036854775807", &v, "x", &err), "LLONG_MAX");
	CHECK(wsr_parse_u64("9223372036854775808", &v, "x", &err), "LLONG_MAX + 1 accepted");
	CHECK(wsr_parse_u64("0x10", &v, "x", &err), "hex accepted");
	CHECK(wsr_parse_u64("", &v, "x", &err), "empty accepted");
	CHECK(wsr_parse_u64("12 ", &v, "x", &err), "trailing space accepted");
	return NULL;
}

static const char *node_prefix_selects_a_node(void)
{
	struct wsr_err err;
	const char *val;
	int node;

	CHECK(!wsr_parse_node_value("N1=500", 2, &node, &val, &err), "%s", err.msg);
	CHECK(node == 1 && !strcmp(val, "500"), "node %d value '%s'", node, val);
	CHECK(!wsr_parse_node_value("500", 2, &node, &val, &err) && node == -1, "bare value");
	CHECK(wsr_parse_node_value("N2=500", 2, &node, &val, &err), "node 2 of 2 accepted");
	CHECK(strstr(err.msg, "does not exist"), "message '%s'", err.msg);
	CHECK(wsr_parse_node_value("Nx=5", 2, &node, &val, &err), "Nx accepted");
	CHECK(wsr_parse_node_value("N=5", 2, &node, &val, &err), "N= accepted");
	CHECK(wsr_parse_node_value("N1", 2, &node, &val, &err), "N1 without = accepted");
	return NULL;
}

static const char *config_set_is_all_or_nothing(void)
{
	struct wsr_config cfg = { .report_ms = 5, .nr_intervals = 3,
				  .intervals_ms = { 1, 2, 3 } };
	struct wsr_err err;

	CHECK(wsr_config_set(&cfg, WSR_KNOB_INTERVALS, "10,5,20", &err), "accepted");
	CHECK(cfg.nr_intervals == 3 && cfg.intervals_ms[0] == 1, "config changed");
	CHECK(!wsr_config_set(&cfg, WSR_KNOB_REFRESH, "250", &err), "%s", err.msg);
	CHECK(cfg.refresh_ms == 250 && cfg.report_ms == 5, "refresh not set alone");
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

	CHECK(WSR_MAX_MS * 1000000ULL / 1000000ULL == WSR_MAX_MS, "WSR_MAX_MS in ns wraps");
	for (i = 0; i < 2; i++) {
		const char *name = names[i];

		CHECK(!wsr_config_set(&cfg, knobs[i], "1000000000000", &err), "%s", err.msg);
		CHECK((knobs[i] == WSR_KNOB_REPORT ? cfg.report_ms : cfg.refresh_ms) ==
		      WSR_MAX_MS, "%s not set to the bound", name);
		old = cfg;
		err.msg[0] = 0;
		CHECK(wsr_config_set(&cfg, knobs[i], "1000000000001", &err),
		      "%s above the bound accepted", name);
		CHECK(!memcmp(&cfg, &old, sizeof(cfg)), "%s: refused value changed cfg", name);
		snprintf(want, sizeof(want),
			 "%s: 1000000000001 is too large (at most 1000000000000 ms)", name);
		CHECK(!strcmp(err.msg, want), "message '%s'", err.msg);
		CHECK(wsr_config_set(&cfg, knobs[i], "9223372036854775807", &err),
		      "%s: the catch-all value accepted", name);
		CHECK(!memcmp(&cfg, &old, sizeof(cfg)), "%s: refused value changed cfg", name);
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

	CHECK(!wsr_parse_intervals("1,2,1000000000000", WSR_MAX_MS, ms, &n, &err), "%s", err.msg);
	CHECK(n == 3 && ms[2] == WSR_MAX_MS, "n=%u ms[2]=%llu", n, (unsigned long long)ms[2]);
	CHECK(!wsr_parse_intervals("1,2,1000000000000,9223372036854775807", WSR_MAX_MS, ms, &n, &err),
	      "catch-all after the bound: %s", err.msg);
	CHECK(n == 3, "n=%u, expected the catch-all dropped", n);
	ms[0] = 7;
	n = 99;
	CHECK(wsr_parse_intervals("1,2,1000000000001", WSR_MAX_MS, ms, &n, &err), "above the bound accepted");
	CHECK(n == 99 && ms[0] == 7, "refused list changed the output");
	CHECK(!strcmp(err.msg, "intervals: 1000000000001 is too large (at most 1000000000000 ms)"),
	      "message '%s'", err.msg);
	/* just below the catch-all is a time like any other */
	CHECK(wsr_parse_intervals("1,2,9223372036854775806", WSR_MAX_MS, ms, &n, &err), "LLONG_MAX - 1");
	CHECK(wsr_parse_intervals("1,9223372036854775807,3", WSR_MAX_MS, ms, &n, &err), "catch-all inside");
	old = cfg;
	CHECK(wsr_config_set(&cfg, WSR_KNOB_INTERVALS, "1,2,1000000000001", &err), "knob");
	CHECK(wsr_config_set(&cfg, WSR_KNOB_REACCESS_INTERVALS, "1,2,1000000000001", &err),
	      "reaccess knob");
	CHECK(!memcmp(&cfg, &old, sizeof(cfg)), "refused intervals changed cfg");
	return NULL;
}

static const char *ms_numbers_take_a_bound(void)
{
	struct wsr_err err;
	__u64 v = 3;

	CHECK(!wsr_parse_ms("10", &v, 10, "x", &err) && v == 10, "%s", err.msg);
	v = 3;
	CHECK(wsr_parse_ms("11", &v, 10, "x", &err) && v == 3, "11 > 10 accepted");
	CHECK(!strcmp(err.msg, "x: 11 is too large (at most 10 ms)"), "message '%s'", err.msg);
	CHECK(wsr_parse_ms("99999999999999999999", &v, 10, "x", &err) && v == 3, "overflow");
	CHECK(wsr_parse_ms("-1", &v, 10, "x", &err) && v == 3, "-1 accepted");
	CHECK(wsr_parse_ms("", &v, 10, "x", &err) && v == 3, "empty accepted");
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
		CHECK(!wsr_parse_node_list(ok[i].s, &m, &err), "'%s': %s", ok[i].s, err.msg);
		CHECK(m == ok[i].mask, "'%s' gave %#llx, expected %#llx", ok[i].s,
		      (unsigned long long)m, (unsigned long long)ok[i].mask);
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
	};
	struct wsr_err err;
	__u64 m = 0;
	__u32 i;

	CHECK(!wsr_parse_node_list("15", &m, &err) && m == 1ULL << 15, "15: %s", err.msg);
	CHECK(!wsr_parse_node_list("14-15\n", &m, &err) && m == 3ULL << 14, "14-15: %s",
	      err.msg);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = 0xdead;
		CHECK(wsr_parse_node_list(bad[i].s, &m, &err), "accepted '%s'", bad[i].s);
		CHECK(m == 0xdead, "'%s' changed the mask", bad[i].s);
		CHECK(!strcmp(err.msg, bad[i].msg), "'%s': message '%s'", bad[i].s, err.msg);
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
		CHECK(wsr_parse_node_list(bad[i], &m, &err), "accepted '%s'", bad[i]);
		CHECK(m == 0xdead, "'%s' changed the mask", bad[i]);
		CHECK(err.msg[0], "no message for '%s'", bad[i]);
	}
	return NULL;
}

/* options in a range: the CLI's and wsr-host's one rule and message */
static const char *ranges_say_their_bounds(void)
{
	struct wsr_err err;
	__u64 v = 7;

	CHECK(!wsr_parse_range("1", &v, 1, 10, "--x", &err) && v == 1, "1 in [1, 10]: %llu",
	      (unsigned long long)v);
	CHECK(!wsr_parse_range("10", &v, 1, 10, "--x", &err) && v == 10, "10 in [1, 10]");
	CHECK(wsr_parse_range("0", &v, 1, 10, "--x", &err) && v == 10 &&
	      !strcmp(err.msg, "--x must be 1 to 10"), "0: '%s'", err.msg);
	CHECK(wsr_parse_range("11", &v, 1, 10, "--x", &err) &&
	      !strcmp(err.msg, "--x must be 1 to 10"), "11: '%s'", err.msg);
	CHECK(wsr_parse_range("0", &v, 1, WSR_BIN_INF, "--count", &err) &&
	      !strcmp(err.msg, "--count must be at least 1"), "no upper bound: '%s'", err.msg);
	CHECK(wsr_parse_range("-1", &v, 0, 10, "--x", &err) &&
	      !strcmp(err.msg, "--x: '-1' is not a number"), "-1: '%s'", err.msg);
	CHECK(wsr_parse_range("9223372036854775808", &v, 0, WSR_BIN_INF, "--x", &err) &&
	      strstr(err.msg, "too large"), "2^63: '%s'", err.msg);
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
	CHECK(!strcmp(buf, "1000,2000,9223372036854775807|7|"
			   "1000 anon=618 file=10\n9223372036854775807 anon=1004 file=182\n"),
	      "printed '%s'", buf);
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
	CHECK(!strcmp(buf,
		      "      idle < ms : anon       file       distribution (* anon, + file)\n"
		      "           1000 : 10         10         |****++++|\n"
		      "           2000 : 0          0          |        |\n"
		      "            inf : 15         5          |******++|\n"),
	      "printed\n%s", buf);
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
	CHECK(strstr(buf, "            inf : 0          0          |    |\n"), "printed\n%s", buf);
	return NULL;
}

static const char *balloon_answer_is_parsed_exactly(void)
{
	unsigned int n = 0;
	int err = 1;

	CHECK(!wsr_parse_answer("answered 1 err 0\n", &n, &err) && n == 1 && err == 0,
	      "n=%u err=%d", n, err);
	CHECK(!wsr_parse_answer("answered 0 err -114\n", &n, &err) && n == 0 && err == -114,
	      "n=%u err=%d", n, err);
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
	};
	unsigned int i, n;
	int err;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(wsr_parse_answer(bad[i], &n, &err), "accepted \"%s\"", bad[i]);
	return NULL;
}

static const struct unit_test tests[] = {
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
};

UNIT_MAIN(tests)
