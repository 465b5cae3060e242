// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host: the host side of wsr's working-set reporting.  Talks QMP to a
 * QEMU whose virtio-balloon has working-set=on (qemu-patches/): configures
 * the guest's report stream, requests reports, prints the latest report
 * and waits for WORKING_SET_EVENTs.
 *
 * QMP is line-delimited JSON; we only need to send fixed commands and
 * recognise replies and events, so the JSON handling is a small scanner
 * for the fields we print, not a general parser.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "parse.h"

#define PAGE_SIZE 4096ULL

struct qmp {
	FILE *in;
	FILE *out;
	char line[1 << 16];
};

static void usage(FILE *f)
{
	fputs(
"usage: wsr-host --qmp SOCKET COMMAND [ARGS]\n"
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
"                  ask the guest for a fresh report.  With --count or\n"
"                  --batch, send N requests (default 1) B at a time\n"
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
"  wsr-host --qmp /tmp/vm.qmp request && wsr-host --qmp /tmp/vm.qmp show\n"
"  wsr-host --qmp /tmp/vm.qmp watch --json --count 10\n", f);
}

/* read the next line that is not an event (or an event when @event) */
static const char *qmp_read(struct qmp *q, int event)
{
	while (fgets(q->line, sizeof(q->line), q->in)) {
		int is_event = strstr(q->line, "\"event\"") != NULL;

		if (is_event == event)
			return q->line;
	}
	return NULL;
}

/* send @cmd, return 0 and the reply line, or print the QMP error */
static int qmp_exec(struct qmp *q, const char *cmd, const char **reply)
{
	const char *r;

	fprintf(q->out, "%s\n", cmd);
	fflush(q->out);
	r = qmp_read(q, 0);
	if (!r) {
		fprintf(stderr, "wsr-host: QMP connection closed\n");
		return -1;
	}
	if (strstr(r, "\"error\"")) {
		const char *d = strstr(r, "\"desc\": \"");
		int n = d ? (int)strcspn(d + 9, "\"") : (int)strlen(r);

		fprintf(stderr, "wsr-host: QEMU refused: %.*s\n", n, d ? d + 9 : r);
		return 1;
	}
	if (reply)
		*reply = r;
	return 0;
}

/* "qmp -": the commands of stdin over one connection, each reply printed */
static int qmp_stream(struct qmp *q)
{
	char *cmd = NULL;
	size_t cap = 0;
	const char *r;
	ssize_t n;
	int err = 0;

	while ((n = getline(&cmd, &cap, stdin)) > 0) {
		cmd[strcspn(cmd, "\n")] = 0;
		if (!cmd[0])
			continue;
		fprintf(q->out, "%s\n", cmd);
		fflush(q->out);
		r = qmp_read(q, 0);
		if (!r) {
			fprintf(stderr, "wsr-host: QMP connection closed\n");
			err = 1;
			break;
		}
		fputs(r, stdout);
		fflush(stdout);
	}
	free(cmd);
	return err;
}

static int qmp_connect(struct qmp *q, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "wsr-host: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "wsr-host: cannot connect to %s: %s\n", path, strerror(errno));
		return -1;
	}
	q->in = fdopen(fd, "r");
	q->out = fdopen(dup(fd), "w");
	if (!q->in || !q->out || !qmp_read(q, 0))	/* the greeting */
		return -1;
	return qmp_exec(q, "{\"execute\":\"qmp_capabilities\"}", NULL) ? -1 : 0;
}

/* the value after "key": between @p and @end, or NULL when none */
static const char *value_in(const char *p, const char *end, const char *key)
{
	char pat[64];
	const char *k;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	k = strstr(p, pat);
	if (!k || k >= end)
		return NULL;
	k += strlen(pat);
	while (*k == ' ')
		k++;
	return k;
}

/* the number of "key": between @p and @end; -1 when none */
static int number_in(const char *p, const char *end, const char *key,
		     unsigned long long *v)
{
	const char *k = value_in(p, end, key);

	if (!k)
		return -1;
	*v = strtoull(k, NULL, 10);
	return 0;
}

/* the string of "key": between @p and @end, into @v; -1 when none */
static int string_in(const char *p, const char *end, const char *key,
		     char *v, size_t len)
{
	const char *k = value_in(p, end, key);
	size_t n;

	if (!k)
		return -1;
	if (*k != '"')
		return -1;
	n = strcspn(++k, "\"");
	if (n >= len || k + n >= end)
		return -1;
	memcpy(v, k, n);
	v[n] = 0;
	return 0;
}

/*
 * Why the report was sent and how old its data is, the fields of its
 * header; -1 when the line has no report (a guest-working-set before the
 * first one).  Only the report has these keys.
 */
static int report_header(const char *json, char *cause, size_t len,
			 unsigned long long *data_age_ms)
{
	const char *end = json + strlen(json);

	if (string_in(json, end, "cause", cause, len) ||
	    number_in(json, end, "data-age-ms", data_age_ms))
		return -1;
	return 0;
}

/*
 * A report as "cause=<cause> data_age_ms=<ms>", then its "nodes" array in
 * the seed's format; bytes become pages.  QEMU orders an object's keys as
 * it likes, so each node and each bin object is bounded first and its keys
 * looked up inside it.
 */
