// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host balance through libvirt (virt.h, transport.h): the bridge's
 * thread takes balance's commands as records and answers each with a
 * struct vm_said, its values read from libvirt's answers as QMP's are
 * from QEMU's messages (transport.c): the stats from
 * virDomainMemoryStats, a report from QEMU's event by
 * qmp_report_parse_data().  No JSON is made again on the way.
 *
 * The socket pair is SOCK_SEQPACKET: a record is one message, whole or
 * not at all.  Events are sent without waiting, as virt.c's are: a peer
 * that does not read loses its connection, not the others' events.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <libvirt/libvirt.h>
#include <libvirt/libvirt-qemu.h>
#include <libvirt/virterror.h>
#include "libwsr.h"
#include "virt.h"
#include "virt-bridge.h"

/* a command of balance's: its QMP text for those libvirt passes to QEMU */
struct virt_cmd {
	enum op op;
	__u64 value;		/* OP_BALLOON: bytes; OP_STATS_ON: seconds */
	char text[1024];
};

int virt_send(int fd, enum op op, __u64 value, char *text)
{
	struct virt_cmd c = { .op = op, .value = value };
	ssize_t n;

	if (!text) {
		errno = ENOMEM;
		return -1;
	}
	if (strlen(text) >= sizeof(c.text)) {
		free(text);
		errno = E2BIG;
		return -1;
	}
	strcpy(c.text, text);
	free(text);
	do
		n = send(fd, &c, sizeof(c), MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	return n == sizeof(c) ? 0 : -1;
}

int virt_recv_said(int fd, struct vm_said *s)
{
	ssize_t n;

	do
		n = recv(fd, s, sizeof(*s), MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n && n != sizeof(*s))
		return -EPROTO;
	return n ? 1 : 0;
}

void virt_said_from_stats(const virDomainMemoryStatStruct *st, int n, struct vm_said *s)
{
	/* libvirt's KiB back to QEMU's bytes; what the guest did not give is -1, as QEMU has it */
	static const struct { int tag; size_t off; unsigned long long mult; } map[] = {
		{ VIR_DOMAIN_MEMORY_STAT_USABLE, offsetof(struct ws_stats, available), 1024 },
		{ VIR_DOMAIN_MEMORY_STAT_UNUSED, offsetof(struct ws_stats, free), 1024 },
		{ VIR_DOMAIN_MEMORY_STAT_SWAP_IN, offsetof(struct ws_stats, swap_in), 1024 },
		{ VIR_DOMAIN_MEMORY_STAT_MAJOR_FAULT, offsetof(struct ws_stats, major_faults), 1 },
	};
	long long v, upd = 0;
	unsigned int i;
	int j;

	memset(s, 0, sizeof(*s));
	s->kind = SAID_REPLY;
	s->ok = 1;
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		v = -1;
		for (j = 0; j < n; j++)
			if (st[j].tag == map[i].tag)
				v = (long long)(st[j].val * map[i].mult);
		*(long long *)((char *)&s->stats + map[i].off) = v < 0 ? -1 : v;
	}
	for (j = 0; j < n; j++)
		if (st[j].tag == VIR_DOMAIN_MEMORY_STAT_LAST_UPDATE)
			upd = (long long)st[j].val;
	s->valid = upd >= 0;
	s->stats_update = s->valid ? (__u64)upd : 0;
}

void virt_said_from_event(const char *event, const char *details, struct vm_said *s)
{
	struct json_object *data = details ? json_tokener_parse(details) : NULL;

	if (details && !data && !strcmp(event, "WORKING_SET_EVENT")) {
		memset(s, 0, sizeof(*s));
		s->kind = SAID_BAD_REPORT;
		snprintf(s->desc, sizeof(s->desc), "libvirt: the event's data is not JSON");
		return;
	}
	said_from_event(event, data, s);
	json_object_put(data);
}

/* one record to balance; @wait 0 (the event thread): a full socket ends the connection */
static void send_said(struct bridge *b, const struct vm_said *s, int wait)
{
	ssize_t n;

	pthread_mutex_lock(&b->wlock);
	do
		n = send(b->fd, s, sizeof(*s), MSG_NOSIGNAL | (wait ? 0 : MSG_DONTWAIT));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(*s))
		shutdown(b->fd, SHUT_RDWR);
	pthread_mutex_unlock(&b->wlock);
}

