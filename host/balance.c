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
 * balance-args.c, the policy is policy.c.
 */
#define _GNU_SOURCE	/* ppoll() */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include "libwsr.h"
#include "balance-args.h"
#include "client.h"
#include "hostmem.h"
#include "metrics.h"
#include "virt.h"

#define MIB (1ULL << 20)

/*
 * A QMP message balance reads is at most a report (16 nodes of 16 bins,
 * about 20 KiB): a peer that sends 1 MiB without ending its message is
 * not a QEMU to wait for.
 */
#define STREAM_MAX (1UL << 20)

/* the retries of a VM that is down back off to this (or --reconnect-ms) */
#define BACKOFF_MAX_MS 60000.0

/*
 * The balloon moving this far the wrong way is someone else's target: the
 * guest's driver moves in batches of 1 MiB and reads a new target between
 * two, so balance's own target never costs it more than a batch or two.
 */
#define FOREIGN_MOVE (16 * MIB)

/* the commands a VM is sent, each queued at most once */
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

static const char *const op_names[NR_OPS] = {
	[OP_BALLOON] = "balloon",
	[OP_MEMSIZE] = "query-memory-size-summary",
	[OP_STATS_ON] = "qom-set guest-stats-polling-interval",
	[OP_CONFIG] = "working-set-config",
	[OP_QUERY] = "query-balloon",
	[OP_STATS] = "qom-get guest-stats",
	[OP_REQUEST] = "working-set-request",
};

enum vm_state {
	VM_DOWN,	/* no socket; connect at next_connect */
	VM_GREETING,	/* connected, QEMU's greeting awaited */
	VM_CAPS,	/* qmp_capabilities sent, its reply awaited */
	VM_UP,		/* commands go */
};

struct vm {
	const struct balance_vm *arg;
	struct policy_knobs k;		/* the shared knobs with this VM's bounds */
	struct qmp q;
	enum vm_state state;
	double deadline;		/* of the greeting, the capabilities or the command in flight */
	int busy;			/* a command is in flight */
	enum op inflight;
	unsigned int queued;		/* bit per enum op */
	__u64 balloon_to;		/* the queued balloon's target */
	__u64 inflight_to;		/* the in-flight balloon's */
	struct policy_decision d;	/* the decision it carries */
	int exit_deflate;		/* the deflation on exit is queued or in flight */
	/*
	 * the balloon in flight is the exit's: a stop that comes while a
	 * decision's balloon is in flight queues the exit's behind it
	 */
	int exit_inflight;
	int exit_failed;		/* squeezed and not deflated on exit */

	unsigned int failures;		/* since the VM last answered a whole tick */
	double next_connect;
	int down_logged;		/* down said; nothing more until it changes or ends */
	int gone;			/* down because QEMU closed or is not there */
	char down_why[160];
	int in_tick;			/* a tick's commands are queued or in flight */

	int configured, stats_on, pending;
	double next_tick, next_request;
	char last_err[160], last_keep[32];
	/*
	 * ram: base and plugged memory, read every tick; 0 until read since
	 * the VM (re)connected.  target: the policy's last, 0 none.
	 */
	__u64 ram, actual, target;
	__u64 ram_said;			/* the RAM last logged */
	struct ws_report report;
	int have_report, new_report;
	double report_ms;
	struct ws_stats stats;
	int have_stats, new_stats;
	__u64 stats_update;
	double stats_ms;
	struct policy_state st;
	unsigned long long reports[WSR_NR_CAUSES], decisions;
	/*
	 * reclaim reports the policy has not decided on: replaced by a later
	 * report before a decision, or lost (reclaim_seq jumped)
	 */
	unsigned int unseen_reclaims;
	int have_seq;
	__u32 last_seq;			/* the latest report's reclaim_seq */
	unsigned long long missed;	/* reclaim reports never received */

	/* a target balance did not set */
	__u64 sent;			/* the last target QEMU took from balance, 0 none */
	int touched;			/* balance set a target on this VM */
	int ref_valid;
	__u64 ref;			/* closest to sent seen since, or where the balloon sat */
	double foreign_until;		/* hands off until then */

	/* balance --connect alone: a running domain found by the listing */
	int found;			/* found by the listing (not a --vm or --domain) */
	int listed;			/* in the listing being read */
	int removed;			/* let go: a free slot */

	__u64 plan;			/* proxmox: the host round's target, 0 none */
};

static const struct balance_cfg *cfg;
/* the same, for the domains the listing adds to its VMs */
static struct balance_cfg *cfg_vms;
static struct vm *vms;
/* balance --connect alone: libvirt's running domains (virt_list_domains()), -1 without */
static int list_fd = -1;
static char list_buf[4096], list_err[256];
static size_t list_len;
/* 1: stop (SIGTERM, SIGINT); 2: a second signal, stop at once */
static volatile sig_atomic_t stop;
static int exiting;
static sigset_t unblocked;		/* the signal mask while waiting */
static unsigned int exit_failed;	/* deflations on exit that did not happen */
/*
 * The host as mom and proxmox see it: its free memory's moving mean
 * (MOM's StatAvg, a sample every 5 s), its total, and the next sample
 * (proxmox: the next round); a read that failed is said once
 */
