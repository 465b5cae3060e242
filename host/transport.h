/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What balance reads of a VM and asks of it, whichever way it is
 * reached: QEMU's own QMP socket, or libvirt's C API (virt.h).  Each
 * transport turns what it receives into a struct vm_said, its values
 * parsed: over QMP by said_from_qmp() from QEMU's message, through
 * libvirt by the bridge's thread from libvirt's answers
 * (virt_said_from_stats(), virt_said_from_event()), never by way of
 * JSON made again.  A report is read by qmp_report_parse() either way.
 */
#ifndef __WSR_HOST_TRANSPORT_H
#define __WSR_HOST_TRANSPORT_H

#include <json-c/json.h>
#include "report.h"

/* the commands balance sends a VM, each queued at most once */
enum op {
	OP_BALLOON,	/* first: a decision goes before any read queued */
	/*
	 * before the balloon's size: memory plugged since the last tick
	 * moves the size as much, and is known to be no one's target
	 */
	OP_MEMSIZE,
	OP_QUERY,	/* next: after a balloon, where it starts from */
	OP_STATS_ON,
	OP_CONFIG,
	OP_STATS,
	OP_REQUEST,
	NR_OPS,
};

enum said_kind {
	SAID_NONE,	/* an event balance does not act on */
	SAID_OTHER,	/* a message that is no QMP greeting, reply or event */
	SAID_GREETING,	/* the VM is there: QMP's greeting, or libvirt's domain found */
	SAID_REPLY,	/* the answer to the command in flight: done (ok) or refused (desc) */
	SAID_REPORT,	/* a WORKING_SET_EVENT's report */
	SAID_BAD_REPORT, /* a WORKING_SET_EVENT without a well-formed report (desc: why) */
	SAID_RESET,	/* the guest was reset */
	SAID_ACTUAL,	/* BALLOON_CHANGE: the balloon's size */
	SAID_STOPPED,	/* libvirt: the domain stopped or crashed */
	SAID_BROKEN,	/* what came cannot be read: the connection is of no use (desc) */
};

struct vm_said {
	enum said_kind kind;
	int ok;			/* SAID_REPLY: done (1) or refused (0) */
	int valid;		/* SAID_REPLY: the value its command asks for was read */
	char desc[320];		/* why refused, why the report is bad */
	__u64 actual;		/* OP_QUERY, SAID_ACTUAL: the balloon's size, bytes */
	__u64 base, plugged;	/* OP_MEMSIZE: base-memory, plugged-memory (0 without) */
	struct ws_stats stats;	/* OP_STATS */
	__u64 stats_update;	/* OP_STATS: its last-update (0 before the guest sent any) */
	struct ws_report report; /* SAID_REPORT */
};

/*
 * A QMP message into *s: @op is the command in flight (NR_OPS when none),
 * whose reply's value is read.  Replies whose value is malformed are
 * SAID_REPLY with ok and valid 0.
 */
void said_from_qmp(struct json_object *msg, enum op op, struct vm_said *s);

/* a QMP event @name with its "data" (may be NULL) into *s */
void said_from_event(const char *name, struct json_object *data, struct vm_said *s);

#endif /* __WSR_HOST_TRANSPORT_H */
