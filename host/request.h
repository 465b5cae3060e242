/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsr-host request with --count, --batch, --timeout-ms or --json: the
 * requests sent over one connection and their answers (WORKING_SET_EVENTs
 * of cause request, read by qmp_report_parse()) waited for and timed.
 */
#ifndef __WSR_HOST_REQUEST_H
#define __WSR_HOST_REQUEST_H

#include "client.h"

/*
 * "request --count N --batch B": N requests, B sent back to back, each
 * batch waiting for its B answers over the one connection; a request's
 * latency runs from its batch's start to its answer.
 */
int cmd_request_wait(struct qmp *q, long count, long batch, long timeout_ms, int json);

#endif /* __WSR_HOST_REQUEST_H */
