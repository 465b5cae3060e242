// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of wsr-host's QMP messages (host/qmp.c): messages of any
 * length and in any pieces, told apart by their top-level key, commands
 * escaped, reports printed as wsr-host always printed them.
 */
#include <stdlib.h>
#include <string.h>
#include "qmp.h"
#include "unit.h"

/* as QEMU sends them: ", " and ": " between items, "\r\n" after each */
#define BINS(a, f)							\
	"[{\"idle-age-ms\": 1000, \"anon-bytes\": " #a ", \"file-bytes\": " #f "}, " \
	"{\"file-bytes\": 8191, \"idle-age-ms\": 9223372036854775807, \"anon-bytes\": 4096}]"
#define EVENT								\
	"{\"timestamp\": {\"seconds\": 1700000000, \"microseconds\": 1}, "	\
	"\"event\": \"WORKING_SET_EVENT\", \"data\": {\"cause\": \"reclaim\", " \
	"\"data-age-ms\": 10, \"nodes\": [{\"node-id\": 0, \"bins\": " BINS(12288, 20479) \
	"}, {\"bins\": " BINS(40960, 0) ", \"node-id\": 3}]}}\r\n"
/* what wsr-host printed for EVENT before json-c (the seed's format) */
#define EVENT_TEXT							\
	"cause=reclaim data_age_ms=10\n"				\
	"N0\n"								\
	"1000 anon=3 file=4\n"						\
	"9223372036854775807 anon=1 file=1\n"				\
	"N3\n"								\
	"1000 anon=10 file=0\n"						\
	"9223372036854775807 anon=1 file=1\n"

/* what "watch --json" puts before the rest of EVENT: an older QEMU's */
#define JSON_KEYS "{\"cause\": \"reclaim\", \"data_age_ms\": 10, \"incomplete\": null, "	\
	"\"anon_reclaimable\": null, \"reclaim_seq\": null, \"mem_some_us\": null, "	\
	"\"mem_full_us\": null, "

/*
 * An event of a QEMU with the 32-byte wire header, as qemu-patches/ make
 * it: the header's fields in the QAPI's order.  The largest values each
 * can take; anon unreclaimable, so no anon bytes.
 */
#define EVENT32								\
	"{\"timestamp\": {\"seconds\": 1700000000, \"microseconds\": 2}, "	\
	"\"event\": \"WORKING_SET_EVENT\", \"data\": {\"cause\": \"request\", " \
	"\"incomplete\": true, \"anon-reclaimable\": false, "		\
	"\"reclaim-seq\": 4294967295, \"data-age-ms\": 20, "		\
	"\"mem-some-us\": 18446744073709551615, \"mem-full-us\": 2500000, " \
	"\"nodes\": [{\"node-id\": 0, \"bins\": " BINS(0, 8192) "}]}}\r\n"
#define EVENT32_TEXT							\
	"cause=request data_age_ms=20\n"					\
	"incomplete=1 anon_reclaimable=0 reclaim_seq=4294967295 "		\
	"mem_some_us=18446744073709551615 mem_full_us=2500000\n"		\
	"N0\n"								\
	"1000 anon=0 file=2\n"						\
	"9223372036854775807 anon=1 file=1\n"
#define JSON_KEYS32 "{\"cause\": \"request\", \"data_age_ms\": 20, \"incomplete\": true, " \
	"\"anon_reclaimable\": false, \"reclaim_seq\": 4294967295, "		\
	"\"mem_some_us\": 18446744073709551615, \"mem_full_us\": 2500000, "

static struct qmp_stream s;

/*
 * Feed @text in pieces of @piece bytes: the number of messages in it (0 on
 * error), the first one's length in *first.
 */
