// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host: the host side of wsr's working-set reporting.  Talks QMP to a
 * QEMU whose virtio-balloon has working-set=on (qemu-patches/): configures
 * the guest's report stream, requests reports, prints the latest report
 * and waits for WORKING_SET_EVENTs.
 *
 * The messages are JSON, parsed by json-c in qmp.c; client.c has the
 * socket, this file the commands.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "libwsr.h"
#include "balance.h"
#include "client.h"
#include "qmp.h"

static void usage(FILE *f)
{
	fputs(
"usage: wsr-host --qmp SOCKET COMMAND [ARGS]\n"
"       wsr-host balance --vm NAME=SOCKET [--vm ...] [OPTIONS] (see balance --help)\n"
"\n"
"Drive a guest's working-set reporting over QMP.\n"
"\n"
"commands:\n"
"  config INTERVALS REFRESH_MS REPORT_MS\n"
"                  send the guest its bins (ms, comma-separated, strictly\n"
"                  increasing, working-set-bins - 1 of them, as wsr's\n"
"                  intervals_ms: a last 9223372036854775807 is dropped) and\n"
"                  thresholds\n"
"  request [--count N] [--batch B] [--timeout-ms MS] [--json]\n"
"                  ask the guest for a fresh report; without options,\n"
"                  return once QEMU took the request, before the answer\n"
"                  (show may still print the previous report).  With\n"
"                  --count, --batch, --timeout-ms or --json, send N\n"
"                  requests (default 1) B at a time\n"
"                  (default 1) over one connection and wait for each\n"
"                  answer (a WORKING_SET_EVENT of cause request; at most\n"
"                  MS per batch, default 10000): one line per answer,\n"
"                  \"answer <i> latency_ms=<ms> data_age_ms=<ms>\" (--json:\n"
"                  {\"answer\":i,\"latency_ms\":..,\"data_age_ms\":..}),\n"
"                  then on stderr the totals and latency p50/p99.  Fails\n"
"                  if an answer is missing, or if more come than asked\n"
"  show [--json]   print the latest report: \"cause=<request|reclaim>\n"
"                  data_age_ms=<ms>\", then per node in the seed's format\n"
"                  (\"N<node>\" then \"<ms> anon=<pages> file=<pages>\");\n"
"                  nothing before the first report.  --json: QEMU's reply\n"
"                  with \"cause\" and \"data_age_ms\" first (null before\n"
"                  the first report)\n"
"  watch [--json] [--count N]\n"
"                  print each report as it arrives (WORKING_SET_EVENT), as\n"
"                  show does\n"
"  qmp JSON        send one raw QMP command, print the reply\n"
"  balance         size the balloons of several VMs from their working sets\n"
"                  (no --qmp: each --vm names its socket); balance --help\n"
"  qmp -           send the QMP commands of stdin, one per line, over one\n"
"                  connection; print each reply line as QEMU sent it, errors\n"
"                  too (events are skipped)\n"
"\n"
"options:\n"
"  --qmp SOCKET    QMP socket of the QEMU (-qmp unix:SOCKET,server=on,wait=off)\n"
"  --device PATH   QOM path of the balloon (default /machine/peripheral/balloon0)\n"
"\n"
"examples:\n"
"  wsr-host --qmp /tmp/vm.qmp config 1000,2000,4000 500 1000\n"
"  wsr-host --qmp /tmp/vm.qmp request --count 1 && wsr-host --qmp /tmp/vm.qmp show\n"
"  wsr-host --qmp /tmp/vm.qmp watch --json --count 10\n", f);
}

/* "qmp -": the commands of stdin over one connection, each reply printed */
static int qmp_stdin(struct qmp *q)
{
	const struct qmp_msg *r;
	char *cmd = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0;

	while ((n = getline(&cmd, &cap, stdin)) > 0) {
		cmd[strcspn(cmd, "\n")] = 0;
		if (!cmd[0])
			continue;
		r = qmp_send(q, cmd) ? NULL : qmp_reply(q, -1);
		if (!r) {
			fprintf(stderr, "wsr-host: QMP connection closed\n");
			err = 1;
			break;
		}
		fwrite(r->raw, 1, r->len, stdout);
		fflush(stdout);
	}
	free(cmd);
	return err;
}

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
		fprintf(stderr, "wsr-host: out of memory\n");
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
	const char *cause;
	__u64 age;

	if (k == QMP_RETURN || k == QMP_ERROR)
		return 1;
	if (strcmp(qmp_event_name(msg), "WORKING_SET_EVENT") ||
	    qmp_report_header(msg, &cause, &age))
		return 0;
	if (wsr_cause_by_name(cause) != WSR_CAUSE_REQUEST) {
		a->reclaim++;
	} else if (a->answered >= a->want) {
		a->extra++;
	} else {
		a->lat[a->answered] = now_ms() - a->t0;
		if (a->json)
			print_answer_json(a->answered + 1, a->lat[a->answered], age);
		else
			printf("answer %ld latency_ms=%.3f data_age_ms=%llu\n",
			       a->answered + 1, a->lat[a->answered], (unsigned long long)age);
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
			fprintf(stderr, "wsr-host: QEMU refused a request: %.*s", (int)m->len, m->raw);
			return -1;
		}
		usleep(1000);
	}
}

