// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the loader's JSON (loader/lib/json.c, json-c): what "wsr show
 * --json" and "wsr watch --json" print is valid JSON whatever the memcg
 * path holds, reads back as it was written, keeps the catch-all bound an
 * exact 64-bit integer, and is byte for byte what the guest tests grep.
 */
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "libwsr.h"
#include "unit.h"

static const struct wsr_report rep = {
	.seq = 3, .time_ns = 123456789012ULL, .cause = WSR_CAUSE_RECLAIM,
	.hist = { .nr_bins = 2, .bound_ms = { 1000, WSR_BIN_INF },
		  .anon = { 618, 1004 }, .file = { 10, 182 } },
};

/* what wsr printed by hand before json-c, for a memcg with a plain path */
#define REPORT_TEXT							\
	"{\"memcg\":\"/est-deep/a\",\"seq\":3,\"time_ns\":123456789012,"	\
	"\"cause\":\"reclaim\",\"incomplete\":false,\"histogram\":"	\
	"{\"node\":1,\"anon_reclaimable\":true,\"bins\":[{\"ms\":1000,\"anon\":618,\"file\":10},"	\
	"{\"ms\":9223372036854775807,\"anon\":1004,\"file\":182}]}}\n"

/* what wsr_json_print() wrote for @obj */
static char *printed(struct json_object *obj)
{
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	if (wsr_json_print(f, obj, "\n")) {
		fclose(f);
		free(out);
		return NULL;
	}
	fclose(f);
	return out;
}

/* the guest tests grep '"node":0,', '"anon":N' and '"incomplete":true' */
static const char *report_prints_as_before(void)
{
	char *out = printed(wsr_report_json("/est-deep/a", 1, &rep));

	ASSERT_STREQ(out, REPORT_TEXT, "the report");
	free(out);
	return NULL;
}

/* a histogram of memory none of which can swap says so: its anon bins are empty */
static const char *histogram_without_swap_says_anon_is_not_reclaimable(void)
{
	struct wsr_report r = rep;
	char *out;

	r.hist.flags = WSR_HIST_NOSWAP;
	out = printed(wsr_report_json("/noswap", 0, &r));
	ASSERT_HAS_SUBSTR(out, "\"node\":0,\"anon_reclaimable\":false,\"bins\"", "the report");
	free(out);
	/* one memcg that can swap is enough for its anon to count */
	r.hist.flags = WSR_HIST_NOSWAP | WSR_HIST_SWAP;
	out = printed(wsr_report_json("/mixed", 0, &r));
	ASSERT_HAS_SUBSTR(out, "\"anon_reclaimable\":true", "the report");
	free(out);
	return NULL;
}

/*
 * A memcg path may hold any byte but NUL: quotes, backslashes, control
 * characters, bytes of UTF-8.  The line stays one line of valid JSON and
 * reads back as the path.
 */
static const char *memcg_path_with_quotes_and_controls_round_trips(void)
{
	static const char *const paths[] = {
		"/job \"1\"",
		"/a\\b/\\\"/c",
		"/tab\there/new\nline/cr\r/\x01\x1f\x7f",
		"/caf\xc3\xa9/\xe2\x80\xa8",
	};
	struct json_object *o, *v;
	unsigned int i;
	char *out;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		out = printed(wsr_report_json(paths[i], 0, &rep));
		ASSERT_OK_PTR(out, "path %u printed", i);
		ASSERT_EQ(strchr(out, '\n') - out, (long)strlen(out) - 1,
			  "path %u: the first newline in %s", i, out);
		ASSERT_NO_SUBSTR(out, "\t", "path %u printed", i);
		ASSERT_NO_SUBSTR(out, "\r", "path %u printed", i);
		ASSERT_NO_SUBSTR(out, "\x01", "path %u printed", i);
		o = json_tokener_parse(out);
		ASSERT_OK_PTR(o, "path %u printed, parsed: %s", i, out);
		ASSERT_TRUE(json_object_object_get_ex(o, "memcg", &v), "path %u: its memcg", i);
		ASSERT_STREQ(json_object_get_string(v), paths[i], "path %u read back", i);
		json_object_put(o);
		free(out);
	}
	return NULL;
}

/*
 * A memcg's name is any bytes: invalid UTF-8 (a stray continuation byte,
 * a lead byte cut short, an overlong form, a surrogate, past U+10FFFF)
 * prints as U+FFFD, one per byte, and a parser that checks UTF-8 takes it
 */
