/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsr-host's QMP connection: a unix socket to QEMU, commands out, and the
 * messages in as qmp.c cuts them, with time-outs.
 */
#ifndef __WSR_HOST_CLIENT_H
#define __WSR_HOST_CLIENT_H

#include "qmp.h"

struct qmp {
	int fd;
	struct qmp_stream s;
	char *out;		/* queued, not sent yet (the event loop's) */
	size_t out_len;
};

/*
 * Connect, check the greeting and send qmp_capabilities (QEMU takes no
 * other command before it); 0 or -1.
 */
int qmp_connect(struct qmp *q, const char *path);

/*
 * On a connected socket (virt.c's): the greeting, then qmp_capabilities;
 * 0 or -1 (said on stderr, naming @what, with the greeting's error if it
 * was one)
 */
int qmp_handshake(struct qmp *q, const char *what);

/* ms of CLOCK_MONOTONIC, the clock of the deadlines below */
double now_ms(void);

/*
 * The next message from QEMU, events included, waiting until @deadline
 * (no limit when negative); NULL on time-out, when QEMU closes the
 * connection, or when it sends what is not JSON.  The message is valid
 * until the next read.
 */
const struct qmp_msg *qmp_next(struct qmp *q, double deadline);

/* the next reply to a command ("return" or "error"), events skipped */
const struct qmp_msg *qmp_reply(struct qmp *q, double deadline);

/* send one command line; 0 or -1 */
int qmp_send(struct qmp *q, const char *cmd);

/*
 * Send @cmd and wait for its reply: 0 and the reply in *reply (if asked),
 * 1 when QEMU refused it (its "desc" printed), -1 when the connection is
 * gone.
 */
int qmp_exec(struct qmp *q, const char *cmd, const struct qmp_msg **reply);

/* qmp_exec() of a command built by qmp.c (NULL: out of memory), freed */
int qmp_exec_built(struct qmp *q, char *cmd, const struct qmp_msg **reply);

/*
 * For a process that serves several QEMUs from one event loop (wsr-host
 * balance): nothing below waits.  The socket is non-blocking, commands
 * are queued and sent as the socket takes them (poll() for POLLOUT while
 * qmp_pending() says bytes wait), what arrives is read as poll() says it
 * is there, and the caller takes the messages with qmp_stream_next() and
 * keeps its own deadlines.  Nothing is printed: the errors come back as
 * text for the caller's log.
 */

/*
 * Connect to @path without waiting (a unix socket connects at once, or
 * fails: a full backlog is EAGAIN, not a wait), its stream bounded to
 * @max bytes: 0, or -1 with the reason in @err.
 */
int qmp_open_nb(struct qmp *q, const char *path, size_t max, char *err, size_t err_len);

/* the same on a connected non-blocking socket (virt.c's), which @q then owns */
int qmp_adopt_nb(struct qmp *q, int fd, size_t max, char *err, size_t err_len);

/*
 * The process at the other end of @q's unix socket (QEMU, which listens
 * on it), as the kernel recorded it: its pid, or 0 if unknown.
 */
int qmp_peer_pid(const struct qmp *q);

/* close the socket, free the stream and what was not sent (fd -1 after) */
void qmp_close(struct qmp *q);

/*
 * Queue @cmd (freed; NULL: out of memory) and its newline, and send what
 * the socket takes now: 0, or -1 when the connection is gone.
 */
int qmp_queue(struct qmp *q, char *cmd);

/* bytes queued and not sent yet: poll() for POLLOUT while there are */
static inline size_t qmp_pending(const struct qmp *q)
{
	return q->out_len;
}

/* send what is queued and the socket takes: 0, or -1 when it is gone */
int qmp_flush(struct qmp *q);

/*
 * Read what the socket has into the stream (at most 64 KiB a call, so that
 * one busy peer takes its turn like the others): 0, -1 when QEMU closed
 * the connection, -2 on another error (a message longer than the
 * stream's bound, out of memory), the reason in @err.
 */
int qmp_fill(struct qmp *q, char *err, size_t err_len);

#endif /* __WSR_HOST_CLIENT_H */
