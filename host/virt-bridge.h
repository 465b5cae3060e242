/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsr-host's libvirt bridge, inside: a thread per connection to a
 * domain, serving a socket pair either as QMP (virt.c: the commands) or
 * as balance's records (virt-said.c: struct vm_said, transport.h).  The
 * connection, its events and their callbacks are virt.c's.
 */
#ifndef __WSR_HOST_VIRT_BRIDGE_H
#define __WSR_HOST_VIRT_BRIDGE_H

#include <pthread.h>
#include <libvirt/libvirt.h>
#include "transport.h"

/* a command line is a few hundred bytes: 1 MiB unended is no client */
#define CMD_MAX (1UL << 20)

struct bridge {
	int fd;				/* the thread's end */
	int said;			/* balance's records, not QMP */
	char *uri, *domain, *device;	/* device: NULL, or the working-set balloon's path */
	virConnectPtr conn;
	virDomainPtr dom;
	pthread_mutex_t wlock;		/* one message at a time on fd */
	int refs;			/* the thread's and each callback's */
	int ev_id, life_id, reboot_id;	/* -1: not registered */
};

/* libvirt's event loop running (started by the first caller): 0, or -1 with @err */
int bridge_loop_ready(char *err, size_t err_len);

/*
 * A bridge whose thread runs @serve, on a socket pair (SOCK_SEQPACKET
 * with @said, else SOCK_STREAM): the caller's end, or -1 with @err
 */
int bridge_open(const char *uri, const char *domain, const char *device, int said,
		void *(*serve)(void *), char *err, size_t err_len);

/* the connection, the domain, the events: NULL, or what failed (@why: skipped) */
const char *bridge_attach(struct bridge *b, char *why, size_t len);
void bridge_detach(struct bridge *b);
void bridge_put(void *opaque);

/* "libvirt: @what: libvirt's last error", or @what alone when it is "skipped: ..." */
void bridge_desc(char *desc, size_t len, const char *what);

/*
 * virt-said.c: libvirt's answers as balance reads them.  virDomainMemoryStats'
 * @n stats as the reply to OP_STATS (KiB back to bytes, -1 for what the
 * guest did not give, as QEMU has it); QEMU's event @event with its data
 * @details (JSON text, may be NULL) as said_from_event() reads it.
 */
void virt_said_from_stats(const virDomainMemoryStatStruct *st, int n, struct vm_said *s);
void virt_said_from_event(const char *event, const char *details, struct vm_said *s);

/* the same as a record to balance: an event of QEMU's, a reset or stop of libvirt's */
void bridge_said_event(struct bridge *b, const char *event, const char *details);
void bridge_said(struct bridge *b, enum said_kind kind);

#endif /* __WSR_HOST_VIRT_BRIDGE_H */
