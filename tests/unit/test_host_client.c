// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host's QMP over a real socket (host/client.c, and the wsr-host
 * binary) against a fake QEMU: a forked child serves QMP on a unix socket,
 * answers each command line with the next scripted reply, written in small
 * pieces a little apart so that one message takes many reads, and keeps
 * every line it received in a file.  No QEMU, no guest.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "client.h"
#include "hostmem.h"
#include "unit.h"

#define GREETING "{\"QMP\": {\"version\": {}, \"capabilities\": [\"oob\"]}}\r\n"
#define OK "{\"return\": {}}\r\n"

static char dir[64], sock_path[108], log_path[128];

/* @s to @fd in pieces of @piece bytes, 200 us apart */
static int send_slowly(int fd, const char *s, size_t piece)
{
	size_t len = strlen(s), n;
	ssize_t w;

	while (len) {
		n = len < piece ? len : piece;
		w = write(fd, s, n);
		if (w <= 0)
			return -1;
		s += w;
		len -= w;
		usleep(200);
	}
	return 0;
}

/*
 * The fake QEMU: greet, then answer the i-th line received with
 * replies[i] (NULL: close).  Every line received goes to log_path.
 */
static void fake_qemu(int lfd, const char *const *replies, size_t piece)
{
	FILE *log = fopen(log_path, "w"), *in;
	char *line = NULL;
	size_t cap = 0;
	int fd = accept(lfd, NULL, NULL);

	if (!log || fd < 0 || send_slowly(fd, GREETING, piece))
		_exit(1);
	in = fdopen(dup(fd), "r");
	if (!in)
		_exit(1);
	while (*replies && getline(&line, &cap, in) > 0) {
		fputs(line, log);
		fflush(log);
		if (send_slowly(fd, *replies++, piece))
			_exit(1);
	}
	_exit(0);
}

/* start the fake (its pid), listening before the client may connect */
static pid_t start_fake(const char *const *replies, size_t piece)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	pid_t pid;
	int lfd;

	strcpy(sa.sun_path, sock_path);
	unlink(sock_path);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1))
		return -1;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fake_qemu(lfd, replies, piece);
	}
	close(lfd);
	return pid;
}

/* the fake's exit status, or -1 */
static int end_fake(pid_t pid)
{
	int st;

	kill(pid, SIGTERM);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 0;
}

/*
 * The client knows the process that listens on the socket (QEMU, for
 * balance: its memory in the host's swap), here this one, and reads that
 * process's swap
 */
static const char *peer_is_the_listening_process(void)
{
	static const char *replies[] = { OK, NULL };
	char err[128] = "";
	struct qmp q;
	__u64 swapped = ~0ULL;
	pid_t pid;

	memset(&q, 0, sizeof(q));
	pid = start_fake(replies, 1 << 16);
	ASSERT_GT(pid, 0, "the fake QEMU: %s", strerror(errno));
	ASSERT_OK(qmp_connect(&q, sock_path), "the connection");
	ASSERT_EQ(qmp_peer_pid(&q), getpid(), "the peer's pid, against the listener's");
	ASSERT_OK(hostmem_read_swapped(qmp_peer_pid(&q), &swapped, err, sizeof(err)),
		  "its swap: %s", err);
	ASSERT_TRUE(swapped != ~0ULL, "its swap was read");
	qmp_close(&q);
	ASSERT_EQ(qmp_peer_pid(&q), 0, "a closed connection's peer");
	ASSERT_LT(hostmem_read_swapped(0, &swapped, err, sizeof(err)), 0, "pid 0's swap");
	end_fake(pid);
	return NULL;
}

