// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of wsr-host's report parsing and printing (host/qmp.c's
 * qmp_report_parse, host/report.c's ws_report_print): what balance's policy and "show"
 * read out of a reply to qom-get of guest-working-set or a
 * WORKING_SET_EVENT, and what they refuse.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "libwsr.h"
#include "qmp.h"
#include "unit.h"

/* a node's bins, as QEMU sends them */
#define BIN(ms, a, f) "{\"idle-age-ms\": " #ms ", \"anon-bytes\": " #a ", \"file-bytes\": " #f "}"
#define REPLY(nodes) \
	"{\"return\": {\"cause\": \"request\", \"data-age-ms\": 7, \"reports\": 2, " \
	"\"last-update-ms\": 5, \"nodes\": [" nodes "]}}"
#define NODE(id, bins) "{\"node-id\": " #id ", \"bins\": [" bins "]}"
/* a reply of a QEMU with the 32-byte wire header: @ext its fields */
#define REPLY32(ext, nodes) \
	"{\"return\": {\"cause\": \"reclaim\", " ext "\"data-age-ms\": 7, \"reports\": 2, " \
	"\"last-update-ms\": 5, \"nodes\": [" nodes "]}}"
#define EXT(inc, anon, seq, some, full) \
	"\"incomplete\": " #inc ", \"anon-reclaimable\": " #anon ", \"reclaim-seq\": " #seq \
	", \"mem-some-us\": " #some ", \"mem-full-us\": " #full ", "
#define GOOD_EXT EXT(false, true, 12, 1500000, 250)
#define GOOD_BINS BIN(1000, 4096, 1) ", " BIN(9223372036854775807, 12288, 0)

/* a report as show prints it: parsed by the one reader, printed from the struct */
static void print_report(FILE *f, struct json_object *msg)
{
	struct ws_report r;

	if (!qmp_report_parse(msg, &r, NULL))
		ws_report_print(f, &r);
}

/* @text as a message; NULL when json-c refuses it */
static struct json_object *msg(const char *text)
{
	return json_tokener_parse(text);
}

/* the bytes stay bytes: no page size is assumed in what balance reads */
static const char *reply_is_read_in_bytes(void)
{
	struct json_object *m = msg(REPLY(NODE(0, GOOD_BINS) ", " NODE(1, BIN(1000, 1, 4095) ", "
							   BIN(9223372036854775807, 0, 0))));
	struct ws_report r;

	ASSERT_OK_PTR(m, "the reply parsed");
	ASSERT_OK(qmp_report_parse(m, &r, NULL), "the reply's report");
	ASSERT_EQ(r.cause, WSR_CAUSE_REQUEST, "the report's cause");
	ASSERT_EQ(r.data_age_ms, 7, "the report's data age");
	ASSERT_EQ(r.nr_nodes, 2, "the report's nodes");
	ASSERT_EQ(r.nodes[0].hist.anon[0], 4096, "node 0's bin 0's anon bytes");
	ASSERT_EQ(r.nodes[0].hist.file[0], 1, "node 0's bin 0's file bytes");
	ASSERT_EQ(r.nodes[1].hist.anon[0], 1, "node 1's bin 0's anon bytes");
	ASSERT_EQ(r.nodes[1].hist.file[0], 4095, "node 1's bin 0's file bytes");
	ASSERT_EQ(r.nodes[0].hist.bound_ms[1], 9223372036854775807ULL, "the catch-all's bound");
	ASSERT_EQ(r.nodes[1].id, 1, "node 1's id");
	json_object_put(m);
	return NULL;
}

/* "show" prints the seed's page counts: bytes in WSR_PAGE_SIZE pages */
static const char *show_prints_pages_of_the_guest(void)
{
	struct json_object *m = msg(REPLY(NODE(0, GOOD_BINS)));
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	ASSERT_OK_PTR(m, "the reply parsed");
	ASSERT_OK_PTR(f, "open_memstream");
	print_report(f, m);
	fclose(f);
	ASSERT_EQ(WSR_PAGE_SIZE, 4096, "the page size");
	ASSERT_STREQ(out, "cause=request data_age_ms=7\nN0\n1000 anon=1 file=0\n"
			  "9223372036854775807 anon=3 file=0\n", "the report printed");
	free(out);
	json_object_put(m);
	return NULL;
}

