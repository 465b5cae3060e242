/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsr-host's QMP messages: the bytes QEMU sends cut into messages with
 * json-c, the messages told apart by their top-level key, the commands
 * built as json-c objects, and the working-set reports read.  No I/O
 * of its own, so that tests/unit/test_host_qmp.c can drive it.
 */
#ifndef __WSR_HOST_QMP_H
#define __WSR_HOST_QMP_H

#include <stdio.h>
#include <json-c/json.h>
#include "libwsr.h"
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
 * WORKING_SET_EVENT) into *r: the one reader of a report's JSON, for
 * show, watch and balance alike.  0; -ENOENT when the message is QEMU's
 * property before the guest's first report (neither "cause" nor
 * "data-age-ms"); -EINVAL when there is
 * no report or a field is missing, of the wrong type, or beyond
 * WSR_MAX_NODES nodes or WSR_MAX_BINS bins, or the cause is not one of
 * the wire's, or the 32-byte header's fields are not all there or none.
 * Either error says why in @err (may be NULL).  *r changes only on
 * success.
 */
int qmp_report_parse(struct json_object *msg, struct ws_report *r, struct wsr_err *err);
/* the same of a report's object itself: an event's "data" (libvirt's) */
int qmp_report_parse_data(struct json_object *data, struct ws_report *r, struct wsr_err *err);

/*
 * A reply to qom-get of guest-stats into *s (stat-available-memory,
 * stat-free-memory, stat-swap-in and stat-major-faults; -1 for what the
 * guest did not give) and its
 * last-update (0 before the guest sent any): 0, or -1 when malformed.
 */
int qmp_stats_parse(struct json_object *msg, struct ws_stats *s, __u64 *last_update);

/* the bytes of @m's text without its line's end (QEMU's "\r\n") */
int qmp_msg_text_len(const struct qmp_msg *m);

/*
 * The message as QEMU sent it, with the report's header first under wsr's
 * names, from @r (qmp_report_parse()'s): "cause", "data_age_ms",
 * "incomplete", "anon_reclaimable", "reclaim_seq", "mem_some_us" and
 * "mem_full_us"; null with @r NULL (no report), and the last five null
 * from an older QEMU.
 */
void qmp_print_json(FILE *f, const struct qmp_msg *msg, const struct ws_report *r);

#endif /* __WSR_HOST_QMP_H */
