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

#endif /* __WSR_HOST_CLIENT_H */