static int feed_count(const char *text, size_t piece, size_t *first)
{
	const struct qmp_msg *m;
	size_t off = 0, n;
	int msgs = 0, r;

	qmp_stream_free(&s);
	if (qmp_stream_init(&s))
		return 0;
	while (off < strlen(text)) {
		n = strlen(text) - off < piece ? strlen(text) - off : piece;
		if (qmp_stream_feed(&s, text + off, n))
			return 0;
		off += n;
		while ((r = qmp_stream_next(&s, &m)) > 0)
			if (!msgs++)
				*first = m->len;
		if (r < 0)
			return 0;
	}
	return msgs;
}

/* the next message of @text fed whole; NULL on error */
static const struct qmp_msg *one(const char *text)
{
	const struct qmp_msg *m;

	qmp_stream_free(&s);
	if (qmp_stream_init(&s) || qmp_stream_feed(&s, text, strlen(text)) ||
	    qmp_stream_next(&s, &m) != 1)
		return NULL;
	return m;
}

/* what @print wrote for @msg */
/* a report as show prints it: parsed by the one reader, printed from the struct */
static void print_report(FILE *f, struct json_object *msg)
{
	struct ws_report r;

	if (!qmp_report_parse(msg, &r, NULL))
		ws_report_print(f, &r);
}

static char *printed(void (*print)(FILE *, struct json_object *), struct json_object *msg)
{
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	print(f, msg);
	fclose(f);
	return out;
}

/* a reply of over 64 KiB (once cut in two by fgets) is one message */
static const char *reply_over_64k_is_one_message(void)
{
	static const char last[] = "{\"return\": {}}\r\n";
	size_t big = 200 << 10, i, first = 0;
	char *text = malloc(big + 64), *p = text;
	struct json_object *v;
	const struct qmp_msg *m;
	int n;

	ASSERT_OK_PTR(text, "malloc");
	p += sprintf(p, "{\"return\": {\"s\": \"");
	for (i = 0; i < big; i++)
		*p++ = 'a' + i % 26;
	strcpy(p, "\"}}\r\n");
	strcat(p, last);
	/* in QEMU's pieces, byte by byte, in one read */
	n = feed_count(text, 4096, &first);
	ASSERT_EQ(n, 2, "messages in 4 KiB reads");
	ASSERT_EQ(first, strlen(text) - strlen(last), "the first message's bytes in 4 KiB reads");
	n = feed_count(text, 1, &first);
	ASSERT_EQ(n, 2, "messages byte by byte");
	ASSERT_EQ(first, strlen(text) - strlen(last), "the first message's bytes byte by byte");
	m = one(text);
	ASSERT_OK_PTR(m, "the message in one read");
	ASSERT_EQ(qmp_kind(m->obj), QMP_RETURN, "the message's kind");
	ASSERT_EQ(m->len, strlen(text) - strlen(last), "the message's raw bytes");
	ASSERT_MEMEQ(m->raw, text, m->len, "the message's raw text, against the text sent");
	ASSERT_TRUE(json_object_object_get_ex(json_object_object_get(m->obj, "return"), "s", &v),
		    "the reply's string");
	ASSERT_EQ(json_object_get_string_len(v), big, "the reply's string length");
	free(text);
	qmp_stream_free(&s);
	return NULL;
}

/* the word "event", even as a key below the top, does not make an event */
static const char *reply_with_event_in_a_string_is_a_reply(void)
{
	static const char *const replies[] = {
		"{\"return\": {\"name\": \"event\"}}\r\n",
		"{\"return\": [\"\\\"event\\\"\", {\"event\": \"WORKING_SET_EVENT\"}]}\r\n",
		"{\"error\": {\"class\": \"GenericError\", \"desc\": \"no \\\"event\\\"\"}}\r\n",
	};
	const struct qmp_msg *m;
	unsigned int i;

	for (i = 0; i < sizeof(replies) / sizeof(replies[0]); i++) {
		m = one(replies[i]);
		ASSERT_OK_PTR(m, "%s parsed", replies[i]);
		ASSERT_EQ(qmp_kind(m->obj), i == 2 ? QMP_ERROR : QMP_RETURN, "the kind of %s",
			  replies[i]);
		ASSERT_STREQ(qmp_event_name(m->obj), "", "the event name of %s", replies[i]);
	}
	ASSERT_STREQ(qmp_error_desc(m->obj), "no \"event\"", "the error's desc");
	qmp_stream_free(&s);
	return NULL;
}