/*
 * "request --count N --batch B": N requests, B sent back to back, each
 * batch waiting for its B answers over the one connection; a request's
 * latency runs from its batch's start to its answer.
 */
static int cmd_request_wait(struct qmp *q, long count, long batch, long timeout_ms, int json)
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
			fprintf(stderr, "wsr-host: %ld of %ld requests unanswered after %ld ms\n",
				a.want - a.answered, a.want, timeout_ms);
			err = 1;
		}
	}
	if (a.extra)
		err = 1;
	qsort(a.lat, a.answered, sizeof(double), cmp_double);
	fprintf(stderr, "wsr-host: requests %ld answered %ld extra %ld reclaim %ld "
		"latency_ms p50 %.1f p99 %.1f\n", sent, a.answered, a.extra, a.reclaim,
		a.answered ? a.lat[(a.answered - 1) / 2] : 0.0,
		a.answered ? a.lat[(a.answered * 99 + 99) / 100 - 1] : 0.0);
	free(a.lat);
	free(cmd);
	return err ? 1 : 0;
}

/* the options that take a value or say what to print */
struct opts {
	long count, batch, timeout_ms;	/* count -1: no --count */
	int json;
	int waits;	/* request: an option that only waiting uses was given */
};

/*
 * --json, --count, --batch, --timeout-ms: numbers by libwsr's rules
 * and messages (lib/parse.c), as "wsr watch --count" takes them; 0, or 2 with
 * the reason said.
 */
static int take_opt(struct opts *o, int opt, const char *arg)
{
	struct wsr_err err;
	__u64 n;

	switch (opt) {
	case 'j':
		o->json = 1;
		o->waits = 1;
		return 0;
	case 'c':
		if (wsr_parse_range(arg, &n, 1, WSR_BIN_INF, "--count", &err))
			break;
		o->count = (long)n;
		return 0;
	case 'b':
	case 't':
		if (wsr_parse_range(arg, &n, 1, 1000000, opt == 'b' ? "--batch" : "--timeout-ms",
				    &err))
			break;
		*(opt == 'b' ? &o->batch : &o->timeout_ms) = (long)n;
		o->waits = 1;
		return 0;
	default:
		return 2;
	}
	fprintf(stderr, "wsr-host: %s\n", err.msg);
	return 2;
}

/*
 * The bins as the guest CLI takes them (3 to 15 strictly increasing ms; a
 * final catch-all bound, as printed, is dropped), the thresholds in ms,
 * each at most the wire's week (VIRTIO_BALLOON_WS_MAX_MS), which QEMU
 * and the driver refuse to exceed.  QEMU checks the count against its
 * working-set-bins.
 */
static int cmd_config(struct qmp *q, int argc, char **argv)
{
	__u64 ivals[WSR_MAX_INTERVALS], refresh, report;
	struct wsr_err err;
	__u32 nr;

	if (argc != 4) {
		fprintf(stderr, "wsr-host: config takes INTERVALS REFRESH_MS REPORT_MS\n");
		return 2;
	}
	if (wsr_parse_intervals(argv[1], VIRTIO_BALLOON_WS_MAX_MS, ivals, &nr, &err)) {
		fprintf(stderr, "wsr-host: %s; INTERVALS are %d to %d strictly increasing ms, "
			"comma-separated, each at most %llu (a week: the device's bound)\n",
			err.msg, WSR_MIN_INTERVALS, WSR_MAX_INTERVALS, VIRTIO_BALLOON_WS_MAX_MS);
		return 2;
	}
	if (wsr_parse_ms(argv[2], &refresh, VIRTIO_BALLOON_WS_MAX_MS, "refresh", &err) ||
	    wsr_parse_ms(argv[3], &report, VIRTIO_BALLOON_WS_MAX_MS, "report", &err)) {
		fprintf(stderr, "wsr-host: %s\n", err.msg);
		return 2;
	}
	return qmp_exec_built(q, qmp_cmd_config(ivals, nr, refresh, report), NULL) ? 1 : 0;
}