/* a reply of 200 KiB, split over many reads, is one message, whole */
static const char *reply_over_64k_split_across_reads(void)
{
	static const char *replies[3] = { OK };
	size_t big = 200 << 10, i;
	char *text = malloc(big + 64), *p = text;
	const struct qmp_msg *m;
	struct json_object *v;
	struct qmp q;
	pid_t pid;

	ASSERT_OK_PTR(text, "malloc");
	p += sprintf(p, "{\"return\": {\"s\": \"");
	for (i = 0; i < big; i++)
		*p++ = 'a' + i % 26;
	strcpy(p, "\"}}\r\n");
	replies[1] = text;
	/* 4000 bytes at a time: the reply takes more than 50 writes */
	pid = start_fake(replies, 4000);
	ASSERT_GT(pid, 0, "the fake QEMU: %s", strerror(errno));
	ASSERT_OK(qmp_connect(&q, sock_path), "the connection");
	ASSERT_OK(qmp_exec_built(&q, qmp_cmd_qom_get("/machine/x", "big"), &m), "qom-get");
	ASSERT_EQ(qmp_kind(m->obj), QMP_RETURN, "the reply's kind");
	ASSERT_EQ(m->len, strlen(text), "the reply's raw bytes");
	ASSERT_MEMEQ(m->raw, text, m->len, "the reply's raw text, against the text sent");
	ASSERT_TRUE(json_object_object_get_ex(json_object_object_get(m->obj, "return"), "s", &v),
		    "the reply's string");
	ASSERT_EQ(json_object_get_string_len(v), big, "the reply's string length");
	qmp_close(&q);
	free(text);
	ASSERT_OK(end_fake(pid), "the fake QEMU's exit status");
	return NULL;
}

/*
 * The event loop's way (balance's): the next message, polling the
 * non-blocking socket until @deadline; NULL on time-out or error.
 */
static const struct qmp_msg *next_nb(struct qmp *q, double deadline)
{
	const struct qmp_msg *m;
	char err[128];

	for (;;) {
		struct pollfd p = { .fd = q->fd, .events = POLLIN |
				    (qmp_pending(q) ? POLLOUT : 0) };
		int r = qmp_stream_next(&q->s, &m);

		if (r)
			return r > 0 ? m : NULL;
		if (now_ms() >= deadline || poll(&p, 1, 10) < 0 ||
		    ((p.revents & POLLOUT) && qmp_flush(q)) ||
		    ((p.revents & POLLIN) && qmp_fill(q, err, sizeof(err))))
			return NULL;
	}
}

/* the reply to @cmd, the events before it counted in *events */
static const struct qmp_msg *call_nb(struct qmp *q, char *cmd, int *events)
{
	const struct qmp_msg *m;
	double deadline = now_ms() + 5000;

	if (qmp_queue(q, cmd))
		return NULL;
	while ((m = next_nb(q, deadline)) && qmp_kind(m->obj) == QMP_EVENT)
		++*events;
	return m;
}

/*
 * A reply holding the word "event", as a key below the top and in
 * strings, is the reply; the real event before it is an event.  Over the
 * event loop's non-blocking calls, with every message in pieces.
 */
static const char *reply_with_event_inside_is_the_reply(void)
{
	static const char *const replies[] = {
		OK,
		"{\"event\": \"STOP\", \"timestamp\": {\"seconds\": 1, \"microseconds\": 2}}\r\n"
		"{\"return\": {\"event\": \"WORKING_SET_EVENT\", \"s\": \"\\\"event\\\": 1\\n\"}}\r\n",
		"{\"return\": [\"event\"]}\r\n",
		NULL,
	};
	const struct qmp_msg *m;
	struct json_object *v;
	int events = 0;
	char err[256];
	struct qmp q;
	pid_t pid = start_fake(replies, 7);

	ASSERT_GT(pid, 0, "the fake QEMU: %s", strerror(errno));
	ASSERT_OK(qmp_open_nb(&q, sock_path, 4096, err, sizeof(err)), "open: %s", err);
	m = next_nb(&q, now_ms() + 5000);
	ASSERT_OK_PTR(m, "the greeting");
	ASSERT_EQ(qmp_kind(m->obj), QMP_GREETING, "the greeting's kind");
	m = call_nb(&q, qmp_cmd("qmp_capabilities"), &events);
	ASSERT_OK_PTR(m, "qmp_capabilities' reply");
	ASSERT_EQ(qmp_kind(m->obj), QMP_RETURN, "qmp_capabilities' reply's kind");
	m = call_nb(&q, qmp_cmd("query-status"), &events);
	ASSERT_OK_PTR(m, "the first reply");
	ASSERT_EQ(events, 1, "events handed over");
	ASSERT_EQ(qmp_kind(m->obj), QMP_RETURN, "the first reply's kind");
	ASSERT_STREQ(qmp_event_name(m->obj), "", "the first reply's event name");
	ASSERT_TRUE(json_object_object_get_ex(json_object_object_get(m->obj, "return"), "s", &v),
		    "the first reply's string");
	ASSERT_STREQ(json_object_get_string(v), "\"event\": 1\n", "the first reply's string");
	m = call_nb(&q, qmp_cmd("query-status"), &events);
	ASSERT_OK_PTR(m, "the second reply");
	ASSERT_EQ(events, 1, "events handed over");
	ASSERT_TRUE(json_object_is_type(json_object_object_get(m->obj, "return"), json_type_array),
		    "the second reply's array");
	qmp_close(&q);
	ASSERT_OK(end_fake(pid), "the fake QEMU's exit status");
	return NULL;
}

