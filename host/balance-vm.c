// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host balance: a VM's QMP connection as a state machine (down,
 * greeting, capabilities, up) whose commands are queued and sent one at a
 * time, each with a deadline (--qmp-timeout-ms).  A VM that misses one,
 * closes its socket or sends what cannot be QMP is closed, marked down,
 * logged once and retried with backoff.  What the replies and events say
 * is taken in balance-decide.c; the state is balance-state.h's.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "libwsr.h"
#include "balance-state.h"
#include "virt.h"

/*
 * A QMP message balance reads is at most a report (16 nodes of 16 bins,
 * about 20 KiB): a peer that sends 1 MiB without ending its message is
 * not a QEMU to wait for.
 */
#define STREAM_MAX (1UL << 20)

/* the retries of a VM that is down back off to this (or --reconnect-ms) */
#define BACKOFF_MAX_MS 60000.0

static const char *const op_names[NR_OPS] = {
	[OP_BALLOON] = "balloon",
	[OP_MEMSIZE] = "query-memory-size-summary",
	[OP_STATS_ON] = "qom-set guest-stats-polling-interval",
	[OP_CONFIG] = "working-set-config",
	[OP_QUERY] = "query-balloon",
	[OP_STATS] = "qom-get guest-stats",
	[OP_REQUEST] = "working-set-request",
};

void say(const struct vm *v, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	info_msg("vm=%s %s", v->arg->name, line);
}

/* a message said once until it changes (a refusal repeated every tick is not news) */
void say_once(struct vm *v, const char *fmt, const char *what)
{
	char line[sizeof(v->last_err)];

	snprintf(line, sizeof(line), fmt, what);
	if (strcmp(line, v->last_err))
		say(v, "%s", line);
	snprintf(v->last_err, sizeof(v->last_err), "%s", line);
}

/* the size a VM goes back to on exit: its RAM, or its max= below it */
__u64 full_size(const struct vm *v)
{
	return v->k.ceiling && v->k.ceiling < v->ram ? v->k.ceiling : v->ram;
}

/* a VM balance squeezed stays so: said, counted and named at the end */
void exit_not_deflated(struct balance *b, struct vm *v, const char *why)
{
	say(v, "on exit: not deflated: %s", why);
	v->exit_failed = 1;
	b->exit_failed++;
}

/*
 * The VM is down: close, forget what was queued, retry with backoff
 * (--reconnect-ms, doubled per failure up to a minute).  Said once: the
 * same failure again, as a stuck VM gives at every retry, is not news.
 */
static void vm_fail(struct balance *b, struct vm *v, const char *why)
{
	double delay = (double)b->cfg->reconnect_ms, cap = BACKOFF_MAX_MS;
	unsigned int i;

	if (cap < (double)b->cfg->reconnect_ms)
		cap = (double)b->cfg->reconnect_ms;
	for (i = 0; i < v->failures && delay < cap; i++)
		delay *= 2;
	if (delay > cap)
		delay = cap;
	v->failures++;
	if (!v->down_logged || strcmp(why, v->down_why))
		say(v, "down: %s; retrying in %.1f s, then backing off to %.0f s", why,
		    delay / 1e3, cap / 1e3);
	v->down_logged = 1;
	v->gone = 0;
	snprintf(v->down_why, sizeof(v->down_why), "%s", why);
	if (v->exit_deflate)
		exit_not_deflated(b, v, why);
	qmp_close(&v->q);
	v->qemu_pid = 0;
	v->state = VM_DOWN;
	v->busy = v->in_tick = v->exit_deflate = v->exit_inflight = 0;
	v->queued = 0;
	v->configured = v->stats_on = v->pending = 0;
	/*
	 * what the VM said before is stale once it is down (a restarted
	 * QEMU, a libvirt that lost it): no decision until it says it again
	 */
	v->have_report = v->new_report = v->have_stats = v->new_stats = 0;
	v->unseen_reclaims = 0;
	/* a QEMU restarted meanwhile may have another RAM: read again */
	v->actual = v->ram = 0;
	/* and the first decision after it comes back is logged, whatever it is */
	v->last_keep[0] = 0;
	v->next_connect = now_ms() + delay;
	v->last_err[0] = 0;
}

/* down because QEMU closed the socket or has none: no guest left squeezed */
void vm_gone(struct balance *b, struct vm *v, const char *why)
{
	int deflating = v->exit_deflate;

	v->exit_deflate = 0;
	vm_fail(b, v, why);
	v->gone = 1;
	if (deflating)
		say(v, "on exit: nothing to deflate: %s", why);
}

/*
 * The socket closed.  QEMU's own closes when QEMU ends; libvirt's bridge
 * closes too when libvirtd restarts or an event cannot be passed on,
 * which says nothing of the domain: only the bridge's stop event (virt.h)
 * says that it is gone.
 */
