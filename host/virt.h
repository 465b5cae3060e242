/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsr-host through libvirt: a domain's QMP, carried by libvirt's C API.
 * The commands get a socket that speaks QMP, and run on it as on QEMU's
 * own (client.c); balance gets the values it reads of a VM, as struct
 * vm_said records (transport.h), the same as QMP's messages give it
 * (transport.c).  Nothing of what a command means lives here: only how
 * libvirt carries it.
 */
#ifndef __WSR_HOST_VIRT_H
#define __WSR_HOST_VIRT_H

#include <stddef.h>
#include "transport.h"

/*
 * One end of a socket pair whose other end a thread of its own serves:
 * it connects to @uri, finds the running domain @domain, then speaks QMP
 * (a greeting, then a reply per command line, and the domain's QEMU
 * events as QMP events).  Nothing here waits: the connection is made by
 * that thread, whose libvirt calls may block as long as they like
 * without holding up the caller, which keeps its own deadlines.  When
 * the connection or the domain cannot be had, the thread sends one QMP
 * error whose desc says why, then closes; it closes too when libvirt's
 * connection closes (the daemon restarted), when an event cannot be
 * passed on, and when the domain stops or crashes, which alone it says
 * first with the event VIRT_EVENT_STOPPED: a close without it says
 * nothing of the domain.  libvirt's reboot event is passed on as a QMP
 * RESET (as QEMU's own is; the peer may see both).  Returns
 * the descriptor (non-blocking when @nonblock), or -1 with the reason in
 * @err.  With @device (a QOM path), a domain whose device there does not
 * have working-set on is refused the same way, its desc beginning
 * "skipped: ".
 */
/* the event that says the domain stopped (libvirt's lifecycle event), not QEMU's */
#define VIRT_EVENT_STOPPED "WSR_DOMAIN_STOPPED"

int virt_open(const char *uri, const char *domain, const char *device, int nonblock,
	      char *err, size_t err_len);

/*
 * balance's connection to a domain (transport.h): as virt_open(), but the
 * socket pair (SOCK_SEQPACKET, non-blocking) carries records, not QMP.
 * The thread answers first with a struct vm_said SAID_GREETING, or a
 * SAID_REPLY refused whose desc says why the domain cannot be had (as
 * virt_open()'s error); then one SAID_REPLY per command, and the events
 * as records: SAID_REPORT (or SAID_BAD_REPORT), SAID_ACTUAL, SAID_RESET
 * (libvirt's reboot too) and SAID_STOPPED (the domain stopped or
 * crashed, said before the close).
 */
int virt_open_said(const char *uri, const char *domain, const char *device, char *err,
		   size_t err_len);

/*
 * Send command @op to virt_open_said()'s thread: @value the balloon's
 * target (OP_BALLOON) or the stats' period (OP_STATS_ON), which libvirt's
 * API takes; @text (freed; NULL: out of memory) its QMP command, which
 * the others pass to QEMU's monitor.  0, or -1 with errno.
 */
int virt_send(int fd, enum op op, __u64 value, char *text);

/* the next record: 1, 0 when the thread closed, -EAGAIN when none is there, or -errno */
int virt_recv_said(int fd, struct vm_said *s);

/*
 * The running domains of libvirt at @uri, listed again every @period_ms
 * by a thread of its own: the read end of a pipe (non-blocking) that
 * carries, per listing, a line per domain name, then a line "."; a
 * listing that failed is one line "!REASON" instead.  -1 with the reason
 * in @err.
 */
int virt_list_domains(const char *uri, unsigned int period_ms, char *err, size_t err_len);

#endif /* __WSR_HOST_VIRT_H */