static const char *event_and_greeting_are_recognised(void)
{
	const struct qmp_msg *m = one(EVENT);

	ASSERT_OK_PTR(m, "WORKING_SET_EVENT parsed");
	ASSERT_EQ(qmp_kind(m->obj), QMP_EVENT, "WORKING_SET_EVENT's kind");
	ASSERT_STREQ(qmp_event_name(m->obj), "WORKING_SET_EVENT", "the event's name");
	ASSERT_EQ(m->len, strlen(EVENT), "the event's raw bytes");
	ASSERT_MEMEQ(m->raw, EVENT, m->len, "the event's raw text, against the line sent");
	m = one("{\"QMP\": {\"version\": {}, \"capabilities\": [\"oob\"]}}\r\n");
	ASSERT_OK_PTR(m, "the greeting parsed");
	ASSERT_EQ(qmp_kind(m->obj), QMP_GREETING, "the greeting's kind");
	/* a message is whole with its line's end, which may come later */
	m = one("{\"event\": \"STOP\"}\r");
	ASSERT_NULL(m, "STOP before its line's end");
	ASSERT_OK(qmp_stream_feed(&s, "\n", 1), "feeding STOP's line end");
	ASSERT_EQ(qmp_stream_next(&s, &m), 1, "STOP once its line ended");
	ASSERT_EQ(qmp_kind(m->obj), QMP_EVENT, "STOP's kind");
	ASSERT_EQ(m->len, 19, "STOP's raw bytes");
	/* what is not JSON is an error, not a message */
	m = one("{\"return\": {}} nonsense\r\n");
	ASSERT_OK_PTR(m, "the reply before the nonsense");
	ASSERT_EQ(qmp_kind(m->obj), QMP_RETURN, "the kind of the reply before the nonsense");
	ASSERT_LT(qmp_stream_next(&s, &m), 0, "the nonsense");
	qmp_stream_free(&s);
	return NULL;
}

/*
 * A stream holds at most its bound of bytes not returned yet: a message
 * that never ends is refused (-2) once past it, with what came before it
 * returned; a message as long as the bound, ended, is one message; the
 * bytes of messages returned are not counted.
 */
static const char *endless_message_is_cut_off_at_the_bound(void)
{
	static const char ok[] = "{\"return\": {}}\r\n";
	const struct qmp_msg *m;
	char chunk[1000];
	size_t fed = 0;
	int r = 0, i;

	qmp_stream_free(&s);
	ASSERT_OK(qmp_stream_init(&s), "init");
	s.max = 4096;
	/* many whole messages, more than the bound in all, each taken */
	for (i = 0; i < 1000; i++) {
		ASSERT_OK(qmp_stream_feed(&s, ok, sizeof(ok) - 1), "message %d fed", i);
		ASSERT_EQ(qmp_stream_next(&s, &m), 1, "message %d returned", i);
	}
	/* one of exactly 4096 bytes, line end included */
	memset(chunk, ' ', sizeof(chunk));
	ASSERT_OK(qmp_stream_feed(&s, "{\"s\": \"", 7), "the long message's start");
	for (fed = 7; fed < 4096 - 4 && !r; fed += r ? 0 : 1)
		r = qmp_stream_feed(&s, "x", 1);
	ASSERT_OK(r, "the long message's bytes");
	ASSERT_OK(qmp_stream_feed(&s, "\"}\r\n", 4), "the long message's end");
	ASSERT_EQ(qmp_stream_next(&s, &m), 1, "the long message returned");
	ASSERT_EQ(m->len, 4096, "the long message's length");
	/* an endless one: refused once past the bound */
	ASSERT_OK(qmp_stream_feed(&s, "{\"return\": \"", 12), "the endless message's start");
	for (fed = 12, r = 0; !r && fed < (1 << 20); fed += sizeof(chunk)) {
		r = qmp_stream_feed(&s, chunk, sizeof(chunk));
		if (!r)
			ASSERT_EQ(qmp_stream_next(&s, &m), 0, "the endless message, before its end");
	}
	ASSERT_EQ(r, -2, "the endless message, fed to %zu bytes (bound 4096)", fed);
	ASSERT_LE(fed, 4096 + sizeof(chunk), "the bytes fed before the refusal");
	qmp_stream_free(&s);
	return NULL;
}