static void vm_closed(struct balance *b, struct vm *v)
{
	if (v->arg->libvirt)
		vm_fail(b, v, "libvirt: the connection closed");
	else
		vm_gone(b, v, "QEMU closed the socket");
}

static char *op_cmd(struct balance *b, const struct vm *v, enum op op)
{
	switch (op) {
	case OP_BALLOON:
		return qmp_cmd_balloon(v->balloon_to);
	case OP_MEMSIZE:
		return qmp_cmd("query-memory-size-summary");
	case OP_STATS_ON:
		return qmp_cmd_qom_set_int(b->cfg->device, "guest-stats-polling-interval",
					   b->cfg->stats_s);
	case OP_CONFIG:
		return qmp_cmd_config(b->cfg->intervals, b->cfg->nr_intervals, b->cfg->refresh_ms,
				      b->cfg->report_ms);
	case OP_QUERY:
		return qmp_cmd("query-balloon");
	case OP_STATS:
		return qmp_cmd_qom_get(b->cfg->device, "guest-stats");
	case OP_REQUEST:
		return qmp_cmd("working-set-request");
	default:
		return NULL;
	}
}

/* the next queued command, if none is in flight: the balloon first */
static void vm_send_next(struct balance *b, struct vm *v)
{
	char why[96];
	enum op op;

	if (v->state != VM_UP || v->busy || !v->queued)
		return;
	for (op = 0; !(v->queued & (1u << op)); op++)
		;
	v->queued &= ~(1u << op);
	errno = ENOMEM;
	if (v->arg->libvirt ? virt_send(v->q.fd, op, op == OP_BALLOON ? v->balloon_to :
					op == OP_STATS_ON ? b->cfg->stats_s : 0,
					op_cmd(b, v, op)) :
	    qmp_queue(&v->q, op_cmd(b, v, op))) {
		if (errno == EPIPE || errno == ECONNRESET) {
			vm_closed(b, v);
			return;
		}
		snprintf(why, sizeof(why), "cannot send %s: %s", op_names[op], strerror(errno));
		vm_fail(b, v, why);
		return;
	}
	v->busy = 1;
	v->inflight = op;
	if (op == OP_BALLOON) {
		v->inflight_to = v->balloon_to;
		v->exit_inflight = v->exit_deflate;
	}
	v->deadline = now_ms() + (double)b->cfg->qmp_timeout_ms;
}

static void vm_tick(struct balance *b, struct vm *v)
{
	/* the RAM every tick: memory plugged under balance is the guest's */
	unsigned int q = 1u << OP_QUERY | 1u << OP_MEMSIZE;

	if (!v->stats_on)
		q |= 1u << OP_STATS_ON;
	else
		q |= 1u << OP_STATS;
	if (!v->configured)
		q |= 1u << OP_CONFIG;
	/* refused while the guest has not posted its buffer again: next time */
	if (v->configured && now_ms() >= v->next_request) {
		q |= 1u << OP_REQUEST;
		v->next_request = now_ms() + (double)b->cfg->request_ms;
	}
	/* what a slow VM still has queued from the last tick is not asked twice */
	v->queued |= q;
	v->in_tick = 1;
}

/* query-memory-size-summary's reply */
static void reply_memsize(struct balance *b, struct vm *v, const struct vm_said *r)
{
	if (r->ok)
		vm_memsize(v, r);
	else
		say_once(v, "query-memory-size-summary refused: %s", r->desc);
	/* on exit, a VM reconnected since its last read is deflated to what it has now */
	if (v->exit_deflate && !(v->queued & (1u << OP_BALLOON))) {
		if (v->ram) {
			v->balloon_to = full_size(v);
			v->queued |= 1u << OP_BALLOON;
		} else {
			exit_not_deflated(b, v, "its RAM could not be read");
			v->exit_deflate = 0;
		}
	}
}

/* the balloon command's reply: a decision's target taken, or the exit's */
static void reply_balloon(struct balance *b, struct vm *v, const struct vm_said *r)
{
	if (!r->ok) {
		say(v, "QMP balloon refused: %s", r->desc);
		if (v->exit_inflight)
			exit_not_deflated(b, v, "its balloon command was refused");
	} else if (v->exit_inflight) {
		say(v, "on exit: deflated to %llu MiB", (unsigned long long)(v->inflight_to / MIB));
	} else {
		v->target = v->sent = v->inflight_to;
		v->touched = 1;
		/*
		 * The balloon now moves towards it, from where the
		 * next reading says: asked at once, before the guest
		 * has gone far towards the last target (a reading a
		 * tick old could be far from it, and a later one
		 * could hold someone else's move already).
		 */
		v->ref_valid = 0;
		v->queued |= 1u << OP_QUERY;
		v->decisions++;
		log_decision(b, v, &v->d, v->inflight_to);
	}
	if (v->exit_inflight)
		v->exit_deflate = v->exit_inflight = 0;
}

