// SPDX-License-Identifier: GPL-2.0
/* What balance reads of a VM, from QMP's messages: see transport.h. */
#include <stdio.h>
#include <string.h>
#include "libwsr.h"
#include "qmp.h"
#include "transport.h"

void said_from_event(const char *name, struct json_object *data, struct vm_said *s)
{
	struct json_object *actual;
	struct wsr_err err;

	memset(s, 0, sizeof(*s));
	if (!strcmp(name, "RESET")) {
		s->kind = SAID_RESET;
	} else if (!strcmp(name, "WORKING_SET_EVENT")) {
		if (qmp_report_parse_data(data, &s->report, &err)) {
			s->kind = SAID_BAD_REPORT;
			snprintf(s->desc, sizeof(s->desc), "%.*s", (int)sizeof(s->desc) - 1, err.msg);
		} else {
			s->kind = SAID_REPORT;
		}
	} else if (!strcmp(name, "BALLOON_CHANGE") &&
		   json_object_object_get_ex(data, "actual", &actual) &&
		   json_object_get_int64(actual) > 0) {
		s->kind = SAID_ACTUAL;
		s->actual = (__u64)json_object_get_int64(actual);
	}
}

/* query-memory-size-summary's: base-memory, and plugged-memory if there */
static int memsize_of(struct json_object *msg, struct vm_said *s)
{
	struct json_object *ret;

	if (qmp_return_u64(msg, "base-memory", &s->base) || !s->base)
		return 0;
	if (json_object_object_get_ex(msg, "return", &ret) &&
	    json_object_object_get_ex(ret, "plugged-memory", NULL) &&
	    qmp_return_u64(msg, "plugged-memory", &s->plugged))
		return 0;
	return s->plugged <= ~0ULL - s->base;
}

/* the reply to @op: done or refused, and the value @op asks for */
static void reply_of(struct json_object *msg, enum op op, struct vm_said *s)
{
	const char *desc = qmp_error_desc(msg);

	s->kind = SAID_REPLY;
	s->ok = qmp_kind(msg) == QMP_RETURN;
	if (!s->ok) {
		snprintf(s->desc, sizeof(s->desc), "%s", desc ? desc : "no reason given");
		return;
	}
	switch (op) {
	case OP_QUERY:
		s->valid = !qmp_return_u64(msg, "actual", &s->actual);
		break;
	case OP_MEMSIZE:
		s->valid = memsize_of(msg, s);
		break;
	case OP_STATS:
		s->valid = !qmp_stats_parse(msg, &s->stats, &s->stats_update);
		break;
	default:
		s->valid = 1;
		break;
	}
}

void said_from_qmp(struct json_object *msg, enum op op, struct vm_said *s)
{
	struct json_object *data = NULL;

	memset(s, 0, sizeof(*s));
	switch (qmp_kind(msg)) {
	case QMP_GREETING:
		s->kind = SAID_GREETING;
		break;
	case QMP_RETURN:
	case QMP_ERROR:
		reply_of(msg, op, s);
		break;
	case QMP_EVENT:
		json_object_object_get_ex(msg, "data", &data);
		said_from_event(qmp_event_name(msg), data, s);
		break;
	default:
		s->kind = SAID_OTHER;
		break;
	}
}
