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
	"{\"node\":1,\"bins\":[{\"ms\":1000,\"anon\":618,\"file\":10},"	\
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

	CHECK(out && !strcmp(out, REPORT_TEXT), "printed\n%s", out);
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
		CHECK(out, "nothing printed for path %u", i);
		CHECK(strchr(out, '\n') == out + strlen(out) - 1, "path %u: not one line: %s", i, out);
		CHECK(!strchr(out, '\t') && !strchr(out, '\r') && !strchr(out, '\x01'),
		      "path %u: raw control character in %s", i, out);
		o = json_tokener_parse(out);
		CHECK(o, "path %u: not JSON: %s", i, out);
		CHECK(json_object_object_get_ex(o, "memcg", &v) &&
		      !strcmp(json_object_get_string(v), paths[i]),
		      "path %u read back as '%s'", i, json_object_get_string(v));
		json_object_put(o);
		free(out);
	}
	return NULL;
}

/* 9223372036854775807 as the seed prints it, read back as an int64, not a double */
static const char *catch_all_bound_is_an_exact_integer(void)
{
	struct json_object *o, *bins, *last, *ms;
	char *out = printed(wsr_hist_json(1, &rep.hist));

	CHECK(out && strstr(out, "\"ms\":9223372036854775807,"), "printed %s", out);
	o = json_tokener_parse(out);
	CHECK(o && json_object_object_get_ex(o, "bins", &bins), "not JSON: %s", out);
	last = json_object_array_get_idx(bins, 1);
	CHECK(json_object_object_get_ex(last, "ms", &ms) && json_object_is_type(ms, json_type_int) &&
	      (__u64)json_object_get_int64(ms) == WSR_BIN_INF, "catch-all read back as %s",
	      json_object_to_json_string(ms));
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

	CHECK(out && !strcmp(out, "{\"node\":4,\"bins\":[]}\n"), "printed %s", out);
	free(out);
	CHECK(wsr_json_print(stdout, NULL, "\n") == -1, "NULL printed");
	CHECK(wsr_json_add(NULL, "k", json_object_new_int(1)) == -1, "added to NULL");
	err = wsr_json_add(o, "k", NULL);
	json_object_put(o);
	CHECK(err == -1, "a NULL value (out of memory) added");
	return NULL;
}

/* wsr-host's latencies and times: printf's digits, not json-c's 17 */
static const char *fixed_decimals_print_as_printf(void)
{
	char *out = printed(wsr_json_fixed(12.3456, 3));

	CHECK(out && !strcmp(out, "12.346\n"), "printed %s", out);
	free(out);
	out = printed(wsr_json_fixed(0.1, 3));
	CHECK(out && !strcmp(out, "0.100\n"), "printed %s", out);
	free(out);
	return NULL;
}

static const struct unit_test tests[] = {
	{ "json_report_prints_as_before", report_prints_as_before },
	{ "json_memcg_path_with_quotes_and_controls_round_trips",
	  memcg_path_with_quotes_and_controls_round_trips },
	{ "json_catch_all_bound_is_an_exact_integer", catch_all_bound_is_an_exact_integer },
	{ "json_empty_and_failed_objects", empty_and_failed_objects },
	{ "json_fixed_decimals_print_as_printf", fixed_decimals_print_as_printf },
};

UNIT_MAIN(tests)