/* the reply to the command in flight */
static void vm_reply(struct balance *b, struct vm *v, const struct vm_said *r)
{
	int ok = r->ok;

	v->busy = 0;
	switch (v->inflight) {
	case OP_MEMSIZE:
		reply_memsize(b, v, r);
		break;
	case OP_STATS_ON:
		if (!ok)
			say_once(v, "guest-stats-polling-interval refused: %s", r->desc);
		v->stats_on = ok;
		break;
	case OP_CONFIG:
		if (!ok)
			say_once(v, "working-set-config refused (retrying): %s", r->desc);
		else
			say(v, "%s", "working-set reporting configured");
		v->configured = ok;
		break;
	case OP_QUERY:
		if (ok && r->valid)
			vm_actual(b, v, r->actual);
		break;
	case OP_STATS:
		if (ok && r->valid)
			v->stats = r->stats;
		if (ok && r->valid && r->stats_update && r->stats_update != v->stats_update) {
			v->stats_update = r->stats_update;
			v->have_stats = v->new_stats = 1;
			v->stats_ms = now_ms();
		}
		break;
	case OP_REQUEST:
		break;
	case OP_BALLOON:
		reply_balloon(b, v, r);
		break;
	default:
		break;
	}
	if (v->in_tick && !v->busy && !v->queued) {
		/* a whole tick answered: the VM is well again */
		v->in_tick = 0;
		v->pending = 1;
		v->failures = 0;
		if (v->down_logged)
			say(v, "answering again on %s", v->arg->sock);
		v->down_logged = 0;
	}
}

/* the VM is there (QMP's capabilities taken, libvirt's domain found): commands go */
static void vm_up(struct vm *v)
{
	v->state = VM_UP;
	v->ref_valid = 0;
	/* balance's target may be gone with the QEMU that had it */
	v->target = 0;
	if (!v->down_logged)
		say(v, "connected to %s", v->arg->sock);
	v->next_tick = v->next_request = now_ms();
	/* reached on exit: its RAM read again, then its deflation (vm_reply) */
	if (v->exit_deflate)
		v->queued = 1u << OP_MEMSIZE;
}

/* before the VM is up: its greeting, or why it cannot be had */
static void vm_greeting(struct balance *b, struct vm *v, const struct vm_said *s)
{
	/* libvirt's answer when the domain cannot be had (virt.c) */
	if (s->kind == SAID_REPLY && !s->ok) {
		/* a domain that is not running has no guest left squeezed */
		if (strstr(s->desc, "domain not running") || strstr(s->desc, "no such domain"))
			vm_gone(b, v, s->desc);
		else
			vm_fail(b, v, s->desc);
		return;
	}
	if (s->kind != SAID_GREETING) {
		vm_fail(b, v, "no QMP greeting");
		return;
	}
	/* libvirt negotiated QMP's capabilities when it started QEMU */
	if (v->arg->libvirt) {
		vm_up(v);
		return;
	}
	if (qmp_queue(&v->q, qmp_cmd("qmp_capabilities"))) {
		vm_fail(b, v, "cannot send qmp_capabilities");
		return;
	}
	v->state = VM_CAPS;
	v->deadline = now_ms() + (double)b->cfg->qmp_timeout_ms;
}

/* what the VM said, through either transport (transport.h) */
static void vm_said(struct balance *b, struct vm *v, const struct vm_said *s)
{
	int event = s->kind != SAID_REPLY && s->kind != SAID_GREETING &&
		    s->kind != SAID_BROKEN && s->kind != SAID_OTHER;

	if (s->kind == SAID_BROKEN) {
		vm_fail(b, v, s->desc);
		return;
	}
	switch (v->state) {
	case VM_GREETING:
		vm_greeting(b, v, s);
		return;
	case VM_CAPS:
		if (event)
			return;
		if (s->kind != SAID_REPLY || !s->ok) {
			vm_fail(b, v, "qmp_capabilities refused");
			return;
		}
		vm_up(v);
		return;
	case VM_UP:
		if (event)
			on_event(b, v, s);
		else if (s->kind == SAID_REPLY && !v->busy)
			vm_fail(b, v, "a reply to no command");
		else if (s->kind == SAID_REPLY)
			vm_reply(b, v, s);
		return;
	default:
		return;
	}
}