/* a 32-byte-header QEMU's property: its fields read and shown */
static const char *reply_with_header_fields(void)
{
	struct json_object *m = msg(REPLY32(GOOD_EXT, NODE(0, GOOD_BINS)));
	struct ws_report r;
	char *out = NULL;
	size_t len;
	FILE *f;

	ASSERT_OK_PTR(m, "the reply parsed");
	ASSERT_OK(qmp_report_parse(m, &r, NULL), "the reply's report");
	ASSERT_EQ(r.ext.known, 1, "the extended header known");
	ASSERT_EQ(r.ext.incomplete, 0, "incomplete");
	ASSERT_EQ(r.ext.anon_reclaimable, 1, "anon-reclaimable");
	ASSERT_EQ(r.ext.reclaim_seq, 12, "reclaim-seq");
	ASSERT_EQ(r.ext.mem_some_us, 1500000, "mem-some-us");
	ASSERT_EQ(r.ext.mem_full_us, 250, "mem-full-us");
	f = open_memstream(&out, &len);
	ASSERT_OK_PTR(f, "open_memstream");
	print_report(f, m);
	fclose(f);
	ASSERT_STREQ(out, "cause=reclaim data_age_ms=7\n"
			  "incomplete=0 anon_reclaimable=1 reclaim_seq=12 mem_some_us=1500000 "
			  "mem_full_us=250\n"
			  "N0\n1000 anon=1 file=0\n9223372036854775807 anon=3 file=0\n",
		     "the report printed");
	free(out);
	json_object_put(m);
	return NULL;
}

/* an event carries its report in "data"; its cause decides balance's deflation */
static const char *event_of_reclaim_is_read(void)
{
	struct json_object *m = msg("{\"event\": \"WORKING_SET_EVENT\", \"data\": {\"cause\": "
				    "\"reclaim\", \"data-age-ms\": 0, \"nodes\": [" NODE(3, GOOD_BINS)
				    "]}, \"timestamp\": {\"seconds\": 1, \"microseconds\": 0}}");
	struct ws_report r;

	ASSERT_OK_PTR(m, "the event parsed");
	ASSERT_OK(qmp_report_parse(m, &r, NULL), "the event's report");
	ASSERT_EQ(r.cause, WSR_CAUSE_RECLAIM, "the report's cause");
	ASSERT_EQ(r.nr_nodes, 1, "the report's nodes");
	ASSERT_EQ(r.nodes[0].id, 3, "node 0's id");
	ASSERT_EQ(r.nodes[0].hist.nr_bins, 2, "node 0's bins");
	json_object_put(m);
	return NULL;
}

/* each is refused as a whole, and *r is left as it was */
static const char *malformed_reports_are_refused(void)
{
	static const char *const bad[] = {
		/* the property before the first report: no cause, no age */
		"{\"return\": {\"reports\": 0, \"last-update-ms\": 0, \"nodes\": []}}",
		"{\"error\": {\"class\": \"GenericError\", \"desc\": \"no\"}}",
		"{\"QMP\": {}}",
		"[1, 2]",
		"{\"return\": 1}",
		"{\"event\": \"WORKING_SET_EVENT\"}",
		"{\"return\": {\"cause\": 1, \"data-age-ms\": 1, \"nodes\": []}}",
		/* causes that are not the wire's */
		"{\"return\": {\"cause\": \"read\", \"data-age-ms\": 1, \"nodes\": []}}",
		"{\"return\": {\"cause\": \"none\", \"data-age-ms\": 1, \"nodes\": []}}",
		"{\"return\": {\"cause\": \"Reclaim\", \"data-age-ms\": 1, \"nodes\": []}}",
		"{\"return\": {\"cause\": \"request\", \"data-age-ms\": -1, \"nodes\": []}}",
		"{\"return\": {\"cause\": \"request\", \"data-age-ms\": 1.5, \"nodes\": []}}",
		"{\"return\": {\"cause\": \"request\", \"data-age-ms\": \"1\", \"nodes\": []}}",
		"{\"return\": {\"cause\": \"request\", \"data-age-ms\": 1, \"nodes\": {}}}",
		REPLY(NODE(0, BIN(1000, -4096, 0))),
		REPLY(NODE(0, BIN(1000, 4096, 0.5))),
		REPLY(NODE(0, BIN(1000, "4096", 0))),
		REPLY(NODE(0, "{\"idle-age-ms\": 1000, \"anon-bytes\": 1}")),
		REPLY(NODE(-1, GOOD_BINS)),
		REPLY(NODE(16, GOOD_BINS)),
		REPLY("{\"bins\": []}"),
		REPLY("{\"node-id\": 0, \"bins\": {}}"),
		REPLY("1"),
		/* 17 nodes: beyond what struct ws_report holds */
		REPLY(NODE(0, "") "," NODE(1, "") "," NODE(2, "") "," NODE(3, "") "," NODE(4, "") ","
		      NODE(5, "") "," NODE(6, "") "," NODE(7, "") "," NODE(8, "") "," NODE(9, "") ","
		      NODE(10, "") "," NODE(11, "") "," NODE(12, "") "," NODE(13, "") ","
		      NODE(14, "") "," NODE(15, "") "," NODE(15, "")),
		/* the 32-byte header's fields: all or none, each of its type and range */
		REPLY32("\"incomplete\": false, ", NODE(0, GOOD_BINS)),
		REPLY32("\"incomplete\": false, \"anon-reclaimable\": true, \"reclaim-seq\": 1, "
			"\"mem-some-us\": 1, ", NODE(0, GOOD_BINS)),
		REPLY32("\"mem-full-us\": 0, ", NODE(0, GOOD_BINS)),
		REPLY32(EXT(0, true, 1, 1, 1), NODE(0, GOOD_BINS)),
		REPLY32(EXT(false, "true", 1, 1, 1), NODE(0, GOOD_BINS)),
		REPLY32(EXT(false, true, 4294967296, 1, 1), NODE(0, GOOD_BINS)),
		REPLY32(EXT(false, true, -1, 1, 1), NODE(0, GOOD_BINS)),
		REPLY32(EXT(false, true, 1, -1, 1), NODE(0, GOOD_BINS)),
		REPLY32(EXT(false, true, 1, 1, 1.5), NODE(0, GOOD_BINS)),
		REPLY32(EXT(false, true, 1, 1, null), NODE(0, GOOD_BINS)),
	};
	struct ws_report r, before;
	struct json_object *m;
	unsigned int i;

	memset(&before, 0x5a, sizeof(before));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = msg(bad[i]);
		ASSERT_OK_PTR(m, "test %u parsed: %s", i, bad[i]);
		r = before;
		ASSERT_ERR(qmp_report_parse(m, &r, NULL), "%s", bad[i]);
		ASSERT_MEMEQ(&r, &before, sizeof(r), "the report after %s", bad[i]);
		json_object_put(m);
	}
	return NULL;
}