/* --device and any string wsr-host writes come back as they were */
static const char *strings_in_commands_are_escaped(void)
{
	static const char *const paths[] = {
		"/machine/peripheral/balloon0",
		"/machine/a\"b\\c\nd\te\x01\x1f/",
		"/sys/fs/cgroup/job \"1\"/\\x/\r\x7f",
	};
	struct json_object *cmd, *args, *v;
	unsigned int i;
	char *text;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		text = qmp_cmd_qom_get(paths[i], "guest-working-set");
		ASSERT_OK_PTR(text, "command %u", i);
		ASSERT_NO_SUBSTR(text, "\n", "command %u", i);
		ASSERT_NO_SUBSTR(text, "\x01", "command %u", i);
		cmd = json_tokener_parse(text);
		ASSERT_OK_PTR(cmd, "%s parsed", text);
		ASSERT_TRUE(json_object_object_get_ex(cmd, "arguments", &args),
			    "the arguments of %s", text);
		ASSERT_TRUE(json_object_object_get_ex(args, "path", &v), "the path of %s", text);
		ASSERT_STREQ(json_object_get_string(v), paths[i], "the path of %s", text);
		ASSERT_STREQ(json_object_get_string(json_object_object_get(cmd, "execute")),
			     "qom-get", "the execute of %s", text);
		json_object_put(cmd);
		free(text);
	}
	text = qmp_cmd_qom_get(paths[0], "guest-working-set");
	ASSERT_STREQ(text, "{\"execute\":\"qom-get\",\"arguments\":{\"path\":"
		     "\"/machine/peripheral/balloon0\",\"property\":\"guest-working-set\"}}",
		     "the command wsr-host always sent");
	free(text);
	return NULL;
}

/* a WORKING_SET_EVENT, as wsr-host printed it before json-c */
static const char *report_prints_the_same_lines(void)
{
	const struct qmp_msg *m = one(EVENT);
	char *out;

	ASSERT_OK_PTR(m, "the event parsed");
	out = printed(print_report, m->obj);
	ASSERT_STREQ(out, EVENT_TEXT, "the event printed");
	free(out);
	/* a reply to qom-get before the first report: no header, no nodes */
	m = one("{\"return\": {\"last-update-ms\": 0, \"reports\": 0, \"nodes\": []}}\r\n");
	ASSERT_OK_PTR(m, "the reply without a report parsed");
	out = printed(print_report, m->obj);
	ASSERT_STREQ(out, "", "the reply without a report printed");
	free(out);
	qmp_stream_free(&s);
	return NULL;
}

/* --json as wsr-host prints it, the header from the parsed report */
static void print_json_of(FILE *f, struct json_object *msg, const char *raw)
{
	struct qmp_msg m = { .obj = msg, .raw = raw, .len = strlen(raw) };
	struct ws_report r;

	qmp_print_json(f, &m, qmp_report_parse(msg, &r, NULL) ? NULL : &r);
}

static void print_json(FILE *f, struct json_object *msg)
{
	print_json_of(f, msg, EVENT);
}

static void print_json32(FILE *f, struct json_object *msg)
{
	print_json_of(f, msg, EVENT32);
}

