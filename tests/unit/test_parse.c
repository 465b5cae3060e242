// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the knob parsers and printers in loader/parse.c. */
#include <string.h>
#include "parse.h"
#include "unit.h"

static const char *intervals_accept_increasing_list(void)
{
	__u64 ms[WSR_MAX_INTERVALS];
	struct wsr_err err;
	__u32 n;

	CHECK(!wsr_parse_intervals("1000,2000,4000", ms, &n, &err), "%s", err.msg);
	CHECK(n == 3 && ms[0] == 1000 && ms[2] == 4000 && ms[3] == 0, "parsed n=%u", n);
	return NULL;
}

/* what "get" prints, with the catch-all bin, can be written back */
static const char *intervals_accept_printed_catch_all(void)
{
	__u64 ms[WSR_MAX_INTERVALS];
	struct wsr_err err;
	__u32 n;

	CHECK(!wsr_parse_intervals("1,2,3,9223372036854775807", ms, &n, &err), "%s", err.msg);
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
		CHECK(wsr_parse_intervals(bad[i], ms, &n, &err), "accepted '%s'", bad[i]);
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

	CHECK(!wsr_parse_intervals("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", ms, &n, &err),
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
	wsr_print_hist_json(f, 1, &h);
	fclose(f);
	CHECK(!strcmp(buf, "1000,2000,9223372036854775807|7|"
			   "1000 anon=618 file=10\n9223372036854775807 anon=1004 file=182\n"
			   "{\"node\":1,\"bins\":[{\"ms\":1000,\"anon\":618,\"file\":10},"
			   "{\"ms\":9223372036854775807,\"anon\":1004,\"file\":182}]}"),
	      "printed '%s'", buf);
	return NULL;
}

static const char *json_strings_are_escaped(void)
{
	char buf[64] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	wsr_print_json_string(f, "a\"b\\c\n");
	fclose(f);
	CHECK(!strcmp(buf, "\"a\\\"b\\\\c\\u000a\""), "printed %s", buf);
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
	{ "printers_match_seed_formats", printers_match_seed_formats },
	{ "json_strings_are_escaped", json_strings_are_escaped },
	{ "balloon_answer_is_parsed_exactly", balloon_answer_is_parsed_exactly },
	{ "balloon_answer_garbage_is_an_error", balloon_answer_garbage_is_an_error },
};

UNIT_MAIN(tests)