/*
 * A refusal says which part is wrong, for show and watch to tell the
 * user, and leaves *r as it was
 */
static const char *malformed_report_says_why(void)
{
	static const struct { const char *text, *why; } bad[] = {
		{ "{\"QMP\": {}}",
		  "no report: neither a reply's \"return\" object nor an event's \"data\"" },
		{ "{\"return\": {\"cause\": \"read\", \"data-age-ms\": 1, \"nodes\": []}}",
		  "\"cause\" is not \"request\" or \"reclaim\"" },
		{ "{\"return\": {\"cause\": \"request\", \"data-age-ms\": \"1\", \"nodes\": []}}",
		  "\"data-age-ms\" is not a non-negative integer" },
		{ "{\"return\": {\"cause\": \"request\", \"data-age-ms\": 1}}", "no \"nodes\" array" },
		{ REPLY(NODE(0, GOOD_BINS) ", " NODE(1, BIN(1000, "4096", 0))),
		  "node 1, bin 0: \"anon-bytes\" is not a non-negative integer" },
		{ REPLY(NODE(16, GOOD_BINS)), "node 0: \"node-id\" is not an integer of 0 to 15" },
		{ REPLY("{\"node-id\": 0}"), "node 0 has no \"bins\" array" },
		{ REPLY32("\"mem-full-us\": 0, ", NODE(0, GOOD_BINS)),
		  "1 of the 5 fields of the 32-byte header, not all" },
		{ REPLY32(EXT(false, true, 4294967296, 1, 1), NODE(0, GOOD_BINS)),
		  "\"reclaim-seq\" is not an integer of 0 to 4294967295" },
	};
	struct ws_report r, before;
	struct json_object *m;
	struct wsr_err err;
	unsigned int i;

	memset(&before, 0x5a, sizeof(before));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = msg(bad[i].text);
		ASSERT_OK_PTR(m, "test %u parsed: %s", i, bad[i].text);
		r = before;
		err.msg[0] = 0;
		ASSERT_EQ(qmp_report_parse(m, &r, &err), -EINVAL, "%s", bad[i].text);
		ASSERT_STREQ(err.msg, bad[i].why, "why %s is refused", bad[i].text);
		ASSERT_MEMEQ(&r, &before, sizeof(r), "the report after %s", bad[i].text);
		json_object_put(m);
	}
	return NULL;
}

/*
 * QEMU's property before the guest's first report is no report, not a
 * malformed one: show prints nothing and does not fail
 */