static void vm_connect(struct balance *b, struct vm *v)
{
	char err[128], why[192];
	int fd;

	if (v->arg->libvirt) {
		/* the thread's own connection: its answer, greeting or error, comes on fd */
		fd = virt_open_said(b->cfg->connect, v->arg->sock, b->cfg->device, err, sizeof(err));
		if (fd < 0) {
			snprintf(why, sizeof(why), "libvirt: %s", err);
			vm_fail(b, v, why);
			return;
		}
		/* its records need no stream: qmp_close() closes the descriptor */
		memset(&v->q, 0, sizeof(v->q));
		v->q.fd = fd;
	} else if (qmp_open_nb(&v->q, v->arg->sock, STREAM_MAX, err, sizeof(err))) {
		snprintf(why, sizeof(why), "cannot talk QMP: %s", err);
		vm_gone(b, v, why);
		return;
	} else {
		v->qemu_pid = qmp_peer_pid(&v->q);
		v->swap_said = 0;
	}
	v->state = VM_GREETING;
	v->deadline = now_ms() + (double)b->cfg->qmp_timeout_ms;
}

/* libvirt's thread's records, as they came */
static void vm_io_said(struct balance *b, struct vm *v)
{
	struct vm_said s;
	char err[128];
	int r = -EAGAIN;

	while (v->state != VM_DOWN && (r = virt_recv_said(v->q.fd, &s)) > 0)
		vm_said(b, v, &s);
	if (v->state == VM_DOWN || r == -EAGAIN)
		return;
	if (!r) {
		vm_closed(b, v);
		return;
	}
	snprintf(err, sizeof(err), "cannot read libvirt's thread: %s", strerror(-r));
	vm_fail(b, v, err);
}

/* after poll(): send what waits, read what came, take every whole message */
void vm_io(struct balance *b, struct vm *v, short revents)
{
	const struct qmp_msg *m;
	struct vm_said s;
	char err[128];
	int r = 0;

	if (v->arg->libvirt) {
		if (revents & (POLLIN | POLLHUP | POLLERR))
			vm_io_said(b, v);
		return;
	}

	if ((revents & POLLOUT) && qmp_flush(&v->q)) {
		snprintf(err, sizeof(err), "cannot send: %s", strerror(errno));
		if (errno == EPIPE || errno == ECONNRESET)
			vm_closed(b, v);
		else
			vm_fail(b, v, err);
		return;
	}
	if (!(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	r = qmp_fill(&v->q, err, sizeof(err));
	if (r) {
		if (r == -1)
			vm_closed(b, v);
		else
			vm_fail(b, v, err);
		return;
	}
	while (v->state != VM_DOWN && (r = qmp_stream_next(&v->q.s, &m)) > 0) {
		said_from_qmp(m->obj, v->busy ? v->inflight : NR_OPS, &s);
		vm_said(b, v, &s);
	}
	if (v->state != VM_DOWN && r < 0)
		vm_fail(b, v, "QEMU sent what is not JSON");
}

/* what is due for @v now; the time it next needs a turn in *next */
void vm_step(struct balance *b, struct vm *v, double *next)
{
	double now = now_ms();
	char why[128];

	switch (v->state) {
	case VM_DOWN:
		if ((!b->exiting || v->exit_deflate) && now >= v->next_connect)
			vm_connect(b, v);
		break;
	case VM_GREETING:
	case VM_CAPS:
		if (now >= v->deadline) {
			snprintf(why, sizeof(why), "no QMP %s within %llu ms (another client on "
				 "this socket?)", v->state == VM_GREETING ? "greeting" :
				 "qmp_capabilities reply", (unsigned long long)b->cfg->qmp_timeout_ms);
			vm_fail(b, v, why);
		}
		break;
	case VM_UP:
		if (v->busy && now >= v->deadline) {
			snprintf(why, sizeof(why), "no reply to %s within %llu ms",
				 op_names[v->inflight], (unsigned long long)b->cfg->qmp_timeout_ms);
			vm_fail(b, v, why);
			break;
		}
		if (v->foreign_until && now >= v->foreign_until) {
			say(v, "the balloon stayed put for %.0f s: balancing it again",
			    b->cfg->foreign_hold_ms / 1e3);
			v->foreign_until = 0;
			v->ref_valid = 0;
			v->pending = 1;
		}
		if (!b->exiting && now >= v->next_tick) {
			vm_tick(b, v);
			v->next_tick = now + (double)b->cfg->tick_ms;
		}
		if (!b->exiting && v->pending)
			vm_decide(b, v);
		vm_send_next(b, v);
		break;
	}
	if (v->state == VM_DOWN && (!b->exiting || v->exit_deflate) && v->next_connect < *next)
		*next = v->next_connect;
	if (v->state != VM_DOWN && (v->state != VM_UP || v->busy) && v->deadline < *next)
		*next = v->deadline;
	if (v->state == VM_UP && !b->exiting && v->next_tick < *next)
		*next = v->next_tick;
	if (v->state == VM_UP && v->foreign_until && v->foreign_until < *next)
		*next = v->foreign_until;
}
