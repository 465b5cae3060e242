/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsr-host's QMP messages: the bytes QEMU sends cut into messages with
 * json-c, the messages told apart by their top-level key, the commands
 * built as json-c objects, and the working-set reports printed.  No I/O
 * of its own, so that tests/unit/test_host_qmp.c can drive it.
 */
#ifndef __WSR_HOST_QMP_H
#define __WSR_HOST_QMP_H

#include <stdio.h>
#include <json-c/json.h>
#include "wsr.h"
#include "report.h"

/* one message as QEMU sent it */
struct qmp_msg {
	struct json_object *obj;	/* the parsed message */
	const char *raw;		/* its text through the end of its line */
	size_t len;			/* bytes of raw (not NUL-terminated) */
};

/*
 * Bytes from QEMU, cut into messages.  A message may be of any length
 * and arrive in any number of pieces: json_tokener keeps its state
 * between them.
 */
struct qmp_stream {
	struct json_tokener *tok;
	char *buf;
	size_t start;		/* buf[start, len) is not returned yet */
	size_t fed;		/* buf[start, fed) the tokener has seen */
	size_t len, cap;
	struct json_object *obj;	/* parsed, its line's end not yet seen */
	size_t obj_end;
	struct qmp_msg msg;	/* the last returned, valid until the next call */
	size_t max;		/* at most this many bytes buffered, not returned yet */
};

/*
 * The bound of a stream unless its owner sets another: "wsr-host qmp"
 * passes on replies to any command (query-qmp-schema's is about 200 KiB);
 * no reply QEMU sends comes near 64 MiB, so a peer that sends more
 * without ending its message is not QEMU.
 */
#define QMP_STREAM_MAX (64UL << 20)

int qmp_stream_init(struct qmp_stream *s);
void qmp_stream_free(struct qmp_stream *s);
/*
 * Append @n bytes received: 0, -1 when out of memory, -2 when the bytes
 * buffered and not returned yet would pass @s->max (a message that does
 * not end: close the connection, nothing after it can be parsed).
 */
int qmp_stream_feed(struct qmp_stream *s, const char *data, size_t n);
/*
 * The next whole message into *msg (1), 0 when more bytes are needed, -1
 * when QEMU sent something that is not JSON.  *msg belongs to @s and is
 * valid until the next call.
 */
int qmp_stream_next(struct qmp_stream *s, const struct qmp_msg **msg);

enum qmp_kind {
	QMP_OTHER,
	QMP_GREETING,	/* {"QMP": ...} */
	QMP_RETURN,	/* {"return": ...}: a command's success */
	QMP_ERROR,	/* {"error": ...}: a command's failure */
	QMP_EVENT,	/* {"event": ...} */
};

/* what a message is, by its top-level key, never by its text */
enum qmp_kind qmp_kind(struct json_object *msg);
/* the name of an event ("" for other messages) */
const char *qmp_event_name(struct json_object *msg);
/* an error's "desc", or NULL */
const char *qmp_error_desc(struct json_object *msg);

/*
 * Commands, as the text to send (no newline; free() it), or NULL when out
 * of memory.  Strings are escaped by json-c.
 */
char *qmp_cmd(const char *execute);
char *qmp_cmd_qom_get(const char *path, const char *property);
char *qmp_cmd_config(const __u64 *intervals, __u32 nr, __u64 refresh_ms, __u64 report_ms);
char *qmp_cmd_qom_set_int(const char *path, const char *property, long long value);
/* {"execute":"balloon","arguments":{"value":@bytes}} */
char *qmp_cmd_balloon(__u64 bytes);

/* the non-negative integer at @key of a reply's "return" object: 0 or -1 */
int qmp_return_u64(struct json_object *msg, const char *key, __u64 *v);

/*
 * A report (a reply to qom-get of guest-working-set, or a
 * WORKING_SET_EVENT) into *r: 0, or -1 when there is none or a field is
 * missing, of the wrong type, or beyond WSR_MAX_NODES nodes or
 * WSR_MAX_BINS bins, or its cause is not one of the wire's, or its
 * extended header is malformed (qmp_report_ext()).
 */
int qmp_report_parse(struct json_object *msg, struct ws_report *r);

/*
 * A reply to qom-get of guest-stats into *s (stat-available-memory,
 * stat-free-memory, stat-swap-in and stat-major-faults; -1 for what the
 * guest did not give) and its
 * last-update (0 before the guest sent any): 0, or -1 when malformed.
 */
int qmp_stats_parse(struct json_object *msg, struct ws_stats *s, __u64 *last_update);

/*
 * A report's header, from a reply to qom-get of "guest-working-set"
 * ("return") or a WORKING_SET_EVENT ("data"): why it was sent and how
 * old its data is.  -1 when there is none (the property before the first
 * report).
 */
int qmp_report_header(struct json_object *msg, const char **cause, __u64 *data_age_ms);

/*
 * The rest of a report's header, which a QEMU with the 32-byte wire
 * header adds: "incomplete", "anon-reclaimable" (booleans),
 * "reclaim-seq" (at most 2^32 - 1), "mem-some-us" and "mem-full-us".
 * All of them into *x with x->known 1, or none (an older QEMU, or the
 * property before the first report): x zeroed, known 0; both return 0.
 * -1 when only some are there, or one is of the wrong type or range.
 */
int qmp_report_ext(struct json_object *msg, struct ws_report_ext *x);

/* the bytes of @m's text without its line's end (QEMU's "\r\n") */
int qmp_msg_text_len(const struct qmp_msg *m);

/*
 * "cause=<cause> data_age_ms=<ms>", then, when the report has the
 * extended header, "incomplete=<0|1> anon_reclaimable=<0|1>
 * reclaim_seq=<n> mem_some_us=<us> mem_full_us=<us>" (no such line from
 * an older QEMU), then per node "N<node>" and its bins as "<ms>
 * anon=<pages> file=<pages>", the seed's format: the report's bytes in
 * pages of WSR_PAGE_SIZE (wsr.h), those the guest counted in.  Stops at
 * the first node or bin that lacks a field.
 */
void qmp_print_report(FILE *f, struct json_object *msg);

/*
 * The message as QEMU sent it, with the report's header first under wsr's
 * names: "cause", "data_age_ms", "incomplete", "anon_reclaimable",
 * "reclaim_seq", "mem_some_us" and "mem_full_us"; null without a report,
 * and the last five null from an older QEMU (or a malformed header).
 */
void qmp_print_json(FILE *f, const struct qmp_msg *msg);

#endif /* __WSR_HOST_QMP_H */