static const char *property_before_the_first_report_is_none(void)
{
	struct json_object *m = msg("{\"return\": {\"reports\": 0, \"last-update-ms\": 0, "
				    "\"nodes\": []}}");
	struct ws_report r, before;

	ASSERT_OK_PTR(m, "the reply parsed");
	memset(&before, 0x5a, sizeof(before));
	r = before;
	ASSERT_EQ(qmp_report_parse(m, &r, NULL), -ENOENT, "the property before the first report");
	ASSERT_MEMEQ(&r, &before, sizeof(r), "the report after it");
	json_object_put(m);
	return NULL;
}

/*
 * The host prints a node's bins with the guest's printer: the lines after
 * "N0" are what libwsr prints of the same histogram in pages
 */
static const char *show_prints_bins_as_the_guest_does(void)
{
	static const struct wsr_hist pages = {
		.nr_bins = 3, .bound_ms = { 1000, 60000, WSR_BIN_INF }, .anon = { 1, 0, 25 },
		.file = { 2, 7, 0 },
	};
	struct json_object *m = msg(REPLY(NODE(0, BIN(1000, 4096, 8192) ", "
					       BIN(60000, 0, 28672) ", "
					       BIN(9223372036854775807, 102400, 0))));
	char *host = NULL, *guest = NULL;
	size_t len;
	struct ws_report r;
	FILE *f;

	ASSERT_OK_PTR(m, "the reply parsed");
	ASSERT_OK(qmp_report_parse(m, &r, NULL), "the reply's report");
	f = open_memstream(&host, &len);
	ASSERT_OK_PTR(f, "open_memstream");
	ws_report_print(f, &r);
	fclose(f);
	f = open_memstream(&guest, &len);
	ASSERT_OK_PTR(f, "open_memstream");
	wsr_print_hist(f, &pages);
	fclose(f);
	ASSERT_STRPREFIX(host, "cause=request data_age_ms=7\nN0\n", "the host's header");
	ASSERT_STREQ(host + strlen("cause=request data_age_ms=7\nN0\n"), guest,
		     "the host's bins and the guest's");
	free(host);
	free(guest);
	json_object_put(m);
	return NULL;
}

/* 16 nodes of 16 bins: the most that fits, all read */
static const char *largest_report_fits(void)
{
	char *text = malloc(64 << 10), *p = text;
	struct json_object *m;
	struct ws_report r;
	int n, b;

	ASSERT_OK_PTR(text, "malloc");
	p += sprintf(p, "{\"return\": {\"cause\": \"reclaim\", \"data-age-ms\": 1, \"nodes\": [");
	for (n = 0; n < WSR_MAX_NODES; n++) {
		p += sprintf(p, "%s{\"node-id\": %d, \"bins\": [", n ? ", " : "", n);
		for (b = 0; b < WSR_MAX_BINS; b++)
			p += sprintf(p, "%s" BIN(%d, %d, %d), b ? ", " : "", b + 1, n, b);
		p += sprintf(p, "]}");
	}
	strcpy(p, "]}}");
	m = msg(text);
	free(text);
	ASSERT_OK_PTR(m, "the reply parsed");
	ASSERT_OK(qmp_report_parse(m, &r, NULL), "16 nodes of 16 bins");
	ASSERT_EQ(r.nr_nodes, WSR_MAX_NODES, "the report's nodes");
	ASSERT_EQ(r.nodes[15].hist.nr_bins, WSR_MAX_BINS, "node 15's bins");
	ASSERT_EQ(r.nodes[15].hist.anon[15], 15, "node 15's bin 15's anon bytes");
	ASSERT_EQ(r.nodes[15].hist.file[15], 15, "node 15's bin 15's file bytes");
	ASSERT_EQ(r.nodes[15].hist.bound_ms[15], 16, "node 15's bin 15's bound");
	json_object_put(m);
	return NULL;
}

static const struct unit_test tests[] = {
	{ "host_report_reply_is_read_in_bytes", reply_is_read_in_bytes },
	{ "host_report_show_prints_pages_of_the_guest", show_prints_pages_of_the_guest },
	{ "host_report_event_of_reclaim_is_read", event_of_reclaim_is_read },
	{ "host_report_reply_with_header_fields", reply_with_header_fields },
	{ "host_report_malformed_reports_are_refused", malformed_reports_are_refused },
	{ "host_report_largest_report_fits", largest_report_fits },
	{ "host_report_malformed_report_says_why", malformed_report_says_why },
	{ "host_report_property_before_the_first_report_is_none",
	  property_before_the_first_report_is_none },
	{ "host_report_show_prints_bins_as_the_guest_does", show_prints_bins_as_the_guest_does },
};

UNIT_MAIN(tests)
