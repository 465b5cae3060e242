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
};

/*
 * Connect, check the greeting and send qmp_capabilities (QEMU takes no
 * other command before it); 0 or -1.
 */
int qmp_connect(struct qmp *q, const char *path);

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
 * For a process that serves several QEMUs from one poll() loop (wsr-host
 * balance): events are handed to a callback instead of skipped, every wait
 * has a deadline, and nothing is printed.
 */
typedef void (*qmp_event_fn)(void *arg, const struct qmp_msg *event);

/*
 * Connect and negotiate as qmp_connect(), waiting at most until @deadline,
 * quietly: 0, or -1 with the reason in @err (the socket closed).
 */
int qmp_open(struct qmp *q, const char *path, double deadline, char *err, size_t err_len);

/* close the socket and free the stream (fd -1 after) */
void qmp_close(struct qmp *q);

/*
 * Send @cmd (freed; NULL: out of memory) and wait until @deadline for its
 * reply, handing the events that come first to @ev: 0 and the reply in
 * *reply (if asked), 1 when QEMU refused it (the error in *reply), -1 when
 * the connection is gone or the deadline passed (then nothing more can be
 * matched to a command on it: close it).
 */
int qmp_call(struct qmp *q, char *cmd, const struct qmp_msg **reply, double deadline,
	     qmp_event_fn ev, void *arg);

/*
 * After poll() said the socket is readable: read what is there (@read),
 * then hand every whole message buffered to @ev (replies too: none is
 * awaited).  0, or -1 when QEMU closed the connection or sent what is not
 * JSON.  Call it with @read 0 after qmp_call(), which may leave messages
 * buffered that poll() cannot see.
 */
int qmp_pump(struct qmp *q, int read, qmp_event_fn ev, void *arg);

#endif /* __WSR_HOST_CLIENT_H */
