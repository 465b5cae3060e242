// SPDX-License-Identifier: GPL-2.0
/* wsr-host request --count: requests and their answers (request.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "libwsr.h"
#include "client.h"
#include "request.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* what "request --count N --batch B" has seen so far */
struct answers {
	double *lat, t0;
	long want, answered, extra, reclaim;
	int json;
};

/* {"answer":i,"latency_ms":..,"data_age_ms":..}, one line */
static void print_answer_json(long i, double latency_ms, __u64 age)
{
	struct json_object *o = json_object_new_object();
	int err;

	err = wsr_json_add(o, "answer", json_object_new_int64(i)) |
	      wsr_json_add(o, "latency_ms", wsr_json_fixed(latency_ms, 3)) |
	      wsr_json_add(o, "data_age_ms", wsr_json_u64(age));
	if (err) {
		json_object_put(o);
		o = NULL;
	}
	if (wsr_json_print(stdout, o, "\n"))
		err_msg("out of memory");
}

/*
 * One message from QEMU while requests wait: an answer is a
 * WORKING_SET_EVENT of cause request, one too many when none of ours is
 * outstanding; a reclaim report is counted, not an answer.  Returns 1 for
 * a reply to a command, 0 for anything else.
 */
static int answer_msg(struct answers *a, struct json_object *msg)
{
	enum qmp_kind k = qmp_kind(msg);
	struct ws_report r;
	struct wsr_err err;

	if (k == QMP_RETURN || k == QMP_ERROR)
		return 1;
	if (strcmp(qmp_event_name(msg), "WORKING_SET_EVENT"))
		return 0;
	if (qmp_report_parse(msg, &r, &err)) {
		err_msg("a WORKING_SET_EVENT without a well-formed report, not counted: %s",
			err.msg);
		return 0;
	}
	if (r.cause != WSR_CAUSE_REQUEST) {
		a->reclaim++;
	} else if (a->answered >= a->want) {
		a->extra++;
	} else {
		a->lat[a->answered] = now_ms() - a->t0;
		if (a->json)
			print_answer_json(a->answered + 1, a->lat[a->answered], r.data_age_ms);
		else
			printf("answer %ld latency_ms=%.3f data_age_ms=%llu\n", a->answered + 1,
			       a->lat[a->answered], (unsigned long long)r.data_age_ms);
		fflush(stdout);
		a->answered++;
	}
	return 0;
}

/*
 * Send one working-set-request and read up to its reply, taking the events
 * that come first.  The guest has one notification buffer: while it has
 * not posted it again, QEMU refuses ("try again later"), and we do.
 */
static int send_request(struct qmp *q, struct answers *a, const char *cmd, double deadline)
{
	const struct qmp_msg *m;
	const char *desc;

	for (;;) {
		if (qmp_send(q, cmd))
			return -1;
		while ((m = qmp_next(q, deadline)) && !answer_msg(a, m->obj))
			;
		if (!m)
			return -1;
		if (qmp_kind(m->obj) == QMP_RETURN)
			return 0;
		desc = qmp_error_desc(m->obj);
		if (!desc || !strstr(desc, "try again later") || now_ms() > deadline) {
			err_msg("QEMU refused a request: %.*s", qmp_msg_text_len(m), m->raw);
			return -1;
		}
		usleep(1000);
	}
}

int cmd_request_wait(struct qmp *q, long count, long batch, long timeout_ms, int json)
{
	struct answers a = { .lat = calloc(count, sizeof(double)), .json = json };
	char *cmd = qmp_cmd("working-set-request");
	const struct qmp_msg *m;
	double deadline;
	long sent = 0, i;
	int err = 0;

	if (!a.lat || !cmd) {
		free(a.lat);
		free(cmd);
		return 1;
	}
	while (sent < count && !err) {
		long n = count - sent < batch ? count - sent : batch;

		a.t0 = now_ms();
		deadline = a.t0 + timeout_ms;
		for (i = 0; i < n && !err; i++) {
			/* its answer may come before QEMU's reply to it */
			a.want = sent + 1;
			err = send_request(q, &a, cmd, deadline);
			sent += !err;
			a.want = sent;
		}
		while (!err && a.answered < a.want && (m = qmp_next(q, deadline)))
			answer_msg(&a, m->obj);
		if (!err && a.answered < a.want) {
			err_msg("%ld of %ld requests unanswered after %ld ms",
				a.want - a.answered, a.want, timeout_ms);
			err = 1;
		}
	}
	if (a.extra)
		err = 1;
	qsort(a.lat, a.answered, sizeof(double), cmp_double);
	info_msg("requests %ld answered %ld extra %ld reclaim %ld latency_ms p50 %.1f p99 %.1f",
		 sent, a.answered, a.extra, a.reclaim,
		 a.answered ? a.lat[(a.answered - 1) / 2] : 0.0,
		 a.answered ? a.lat[(a.answered * 99 + 99) / 100 - 1] : 0.0);
	free(a.lat);
	free(cmd);
	return err ? 1 : 0;
}