static struct {
	struct mom_avg free;
	__u64 total;
	double next_sample;
	char err[160];
} host;

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void say(const struct vm *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(const struct vm *v, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	info_msg("vm=%s %s", v->arg->name, line);
}

/* a message said once until it changes (a refusal repeated every tick is not news) */
static void say_once(struct vm *v, const char *fmt, const char *what)
{
	char line[sizeof(v->last_err)];

	snprintf(line, sizeof(line), fmt, what);
	if (strcmp(line, v->last_err))
		say(v, "%s", line);
	snprintf(v->last_err, sizeof(v->last_err), "%s", line);
}

static __u64 absdiff(__u64 a, __u64 b)
{
	return a > b ? a - b : b - a;
}

/* the size a VM goes back to on exit: its RAM, or its max= below it */
static __u64 full_size(const struct vm *v)
{
	return v->k.ceiling && v->k.ceiling < v->ram ? v->k.ceiling : v->ram;
}

/* a VM balance squeezed stays so: said, counted and named at the end */
static void exit_not_deflated(struct vm *v, const char *why)
{
	say(v, "on exit: not deflated: %s", why);
	v->exit_failed = 1;
	exit_failed++;
}

/*
 * The VM is down: close, forget what was queued, retry with backoff
 * (--reconnect-ms, doubled per failure up to a minute).  Said once: the
 * same failure again, as a stuck VM gives at every retry, is not news.
 */
static void vm_fail(struct vm *v, const char *why)
{
	double delay = (double)cfg->reconnect_ms, cap = BACKOFF_MAX_MS;
	unsigned int i;

	if (cap < (double)cfg->reconnect_ms)
		cap = (double)cfg->reconnect_ms;
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
		exit_not_deflated(v, why);
	qmp_close(&v->q);
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
static void vm_gone(struct vm *v, const char *why)
{
	int deflating = v->exit_deflate;

	v->exit_deflate = 0;
	vm_fail(v, why);
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
static void vm_closed(struct vm *v)
{
	if (v->arg->libvirt)
		vm_fail(v, "libvirt: the connection closed");
	else
		vm_gone(v, "QEMU closed the socket");
}

/* a reading of the balloon's size: someone else's target shows here */
static void vm_actual(struct vm *v, __u64 a)
{
	const char *why = NULL;
	double now = now_ms();

	v->actual = a;
	if (!cfg->foreign_hold_ms)
		return;
	if (!v->ref_valid) {
		v->ref = v->sent ? absdiff(a, v->sent) : a;
		v->ref_valid = 1;
		return;
	}
	if (v->sent) {
		/* towards balance's target: ours */
		if (absdiff(a, v->sent) < v->ref)
			v->ref = absdiff(a, v->sent);
		else if (absdiff(a, v->sent) >= v->ref + FOREIGN_MOVE)
			why = "moves away from balance's target";
	} else if (absdiff(a, v->ref) >= FOREIGN_MOVE) {
		why = "moves while balance has no target set";
	}
	if (!why)
		return;
	if (now >= v->foreign_until)
		say(v, "the balloon %s (now %llu MiB, balance's target %llu MiB): a target set "
		    "elsewhere; leaving this VM alone for %.0f s after it stops moving", why,
		    (unsigned long long)(a / MIB), (unsigned long long)(v->sent / MIB),
		    cfg->foreign_hold_ms / 1e3);
	/* every move after this one starts the hold again */
	v->foreign_until = now + (double)cfg->foreign_hold_ms;
	v->sent = v->target = 0;
	v->ref = a;
}

static void vm_decide(struct vm *v);

/*
 * The guest's reclaim reports the host never received: the report
 * header's sequence number counts every one the guest's driver made (the
 * throttle may send only the latest).  A jump of more than one since the
 * last report (less this one, if it is one) is that many lost.  A number
 * that went back, or jumped by 2^31 or more, is a rebound driver or a
 * rebooted guest: nothing lost is known.
 */
static unsigned int missed_reclaims(struct vm *v, const struct ws_report *r)
{
	__u32 gap = r->ext.reclaim_seq - v->last_seq, own = r->cause == WSR_CAUSE_RECLAIM;
	int had = v->have_seq;

	if (!r->ext.known)
		return 0;
	v->have_seq = 1;
	v->last_seq = r->ext.reclaim_seq;
	if (!had || gap >= 1u << 31 || gap <= own)
		return 0;
	return gap - own;
}

/*
 * The report's bins are those balance configured: each node's bounds are
 * --intervals, then the catch-all.  A guest whose driver was probed or
 * restored again (a reboot, a rebind) is back at its own defaults, and
 * QEMU keeps no copy of the configuration to give it.
 */
static int bins_configured(const struct ws_report *r)
{
	__u32 n, b;

	for (n = 0; n < r->nr_nodes; n++) {
		if (r->nodes[n].nr_bins != cfg->nr_intervals + 1)
			return 0;
		for (b = 0; b < cfg->nr_intervals; b++)
			if (r->nodes[n].bins[b].idle_le_ms != cfg->intervals[b])
				return 0;
	}
	return 1;
}

/*
 * The guest was reset: its driver comes back with its default
 * configuration, so balance's is sent again (at the next tick, and every
 * tick until the driver takes it); what the guest said before the reset
 * is not its state now.
 */
static void vm_guest_reset(struct vm *v)
{
	if (v->configured)
		say(v, "%s", "the guest reset: configuring its working-set reporting again");
	v->configured = 0;
	v->have_report = v->new_report = 0;
	v->unseen_reclaims = 0;
}

static void on_event(struct vm *v, const struct qmp_msg *m)
{
	const char *name = qmp_event_name(m->obj);
	struct json_object *data, *actual;
	struct ws_report r;
	unsigned int lost;

	if (!strcmp(name, "RESET")) {
		vm_guest_reset(v);
	} else if (v->arg->libvirt && !strcmp(name, VIRT_EVENT_STOPPED)) {
		vm_gone(v, "libvirt: the domain stopped");
	} else if (!strcmp(name, "WORKING_SET_EVENT")) {
		if (qmp_report_parse(m->obj, &r)) {
			say(v, "%s", "a WORKING_SET_EVENT without a well-formed report, ignored");
			return;
		}
		/*
		 * Still decided on: a reclaim report is one whatever its
		 * bins, and the policies read bins they cannot split at T
		 * as busy (no inflation)
		 */
		if (v->configured && !bins_configured(&r)) {
			say(v, "%s", "a report with other bins than balance configured (the guest's "
			    "driver was reset?): configuring its working-set reporting again");
			v->configured = 0;
			/* the driver is there (it reported): no need to wait for the tick */
			v->queued |= 1u << OP_CONFIG;
		}
		/* a reclaim report not decided on yet is not lost with it */
		if (v->new_report && v->report.cause == WSR_CAUSE_RECLAIM)
			v->unseen_reclaims++;
		lost = missed_reclaims(v, &r);
		v->missed += lost;
		v->unseen_reclaims += lost;
		v->report = r;
		v->have_report = v->new_report = v->pending = 1;
		v->report_ms = now_ms();
		v->reports[v->report.cause]++;
		/* every event decided on as it comes, not only the last of a read */
		if (!exiting)
			vm_decide(v);
	} else if (!strcmp(name, "BALLOON_CHANGE") &&
		   json_object_object_get_ex(m->obj, "data", &data) &&
		   json_object_object_get_ex(data, "actual", &actual) &&
		   json_object_get_int64(actual) > 0) {
		vm_actual(v, (__u64)json_object_get_int64(actual));
	}
}

static const char *refusal(const struct qmp_msg *r)
{
	const char *d = qmp_error_desc(r->obj);

	return d ? d : "no reason given";
}

/* a decision as one line of JSON: the keys of the text line, in its order */
static void log_decision_json(const struct vm *v, const struct policy_decision *d, __u64 target,
			      const char *action, const char *cause, __u64 age)
{
	struct json_object *o = json_object_new_object();
	int err;

	err = wsr_json_add(o, "time", wsr_json_fixed(wall_s(), 3)) |
	      wsr_json_add(o, "vm", json_object_new_string(v->arg->name)) |
	      wsr_json_add(o, "policy", json_object_new_string(policy_kind_name(cfg->k.kind))) |
	      wsr_json_add(o, "action", json_object_new_string(action)) |
	      wsr_json_add(o, "reason", json_object_new_string(d->reason)) |
	      wsr_json_add(o, "cause", json_object_new_string(cause)) |
	      wsr_json_add(o, "actual", wsr_json_u64(v->actual)) |
	      wsr_json_add(o, "target", wsr_json_u64(target)) |
	      wsr_json_add(o, "want", wsr_json_u64(d->want)) |
	      wsr_json_add(o, "hot", wsr_json_u64(d->hot)) |
	      wsr_json_add(o, "other", wsr_json_u64(d->other)) |
	      wsr_json_add(o, "data_age_ms", wsr_json_u64(age));
	if (cfg->dry_run)
		err |= wsr_json_add(o, "dry_run", json_object_new_boolean(1));
	if (err) {
		json_object_put(o);
		o = NULL;
	}
	if (wsr_json_print(stdout, o, "\n"))
		err_msg("balance: out of memory");
}

static void log_decision(const struct vm *v, const struct policy_decision *d, __u64 target)
{
	const char *cause = wsr_cause_name(v->have_report ? v->report.cause : WSR_CAUSE_NONE);
	const char *action = d->action == POLICY_SET ? "set" : "keep";
	unsigned long long age = v->have_report ? v->report.data_age_ms : 0;

	if (cfg->json)
		log_decision_json(v, d, target, action, cause, age);
	else
		printf("decision time=%.3f vm=%s policy=%s action=%s reason=%s cause=%s "
		       "actual=%llu target=%llu want=%llu hot=%llu other=%llu data_age_ms=%llu%s\n",
		       wall_s(), v->arg->name, policy_kind_name(cfg->k.kind), action, d->reason,
		       cause, (unsigned long long)v->actual, (unsigned long long)target,
		       (unsigned long long)d->want, (unsigned long long)d->hot,
		       (unsigned long long)d->other, age, cfg->dry_run ? " dry_run=1" : "");
}

static char *op_cmd(const struct vm *v, enum op op)
{
	switch (op) {
	case OP_BALLOON:
		return qmp_cmd_balloon(v->balloon_to);
	case OP_MEMSIZE:
		return qmp_cmd("query-memory-size-summary");
	case OP_STATS_ON:
		return qmp_cmd_qom_set_int(cfg->device, "guest-stats-polling-interval",
					   cfg->stats_s);
	case OP_CONFIG:
		return qmp_cmd_config(cfg->intervals, cfg->nr_intervals, cfg->refresh_ms,
				      cfg->report_ms);
	case OP_QUERY:
		return qmp_cmd("query-balloon");
	case OP_STATS:
		return qmp_cmd_qom_get(cfg->device, "guest-stats");
	case OP_REQUEST:
		return qmp_cmd("working-set-request");
	default:
		return NULL;
	}
}

/* the next queued command, if none is in flight: the balloon first */
static void vm_send_next(struct vm *v)
{
	char why[96];
	enum op op;

	if (v->state != VM_UP || v->busy || !v->queued)
		return;
	for (op = 0; !(v->queued & (1u << op)); op++)
		;
	v->queued &= ~(1u << op);
	errno = ENOMEM;
	if (qmp_queue(&v->q, op_cmd(v, op))) {
		if (errno == EPIPE || errno == ECONNRESET) {
			vm_closed(v);
			return;
		}
		snprintf(why, sizeof(why), "cannot send %s: %s", op_names[op], strerror(errno));
		vm_fail(v, why);
		return;
	}
	v->busy = 1;
	v->inflight = op;
	if (op == OP_BALLOON) {
		v->inflight_to = v->balloon_to;
		v->exit_inflight = v->exit_deflate;
	}
	v->deadline = now_ms() + (double)cfg->qmp_timeout_ms;
}

static void vm_tick(struct vm *v)
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
		v->next_request = now_ms() + (double)cfg->request_ms;
	}
	/* what a slow VM still has queued from the last tick is not asked twice */
	v->queued |= q;
	v->in_tick = 1;
}

/* @size, a size of a guest with @old bytes of RAM, with @ram (at least 1 byte) */
static __u64 shifted(__u64 size, __u64 old, __u64 ram)
{
	if (ram >= old)
		return size + (ram - old);
	return size > old - ram ? size - (old - ram) : 1;
}

/*
 * query-memory-size-summary's answer: the VM's RAM is its base memory and
 * what is plugged (pc-dimm, virtio-mem), which QEMU's balloon counts in
 * the guest's size.  A malformed answer changes nothing.
 */
static void vm_memsize(struct vm *v, const struct qmp_msg *r)
{
	struct json_object *ret;
	__u64 base, plugged = 0;

	if (qmp_return_u64(r->obj, "base-memory", &base) || !base ||
	    (json_object_object_get_ex(r->obj, "return", &ret) &&
	     json_object_object_get_ex(ret, "plugged-memory", NULL) &&
	     qmp_return_u64(r->obj, "plugged-memory", &plugged)) ||
	    plugged > ~0ULL - base) {
		say_once(v, "%s", "query-memory-size-summary: no well-formed base-memory and "
			 "plugged-memory in its answer, ignored");
		return;
	}
	/*
	 * QEMU keeps the balloon's pages, not the guest's size: memory
	 * plugged or unplugged moves the size balance set by as much
	 */
	if (v->ram && base + plugged != v->ram) {
		__u64 old = v->ram, ram = base + plugged;

		v->sent = v->sent ? shifted(v->sent, old, ram) : 0;
		v->target = v->target ? shifted(v->target, old, ram) : 0;
		if (v->queued & (1u << OP_BALLOON))
			v->balloon_to = shifted(v->balloon_to, old, ram);
		if (v->ref_valid && !v->sent)
			v->ref = shifted(v->ref, old, ram);
	}
	v->ram = base + plugged;
	if (v->ram != v->ram_said)
		say(v, "RAM %llu MiB (base %llu MiB, plugged %llu MiB)",
		    (unsigned long long)(v->ram / MIB), (unsigned long long)(base / MIB),
		    (unsigned long long)(plugged / MIB));
	v->ram_said = v->ram;
}

/* the reply to the command in flight */
static void vm_reply(struct vm *v, const struct qmp_msg *r)
{
	int ok = qmp_kind(r->obj) == QMP_RETURN;
	__u64 upd, n;

	v->busy = 0;
	switch (v->inflight) {
	case OP_MEMSIZE:
		if (ok)
			vm_memsize(v, r);
		else
			say_once(v, "query-memory-size-summary refused: %s", refusal(r));
		/* on exit, a VM reconnected since its last read is deflated to what it has now */
		if (v->exit_deflate && !(v->queued & (1u << OP_BALLOON))) {
			if (v->ram) {
				v->balloon_to = full_size(v);
				v->queued |= 1u << OP_BALLOON;
			} else {
				exit_not_deflated(v, "its RAM could not be read");
				v->exit_deflate = 0;
			}
		}
		break;
	case OP_STATS_ON:
		if (!ok)
			say_once(v, "guest-stats-polling-interval refused: %s", refusal(r));
		v->stats_on = ok;
		break;
	case OP_CONFIG:
		if (!ok)
			say_once(v, "working-set-config refused (retrying): %s", refusal(r));
		else
			say(v, "%s", "working-set reporting configured");
		v->configured = ok;
		break;
	case OP_QUERY:
		if (ok && !qmp_return_u64(r->obj, "actual", &n))
			vm_actual(v, n);
		break;
	case OP_STATS:
		if (ok && !qmp_stats_parse(r->obj, &v->stats, &upd) && upd &&
		    upd != v->stats_update) {
			v->stats_update = upd;
			v->have_stats = v->new_stats = 1;
			v->stats_ms = now_ms();
		}
		break;
	case OP_REQUEST:
		break;
	case OP_BALLOON:
		if (!ok) {
			say(v, "QMP balloon refused: %s", refusal(r));
			if (v->exit_inflight)
				exit_not_deflated(v, "its balloon command was refused");
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
			log_decision(v, &v->d, v->inflight_to);
		}
		if (v->exit_inflight)
			v->exit_deflate = v->exit_inflight = 0;
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

static void vm_msg(struct vm *v, const struct qmp_msg *m)
{
	enum qmp_kind k = qmp_kind(m->obj);

	switch (v->state) {
	case VM_GREETING:
		/* libvirt's answer when the domain cannot be had (virt.c) */
		if (k == QMP_ERROR && qmp_error_desc(m->obj)) {
			/* a domain that is not running has no guest left squeezed */
			if (strstr(qmp_error_desc(m->obj), "domain not running") ||
			    strstr(qmp_error_desc(m->obj), "no such domain"))
				vm_gone(v, qmp_error_desc(m->obj));
			else
				vm_fail(v, qmp_error_desc(m->obj));
			return;
		}
		if (k != QMP_GREETING) {
			vm_fail(v, "no QMP greeting");
			return;
		}
		if (qmp_queue(&v->q, qmp_cmd("qmp_capabilities"))) {
			vm_fail(v, "cannot send qmp_capabilities");
			return;
		}
		v->state = VM_CAPS;
		v->deadline = now_ms() + (double)cfg->qmp_timeout_ms;
		return;
	case VM_CAPS:
		if (k == QMP_EVENT)
			return;
		if (k != QMP_RETURN) {
			vm_fail(v, "qmp_capabilities refused");
			return;
		}
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
		return;
	case VM_UP:
		if (k == QMP_EVENT)
			on_event(v, m);
		else if ((k == QMP_RETURN || k == QMP_ERROR) && !v->busy)
			vm_fail(v, "a reply to no command");
		else if (k == QMP_RETURN || k == QMP_ERROR)
			vm_reply(v, m);
		return;
	default:
		return;
	}
}

static void vm_connect(struct vm *v)
{
	char err[128], why[192];
	int fd;

	if (v->arg->libvirt) {
		/* the thread's own connection: its answer, greeting or error, comes on fd */
		fd = virt_open(cfg->connect, v->arg->sock, cfg->device, 1, err, sizeof(err));
		if (fd < 0 || qmp_adopt_nb(&v->q, fd, STREAM_MAX, err, sizeof(err))) {
			snprintf(why, sizeof(why), "libvirt: %s", err);
			vm_fail(v, why);
			return;
		}
	} else if (qmp_open_nb(&v->q, v->arg->sock, STREAM_MAX, err, sizeof(err))) {
		snprintf(why, sizeof(why), "cannot talk QMP: %s", err);
		vm_gone(v, why);
		return;
	}
	v->state = VM_GREETING;
	v->deadline = now_ms() + (double)cfg->qmp_timeout_ms;
}

/* after poll(): send what waits, read what came, take every whole message */
static void vm_io(struct vm *v, short revents)
{
	const struct qmp_msg *m;
	char err[128];
	int r = 0;

	if ((revents & POLLOUT) && qmp_flush(&v->q)) {
		snprintf(err, sizeof(err), "cannot send: %s", strerror(errno));
		if (errno == EPIPE || errno == ECONNRESET)
			vm_closed(v);
		else
			vm_fail(v, err);
		return;
	}
	if (!(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	r = qmp_fill(&v->q, err, sizeof(err));
	if (r) {
		if (r == -1)
			vm_closed(v);
		else
			vm_fail(v, err);
		return;
	}
	while (v->state != VM_DOWN && (r = qmp_stream_next(&v->q.s, &m)) > 0)
		vm_msg(v, m);
	if (v->state != VM_DOWN && r < 0)
		vm_fail(v, "QEMU sent what is not JSON");
}

/*
 * Decide and act.  A target to set is sent before anything else queued;
 * it is logged when QEMU took it (--dry-run: at once, and remembered as
 * if set, so that the next decision builds on it).  A kept target is
 * logged when its reason differs from the last kept one's (not every
 * tick's "steady").
 */
static void vm_decide(struct vm *v)
{
	int queued = !!(v->queued & (1u << OP_BALLOON));
	struct policy_input in = {
		.now_ms = now_ms(), .ram = v->ram, .actual = v->actual,
		/* a balloon queued and not sent yet is the target the decision builds on */
		.target = queued ? v->balloon_to : v->target,
		.report = v->have_report ? &v->report : NULL, .report_ms = v->report_ms,
		.new_report = cfg->k.kind == POLICY_AVAILABLE || cfg->k.kind == POLICY_MOM ?
			      v->new_stats : v->new_report,
		.stats = v->have_stats ? &v->stats : NULL, .stats_ms = v->stats_ms,
		.unseen_reclaims = v->unseen_reclaims,
		.host_free_pct = host.free.n && host.total ?
				 mom_avg_get(&host.free) / (double)host.total : -1,
		.plan = v->plan,
	};
	struct policy_decision d;

	/*
	 * One balloon at a time: the next decision sees its target.  One
	 * queued and not sent yet is replaced by a later decision's (two
	 * events of one read), so that no event goes undecided.
	 */
	if (v->busy && v->inflight == OP_BALLOON)
		return;
	v->pending = 0;
	if (!v->ram || !v->actual)
		return;
	if (v->foreign_until) {
		/* the data stays new for the policy's first decision after the hold */
		memset(&d, 0, sizeof(d));
		snprintf(d.reason, sizeof(d.reason), "foreign-target");
	} else {
		policy_decide(&v->k, &v->st, &in, &d);
		v->plan = 0;
		v->new_report = v->new_stats = 0;
		v->unseen_reclaims = 0;
	}
	if (d.action == POLICY_KEEP) {
		if (strcmp(d.reason, v->last_keep))
			log_decision(v, &d, v->target);
		snprintf(v->last_keep, sizeof(v->last_keep), "%s", d.reason);
		return;
	}
	v->last_keep[0] = 0;
	if (cfg->dry_run) {
		v->target = d.target;
		v->decisions++;
		log_decision(v, &d, d.target);
		return;
	}
	v->d = d;
	v->balloon_to = d.target;
	v->queued |= 1u << OP_BALLOON;
}

/* what is due for @v now; the time it next needs a turn in *next */
static void vm_step(struct vm *v, double *next)
{
	double now = now_ms();
	char why[128];

	switch (v->state) {
	case VM_DOWN:
		if ((!exiting || v->exit_deflate) && now >= v->next_connect)
			vm_connect(v);
		break;
	case VM_GREETING:
	case VM_CAPS:
		if (now >= v->deadline) {
			snprintf(why, sizeof(why), "no QMP %s within %llu ms (another client on "
				 "this socket?)", v->state == VM_GREETING ? "greeting" :
				 "qmp_capabilities reply", (unsigned long long)cfg->qmp_timeout_ms);
			vm_fail(v, why);
		}
		break;
	case VM_UP:
		if (v->busy && now >= v->deadline) {
			snprintf(why, sizeof(why), "no reply to %s within %llu ms",
				 op_names[v->inflight], (unsigned long long)cfg->qmp_timeout_ms);
			vm_fail(v, why);
			break;
		}
		if (v->foreign_until && now >= v->foreign_until) {
			say(v, "the balloon stayed put for %.0f s: balancing it again",
			    cfg->foreign_hold_ms / 1e3);
			v->foreign_until = 0;
			v->ref_valid = 0;
			v->pending = 1;
		}
		if (!exiting && now >= v->next_tick) {
			vm_tick(v);
			v->next_tick = now + (double)cfg->tick_ms;
		}
		if (!exiting && v->pending)
			vm_decide(v);
		vm_send_next(v);
		break;
	}
	if (v->state == VM_DOWN && (!exiting || v->exit_deflate) && v->next_connect < *next)
		*next = v->next_connect;
	if (v->state != VM_DOWN && (v->state != VM_UP || v->busy) && v->deadline < *next)
		*next = v->deadline;
	if (v->state == VM_UP && !exiting && v->next_tick < *next)
		*next = v->next_tick;
	if (v->state == VM_UP && v->foreign_until && v->foreign_until < *next)
		*next = v->foreign_until;
}

static char *scrape(void *arg)
{
	struct metrics_vm *m = calloc(cfg->nr_vms ? cfg->nr_vms : 1, sizeof(*m));
	double now = now_ms();
	unsigned int i, n = 0;
	char *text;

	(void)arg;
	if (!m)
		return NULL;
	for (i = 0; i < cfg->nr_vms; i++) {
		struct vm *v = &vms[i];

		if (v->removed)
			continue;
		m[n++] = (struct metrics_vm){
			.name = v->arg->name, .up = v->state == VM_UP,
			.report = v->have_report ? &v->report : NULL,
			.report_age_s = (now - v->report_ms) / 1e3,
			.ram = v->ram, .actual = v->actual, .target = v->target,
			.decisions = v->decisions, .missed_reclaims = v->missed,
			.idle_s = cfg->k.kind != POLICY_WORKING_SET ? 0 :
				  (v->st.cost.idle_ms ? v->st.cost.idle_ms : v->k.idle_ms) / 1e3,
			.promotion_rate = v->st.cost.idle_ms ? v->st.cost.rate_ppm / 1e6 : -1,
		};
		memcpy(m[n - 1].reports, v->reports, sizeof(m[n - 1].reports));
	}
	text = metrics_text(m, n);
	free(m);
	return text;
}

/* a running domain the listing named: managed from now on (a free slot, or a new one) */
static void list_add(const char *name)
{
	struct balance_vm *a;
	struct vm *v;
	unsigned int i;

	for (i = 0; i < cfg->nr_vms && !vms[i].removed; i++)
		;
	if (i == BALANCE_MAX_VMS) {
		info_msg("domain %s: skipped: balance manages %d VMs at most", name, BALANCE_MAX_VMS);
		return;
	}
	a = &cfg_vms->vms[i];
	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "%.63s", name);
	snprintf(a->sock, sizeof(a->sock), "%.63s", name);
	a->libvirt = 1;
	v = &vms[i];
	memset(v, 0, sizeof(*v));
	v->arg = a;
	v->q.fd = -1;
	v->k = cfg->k;
	v->found = v->listed = 1;
	if (i == cfg->nr_vms)
		cfg_vms->nr_vms++;
	say(v, "%s", "found running");
}

/*
 * One line of the listing: a running domain (added when new), "." at its
 * end (a found domain not in it, and down, is let go), "!REASON" when it
 * failed (nothing let go on it: a restarting daemon lists nothing)
 */
static void list_line(const char *line)
{
	unsigned int i;
	size_t k;

	if (line[0] == '!') {
		if (strcmp(line + 1, list_err))
			info_msg("libvirt: %s", line + 1);
		snprintf(list_err, sizeof(list_err), "%.255s", line + 1);
		return;
	}
	if (strcmp(line, ".")) {
		for (i = 0; i < cfg->nr_vms; i++)
			if (!vms[i].removed && !strcmp(vms[i].arg->name, line)) {
				vms[i].listed = 1;
				return;
			}
		/* a metrics label and a log word: the names --vm takes */
		for (k = 0; line[k] && strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					       "0123456789_.-", line[k]); k++)
			;
		if (line[k] || k >= sizeof(vms[0].arg->name))
			info_msg("domain %s: skipped: its name is not one of letters, digits, '_', "
				 "'.' and '-', at most 63", line);
		else
			list_add(line);
		return;
	}
	list_err[0] = 0;
	for (i = 0; i < cfg->nr_vms; i++) {
		struct vm *v = &vms[i];

		if (v->found && !v->removed && !v->listed && v->state == VM_DOWN) {
			say(v, "%s", "not running: let go");
			qmp_close(&v->q);
			v->removed = 1;
		}
		v->listed = 0;
	}
}

/* what the listing thread wrote; a name too long for the buffer is dropped */
static void list_io(void)
{
	char *nl;
	ssize_t n;

	n = read(list_fd, list_buf + list_len, sizeof(list_buf) - 1 - list_len);
	if (n <= 0)
		return;
	list_len += n;
	list_buf[list_len] = 0;
	while ((nl = strchr(list_buf, '\n'))) {
		*nl = 0;
		list_line(list_buf);
		list_len -= nl + 1 - list_buf;
		memmove(list_buf, nl + 1, list_len + 1);
	}
	if (list_len == sizeof(list_buf) - 1)
		list_len = 0;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = stop ? 2 : 1;
}

/*
 * The host's memory: /proc/meminfo, or --host-budget-mib with what is used
 * of it from --host-used-file, or else the sum of the guests' sizes.  0,
 * -1 on a failed read (said once), 1 when a guest's size is not known yet.
 */
static int host_read(struct host_mem *h)
{
	char err[sizeof(host.err)] = "";
	unsigned int i;
	int e = 0;

	if (!cfg->host_budget) {
		e = hostmem_read_meminfo(h, err, sizeof(err));
	} else if (cfg->host_used_file) {
		h->total = cfg->host_budget;
		e = hostmem_read_bytes(cfg->host_used_file, &h->used, err, sizeof(err));
	} else {
		/*
		 * a VM that is down counts at its full size (it comes back
		 * so); none is known before every VM's size was read once
		 */
		h->total = cfg->host_budget;
		for (h->used = 0, i = 0; i < cfg->nr_vms; i++) {
			const struct vm *v = &vms[i];

			if (v->removed)
				continue;
			if (!v->ram)
				return 1;
			h->used += v->state == VM_UP && v->actual ? v->actual : full_size(v);
		}
	}
	if (e && strcmp(err, host.err))
		err_msg("balance: the host's memory: %s", err);
	snprintf(host.err, sizeof(host.err), "%s", err);
	return e ? -1 : 0;
}

/*
 * proxmox: pvestatd's round, every 10 s: the host's goal shared out among
 * the VMs that are up with a balloon, each VM's share its plan, decided
 * on at once
 */
static void host_round(const struct host_mem *h)
{
	struct pve_vm pv[BALANCE_MAX_VMS];
	unsigned int at[BALANCE_MAX_VMS], n = 0, i;
	__u64 res[BALANCE_MAX_VMS];
	long long goal = pve_goal(h->total, h->used, (unsigned int)cfg->k.host_target_pct);

	for (i = 0; i < cfg->nr_vms; i++) {
		struct vm *v = &vms[i];

		if (v->removed || v->state != VM_UP || !v->actual || !v->ram || v->foreign_until)
			continue;
		pv[n] = (struct pve_vm){
			.balloon = v->actual, .balloon_min = v->k.floor, .maxmem = full_size(v),
			.freemem = v->have_stats ? v->stats.free : -1, .shares = 1000,
		};
		at[n++] = i;
	}
	pve_alg1(pv, n, goal, PVE_MAX_CHANGE, res);
	for (i = 0; i < n; i++)
		if (res[i]) {
			vms[at[i]].plan = res[i];
			vms[at[i]].pending = 1;
		}
}

/* the host's sample (mom) and round (proxmox) when due; the next in *@next */
static void host_step(double *next)
{
	enum policy_kind kind = cfg->k.kind;
	double now = now_ms();
	struct host_mem h;
	int r;

	if ((kind != POLICY_MOM && kind != POLICY_PROXMOX) || exiting)
		return;
	if (now >= host.next_sample) {
		r = host_read(&h);
		/* a guest's size not known yet: again at the next tick */
		host.next_sample = now + (r > 0 ? (double)cfg->tick_ms :
					  kind == POLICY_MOM ? MOM_SAMPLE_MS : BASELINE_ROUND_MS);
		if (!r) {
			host.total = h.total;
			mom_avg_add(&host.free, h.total > h.used ? (double)(h.total - h.used) : 0);
			if (kind == POLICY_PROXMOX)
				host_round(&h);
		}
	}
	if (host.next_sample < *next)
		*next = host.next_sample;
}

/*
 * One turn of the loop: what is due, one poll() (until the next thing is
 * due, the metrics server's time-out, or @max_ms), then what it found.
 * -1 when poll() fails.
 */
static int turn(struct pollfd *pfd, struct metrics_server *ms, double max_ms)
{
	double next = now_ms() + max_ms, now;
	struct timespec ts;
	unsigned int i, n = 0, at[BALANCE_MAX_VMS];
	int timeout, mt;

	host_step(&next);
	for (i = 0; i < cfg->nr_vms; i++)
		if (!vms[i].removed)
			vm_step(&vms[i], &next);
	for (i = 0; i < cfg->nr_vms; i++) {
		struct vm *v = &vms[i];

		if (v->state == VM_DOWN)
			continue;
		at[n] = i;
		pfd[n++] = (struct pollfd){ .fd = v->q.fd,
					    .events = POLLIN | (qmp_pending(&v->q) ? POLLOUT : 0) };
	}
	if (ms)
		pfd[n] = (struct pollfd){ .fd = metrics_fd(ms), .events = POLLIN };
	if (list_fd >= 0)
		pfd[n + !!ms] = (struct pollfd){ .fd = list_fd, .events = POLLIN };
	now = now_ms();
	timeout = next > now ? (int)(next - now) + 1 : 0;
	if (ms && (mt = metrics_timeout_ms(ms)) >= 0 && mt < timeout)
		timeout = mt;
	ts.tv_sec = timeout / 1000;
	ts.tv_nsec = timeout % 1000 * 1000000L;
	/* SIGTERM and SIGINT come only here, never between the check of stop and the wait */
	if (ppoll(pfd, n + !!ms + (list_fd >= 0), &ts, &unblocked) < 0 && errno != EINTR) {
		err_msg("ppoll: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++)
		if (pfd[i].revents)
			vm_io(&vms[at[i]], pfd[i].revents);
	if (ms)
		metrics_run(ms);
	if (list_fd >= 0 && pfd[n + !!ms].revents)
		list_io();
	return 0;
}

/* the VMs left squeezed, in one line: what the exit status 1 is about */
static void exit_names(void)
{
	char line[1024];
	size_t n = 0;
	unsigned int i;

	line[0] = 0;
	for (i = 0; i < cfg->nr_vms && n < sizeof(line); i++)
		if (vms[i].exit_failed)
			n += snprintf(line + n, sizeof(line) - n, "%s%s", n ? ", " : "",
				      vms[i].arg->name);
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
static int finish(struct pollfd *pfd, struct metrics_server *ms)
{
	unsigned int i, left = 0;

	if (cfg->on_exit == ON_EXIT_KEEP) {
		info_msg("stopping; --on-exit keep: every target stays");
		return 0;
	}
	for (i = 0; i < cfg->nr_vms; i++) {
		struct vm *v = &vms[i];

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
		if (turn(pfd, ms, 100))
			break;
		for (left = 0, i = 0; i < cfg->nr_vms; i++)
			left += vms[i].exit_deflate;
	}
	for (i = 0; i < cfg->nr_vms; i++)
		if (vms[i].exit_deflate)
			exit_not_deflated(&vms[i], "stopped by a second signal");
	if (exit_failed)
		exit_names();
	return exit_failed ? 1 : 0;
}

/*
 * The metrics server's connections: well below RLIMIT_NOFILE less a
 * socket per VM and a reserve (stdio, the server's own, a reconnect's
 * overlap), so that clients that hold connections open never leave a VM
 * that reconnects without a descriptor.
 */
static unsigned int metrics_conn_limit(void)
{
	struct rlimit rl;
	__u64 nofile = 1024, reserve = cfg->nr_vms * 2 + 32, lim;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY)
		nofile = rl.rlim_cur;
	lim = nofile > reserve ? (nofile - reserve) / 2 : 1;
	return lim > METRICS_MAX_CONN ? METRICS_MAX_CONN : lim ? (unsigned int)lim : 1;
}

int cmd_balance(int argc, char **argv)
{
	static struct balance_cfg c;
	struct metrics_server *ms = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t stops, old;
	struct pollfd *pfd;
	unsigned int i;
	int err;

	err = balance_parse_args(argc, argv, &c);
	if (err >= 0)
		return err;
	err = 0;
	cfg = &c;
	stop = 0;
	exiting = 0;
	exit_failed = 0;
	memset(&host, 0, sizeof(host));
	cfg_vms = &c;
	/* room for what the listing adds, a metrics server and the listing */
	vms = calloc(BALANCE_MAX_VMS, sizeof(*vms));
	pfd = calloc(BALANCE_MAX_VMS + 2, sizeof(*pfd));
	if (!vms || !pfd)
		return 1;
	for (i = 0; i < c.nr_vms; i++) {
		vms[i].arg = &c.vms[i];
		vms[i].q.fd = -1;
		vms[i].k = c.k;
		if (c.vms[i].min)
			vms[i].k.floor = c.vms[i].min;
		vms[i].k.ceiling = c.vms[i].max;
	}
	if (c.metrics) {
		struct metrics_limits lim = {
			.connections = metrics_conn_limit(), .per_ip = METRICS_PER_IP,
			.idle_s = METRICS_IDLE_S, .backlog = METRICS_BACKLOG,
		};

		ms = metrics_start(c.metrics, &lim, scrape, NULL);
		if (!ms)
			return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigprocmask(SIG_BLOCK, &stops, &old);
	unblocked = old;
	sigdelset(&unblocked, SIGINT);
	sigdelset(&unblocked, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!c.nr_vms) {
		list_fd = virt_list_domains(c.connect, 1000, list_err, sizeof(list_err));
		if (list_fd < 0) {
			err_msg("balance: %s", list_err);
			return 1;
		}
		list_err[0] = 0;
		info_msg("balancing every running domain of %s whose balloon has working-set on",
			 c.connect);
	}
	info_msg("balancing %u VM(s), policy %s%s%s%s", c.nr_vms, policy_kind_name(c.k.kind),
		 c.dry_run ? ", dry run (no balloon command sent)" : "",
		 c.metrics ? ", metrics on http://" : "", c.metrics ? c.metrics : "");
	while (!stop && !err)
		err = turn(pfd, ms, 60000) ? 1 : 0;
	if (!err) {
		exiting = 1;
		err = finish(pfd, ms);
	}
	for (i = 0; i < c.nr_vms; i++)
		qmp_close(&vms[i].q);
	sigprocmask(SIG_SETMASK, &old, NULL);
	metrics_stop(ms);
	free(pfd);
	free(vms);
	return err;
}
