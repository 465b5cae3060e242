/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsr-host balance's Prometheus exporter: the text exposition format
 * (version 0.0.4) built by a pure function, metrics_text(), that
 * tests/unit/test_host_metrics.c checks, and served over HTTP by
 * libmicrohttpd from balance's own poll() loop (no thread of its own: a
 * scrape reads the VMs' state between two events, with no lock, and the
 * loop never waits on a VM, so a scrape never does either).
 */
#ifndef __WSR_HOST_METRICS_H
#define __WSR_HOST_METRICS_H

#include "policy.h"

/* what the exporter shows of one VM */
struct metrics_vm {
	const char *name;
	int up;				/* its QMP socket is connected */
	const struct ws_report *report;	/* NULL before the first */
	double report_age_s;		/* since the report arrived */
	__u64 ram, actual, target;	/* bytes; target 0: none set yet */
	unsigned long long reports[WSR_NR_CAUSES];	/* by cause (enum wsr_report_cause) */
	unsigned long long decisions;	/* targets set */
};

/*
 * The exposition of @n VMs, NUL-terminated, malloc()ed (free() it), or
 * NULL when out of memory.  Bytes as the report gives them; the catch-all
 * bin's bound (9223372036854775807) is "+Inf", as Prometheus' "le".
 */
char *metrics_text(const struct metrics_vm *vms, unsigned int n);

struct metrics_server;

/*
 * What a client can hold.  libmicrohttpd's time-out is an idle one: a
 * client that sends a byte now and then keeps its connection for ever,
 * so the connections are bounded in all (below what the process can
 * open, see balance.c) and per client address, and an idle one is closed
 * soon.
 */
struct metrics_limits {
	unsigned int connections;	/* in all */
	unsigned int per_ip;		/* from one address */
	unsigned int idle_s;		/* an idle connection closed after */
	unsigned int backlog;		/* connections the kernel queues for accept() */
};

/* balance's: a Prometheus server scrapes over one connection */
#define METRICS_MAX_CONN 256
#define METRICS_PER_IP 8
#define METRICS_IDLE_S 5
/*
 * Short: a client that sent part of a request and closed while queued is
 * accepted into a slot that only the idle time-out frees (libmicrohttpd
 * reads its bytes but not its close, epoll being edge-triggered), so a
 * queue of thousands left by a flood held every slot for (queue / limit)
 * idle time-outs after the flood ended: 10 s with 1,100.  A client the
 * queue drops retries its SYN a second later.
 */
#define METRICS_BACKLOG 16

/*
 * Serve GET /metrics on @addr ("IPv4:PORT" or "[IPv6]:PORT") within
 * @lim; @get builds the exposition on each scrape (metrics_text()'s
 * result).  NULL and a message on stderr when the address is bad or taken.
 */
struct metrics_server *metrics_start(const char *addr, const struct metrics_limits *lim,
				     char *(*get)(void *arg), void *arg);
/* "ADDR:PORT" well-formed: 0, else -1 (checked before anything is sent) */
int metrics_parse_addr(const char *addr, void *sockaddr, unsigned int *len);
/* the fd to poll() for POLLIN, and how long poll() may wait (ms, -1 forever) */
int metrics_fd(struct metrics_server *m);
int metrics_timeout_ms(struct metrics_server *m);
/* serve what is ready; never blocks */
void metrics_run(struct metrics_server *m);
void metrics_stop(struct metrics_server *m);

#endif /* __WSR_HOST_METRICS_H */
