// SPDX-License-Identifier: GPL-2.0
/* wsr-host's QMP messages: see qmp.h. */
#include <stdlib.h>
#include <string.h>
#include "libwsr.h"
#include "qmp.h"

/*
 * json-c's default depth is 32; QEMU's own JSON parser allows 1024, and
 * "wsr-host qmp" passes on replies to any command.
 */
#define QMP_MAX_DEPTH 1024

int qmp_stream_init(struct qmp_stream *s)
{
	memset(s, 0, sizeof(*s));
	s->tok = json_tokener_new_ex(QMP_MAX_DEPTH);
	s->max = QMP_STREAM_MAX;
	return s->tok ? 0 : -1;
}

static void drop_msg(struct qmp_stream *s)
{
	json_object_put(s->msg.obj);
	s->msg.obj = NULL;
	s->start += s->msg.len;
	s->msg.len = 0;
}

void qmp_stream_free(struct qmp_stream *s)
{
	drop_msg(s);
	json_object_put(s->obj);
	if (s->tok)
		json_tokener_free(s->tok);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

int qmp_stream_feed(struct qmp_stream *s, const char *data, size_t n)
{
	/* buf[0, start) was returned and dropped; the last message stays valid */
	size_t dead = s->start;

	/* the message returned last is still valid, and not counted */
	if (s->len - dead - s->msg.len + n > s->max)
		return -2;
	if (dead) {
		memmove(s->buf, s->buf + dead, s->len - dead);
		s->len -= dead;
		s->start = 0;
		s->fed -= dead;
		s->obj_end -= s->obj ? dead : 0;
		s->msg.raw = s->buf;
	}
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		char *b;

		while (cap < s->len + n)
			cap *= 2;
		b = realloc(s->buf, cap);
		if (!b)
			return -1;
		s->buf = b;
		s->cap = cap;
		s->msg.raw = s->buf;
	}
	memcpy(s->buf + s->len, data, n);
	s->len += n;
	return 0;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int qmp_stream_next(struct qmp_stream *s, const struct qmp_msg **msg)
{
	size_t end;

	drop_msg(s);
	if (s->fed < s->start)
		s->fed = s->start;
	if (!s->obj) {
		/* nothing between messages but the line ends */
		if (s->fed == s->start)
			while (s->start < s->len && is_space(s->buf[s->start]))
				s->fed = ++s->start;
		while (s->fed < s->len) {
			/* json-c takes an int length: feed at most 1 GiB at a time */
			size_t n = s->len - s->fed < (1u << 30) ? s->len - s->fed : (1u << 30);

			s->obj = json_tokener_parse_ex(s->tok, s->buf + s->fed, (int)n);
			if (s->obj)
				break;
			if (json_tokener_get_error(s->tok) != json_tokener_continue)
				return -1;
			s->fed += n;
		}
		if (!s->obj)
			return 0;
		/* json-c ate the blanks after the message too: give them back */
		end = s->fed + json_tokener_get_parse_end(s->tok);
		while (end > s->start && is_space(s->buf[end - 1]))
			end--;
		s->obj_end = end;
		json_tokener_reset(s->tok);
	}
	/*
	 * The message's text runs through its line's end, which QEMU sends
	 * ("\r\n") and "wsr-host qmp" prints as it came.
	 */
	for (end = s->obj_end; end < s->len && s->buf[end] != '\n'; end++)
		if (!is_space(s->buf[end]))
			break;
	if (end == s->len)
		return 0;
	if (s->buf[end] == '\n')
		end++;
	s->msg.obj = s->obj;
	s->msg.raw = s->buf + s->start;
	s->msg.len = end - s->start;
	s->obj = NULL;
	s->fed = end;
	*msg = &s->msg;
	return 1;
}

int qmp_msg_text_len(const struct qmp_msg *m)
{
	size_t n = m->len;

	while (n && (m->raw[n - 1] == '\n' || m->raw[n - 1] == '\r'))
		n--;
	return (int)n;
}

static int has_key(struct json_object *msg, const char *key)
{
	return json_object_object_get_ex(msg, key, NULL);
}

enum qmp_kind qmp_kind(struct json_object *msg)
{
	if (!json_object_is_type(msg, json_type_object))
		return QMP_OTHER;
	if (has_key(msg, "return"))
		return QMP_RETURN;
	if (has_key(msg, "error"))
		return QMP_ERROR;
	if (has_key(msg, "event"))
		return QMP_EVENT;
	if (has_key(msg, "QMP"))
		return QMP_GREETING;
	return QMP_OTHER;
}

/* the string at @key of @obj, or NULL */
static const char *string_at(struct json_object *obj, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/*
 * The non-negative integer at @key of @obj: 0, or -1 when there is none.
 * json-c keeps integers as int64 or uint64, never as double, so the
 * catch-all bound 9223372036854775807 stays exact.
 */
static int u64_at(struct json_object *obj, const char *key, __u64 *v)
{
	struct json_object *o;

	if (!json_object_object_get_ex(obj, key, &o) || !json_object_is_type(o, json_type_int) ||
	    json_object_get_int64(o) < 0)
		return -1;
	*v = json_object_get_uint64(o);
	return 0;
}

const char *qmp_event_name(struct json_object *msg)
{
	const char *name = qmp_kind(msg) == QMP_EVENT ? string_at(msg, "event") : NULL;

	return name ? name : "";
}

const char *qmp_error_desc(struct json_object *msg)
{
	struct json_object *e;

	if (!json_object_object_get_ex(msg, "error", &e))
		return NULL;
	return string_at(e, "desc");
}

/* {"execute": @execute, "arguments": @args}, @args taken (may be NULL) */
static struct json_object *new_cmd(const char *execute, struct json_object *args)
{
	struct json_object *cmd = json_object_new_object();
	int err;

	err = wsr_json_add(cmd, "execute", json_object_new_string(execute));
	if (args)
		err |= wsr_json_add(cmd, "arguments", args);
	if (err) {
		json_object_put(cmd);
		return NULL;
	}
	return cmd;
}

/* the command's compact text, escaped by json-c (NULL: out of memory) */
static char *cmd_text(const char *execute, struct json_object *args, int err)
{
	if (err) {
		json_object_put(args);
		return NULL;
	}
	return wsr_json_text(new_cmd(execute, args));
}

char *qmp_cmd(const char *execute)
{
	return cmd_text(execute, NULL, 0);
}

char *qmp_cmd_qom_get(const char *path, const char *property)
{
	struct json_object *args = json_object_new_object();
	int err;

	err = wsr_json_add(args, "path", json_object_new_string(path)) |
	      wsr_json_add(args, "property", json_object_new_string(property));
	return cmd_text("qom-get", args, err);
}

char *qmp_cmd_config(const __u64 *intervals, __u32 nr, __u64 refresh_ms, __u64 report_ms)
{
	struct json_object *args = json_object_new_object();
	struct json_object *ivals = json_object_new_array();
	int err = 0;
	__u32 i;

	/* lib/parse.c bounds every value by the wire's week: each fits an int64 */
	for (i = 0; i < nr; i++)
		err |= wsr_json_append(ivals, wsr_json_u64(intervals[i]));
	err |= wsr_json_add(args, "intervals", ivals) |
	       wsr_json_add(args, "refresh", wsr_json_u64(refresh_ms)) |
	       wsr_json_add(args, "report", wsr_json_u64(report_ms));
	return cmd_text("working-set-config", args, err);
}

char *qmp_cmd_qom_set_int(const char *path, const char *property, long long value)
{
	struct json_object *args = json_object_new_object();
	int err;

	err = wsr_json_add(args, "path", json_object_new_string(path)) |
	      wsr_json_add(args, "property", json_object_new_string(property)) |
	      wsr_json_add(args, "value", json_object_new_int64(value));
	return cmd_text("qom-set", args, err);
}

char *qmp_cmd_balloon(__u64 bytes)
{
	struct json_object *args = json_object_new_object();

	return cmd_text("balloon", args, wsr_json_add(args, "value", wsr_json_u64(bytes)));
}

int qmp_return_u64(struct json_object *msg, const char *key, __u64 *v)
{
	struct json_object *r;

	if (qmp_kind(msg) != QMP_RETURN || !json_object_object_get_ex(msg, "return", &r))
		return -1;
	return u64_at(r, key, v);
}

/* the report a message carries: a reply's "return", an event's "data" */
static struct json_object *report_of(struct json_object *msg)
{
	struct json_object *r = NULL;

	switch (qmp_kind(msg)) {
	case QMP_RETURN:
		json_object_object_get_ex(msg, "return", &r);
		break;
	case QMP_EVENT:
		json_object_object_get_ex(msg, "data", &r);
		break;
	default:
		break;
	}
	return json_object_is_type(r, json_type_object) ? r : NULL;
}

int qmp_report_header(struct json_object *msg, const char **cause, __u64 *data_age_ms)
{
	struct json_object *r = report_of(msg);

	if (!r)
		return -1;
	*cause = string_at(r, "cause");
	return *cause && !u64_at(r, "data-age-ms", data_age_ms) ? 0 : -1;
}

/* a boolean member: 0 or 1 into *v, or -1 */
static int bool_at(struct json_object *obj, const char *key, int *v)
{
	struct json_object *o;

	if (!json_object_object_get_ex(obj, key, &o) || !json_object_is_type(o, json_type_boolean))
		return -1;
	*v = json_object_get_boolean(o);
	return 0;
}

int qmp_report_ext(struct json_object *msg, struct ws_report_ext *x)
{
	static const char *const keys[] = {
		"incomplete", "anon-reclaimable", "reclaim-seq", "mem-some-us", "mem-full-us",
	};
	struct json_object *r = report_of(msg);
	struct ws_report_ext e = { .known = 1 };
	unsigned int i, there = 0;
	__u64 seq;

	memset(x, 0, sizeof(*x));
	for (i = 0; r && i < sizeof(keys) / sizeof(keys[0]); i++)
		there += has_key(r, keys[i]);
	if (!there)
		return 0;
	if (there != sizeof(keys) / sizeof(keys[0]) || bool_at(r, "incomplete", &e.incomplete) ||
	    bool_at(r, "anon-reclaimable", &e.anon_reclaimable) ||
	    u64_at(r, "reclaim-seq", &seq) || seq > 0xffffffffULL ||
	    u64_at(r, "mem-some-us", &e.mem_some_us) || u64_at(r, "mem-full-us", &e.mem_full_us))
		return -1;
	e.reclaim_seq = seq;
	*x = e;
	return 0;
}

void qmp_print_report(FILE *f, struct json_object *msg)
{
	struct json_object *r = report_of(msg), *nodes, *node, *bins, *bin;
	__u64 id, ms, anon, file, age;
	struct ws_report_ext x;
	size_t i, j;
	const char *cause;

	if (!qmp_report_header(msg, &cause, &age)) {
		fprintf(f, "cause=%s data_age_ms=%llu\n", cause, (unsigned long long)age);
		if (!qmp_report_ext(msg, &x) && x.known)
			fprintf(f, "incomplete=%d anon_reclaimable=%d reclaim_seq=%u "
				"mem_some_us=%llu mem_full_us=%llu\n", x.incomplete,
				x.anon_reclaimable, x.reclaim_seq,
				(unsigned long long)x.mem_some_us,
				(unsigned long long)x.mem_full_us);
	}
	if (!r || !json_object_object_get_ex(r, "nodes", &nodes) ||
	    !json_object_is_type(nodes, json_type_array))
		return;
	for (i = 0; i < json_object_array_length(nodes); i++) {
		node = json_object_array_get_idx(nodes, i);
		if (!json_object_object_get_ex(node, "bins", &bins) ||
		    !json_object_is_type(bins, json_type_array) || u64_at(node, "node-id", &id))
			return;
		fprintf(f, "N%llu\n", (unsigned long long)id);
		for (j = 0; j < json_object_array_length(bins); j++) {
			bin = json_object_array_get_idx(bins, j);
			if (u64_at(bin, "idle-age-ms", &ms) || u64_at(bin, "anon-bytes", &anon) ||
			    u64_at(bin, "file-bytes", &file))
				return;
			fprintf(f, "%llu anon=%llu file=%llu\n", (unsigned long long)ms,
				(unsigned long long)(anon / WSR_PAGE_SIZE),
				(unsigned long long)(file / WSR_PAGE_SIZE));
		}
	}
}

void qmp_print_json(FILE *f, const struct qmp_msg *msg)
{
	struct ws_report_ext x;
	const char *cause;
	__u64 age;

	if (!json_object_is_type(msg->obj, json_type_object)) {
		fwrite(msg->raw, 1, msg->len, f);
		return;
	}
	if (qmp_report_header(msg->obj, &cause, &age)) {
		fputs("{\"cause\": null, \"data_age_ms\": null", f);
		x.known = 0;
	} else {
		fputs("{\"cause\": ", f);
		/* QEMU's string, escaped again by json-c */
		if (wsr_json_print(f, json_object_new_string(cause), ""))
			fputs("null", f);
		fprintf(f, ", \"data_age_ms\": %llu", (unsigned long long)age);
		if (qmp_report_ext(msg->obj, &x))
			x.known = 0;
	}
	if (x.known)
		fprintf(f, ", \"incomplete\": %s, \"anon_reclaimable\": %s, \"reclaim_seq\": %u, "
			"\"mem_some_us\": %llu, \"mem_full_us\": %llu",
			x.incomplete ? "true" : "false", x.anon_reclaimable ? "true" : "false",
			x.reclaim_seq, (unsigned long long)x.mem_some_us,
			(unsigned long long)x.mem_full_us);
	else
		fputs(", \"incomplete\": null, \"anon_reclaimable\": null, \"reclaim_seq\": null, "
		      "\"mem_some_us\": null, \"mem_full_us\": null", f);
	/* the rest of QEMU's object after its "{" */
	if (json_object_object_length(msg->obj))
		fputs(", ", f);
	fwrite(msg->raw + 1, 1, msg->len - 1, f);
}

int qmp_report_parse(struct json_object *msg, struct ws_report *out)
{
	struct json_object *r = report_of(msg), *nodes, *node, *bins, *bin;
	struct ws_report rep = {};
	const char *cause;
	size_t i, j;
	__u64 id;

	if (!r || qmp_report_header(msg, &cause, &rep.data_age_ms) ||
	    qmp_report_ext(msg, &rep.ext) || !json_object_object_get_ex(r, "nodes", &nodes) ||
	    !json_object_is_type(nodes, json_type_array) ||
	    json_object_array_length(nodes) > WSR_MAX_NODES)
		return -1;
	/* the wire's two causes, by their QMP names */
	rep.cause = wsr_cause_by_name(cause);
	if (rep.cause != WSR_CAUSE_REQUEST && rep.cause != WSR_CAUSE_RECLAIM)
		return -1;
	rep.nr_nodes = json_object_array_length(nodes);
	for (i = 0; i < rep.nr_nodes; i++) {
		struct ws_node *n = &rep.nodes[i];

		node = json_object_array_get_idx(nodes, i);
		if (!json_object_object_get_ex(node, "bins", &bins) ||
		    !json_object_is_type(bins, json_type_array) || u64_at(node, "node-id", &id) ||
		    id >= WSR_MAX_NODES || json_object_array_length(bins) > WSR_MAX_BINS)
			return -1;
		n->id = id;
		n->hist.nr_bins = json_object_array_length(bins);
		for (j = 0; j < n->hist.nr_bins; j++) {
			bin = json_object_array_get_idx(bins, j);
			if (u64_at(bin, "idle-age-ms", &n->hist.bound_ms[j]) ||
			    u64_at(bin, "anon-bytes", &n->hist.anon[j]) ||
			    u64_at(bin, "file-bytes", &n->hist.file[j]))
				return -1;
		}
	}
	*out = rep;
	return 0;
}

/* a stat of guest-stats: its bytes, or -1 when the guest gave none (QEMU's -1) */
static long long stat_at(struct json_object *stats, const char *key)
{
	struct json_object *o;

	if (!json_object_object_get_ex(stats, key, &o) || !json_object_is_type(o, json_type_int))
		return -1;
	return json_object_get_int64(o) < 0 ? -1 : json_object_get_int64(o);
}

int qmp_stats_parse(struct json_object *msg, struct ws_stats *s, __u64 *last_update)
{
	struct json_object *r, *stats;

	if (qmp_kind(msg) != QMP_RETURN || !json_object_object_get_ex(msg, "return", &r) ||
	    !json_object_object_get_ex(r, "stats", &stats) ||
	    !json_object_is_type(stats, json_type_object) || u64_at(r, "last-update", last_update))
		return -1;
	s->available = stat_at(stats, "stat-available-memory");
	s->free = stat_at(stats, "stat-free-memory");
	s->swap_in = stat_at(stats, "stat-swap-in");
	s->major_faults = stat_at(stats, "stat-major-faults");
	return 0;
}