/*
 * The 32-byte header's fields: read, printed by "show" on a line of
 * their own after the first (which stays as it was) and by --json
 * after the data age; an older QEMU's event has none (EVENT above:
 * known 0, no line, nulls)
 */
static const char *header_fields_read_and_printed(void)
{
	const struct qmp_msg *m = one(EVENT32);
	struct ws_report r;
	char *out;

	ASSERT_OK_PTR(m, "the event parsed");
	ASSERT_OK(qmp_report_parse(m->obj, &r, NULL), "the event's report");
	ASSERT_EQ(r.cause, WSR_CAUSE_REQUEST, "the report's cause");
	ASSERT_EQ(r.data_age_ms, 20, "the report's data age");
	ASSERT_EQ(r.ext.known, 1, "the extended header known");
	ASSERT_EQ(r.ext.incomplete, 1, "incomplete");
	ASSERT_EQ(r.ext.anon_reclaimable, 0, "anon-reclaimable");
	ASSERT_EQ(r.ext.reclaim_seq, 4294967295U, "reclaim-seq");
	ASSERT_EQ(r.ext.mem_some_us, 18446744073709551615ULL, "mem-some-us");
	ASSERT_EQ(r.ext.mem_full_us, 2500000, "mem-full-us");
	ASSERT_EQ(r.nr_nodes, 1, "the report's nodes");
	out = printed(print_report, m->obj);
	ASSERT_STREQ(out, EVENT32_TEXT, "the event printed");
	free(out);
	out = printed(print_json32, m->obj);
	ASSERT_STRPREFIX(out, JSON_KEYS32, "the event printed with --json");
	ASSERT_STREQ(out + strlen(JSON_KEYS32), EVENT32 + 1, "QEMU's text after wsr's keys");
	free(out);

	m = one(EVENT);
	ASSERT_OK_PTR(m, "the older event parsed");
	memset(&r, 0x5a, sizeof(r));
	ASSERT_OK(qmp_report_parse(m->obj, &r, NULL), "the older event's report");
	ASSERT_EQ(r.ext.known, 0, "no extended header from an older QEMU");
	ASSERT_EQ(r.ext.reclaim_seq, 0, "its reclaim-seq zeroed");
	out = printed(print_report, m->obj);
	ASSERT_STREQ(out, EVENT_TEXT, "the older event printed");
	free(out);
	qmp_stream_free(&s);
	return NULL;
}

/* the catch-all bound is an int64 in json-c, never a double */
static const char *catch_all_bound_stays_exact(void)
{
	const struct qmp_msg *m = one(EVENT);
	struct ws_report r;
	char *out;

	ASSERT_OK_PTR(m, "the event parsed");
	out = printed(print_report, m->obj);
	ASSERT_HAS_SUBSTR(out, "\n9223372036854775807 anon=1 file=1\n", "the event printed");
	free(out);
	ASSERT_OK(qmp_report_parse(m->obj, &r, NULL), "the event's report");
	ASSERT_EQ(r.cause, WSR_CAUSE_RECLAIM, "the event's cause");
	ASSERT_EQ(r.data_age_ms, 10, "the event's data age");
	ASSERT_EQ(r.nodes[1].hist.bound_ms[1], 9223372036854775807ULL, "the catch-all's bound");
	/* --json: QEMU's text after wsr's two keys, as it came */
	out = printed(print_json, m->obj);
	ASSERT_STRPREFIX(out, JSON_KEYS, "the event printed with --json");
	ASSERT_STREQ(out + strlen(JSON_KEYS), EVENT + 1, "QEMU's text after wsr's keys");
	free(out);
	qmp_stream_free(&s);
	return NULL;
}

