// SPDX-License-Identifier: GPL-2.0
/* wsr-host's QMP connection: see client.h. */
#define _GNU_SOURCE
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
 * on time-out, EOF or garbage (said on stderr).
 */
static const struct qmp_msg *next_msg(struct qmp *q, double deadline)
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
		if (n <= 0)
			return NULL;
		r = qmp_stream_feed(&q->s, buf, n);
		if (r == -2)
			err_msg("QEMU sent a message of more than %zu bytes", q->s.max);
		if (r)
			return NULL;
	}
}

const struct qmp_msg *qmp_next(struct qmp *q, double deadline)
{
	return next_msg(q, deadline);
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
	return qmp_handshake(q, path);
}

int qmp_handshake(struct qmp *q, const char *what)
{
	const struct qmp_msg *m;
	const char *desc;

	if (qmp_stream_init(&q->s))
		return -1;
	m = qmp_next(q, -1);
	if (!m || qmp_kind(m->obj) != QMP_GREETING) {
		desc = m ? qmp_error_desc(m->obj) : NULL;
		if (desc)
			err_msg("%s: %s", what, desc);
		else
			err_msg("no QMP greeting on %s", what);
		return -1;
	}
	return qmp_exec_built(q, qmp_cmd("qmp_capabilities"), NULL) ? -1 : 0;
}

int qmp_peer_pid(const struct qmp *q)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (q->fd < 0 || getsockopt(q->fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) ||
	    len != sizeof(cr) || cr.pid <= 0)
		return 0;
	return cr.pid;
}

void qmp_close(struct qmp *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	qmp_stream_free(&q->s);
	free(q->out);
	q->out = NULL;
	q->out_len = 0;
}

int qmp_open_nb(struct qmp *q, const char *path, size_t max, char *err, size_t err_len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	memset(q, 0, sizeof(*q));
	q->fd = -1;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, err_len, "socket path too long");
		return -1;
	}
	strcpy(sa.sun_path, path);
	q->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (q->fd < 0 || connect(q->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		snprintf(err, err_len, "cannot connect: %s", errno == EAGAIN ?
			 "the socket's backlog is full (another client?)" : strerror(errno));
		qmp_close(q);
		return -1;
	}
	return qmp_adopt_nb(q, q->fd, max, err, err_len);
}

int qmp_adopt_nb(struct qmp *q, int fd, size_t max, char *err, size_t err_len)
{
	memset(q, 0, sizeof(*q));
	q->fd = fd;
	if (qmp_stream_init(&q->s)) {
		snprintf(err, err_len, "out of memory");
		qmp_close(q);
		return -1;
	}
	q->s.max = max;
	return 0;
}

int qmp_flush(struct qmp *q)
{
	ssize_t n;

	while (q->out_len) {
		n = send(q->fd, q->out, q->out_len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -1;
		memmove(q->out, q->out + n, q->out_len - n);
		q->out_len -= n;
	}
	return 0;
}

int qmp_queue(struct qmp *q, char *cmd)
{
	size_t len = cmd ? strlen(cmd) : 0;
	char *out;

	if (!cmd)
		return -1;
	out = realloc(q->out, q->out_len + len + 1);
	if (!out) {
		free(cmd);
		return -1;
	}
	memcpy(out + q->out_len, cmd, len);
	out[q->out_len + len] = '\n';
	q->out = out;
	q->out_len += len + 1;
	free(cmd);
	return qmp_flush(q);
}

int qmp_fill(struct qmp *q, char *err, size_t err_len)
{
	char buf[1 << 16];
	ssize_t n;
	int r;

	do
		n = read(q->fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n <= 0) {
		/* a reset is a close with our last command unread */
		if (!n || errno == ECONNRESET) {
			snprintf(err, err_len, "QEMU closed the socket");
			return -1;
		}
		snprintf(err, err_len, "read: %s", strerror(errno));
		return -2;
	}
	r = qmp_stream_feed(&q->s, buf, n);
	if (r == -2)
		snprintf(err, err_len, "a message of more than %zu bytes: cut off", q->s.max);
	else if (r)
		snprintf(err, err_len, "out of memory");
	return r ? -2 : 0;
}