/* the lines the fake received, or NULL */
static char *received(void)
{
	FILE *f = fopen(log_path, "r");
	char *s = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return NULL;
	n = getdelim(&s, &cap, 0, f);
	fclose(f);
	if (n < 0) {
		free(s);
		return NULL;
	}
	return s;
}

/*
 * "wsr-host --device DEV show": DEV with quotes, backslashes and control
 * characters reaches QEMU as one line of JSON whose path is DEV.
 */
static const char *device_reaches_qemu_escaped(void)
{
	static const char *const devs[] = {
		"/machine/peripheral/balloon0",
		"/machine/a\"b\\c\nd\te\x01\x1f/\"}, \"x\": {\"",
	};
	static const char *const replies[] = {
		OK,
		"{\"return\": {\"last-update-ms\": 0, \"reports\": 0, \"nodes\": []}}\r\n",
		NULL,
	};
	struct json_object *cmd, *args, *v;
	char *log, *second;
	unsigned int i;
	pid_t pid, host;
	int st;

	for (i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		pid = start_fake(replies, 4096);
		ASSERT_GT(pid, 0, "the fake QEMU: %s", strerror(errno));
		host = fork();
		if (host == 0) {
			execl(WSR_HOST_BIN, WSR_HOST_BIN, "--qmp", sock_path, "--device", devs[i],
			      "show", (char *)NULL);
			_exit(127);
		}
		ASSERT_GT(host, 0, "fork: %s", strerror(errno));
		ASSERT_EQ(waitpid(host, &st, 0), host, "waitpid");
		ASSERT_EQ(st, 0, "wsr-host show's exit status");
		ASSERT_OK(end_fake(pid), "the fake QEMU's exit status");
		log = received();
		ASSERT_OK_PTR(log, "the lines received");
		/* two lines: qmp_capabilities, then the qom-get */
		second = strchr(log, '\n');
		ASSERT_OK_PTR(second, "the second line received: %s", log);
		ASSERT_EQ(strchr(second + 1, '\n') - log, (long)strlen(log) - 1,
			  "the end of the second line: %s", log);
		cmd = json_tokener_parse(second + 1);
		ASSERT_OK_PTR(cmd, "device %u's command parsed: %s", i, second + 1);
		ASSERT_TRUE(json_object_object_get_ex(cmd, "arguments", &args),
			    "device %u's command's arguments", i);
		ASSERT_TRUE(json_object_object_get_ex(args, "path", &v), "device %u's path", i);
		ASSERT_STREQ(json_object_get_string(v), devs[i], "device %u's path", i);
		ASSERT_EQ(json_object_object_length(args), 2, "device %u's command's arguments", i);
		json_object_put(cmd);
		free(log);
	}
	return NULL;
}

/*
 * "wsr-host --qmp DIR/none @args" (no socket there): its exit status, or
 * -1, and what it said into @out
 */
static int host_said(const char *args, char *out, size_t len)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "%s --qmp %s/none %s 2>&1", WSR_HOST_BIN, dir, args);
	return unit_run(cmd, out, len);
}

/*
 * wsr-host's numbers by libwsr's rules and messages (lib/parse.c), before
 * or after the command; refused before any connection (the socket is
 * not there).
 */
static const char *options_follow_the_loaders_rules(void)
{
	static const char *const cases[][2] = {
		{ "request --count 0", "wsr-host: --count must be at least 1\n" },
		{ "--count 0 watch", "wsr-host: --count must be at least 1\n" },
		{ "request --count x", "wsr-host: --count: 'x' is not a number\n" },
		{ "request --batch 0", "wsr-host: --batch must be 1 to 1000000\n" },
		{ "--timeout-ms 1000001 request", "wsr-host: --timeout-ms must be 1 to 1000000\n" },
		{ "show --batch 2", "wsr-host: --batch and --timeout-ms are for request\n" },
	};
	char out[512];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(host_said(cases[i][0], out, sizeof(out)), 2, "%s's exit status (%s)",
			  cases[i][0], out);
		ASSERT_STREQ(out, cases[i][1], "what %s said", cases[i][0]);
	}
	return NULL;
}