/* the device's latest report: the reply to qom-get of guest-working-set */
static int cmd_show(struct qmp *q, const char *device, int json)
{
	const struct qmp_msg *r;

	if (qmp_exec_built(q, qmp_cmd_qom_get(device, "guest-working-set"), &r))
		return 1;
	if (json)
		qmp_print_json(stdout, r);
	else
		qmp_print_report(stdout, r->obj);
	return 0;
}

static int cmd_watch(struct qmp *q, int json, long count)
{
	const struct qmp_msg *e;

	while (count != 0 && (e = qmp_next(q, -1))) {
		if (strcmp(qmp_event_name(e->obj), "WORKING_SET_EVENT"))
			continue;
		if (json)
			qmp_print_json(stdout, e);
		else
			qmp_print_report(stdout, e->obj);
		fflush(stdout);
		if (count > 0)
			count--;
	}
	return count > 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "qmp", required_argument, NULL, 'q' },
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "count", required_argument, NULL, 'c' },
		{ "batch", required_argument, NULL, 'b' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *sock = NULL, *device = "/machine/peripheral/balloon0";
	struct opts o = { .count = -1, .timeout_ms = 10000 };
	struct qmp q = {};
	int opt;

	if (argc > 1 && !strcmp(argv[1], "balance"))
		return cmd_balance(argc - 1, argv + 1);
	while ((opt = getopt_long(argc, argv, "+q:d:jc:b:t:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'q':
			sock = optarg;
			break;
		case 'd':
			device = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case '?':
			usage(stderr);
			return 2;
		default:
			if (take_opt(&o, opt, optarg))
				return 2;
		}
	}
	/* options may also follow the command */
	if (optind >= argc || !sock) {
		usage(stderr);
		return 2;
	}
	argc -= optind;
	argv += optind;
	if (argc > 1 && strcmp(argv[0], "qmp") && strcmp(argv[0], "config")) {
		optind = 1;
		while ((opt = getopt_long(argc, argv, "jc:b:t:", opts, NULL)) != -1) {
			if ((opt == 'b' || opt == 't') && strcmp(argv[0], "request")) {
				fprintf(stderr, "wsr-host: --batch and --timeout-ms are for request\n");
				return 2;
			}
			if (opt == '?') {
				fprintf(stderr, "wsr-host: bad option for %s\n", argv[0]);
				return 2;
			}
			if (take_opt(&o, opt, optarg))
				return 2;
		}
	}
	if (!strcmp(argv[0], "config") || !strcmp(argv[0], "request") ||
	    !strcmp(argv[0], "show") || !strcmp(argv[0], "watch") || !strcmp(argv[0], "qmp")) {
		if (qmp_connect(&q, sock))
			return 1;
	} else {
		fprintf(stderr, "wsr-host: unknown command '%s' (try --help)\n", argv[0]);
		return 2;
	}
	if (!strcmp(argv[0], "config"))
		return cmd_config(&q, argc, argv);
	if (!strcmp(argv[0], "request") && (o.count > 0 || o.waits))
		return cmd_request_wait(&q, o.count > 0 ? o.count : 1, o.batch ? o.batch : 1,
					o.timeout_ms, o.json);
	if (!strcmp(argv[0], "request"))
		return qmp_exec_built(&q, qmp_cmd("working-set-request"), NULL) ? 1 : 0;
	if (!strcmp(argv[0], "show"))
		return cmd_show(&q, device, o.json);
	if (!strcmp(argv[0], "watch"))
		return cmd_watch(&q, o.json, o.count);
	if (argc != 2) {
		fprintf(stderr, "wsr-host: qmp takes one JSON command, or - for stdin\n");
		return 2;
	}
	if (!strcmp(argv[1], "-"))
		return qmp_stdin(&q);
	{
		/* the user's command goes as written, its reply as QEMU sent it */
		const struct qmp_msg *r;
		int err = qmp_exec(&q, argv[1], &r);

		if (!err)
			fwrite(r->raw, 1, r->len, stdout);
		return err ? 1 : 0;
	}
}
