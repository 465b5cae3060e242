// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host balance: the loop.  One poll() over every VM's QMP socket and
 * the metrics server, and nothing in it waits on a VM: each VM is a state
 * machine (down, greeting, capabilities, up) whose commands are queued
 * and sent one at a time, each with a deadline (--qmp-timeout-ms).  A VM
 * that misses one, closes its socket or sends what cannot be QMP (not
 * JSON, or a message longer than STREAM_MAX) is closed, marked down,
 * logged once and retried with backoff; the others go on at once.  Per
 * VM, a tick (every --tick-ms) queues the reads of the balloon's size and
 * stats, the configuration not done yet and, every --request-ms, a
 * working-set-request; every WORKING_SET_EVENT is taken as it arrives,
 * and a reclaim report is decided on at once, its balloon command sent
 * before anything else queued for that VM.  The options are parsed in
 * balance-args.c, the policy is policy.c; a VM's state machine is
 * balance-vm.c, what it says and the decisions balance-decide.c, the
 * domains libvirt lists balance-list.c, the host's memory balance-host.c.
 */
#define _GNU_SOURCE	/* ppoll() */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "libwsr.h"
#include "balance.h"
#include "balance-state.h"
#include "metrics.h"
#include "virt.h"

/*
 * 1: stop (SIGTERM, SIGINT); 2: a second signal, stop at once.  The one
 * file-scope state left: a signal handler has no argument to find a
 * struct balance by, and may only write a volatile sig_atomic_t.
 */
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = stop ? 2 : 1;
}

/* the metrics server's callback: @arg is the struct balance */
static char *scrape(void *arg)
{
	struct balance *b = arg;
	struct metrics_vm *m = calloc(b->cfg->nr_vms ? b->cfg->nr_vms : 1, sizeof(*m));
	double now = now_ms();
	unsigned int i, n = 0;
	char *text;

	if (!m)
		return NULL;
	for (i = 0; i < b->cfg->nr_vms; i++) {
		struct vm *v = &b->vms[i];

		if (v->removed)
			continue;
		m[n++] = (struct metrics_vm){
			.name = v->arg->name, .up = v->state == VM_UP,
			.report = v->have_report ? &v->report : NULL,
			.report_age_s = (now - v->report_ms) / 1e3,
			.ram = v->ram, .actual = v->actual, .target = v->target,
			.decisions = v->decisions, .missed_reclaims = v->missed,
			.idle_s = b->cfg->k.kind != POLICY_WORKING_SET ? 0 :
				  (v->st.cost.idle_ms ? v->st.cost.idle_ms : v->k.idle_ms) / 1e3,
			.promotion_rate = v->st.cost.idle_ms ? v->st.cost.rate_ppm / 1e6 : -1,
		};
		memcpy(m[n - 1].reports, v->reports, sizeof(m[n - 1].reports));
	}
	text = metrics_text(m, n);
	free(m);
	return text;
}

/*
 * One turn of the loop: what is due, one poll() (until the next thing is
 * due, the metrics server's time-out, or @max_ms), then what it found.
 * -1 when poll() fails.
 */