/*
 * QEMU and the driver refuse a value of more than a week
 * (VIRTIO_BALLOON_WS_MAX_MS): config says so itself, before it connects;
 * a week is taken (then the missing socket fails it, status 1).
 */
static const char *config_is_bounded_by_the_wire(void)
{
	static const char *const beyond[][2] = {
		{ "config 1,2,604800001 1 1", "wsr-host: intervals: 604800001 is too large "
					      "(at most 604800000 ms)" },
		{ "config 1,2,3 604800001 1", "wsr-host: refresh: 604800001 is too large "
					      "(at most 604800000 ms)\n" },
		{ "config 1,2,3 1 604800001", "wsr-host: report: 604800001 is too large "
					      "(at most 604800000 ms)\n" },
	};
	char out[512];
	unsigned int i;

	for (i = 0; i < sizeof(beyond) / sizeof(beyond[0]); i++) {
		ASSERT_EQ(host_said(beyond[i][0], out, sizeof(out)), 2, "%s's exit status (%s)",
			  beyond[i][0], out);
		ASSERT_STRPREFIX(out, beyond[i][1], "what %s said", beyond[i][0]);
	}
	ASSERT_EQ(host_said("config 1,2,604800000 604800000 604800000", out, sizeof(out)), 1,
		  "a week's exit status (%s)", out);
	ASSERT_HAS_SUBSTR(out, "cannot connect", "what a week said");
	return NULL;
}

/*
 * "wsr-host show" of a report QEMU sent malformed: nothing printed, the
 * part that is wrong said, status 1; the property before the first
 * report is no error (nothing printed, status 0: device_reaches_...)
 */
static const char *show_of_a_malformed_report_fails_and_says_why(void)
{
	static const char *const replies[] = {
		OK,
		"{\"return\": {\"cause\": \"request\", \"data-age-ms\": 3, \"nodes\": "
		"[{\"node-id\": 0, \"bins\": [{\"idle-age-ms\": 1000, \"anon-bytes\": \"4096\", "
		"\"file-bytes\": 0}]}]}}\r\n",
		NULL,
	};
	char cmd[512], out[512];
	pid_t pid = start_fake(replies, 4096);

	ASSERT_GT(pid, 0, "the fake QEMU: %s", strerror(errno));
	snprintf(cmd, sizeof(cmd), "%s --qmp %s show 2>&1", WSR_HOST_BIN, sock_path);
	ASSERT_EQ(unit_run(cmd, out, sizeof(out)), 1, "show's exit status (%s)", out);
	ASSERT_STREQ(out, "wsr-host: QEMU sent a malformed report: node 0, bin 0: \"anon-bytes\" "
		     "is not a non-negative integer\n", "what show said");
	ASSERT_OK(end_fake(pid), "the fake QEMU's exit status");
	return NULL;
}

static const struct unit_test tests[] = {
	{ "host_client_reply_over_64k_split_across_reads", reply_over_64k_split_across_reads },
	{ "host_client_peer_is_the_listening_process", peer_is_the_listening_process },
	{ "host_client_reply_with_event_inside_is_the_reply", reply_with_event_inside_is_the_reply },
	{ "host_client_device_reaches_qemu_escaped", device_reaches_qemu_escaped },
	{ "host_client_options_follow_the_loaders_rules", options_follow_the_loaders_rules },
	{ "host_client_config_is_bounded_by_the_wire", config_is_bounded_by_the_wire },
	{ "host_client_show_of_a_malformed_report_fails_and_says_why",
	  show_of_a_malformed_report_fails_and_says_why },
};

int main(void)
{
	int failed = 0;
	unsigned int i;

	/* a fake that closed first is an error, not a SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	strcpy(dir, "/tmp/wsr-client-XXXXXX");
	if (!mkdtemp(dir)) {
		printf("FAIL host_client: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(sock_path, sizeof(sock_path), "%s/qmp", dir);
	snprintf(log_path, sizeof(log_path), "%s/received", dir);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		const char *err = tests[i].fn();

		printf("%s %s%s%s\n", err ? "FAIL" : "PASS", tests[i].name, err ? ": " : "",
		       err ? err : "");
		failed += !!err;
	}
	unlink(sock_path);
	unlink(log_path);
	rmdir(dir);
	return failed != 0;
}
