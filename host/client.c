// SPDX-License-Identifier: GPL-2.0
/* wsr-host's QMP connection: see client.h. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "client.h"

double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * poll() for the time-out: the bytes of a message cut short by it stay in
 * the stream for the next call (stdio with SO_RCVTIMEO lost them).
 */
const struct qmp_msg *qmp_next(struct qmp *q, double deadline)
{
	struct pollfd pfd = { .fd = q->fd, .events = POLLIN };
	const struct qmp_msg *m;
	char buf[1 << 16];
	double left;
	ssize_t n;
	int r;

	for (;;) {
		r = qmp_stream_next(&q->s, &m);
		if (r > 0)
			return m;
		if (r < 0) {
			fprintf(stderr, "wsr-host: QEMU sent something that is not JSON\n");
			return NULL;
		}
		left = deadline - now_ms();
		r = poll(&pfd, 1, deadline < 0 ? -1 : left > 0 ? (int)left + 1 : 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return NULL;
		n = read(q->fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || qmp_stream_feed(&q->s, buf, n))
			return NULL;
	}
}

const struct qmp_msg *qmp_reply(struct qmp *q, double deadline)
{
	const struct qmp_msg *m;

	while ((m = qmp_next(q, deadline))) {
		enum qmp_kind k = qmp_kind(m->obj);

		if (k == QMP_RETURN || k == QMP_ERROR)
			return m;
	}
	return NULL;
}

/* @len bytes of @p; a QEMU that went away is an error, not a SIGPIPE */
static int send_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

int qmp_send(struct qmp *q, const char *cmd)
{
	return send_all(q->fd, cmd, strlen(cmd)) || send_all(q->fd, "\n", 1) ? -1 : 0;
}

int qmp_exec(struct qmp *q, const char *cmd, const struct qmp_msg **reply)
{
	const struct qmp_msg *r;
	const char *desc;

	r = qmp_send(q, cmd) ? NULL : qmp_reply(q, -1);
	if (!r) {
		fprintf(stderr, "wsr-host: QMP connection closed\n");
		return -1;
	}
	if (qmp_kind(r->obj) == QMP_ERROR) {
		desc = qmp_error_desc(r->obj);
		if (desc)
			fprintf(stderr, "wsr-host: QEMU refused: %s\n", desc);
		else
			fprintf(stderr, "wsr-host: QEMU refused: %.*s\n", (int)r->len, r->raw);
		return 1;
	}
	if (reply)
		*reply = r;
	return 0;
}

int qmp_exec_built(struct qmp *q, char *cmd, const struct qmp_msg **reply)
{
	int err;

	if (!cmd) {
		fprintf(stderr, "wsr-host: out of memory\n");
		return -1;
	}
	err = qmp_exec(q, cmd, reply);
	free(cmd);
	return err;
}

int qmp_connect(struct qmp *q, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const struct qmp_msg *m;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "wsr-host: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	q->fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (q->fd < 0 || connect(q->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "wsr-host: cannot connect to %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (qmp_stream_init(&q->s))
		return -1;
	m = qmp_next(q, -1);
	if (!m || qmp_kind(m->obj) != QMP_GREETING) {
		fprintf(stderr, "wsr-host: no QMP greeting on %s\n", path);
		return -1;
	}
	return qmp_exec_built(q, qmp_cmd("qmp_capabilities"), NULL) ? -1 : 0;
}