static void print_report(const char *json)
{
	const char *p = strstr(json, "\"nodes\""), *open, *arr, *arr_end, *end, *b, *b_end;
	unsigned long long node, ms, anon, file, age;
	char cause[32];

	if (!report_header(json, cause, sizeof(cause), &age))
		printf("cause=%s data_age_ms=%llu\n", cause, age);
	while (p && (p = strstr(p, "\"bins\""))) {
		for (open = p; open > json && *open != '{'; open--)
			;
		arr = strchr(p, '[');
		arr_end = arr ? strchr(arr, ']') : NULL;
		end = arr_end ? strchr(arr_end, '}') : NULL;
		if (!end || number_in(open, end, "node-id", &node))
			return;
		printf("N%llu\n", node);
		for (b = arr; (b = strchr(b, '{')) && b < arr_end; b = b_end) {
			b_end = strchr(b, '}');
			if (!b_end || number_in(b, b_end, "idle-age-ms", &ms) ||
			    number_in(b, b_end, "anon-bytes", &anon) ||
			    number_in(b, b_end, "file-bytes", &file))
				return;
			printf("%llu anon=%llu file=%llu\n", ms, anon / PAGE_SIZE,
			       file / PAGE_SIZE);
		}
		p = end;
	}
}

/*
 * A QMP line (an object) as QEMU sent it, with the report's cause and data
 * age first under wsr's names: "cause" and "data_age_ms", null when there
 * is no report
 */