void bridge_said_event(struct bridge *b, const char *event, const char *details)
{
	struct vm_said s;

	virt_said_from_event(event, details, &s);
	if (s.kind != SAID_NONE)
		send_said(b, &s, 0);
}

void bridge_said(struct bridge *b, enum said_kind kind)
{
	struct vm_said s = { .kind = kind };

	send_said(b, &s, 0);
}

/* a refusal: "libvirt: @what: libvirt's last error" */
static void refused(struct vm_said *s, const char *what)
{
	s->ok = 0;
	bridge_desc(s->desc, sizeof(s->desc), what);
}

/* the command libvirt must see done through its own API: 1, or 0 (QEMU's monitor does it) */
static int by_libvirt(struct bridge *b, const struct virt_cmd *c, struct vm_said *s)
{
	virDomainMemoryStatStruct st[VIR_DOMAIN_MEMORY_STAT_NR];
	int n;

	switch (c->op) {
	case OP_BALLOON:
		if (!c->value || c->value > LLONG_MAX)
			return 0;
		if (virDomainSetMemoryFlags(b->dom, (unsigned long)(c->value >> 10),
					    VIR_DOMAIN_AFFECT_LIVE))
			refused(s, "virDomainSetMemoryFlags");
		return 1;
	case OP_STATS_ON:
		if (c->value > INT_MAX)
			return 0;
		if (virDomainSetMemoryStatsPeriod(b->dom, (int)c->value, VIR_DOMAIN_AFFECT_LIVE))
			refused(s, "virDomainSetMemoryStatsPeriod");
		return 1;
	case OP_STATS:
		n = virDomainMemoryStats(b->dom, st, VIR_DOMAIN_MEMORY_STAT_NR, 0);
		if (n < 0)
			refused(s, "virDomainMemoryStats");
		else
			virt_said_from_stats(st, n, s);
		return 1;
	default:
		return 0;
	}
}

/* the answer to one command */
static void dispatch(struct bridge *b, const struct virt_cmd *c, struct vm_said *s)
{
	struct json_object *o;
	char *reply = NULL;

	memset(s, 0, sizeof(*s));
	s->kind = SAID_REPLY;
	s->ok = s->valid = 1;
	if (by_libvirt(b, c, s))
		return;
	if (virDomainQemuMonitorCommand(b->dom, c->text, &reply, 0) < 0) {
		refused(s, "virDomainQemuMonitorCommand");
		return;
	}
	o = json_tokener_parse(reply);
	if (o) {
		said_from_qmp(o, c->op, s);
	} else {
		s->kind = SAID_BROKEN;
		snprintf(s->desc, sizeof(s->desc), "QEMU sent what is not JSON");
	}
	json_object_put(o);
	free(reply);
}

/* serve balance: the domain found (or why not), then an answer per command */
static void *serve_said(void *arg)
{
	struct bridge *b = arg;
	struct vm_said s = { .kind = SAID_GREETING };
	struct virt_cmd c;
	const char *why;
	char skip[384];
	ssize_t n;

	why = bridge_attach(b, skip, sizeof(skip));
	if (why) {
		s.kind = SAID_REPLY;
		bridge_desc(s.desc, sizeof(s.desc), why);
		send_said(b, &s, 1);
		goto out;
	}
	send_said(b, &s, 1);
	for (;;) {
		n = recv(b->fd, &c, sizeof(c), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(c))
			break;
		c.text[sizeof(c.text) - 1] = 0;
		dispatch(b, &c, &s);
		send_said(b, &s, 1);
	}
out:
	shutdown(b->fd, SHUT_RDWR);
	bridge_detach(b);
	bridge_put(b);
	return NULL;
}

int virt_open_said(const char *uri, const char *domain, const char *device, char *err,
		   size_t err_len)
{
	int fd = bridge_open(uri, domain, device, 1, serve_said, err, err_len);

	if (fd >= 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}
