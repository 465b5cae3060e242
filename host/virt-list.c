// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host through libvirt (see virt.h): the running domains, listed by
 * a thread of its own into a pipe, for balance --connect alone.
 */
#define _GNU_SOURCE	/* pipe2() */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include "virt.h"
#include "virt-bridge.h"

struct lister {
	char *uri;
	unsigned int period_ms;
	int fd;
};

/* one listing into the pipe (this thread waits while the reader is behind) */
static void list_once(struct lister *l, virConnectPtr *conn)
{
	virDomainPtr *doms = NULL;
	char line[512];
	int n, i;

	if (!*conn && !(*conn = virConnectOpen(l->uri))) {
		snprintf(line, sizeof(line), "!cannot connect: %s\n", virGetLastErrorMessage());
		if (write(l->fd, line, strlen(line)) < 0)
			return;
		return;
	}
	n = virConnectListAllDomains(*conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	if (n < 0) {
		snprintf(line, sizeof(line), "!cannot list the domains: %s\n",
			 virGetLastErrorMessage());
		virConnectClose(*conn);
		*conn = NULL;
		if (write(l->fd, line, strlen(line)) < 0)
			return;
		return;
	}
	for (i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "%s\n", virDomainGetName(doms[i]));
		if (write(l->fd, line, strlen(line)) < 0)
			break;
		virDomainFree(doms[i]);
	}
	for (; i < n; i++)
		virDomainFree(doms[i]);
	free(doms);
	if (write(l->fd, ".\n", 2) < 0)
		return;
}

static void *list_loop(void *arg)
{
	struct lister *l = arg;
	virConnectPtr conn = NULL;

	for (;;) {
		/* a daemon that restarted: the old connection fails, a new one is made */
		if (conn && virConnectIsAlive(conn) != 1) {
			virConnectClose(conn);
			conn = NULL;
		}
		list_once(l, &conn);
		usleep(l->period_ms * 1000);
	}
	return NULL;
}

int virt_list_domains(const char *uri, unsigned int period_ms, char *err, size_t err_len)
{
	struct lister *l;
	pthread_t t;
	int p[2];

	if (bridge_loop_ready(err, err_len))
		return -1;
	if (pipe2(p, O_CLOEXEC)) {
		snprintf(err, err_len, "pipe: %s", strerror(errno));
		return -1;
	}
	l = calloc(1, sizeof(*l));
	if (l) {
		l->fd = p[1];
		l->period_ms = period_ms;
	}
	if (!l || !(l->uri = strdup(uri)) || pthread_create(&t, NULL, list_loop, l)) {
		if (l)
			free(l->uri);
		free(l);
		close(p[0]);
		close(p[1]);
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	pthread_detach(t);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	return p[0];
}