static void print_json(const char *line)
{
	unsigned long long age;
	char cause[32];

	line += strspn(line, " ");
	if (*line != '{') {
		fputs(line, stdout);
		return;
	}
	if (report_header(line, cause, sizeof(cause), &age))
		printf("{\"cause\": null, \"data_age_ms\": null, %s", line + 1);
	else
		printf("{\"cause\": \"%s\", \"data_age_ms\": %llu, %s", cause, age, line + 1);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* the next line from QEMU within @ms, events included; NULL on time-out */
static const char *qmp_read_within(struct qmp *q, double ms)
{
	struct timeval tv = { .tv_sec = (long)(ms / 1000),
			      .tv_usec = (long)(ms * 1000) % 1000000 };

	if (ms <= 0)
		return NULL;
	setsockopt(fileno(q->in), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	clearerr(q->in);
	return fgets(q->line, sizeof(q->line), q->in);
}

/* what "request --count N --batch B" has seen so far */
struct answers {
	double *lat, t0;
	long want, answered, extra, reclaim;
	int json;
};

/*
 * One line from QEMU while requests wait: an answer is a WORKING_SET_EVENT
 * of cause request, one too many when none of ours is outstanding; a
 * reclaim report is counted, not an answer.  Returns 1 for a reply to a
 * command, 0 for an event.
 */
static int answer_line(struct answers *a, const char *l)
{
	unsigned long long age;
	char cause[32];

	if (!strstr(l, "\"event\""))
		return 1;
	if (!strstr(l, "\"WORKING_SET_EVENT\"") ||
	    report_header(l, cause, sizeof(cause), &age))
		return 0;
	if (strcmp(cause, "request")) {
		a->reclaim++;
	} else if (a->answered >= a->want) {
		a->extra++;
	} else {
		a->lat[a->answered] = now_ms() - a->t0;
		if (a->json)
			printf("{\"answer\":%ld,\"latency_ms\":%.3f,\"data_age_ms\":%llu}\n",
			       a->answered + 1, a->lat[a->answered], age);
		else
			printf("answer %ld latency_ms=%.3f data_age_ms=%llu\n",
			       a->answered + 1, a->lat[a->answered], age);
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
static int send_request(struct qmp *q, struct answers *a, double deadline)
{
	const char *l;

	for (;;) {
		fputs("{\"execute\":\"working-set-request\"}\n", q->out);
		fflush(q->out);
		while ((l = qmp_read_within(q, deadline - now_ms())) && !answer_line(a, l))
			;
		if (!l)
			return -1;
		if (!strstr(l, "\"error\""))
			return 0;
		if (!strstr(l, "try again later") || now_ms() > deadline) {
			fprintf(stderr, "wsr-host: QEMU refused a request: %s", l);
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
	const char *l;
	double deadline;
	long sent = 0, i;
	int err = 0;

	if (!a.lat)
		return 1;
	while (sent < count && !err) {
		long n = count - sent < batch ? count - sent : batch;

		a.t0 = now_ms();
		deadline = a.t0 + timeout_ms;
		for (i = 0; i < n && !err; i++) {
			/* its answer may come before QEMU's reply to it */
			a.want = sent + 1;
			err = send_request(q, &a, deadline);
			sent += !err;
			a.want = sent;
		}
		while (!err && a.answered < a.want && (l = qmp_read_within(q, deadline - now_ms())))
			answer_line(&a, l);
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
	return err ? 1 : 0;
}

/* a number given on the command line, by the loader's rules */
static int parse_num(const char *s, const char *what, unsigned long long *v)
{
	struct wsr_err err;
	__u64 n;

	if (wsr_parse_u64(s, &n, what, &err)) {
		fprintf(stderr, "wsr-host: %s\n", err.msg);
		return -1;
	}
	*v = n;
	return 0;
}

/*
 * The bins as the guest CLI takes them (3 to 15 strictly increasing ms; a
 * final catch-all bound, as printed, is dropped), the thresholds in ms.
 * QEMU checks the count against its working-set-bins.
 */
static int cmd_config(struct qmp *q, int argc, char **argv)
{
	__u64 ivals[WSR_MAX_INTERVALS], refresh, report;
	char cmd[1024];
	struct wsr_err err;
	__u32 nr, i;
	int n;

	if (argc != 4) {
		fprintf(stderr, "wsr-host: config takes INTERVALS REFRESH_MS REPORT_MS\n");
		return 2;
	}
	if (wsr_parse_intervals(argv[1], ivals, &nr, &err)) {
		fprintf(stderr, "wsr-host: %s; INTERVALS are %d to %d strictly increasing ms, "
			"comma-separated\n", err.msg, WSR_MIN_INTERVALS, WSR_MAX_INTERVALS);
		return 2;
	}
	if (wsr_parse_ms(argv[2], &refresh, WSR_MAX_MS, "refresh", &err) ||
	    wsr_parse_ms(argv[3], &report, WSR_MAX_MS, "report", &err)) {
		fprintf(stderr, "wsr-host: %s\n", err.msg);
		return 2;
	}
	n = snprintf(cmd, sizeof(cmd), "{\"execute\":\"working-set-config\",\"arguments\":"
		     "{\"intervals\":[");
	for (i = 0; i < nr; i++)
		n += snprintf(cmd + n, sizeof(cmd) - n, "%s%llu", i ? "," : "",
			      (unsigned long long)ivals[i]);
	snprintf(cmd + n, sizeof(cmd) - n, "],\"refresh\":%llu,\"report\":%llu}}",
		 (unsigned long long)refresh, (unsigned long long)report);
	return qmp_exec(q, cmd, NULL) ? 1 : 0;
}

static int cmd_show(struct qmp *q, const char *device, int json)
{
	const char *r;
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "{\"execute\":\"qom-get\",\"arguments\":"
		 "{\"path\":\"%s\",\"property\":\"guest-working-set\"}}", device);
	if (qmp_exec(q, cmd, &r))
		return 1;
	if (json)
		print_json(r);
	else
		print_report(r);
	return 0;
}

static int cmd_watch(struct qmp *q, int json, long count)
{
	const char *e;

	while (count != 0 && (e = qmp_read(q, 1))) {
		if (!strstr(e, "\"WORKING_SET_EVENT\""))
			continue;
		if (json)
			print_json(e);
		else
			print_report(e);
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
	unsigned long long n;
	struct qmp q = {};
	long count = -1, batch = 0, timeout_ms = 10000;
	int json = 0, opt;

	while ((opt = getopt_long(argc, argv, "+q:d:jc:b:t:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'q':
			sock = optarg;
			break;
		case 'd':
			device = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'c':
			if (parse_num(optarg, "--count", &n) || !n) {
				fprintf(stderr, "wsr-host: --count must be at least 1\n");
				return 2;
			}
			count = (long)n;
			break;
		case 'b':
		case 't':
			if (parse_num(optarg, opt == 'b' ? "--batch" : "--timeout-ms", &n) || !n ||
			    n > 1000000) {
				fprintf(stderr, "wsr-host: --batch and --timeout-ms take 1..1000000\n");
				return 2;
			}
			*(opt == 'b' ? &batch : &timeout_ms) = (long)n;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
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
			if (opt == 'j') {
				json = 1;
			} else if (opt == 'c' && !parse_num(optarg, "--count", &n) && n) {
				count = (long)n;
			} else if ((opt == 'b' || opt == 't') && !strcmp(argv[0], "request") &&
				   !parse_num(optarg, "--batch/--timeout-ms", &n) && n && n <= 1000000) {
				*(opt == 'b' ? &batch : &timeout_ms) = (long)n;
			} else {
				fprintf(stderr, "wsr-host: bad option for %s\n", argv[0]);
				return 2;
			}
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
	if (!strcmp(argv[0], "request") && (count > 0 || batch))
		return cmd_request_wait(&q, count > 0 ? count : 1, batch ? batch : 1,
					timeout_ms, json);
	if (!strcmp(argv[0], "request"))
		return qmp_exec(&q, "{\"execute\":\"working-set-request\"}", NULL) ? 1 : 0;
	if (!strcmp(argv[0], "show"))
		return cmd_show(&q, device, json);
	if (!strcmp(argv[0], "watch"))
		return cmd_watch(&q, json, count);
	if (argc != 2) {
		fprintf(stderr, "wsr-host: qmp takes one JSON command, or - for stdin\n");
		return 2;
	}
	if (!strcmp(argv[1], "-"))
		return qmp_stream(&q);
	{
		const char *r;
		int err = qmp_exec(&q, argv[1], &r);

		if (!err)
			fputs(r, stdout);
		return err ? 1 : 0;
	}
}