static const char *memcg_path_with_invalid_utf8_prints_valid_json(void)
{
	static const char *const paths[][2] = {
		{ "/a\xff" "b", "/a\xef\xbf\xbd" "b" },
		{ "/\xc3(x", "/\xef\xbf\xbd(x" },
		{ "/\xc0\x80", "/\xef\xbf\xbd\xef\xbf\xbd" },
		{ "/\xed\xa0\x80", "/\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "/\xf4\x90\x80\x80", "/\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "/ok\xe2\x82\xac\xf0\x9f\x98\x80", "/ok\xe2\x82\xac\xf0\x9f\x98\x80" },
		{ "/end\xe2\x82", "/end\xef\xbf\xbd\xef\xbf\xbd" },
	};
	struct json_tokener *tok;
	struct json_object *o, *v;
	unsigned int i;
	char *out;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		out = printed(wsr_report_json(paths[i][0], 0, &rep));
		ASSERT_OK_PTR(out, "path %u printed", i);
		tok = json_tokener_new();
		ASSERT_OK_PTR(tok, "a tokener");
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
		o = json_tokener_parse_ex(tok, out, (int)strlen(out) - 1);
		ASSERT_OK_PTR(o, "path %u printed, parsed as UTF-8 (%s): %s", i,
			      json_tokener_error_desc(json_tokener_get_error(tok)), out);
		ASSERT_TRUE(json_object_object_get_ex(o, "memcg", &v), "path %u: its memcg", i);
		ASSERT_STREQ(json_object_get_string(v), paths[i][1], "path %u read back", i);
		json_object_put(o);
		json_tokener_free(tok);
		free(out);
	}
	return NULL;
}

/* 9223372036854775807 as the seed prints it, read back as an int64, not a double */
static const char *catch_all_bound_is_an_exact_integer(void)
{
	struct json_object *o, *bins, *last, *ms;
	char *out = printed(wsr_hist_json(1, &rep.hist));

	ASSERT_HAS_SUBSTR(out, "\"ms\":9223372036854775807,", "the histogram");
	o = json_tokener_parse(out);
	ASSERT_OK_PTR(o, "the histogram parsed: %s", out);
	ASSERT_TRUE(json_object_object_get_ex(o, "bins", &bins), "the histogram's bins");
	last = json_object_array_get_idx(bins, 1);
	ASSERT_TRUE(json_object_object_get_ex(last, "ms", &ms), "the catch-all's ms");
	ASSERT_TRUE(json_object_is_type(ms, json_type_int), "the catch-all's ms as an integer");
	ASSERT_EQ(json_object_get_int64(ms), WSR_BIN_INF, "the catch-all's ms read back");
	json_object_put(o);
	free(out);
	return NULL;
}

/* a histogram of no bins is an empty list; NULL is out of memory, not printed */
static const char *empty_and_failed_objects(void)
{
	struct wsr_hist h = {};
	char *out = printed(wsr_hist_json(4, &h));
	struct json_object *o = json_object_new_object();
	int err;

	ASSERT_STREQ(out, "{\"node\":4,\"anon_reclaimable\":true,\"bins\":[]}\n",
		     "a histogram of no bins");
	free(out);
	ASSERT_EQ(wsr_json_print(stdout, NULL, "\n"), -1, "printing NULL");
	ASSERT_EQ(wsr_json_add(NULL, "k", json_object_new_int(1)), -1, "adding to NULL");
	err = wsr_json_add(o, "k", NULL);
	json_object_put(o);
	ASSERT_EQ(err, -1, "adding a NULL value (out of memory)");
	return NULL;
}

/* wsr-host's latencies and times: printf's digits, not json-c's 17 */
static const char *fixed_decimals_print_as_printf(void)
{
	char *out = printed(wsr_json_fixed(12.3456, 3));

	ASSERT_STREQ(out, "12.346\n", "12.3456 with 3 decimals");
	free(out);
	out = printed(wsr_json_fixed(0.1, 3));
	ASSERT_STREQ(out, "0.100\n", "0.1 with 3 decimals");
	free(out);
	return NULL;
}

static const struct unit_test tests[] = {
	{ "json_report_prints_as_before", report_prints_as_before },
	{ "json_histogram_without_swap_says_anon_is_not_reclaimable",
	  histogram_without_swap_says_anon_is_not_reclaimable },
	{ "json_memcg_path_with_invalid_utf8_prints_valid_json",
	  memcg_path_with_invalid_utf8_prints_valid_json },
	{ "json_memcg_path_with_quotes_and_controls_round_trips",
	  memcg_path_with_quotes_and_controls_round_trips },
	{ "json_catch_all_bound_is_an_exact_integer", catch_all_bound_is_an_exact_integer },
	{ "json_empty_and_failed_objects", empty_and_failed_objects },
	{ "json_fixed_decimals_print_as_printf", fixed_decimals_print_as_printf },
};

UNIT_MAIN(tests)