/* balance reads reports, stats and balloon replies with these */
static const char *balance_reads_report_and_stats(void)
{
	struct ws_report r;
	struct ws_stats st;
	__u64 upd = 0, v = 0;

	ASSERT_OK(qmp_report_parse(one(EVENT)->obj, &r, NULL), "the event's report");
	ASSERT_EQ(r.cause, WSR_CAUSE_RECLAIM, "the report's cause");
	ASSERT_EQ(r.data_age_ms, 10, "the report's data age");
	ASSERT_EQ(r.nr_nodes, 2, "the report's nodes");
	ASSERT_EQ(r.nodes[1].id, 3, "node 1's id");
	ASSERT_EQ(r.nodes[1].hist.nr_bins, 2, "node 1's bins");
	ASSERT_EQ(r.nodes[1].hist.anon[0], 40960, "node 1's bin 0's anon bytes");
	ASSERT_EQ(r.nodes[0].hist.file[0], 20479, "node 0's bin 0's file bytes");
	ASSERT_EQ(r.nodes[0].hist.bound_ms[1], 9223372036854775807ULL, "node 0's bin 1's bound");
	ASSERT_ERR(qmp_report_parse(one("{\"return\": {\"cause\": \"request\", "
					"\"nodes\": []}}\r\n")->obj, &r, NULL),
		   "a report without data-age-ms");
	/* beyond what struct ws_report holds: refused, not written past its end */
	{
		char big[4096] = "{\"return\": {\"cause\": \"request\", \"data-age-ms\": 1, "
				 "\"nodes\": [{\"node-id\": 0, \"bins\": [";
		int i;

		for (i = 0; i < WSR_MAX_BINS + 1; i++)
			strcat(big, i ? ", {\"idle-age-ms\": 1, \"anon-bytes\": 0, \"file-bytes\": 0}"
				      : "{\"idle-age-ms\": 1, \"anon-bytes\": 0, \"file-bytes\": 0}");
		strcat(big, "]}]}}\r\n");
		ASSERT_ERR(qmp_report_parse(one(big)->obj, &r, NULL), "a node of %d bins",
			   WSR_MAX_BINS + 1);
	}
	ASSERT_ERR(qmp_report_parse(one("{\"return\": {\"cause\": \"request\", \"data-age-ms\": 1, "
					"\"nodes\": [{\"node-id\": 16, \"bins\": []}]}}\r\n")->obj,
				    &r, NULL), "node id 16");
	ASSERT_OK(qmp_stats_parse(one("{\"return\": {\"stats\": {\"stat-free-memory\": 4096, "
				      "\"stat-available-memory\": -1}, "
				      "\"last-update\": 17}}\r\n")->obj, &st, &upd), "the stats");
	ASSERT_EQ(st.free, 4096, "stat-free-memory");
	ASSERT_EQ(st.available, -1, "stat-available-memory");
	ASSERT_EQ(upd, 17, "last-update");
	ASSERT_OK(qmp_return_u64(one("{\"return\": {\"actual\": 536870912}}\r\n")->obj, "actual",
				 &v), "actual");
	ASSERT_EQ(v, 536870912, "actual");
	return NULL;
}

static const struct unit_test tests[] = {
	{ "host_qmp_reply_over_64k_is_one_message", reply_over_64k_is_one_message },
	{ "host_qmp_header_fields_read_and_printed", header_fields_read_and_printed },
	{ "host_qmp_reply_with_event_in_a_string_is_a_reply", reply_with_event_in_a_string_is_a_reply },
	{ "host_qmp_event_and_greeting_are_recognised", event_and_greeting_are_recognised },
	{ "host_qmp_endless_message_is_cut_off_at_the_bound",
	  endless_message_is_cut_off_at_the_bound },
	{ "host_qmp_strings_in_commands_are_escaped", strings_in_commands_are_escaped },
	{ "host_qmp_report_prints_the_same_lines", report_prints_the_same_lines },
	{ "host_qmp_catch_all_bound_stays_exact", catch_all_bound_stays_exact },
	{ "host_qmp_balance_reads_report_and_stats", balance_reads_report_and_stats },
};

UNIT_MAIN(tests)
