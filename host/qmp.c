// SPDX-License-Identifier: GPL-2.0
/* wsr-host's QMP messages: see qmp.h. */
#include <errno.h>
#include <stdarg.h>
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

/* a boolean member: 0 or 1 into *v, or -1 */
static int bool_at(struct json_object *obj, const char *key, int *v)
{
	struct json_object *o;

	if (!json_object_object_get_ex(obj, key, &o) || !json_object_is_type(o, json_type_boolean))
		return -1;
	*v = json_object_get_boolean(o);
	return 0;
}

/* -EINVAL, with why in @err (which may be NULL) */
static int bad(struct wsr_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int bad(struct wsr_err *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/*
 * The header a QEMU with the 32-byte wire header adds: all of it into *x
 * with known 1, or none (an older QEMU): x zeroed, known 0
 */
static int parse_ext(struct json_object *r, struct ws_report_ext *x, struct wsr_err *err)
{
	static const char *const keys[] = {
		"incomplete", "anon-reclaimable", "reclaim-seq", "mem-some-us", "mem-full-us",
	};
	unsigned int i, there = 0;
	__u64 seq;

	memset(x, 0, sizeof(*x));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		there += has_key(r, keys[i]);
	if (!there)
		return 0;
	if (there != sizeof(keys) / sizeof(keys[0]))
		return bad(err, "%u of the 5 fields of the 32-byte header, not all", there);
	if (bool_at(r, "incomplete", &x->incomplete) ||
	    bool_at(r, "anon-reclaimable", &x->anon_reclaimable))
		return bad(err, "\"incomplete\" or \"anon-reclaimable\" is not a boolean");
	if (u64_at(r, "reclaim-seq", &seq) || seq > 0xffffffffULL)
		return bad(err, "\"reclaim-seq\" is not an integer of 0 to 4294967295");
	if (u64_at(r, "mem-some-us", &x->mem_some_us) ||
	    u64_at(r, "mem-full-us", &x->mem_full_us))
		return bad(err, "\"mem-some-us\" or \"mem-full-us\" is not a non-negative integer");
	x->reclaim_seq = seq;
	x->known = 1;
	return 0;
}

/* the @i-th member of "nodes" into *n */
static int parse_node(struct json_object *node, size_t i, struct ws_node *n,
		      struct wsr_err *err)
{
	static const char *const keys[] = { "idle-age-ms", "anon-bytes", "file-bytes" };
	struct json_object *bins, *bin;
	__u64 *fields[3];
	size_t j, k;
	__u64 id;

	if (!json_object_object_get_ex(node, "bins", &bins) ||
	    !json_object_is_type(bins, json_type_array))
		return bad(err, "node %zu has no \"bins\" array", i);
	if (u64_at(node, "node-id", &id) || id >= WSR_MAX_NODES)
		return bad(err, "node %zu: \"node-id\" is not an integer of 0 to %d", i,
			   WSR_MAX_NODES - 1);
	if (json_object_array_length(bins) > WSR_MAX_BINS)
		return bad(err, "node %zu: %zu bins, more than %d", i,
			   json_object_array_length(bins), WSR_MAX_BINS);
	n->id = id;
	n->hist.nr_bins = json_object_array_length(bins);
	for (j = 0; j < n->hist.nr_bins; j++) {
		bin = json_object_array_get_idx(bins, j);
		fields[0] = &n->hist.bound_ms[j];
		fields[1] = &n->hist.anon[j];
		fields[2] = &n->hist.file[j];
		for (k = 0; k < 3; k++)
			if (u64_at(bin, keys[k], fields[k]))
				return bad(err, "node %zu, bin %zu: \"%s\" is not a non-negative "
					   "integer", i, j, keys[k]);
	}
	return 0;
}

int qmp_report_parse(struct json_object *msg, struct ws_report *out, struct wsr_err *err)
{
	struct json_object *r = report_of(msg);

	if (!r)
		return bad(err, "no report: neither a reply's \"return\" object nor an event's "
			   "\"data\"");
	return qmp_report_parse_data(r, out, err);
}

int qmp_report_parse_data(struct json_object *r, struct ws_report *out, struct wsr_err *err)
{
	struct ws_report rep = {};
	struct json_object *nodes;
	const char *cause;
	size_t i;
	int ret;

	if (!json_object_is_type(r, json_type_object))
		return bad(err, "no report: the event's \"data\" is not an object");
	/* QEMU's property before the guest's first report */
	if (!has_key(r, "cause") && !has_key(r, "data-age-ms")) {
		bad(err, "no report yet: neither \"cause\" nor \"data-age-ms\"");
		return -ENOENT;
	}
	cause = string_at(r, "cause");
	/* the wire's two causes, by their QMP names */
	rep.cause = cause ? wsr_cause_by_name(cause) : -1;
	if (rep.cause != WSR_CAUSE_REQUEST && rep.cause != WSR_CAUSE_RECLAIM)
		return bad(err, "\"cause\" is not \"request\" or \"reclaim\"");
	if (u64_at(r, "data-age-ms", &rep.data_age_ms))
		return bad(err, "\"data-age-ms\" is not a non-negative integer");
	ret = parse_ext(r, &rep.ext, err);
	if (ret)
		return ret;
	if (!json_object_object_get_ex(r, "nodes", &nodes) ||
	    !json_object_is_type(nodes, json_type_array))
		return bad(err, "no \"nodes\" array");
	if (json_object_array_length(nodes) > WSR_MAX_NODES)
		return bad(err, "%zu nodes, more than %d", json_object_array_length(nodes),
			   WSR_MAX_NODES);
	rep.nr_nodes = json_object_array_length(nodes);
	for (i = 0; i < rep.nr_nodes; i++) {
		ret = parse_node(json_object_array_get_idx(nodes, i), i, &rep.nodes[i], err);
		if (ret)
			return ret;
	}
	*out = rep;
	return 0;
}

void qmp_print_json(FILE *f, const struct qmp_msg *msg, const struct ws_report *r)
{
	if (!json_object_is_type(msg->obj, json_type_object)) {
		fwrite(msg->raw, 1, msg->len, f);
		return;
	}
	if (!r)
		fputs("{\"cause\": null, \"data_age_ms\": null", f);
	else
		fprintf(f, "{\"cause\": \"%s\", \"data_age_ms\": %llu", wsr_cause_name(r->cause),
			(unsigned long long)r->data_age_ms);
	if (r && r->ext.known)
		fprintf(f, ", \"incomplete\": %s, \"anon_reclaimable\": %s, \"reclaim_seq\": %u, "
			"\"mem_some_us\": %llu, \"mem_full_us\": %llu",
			r->ext.incomplete ? "true" : "false",
			r->ext.anon_reclaimable ? "true" : "false", r->ext.reclaim_seq,
			(unsigned long long)r->ext.mem_some_us,
			(unsigned long long)r->ext.mem_full_us);
	else
		fputs(", \"incomplete\": null, \"anon_reclaimable\": null, \"reclaim_seq\": null, "
		      "\"mem_some_us\": null, \"mem_full_us\": null", f);
	/* the rest of QEMU's object after its "{" */
	if (json_object_object_length(msg->obj))
		fputs(", ", f);
	fwrite(msg->raw + 1, 1, msg->len - 1, f);
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