static int turn(struct balance *b, struct pollfd *pfd, struct metrics_server *ms, double max_ms)
{
	double next = now_ms() + max_ms, now;
	struct timespec ts;
	unsigned int i, n = 0, at[BALANCE_MAX_VMS];
	int timeout, mt;

	host_step(b, &next);
	for (i = 0; i < b->cfg->nr_vms; i++)
		if (!b->vms[i].removed)
			vm_step(b, &b->vms[i], &next);
	for (i = 0; i < b->cfg->nr_vms; i++) {
		struct vm *v = &b->vms[i];

		if (v->state == VM_DOWN)
			continue;
		at[n] = i;
		pfd[n++] = (struct pollfd){ .fd = v->q.fd,
					    .events = POLLIN | (qmp_pending(&v->q) ? POLLOUT : 0) };
	}
	if (ms)
		pfd[n] = (struct pollfd){ .fd = metrics_fd(ms), .events = POLLIN };
	if (b->list.fd >= 0)
		pfd[n + !!ms] = (struct pollfd){ .fd = b->list.fd, .events = POLLIN };
	now = now_ms();
	timeout = next > now ? (int)(next - now) + 1 : 0;
	if (ms && (mt = metrics_timeout_ms(ms)) >= 0 && mt < timeout)
		timeout = mt;
	ts.tv_sec = timeout / 1000;
	ts.tv_nsec = timeout % 1000 * 1000000L;
	/* SIGTERM and SIGINT come only here, never between the check of stop and the wait */
	if (ppoll(pfd, n + !!ms + (b->list.fd >= 0), &ts, &b->unblocked) < 0 && errno != EINTR) {
		err_msg("ppoll: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++)
		if (pfd[i].revents)
			vm_io(b, &b->vms[at[i]], pfd[i].revents);
	if (ms)
		metrics_run(ms);
	if (b->list.fd >= 0 && pfd[n + !!ms].revents)
		list_io(b);
	return 0;
}

/* the VMs left squeezed, in one line: what the exit status 1 is about */
static void exit_names(struct balance *b)
{
	char line[1024];
	size_t n = 0;
	unsigned int i;

	line[0] = 0;
	for (i = 0; i < b->cfg->nr_vms && n < sizeof(line); i++)
		if (b->vms[i].exit_failed)
			n += snprintf(line + n, sizeof(line) - n, "%s%s", n ? ", " : "",
				      b->vms[i].arg->name);
	err_msg("balance: on exit, not deflated (their guests may stay squeezed): %s", line);
}

/*
 * --on-exit deflate: every VM balance set a target on goes back to its
 * full size (its max= when given), unless someone else's target holds it;
 * the loop runs on for those commands alone, each with its deadline, so a
 * stuck VM delays the exit by --qmp-timeout-ms at most.  A VM that is down
 * (not gone) is connected to once more, and delays it by a deadline per
 * step (greeting, capabilities, RAM, balloon).  1 when a VM could not be
 * deflated, and those VMs named.
 */
static int finish(struct balance *b, struct pollfd *pfd, struct metrics_server *ms)
{
	unsigned int i, left = 0;

	if (b->cfg->on_exit == ON_EXIT_KEEP) {
		info_msg("stopping; --on-exit keep: every target stays");
		return 0;
	}
	for (i = 0; i < b->cfg->nr_vms; i++) {
		struct vm *v = &b->vms[i];

		if (!v->touched || v->removed)
			continue;
		if (v->foreign_until) {
			say(v, "%s", "on exit: left as it is (its target was set elsewhere)");
			continue;
		}
		if (v->state != VM_UP && v->gone) {
			say(v, "on exit: nothing to deflate: %s", v->down_why);
			continue;
		}
		if (v->state != VM_UP) {
			/*
			 * down for a while (a libvirtd restarting, a QEMU
			 * stuck) or coming back: tried once more now,
			 * whatever its backoff, and deflated if reached
			 */
			say(v, "on exit: down (%s): trying to reach it to deflate it", v->down_why);
			v->exit_deflate = 1;
			v->next_connect = 0;
			left++;
			continue;
		}
		v->exit_deflate = 1;
		left++;
		if (v->ram) {
			v->queued = 1u << OP_BALLOON;
			v->balloon_to = full_size(v);
		} else if (!(v->busy && v->inflight == OP_MEMSIZE)) {
			/* reconnected and its RAM not read again yet: the balloon after it */
			v->queued = 1u << OP_MEMSIZE;
		} else {
			v->queued = 0;
		}
	}
	while (left && stop < 2) {
		if (turn(b, pfd, ms, 100))
			break;
		for (left = 0, i = 0; i < b->cfg->nr_vms; i++)
			left += b->vms[i].exit_deflate;
	}
	for (i = 0; i < b->cfg->nr_vms; i++)
		if (b->vms[i].exit_deflate)
			exit_not_deflated(b, &b->vms[i], "stopped by a second signal");
	if (b->exit_failed)
		exit_names(b);
	return b->exit_failed ? 1 : 0;
}

/*
 * The metrics server's connections: well below RLIMIT_NOFILE less a
 * socket per VM and a reserve (stdio, the server's own, a reconnect's
 * overlap), so that clients that hold connections open never leave a VM
 * that reconnects without a descriptor.
 */
static unsigned int metrics_conn_limit(struct balance *b)
{
	struct rlimit rl;
	__u64 nofile = 1024, reserve = b->cfg->nr_vms * 2 + 32, lim;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY)
		nofile = rl.rlim_cur;
	lim = nofile > reserve ? (nofile - reserve) / 2 : 1;
	return lim > METRICS_MAX_CONN ? METRICS_MAX_CONN : lim ? (unsigned int)lim : 1;
}

/*
 * @b for the VMs @c names: room for what the listing adds (BALANCE_MAX_VMS
 * in all), each VM with the shared knobs and its own bounds; 1 when out
 * of memory
 */
static int balance_init(struct balance *b, struct balance_cfg *c)
{
	unsigned int i;

	memset(b, 0, sizeof(*b));
	b->cfg = c;
	b->cfg_vms = c;
	b->list.fd = -1;
	b->vms = calloc(BALANCE_MAX_VMS, sizeof(*b->vms));
	if (!b->vms)
		return 1;
	for (i = 0; i < c->nr_vms; i++) {
		b->vms[i].arg = &c->vms[i];
		b->vms[i].q.fd = -1;
		b->vms[i].k = c->k;
		if (c->vms[i].min)
			b->vms[i].k.floor = c->vms[i].min;
		b->vms[i].k.ceiling = c->vms[i].max;
	}
	return 0;
}

/* --metrics' server, or NULL without (*@failed set when it could not start) */
static struct metrics_server *balance_metrics(struct balance *b, int *failed)
{
	struct metrics_limits lim = {
		.connections = metrics_conn_limit(b), .per_ip = METRICS_PER_IP,
		.idle_s = METRICS_IDLE_S, .backlog = METRICS_BACKLOG,
	};
	struct metrics_server *ms;

	*failed = 0;
	if (!b->cfg->metrics)
		return NULL;
	ms = metrics_start(b->cfg->metrics, &lim, scrape, b);
	*failed = !ms;
	return ms;
}

/*
 * SIGTERM and SIGINT blocked but in ppoll() (turn()), where they set stop;
 * the mask before in *@old
 */
static void balance_signals(struct balance *b, sigset_t *old)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t stops;

	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigprocmask(SIG_BLOCK, &stops, old);
	b->unblocked = *old;
	sigdelset(&b->unblocked, SIGINT);
	sigdelset(&b->unblocked, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int cmd_balance(int argc, char **argv)
{
	static struct balance_cfg c;
	struct metrics_server *ms;
	struct balance b;
	struct pollfd *pfd;
	sigset_t old;
	unsigned int i;
	int err;

	err = balance_parse_args(argc, argv, &c);
	if (err >= 0)
		return err;
	stop = 0;
	/* a pollfd per VM, a metrics server and the listing */
	pfd = calloc(BALANCE_MAX_VMS + 2, sizeof(*pfd));
	if (balance_init(&b, &c) || !pfd)
		return 1;
	ms = balance_metrics(&b, &err);
	if (err)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	balance_signals(&b, &old);
	if (!c.nr_vms && list_start(&b))
		return 1;
	info_msg("balancing %u VM(s), policy %s%s%s%s", c.nr_vms, policy_kind_name(c.k.kind),
		 c.dry_run ? ", dry run (no balloon command sent)" : "",
		 c.metrics ? ", metrics on http://" : "", c.metrics ? c.metrics : "");
	while (!stop && !err)
		err = turn(&b, pfd, ms, 60000) ? 1 : 0;
	if (!err) {
		b.exiting = 1;
		err = finish(&b, pfd, ms);
	}
	for (i = 0; i < c.nr_vms; i++)
		qmp_close(&b.vms[i].q);
	sigprocmask(SIG_SETMASK, &old, NULL);
	metrics_stop(ms);
	free(pfd);
	free(b.vms);
	return err;
}
