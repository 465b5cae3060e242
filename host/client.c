// SPDX-License-Identifier: GPL-2.0
/* wsr-host's QMP connection: see client.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "libwsr.h"
#include "client.h"

double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * poll() for the time-out: the bytes of a message cut short by it stay in
 * the stream for the next call (stdio with SO_RCVTIMEO lost them).  NULL
 * on time-out, EOF or garbage; garbage is said on stderr unless @quiet
 * (balance, which logs a VM's failures its own way).
 */
static const struct qmp_msg *next_msg(struct qmp *q, double deadline, int quiet)
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
			if (!quiet)
				err_msg("QEMU sent something that is not JSON");
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

const struct qmp_msg *qmp_next(struct qmp *q, double deadline)
{
	return next_msg(q, deadline, 0);
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
		err_msg("QMP connection closed");
		return -1;
	}
	if (qmp_kind(r->obj) == QMP_ERROR) {
		desc = qmp_error_desc(r->obj);
		if (desc)
			err_msg("QEMU refused: %s", desc);
		else
			err_msg("QEMU refused: %.*s", qmp_msg_text_len(r), r->raw);
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
		err_msg("out of memory");
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
		err_msg("socket path too long: %s", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	q->fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (q->fd < 0 || connect(q->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err_msg("cannot connect to %s: %s", path, strerror(errno));
		return -1;
	}
	if (qmp_stream_init(&q->s))
		return -1;
	m = qmp_next(q, -1);
	if (!m || qmp_kind(m->obj) != QMP_GREETING) {
		err_msg("no QMP greeting on %s", path);
		return -1;
	}
	return qmp_exec_built(q, qmp_cmd("qmp_capabilities"), NULL) ? -1 : 0;
}

void qmp_close(struct qmp *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	qmp_stream_free(&q->s);
}

/* the next message until @deadline, quietly */
static const struct qmp_msg *next_quiet(struct qmp *q, double deadline)
{
	return next_msg(q, deadline, 1);
}

int qmp_call(struct qmp *q, char *cmd, const struct qmp_msg **reply, double deadline,
	     qmp_event_fn ev, void *arg)
{
	const struct qmp_msg *m;
	enum qmp_kind k;

	if (!cmd || qmp_send(q, cmd)) {
		free(cmd);
		return -1;
	}
	free(cmd);
	while ((m = next_quiet(q, deadline))) {
		k = qmp_kind(m->obj);
		if (k == QMP_RETURN || k == QMP_ERROR) {
			if (reply)
				*reply = m;
			return k == QMP_ERROR;
		}
		if (k == QMP_EVENT && ev)
			ev(arg, m);
	}
	return -1;
}

int qmp_pump(struct qmp *q, int do_read, qmp_event_fn ev, void *arg)
{
	const struct qmp_msg *m;
	char buf[1 << 16];
	ssize_t n;
	int r;

	if (do_read) {
		do
			n = read(q->fd, buf, sizeof(buf));
		while (n < 0 && errno == EINTR);
		if (n <= 0 || qmp_stream_feed(&q->s, buf, n))
			return -1;
	}
	while ((r = qmp_stream_next(&q->s, &m)) > 0)
		if (ev)
			ev(arg, m);
	return r < 0 ? -1 : 0;
}

int qmp_open(struct qmp *q, const char *path, double deadline, char *err, size_t err_len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const struct qmp_msg *m;

	q->fd = -1;
	memset(&q->s, 0, sizeof(q->s));
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, err_len, "socket path too long");
		return -1;
	}
	strcpy(sa.sun_path, path);
	/*
	 * Not blocking in connect(): a unix socket whose backlog is full
	 * (its one client served, others waiting) would hold the whole loop.
	 */
	q->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (q->fd < 0 || connect(q->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    fcntl(q->fd, F_SETFL, 0)) {
		snprintf(err, err_len, "cannot connect: %s", errno == EAGAIN ?
			 "the socket's backlog is full (another client?)" : strerror(errno));
		qmp_close(q);
		return -1;
	}
	if (qmp_stream_init(&q->s)) {
		snprintf(err, err_len, "out of memory");
		qmp_close(q);
		return -1;
	}
	m = next_quiet(q, deadline);
	if (!m || qmp_kind(m->obj) != QMP_GREETING) {
		snprintf(err, err_len, "no QMP greeting (another client on this socket?)");
		qmp_close(q);
		return -1;
	}
	if (qmp_call(q, qmp_cmd("qmp_capabilities"), NULL, deadline, NULL, NULL)) {
		snprintf(err, err_len, "qmp_capabilities failed");
		qmp_close(q);
		return -1;
	}
	return 0;
}
