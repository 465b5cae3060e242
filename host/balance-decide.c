// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host balance: what a VM's messages say (its reports, the balloon's
 * size, its RAM, a reset) and the decisions on them (policy.c decides;
 * this queues the balloon command and logs the decision).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include "libwsr.h"
#include "balance-state.h"
#include "virt.h"
#include "hostmem.h"

/*
 * The balloon moving this far the wrong way is someone else's target: the
 * guest's driver moves in batches of 1 MiB and reads a new target between
 * two, so balance's own target never costs it more than a batch or two.
 */
#define FOREIGN_MOVE (16 * MIB)

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __u64 absdiff(__u64 a, __u64 b)
{
	return a > b ? a - b : b - a;
}

/* a reading of the balloon's size: someone else's target shows here */
void vm_actual(struct balance *b, struct vm *v, __u64 a)
{
	const char *why = NULL;
	double now = now_ms();

	v->actual = a;
	if (!b->cfg->foreign_hold_ms)
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
		    b->cfg->foreign_hold_ms / 1e3);
	/* every move after this one starts the hold again */
	v->foreign_until = now + (double)b->cfg->foreign_hold_ms;
	v->sent = v->target = 0;
	v->ref = a;
}

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
static int bins_configured(struct balance *b, const struct ws_report *r)
{
	__u32 n, i;

	for (n = 0; n < r->nr_nodes; n++) {
		if (r->nodes[n].hist.nr_bins != b->cfg->nr_intervals + 1)
			return 0;
		for (i = 0; i < b->cfg->nr_intervals; i++)
			if (r->nodes[n].hist.bound_ms[i] != b->cfg->intervals[i])
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

/* a report: decided on as it comes */
static void on_report(struct balance *b, struct vm *v, const struct ws_report *r)
{
	unsigned int lost;

	/*
	 * Still decided on: a reclaim report is one whatever its bins, and
	 * the policies read bins they cannot split at T as busy (no
	 * inflation)
	 */
	if (v->configured && !bins_configured(b, r)) {
		say(v, "%s", "a report with other bins than balance configured (the guest's "
		    "driver was reset?): configuring its working-set reporting again");
		v->configured = 0;
		/* the driver is there (it reported): no need to wait for the tick */
		v->queued |= 1u << OP_CONFIG;
	}
	/* a reclaim report not decided on yet is not lost with it */
	if (v->new_report && v->report.cause == WSR_CAUSE_RECLAIM)
		v->unseen_reclaims++;
	lost = missed_reclaims(v, r);
	v->missed += lost;
	v->unseen_reclaims += lost;
	v->report = *r;
	v->have_report = v->new_report = v->pending = 1;
	v->report_ms = now_ms();
	v->reports[v->report.cause]++;
	/* every event decided on as it comes, not only the last of a read */
	if (!b->exiting)
		vm_decide(b, v);
}

void on_event(struct balance *b, struct vm *v, const struct vm_said *s)
{
	switch (s->kind) {
	case SAID_RESET:
		vm_guest_reset(v);
		break;
	case SAID_STOPPED:
		if (v->arg->libvirt)
			vm_gone(b, v, "libvirt: the domain stopped");
		break;
	case SAID_BAD_REPORT:
		say(v, "a WORKING_SET_EVENT without a well-formed report, ignored: %s", s->desc);
		break;
	case SAID_REPORT:
		on_report(b, v, &s->report);
		break;
	case SAID_ACTUAL:
		vm_actual(b, v, s->actual);
		break;
	default:
		break;
	}
}

/* a decision as one line of JSON: the keys of the text line, in its order */
static void log_decision_json(struct balance *b, const struct vm *v,
			      const struct policy_decision *d, __u64 target,
			      const char *action, const char *cause, __u64 age)
{
	struct json_object *o = json_object_new_object();
	int err;

	err = wsr_json_add(o, "time", wsr_json_fixed(wall_s(), 3)) |
	      wsr_json_add(o, "vm", json_object_new_string(v->arg->name)) |
	      wsr_json_add(o, "policy", json_object_new_string(policy_kind_name(b->cfg->k.kind))) |
	      wsr_json_add(o, "action", json_object_new_string(action)) |
	      wsr_json_add(o, "reason", json_object_new_string(d->reason)) |
	      wsr_json_add(o, "cause", json_object_new_string(cause)) |
	      wsr_json_add(o, "actual", wsr_json_u64(v->actual)) |
	      wsr_json_add(o, "target", wsr_json_u64(target)) |
	      wsr_json_add(o, "want", wsr_json_u64(d->want)) |
	      wsr_json_add(o, "hot", wsr_json_u64(d->hot)) |
	      wsr_json_add(o, "other", wsr_json_u64(d->other)) |
	      wsr_json_add(o, "swapped", wsr_json_u64(d->swapped)) |
	      wsr_json_add(o, "data_age_ms", wsr_json_u64(age));
	if (b->cfg->dry_run)
		err |= wsr_json_add(o, "dry_run", json_object_new_boolean(1));
	if (err) {
		json_object_put(o);
		o = NULL;
	}
	if (wsr_json_print(stdout, o, "\n"))
		err_msg("balance: out of memory");
}

void log_decision(struct balance *b, const struct vm *v, const struct policy_decision *d,
		  __u64 target)
{
	const char *cause = wsr_cause_name(v->have_report ? v->report.cause : WSR_CAUSE_NONE);
	const char *action = d->action == POLICY_SET ? "set" : "keep";
	unsigned long long age = v->have_report ? v->report.data_age_ms : 0;

	if (b->cfg->json)
		log_decision_json(b, v, d, target, action, cause, age);
	else
		printf("decision time=%.3f vm=%s policy=%s action=%s reason=%s cause=%s "
		       "actual=%llu target=%llu want=%llu hot=%llu other=%llu swapped=%llu "
		       "data_age_ms=%llu%s\n",
		       wall_s(), v->arg->name, policy_kind_name(b->cfg->k.kind), action, d->reason,
		       cause, (unsigned long long)v->actual, (unsigned long long)target,
		       (unsigned long long)d->want, (unsigned long long)d->hot,
		       (unsigned long long)d->other, (unsigned long long)d->swapped, age,
		       b->cfg->dry_run ? " dry_run=1" : "");
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
void vm_memsize(struct vm *v, const struct vm_said *s)
{
	__u64 base = s->base, plugged = s->plugged;

	if (!s->valid) {
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

/*
 * Decide and act.  A target to set is sent before anything else queued;
 * it is logged when QEMU took it (--dry-run: at once, and remembered as
 * if set, so that the next decision builds on it).  A kept target is
 * logged when its reason differs from the last kept one's (not every
 * tick's "steady").
 */
/* working-set: the VM's memory in the host's swap, 0 if unknown */
static __u64 vm_swapped(struct balance *b, struct vm *v)
{
	char err[128];
	__u64 s;

	if (b->cfg->k.kind != POLICY_WORKING_SET || !v->qemu_pid)
		return 0;
	if (!hostmem_read_swapped(v->qemu_pid, &s, err, sizeof(err)))
		return s;
	if (!v->swap_said)
		say(v, "its memory in the host's swap is not known (%s): taken as none", err);
	v->swap_said = 1;
	return 0;
}

void vm_decide(struct balance *b, struct vm *v)
{
	int queued = !!(v->queued & (1u << OP_BALLOON));
	struct policy_input in = {
		.now_ms = now_ms(), .ram = v->ram, .actual = v->actual,
		/* a balloon queued and not sent yet is the target the decision builds on */
		.target = queued ? v->balloon_to : v->target,
		.report = v->have_report ? &v->report : NULL, .report_ms = v->report_ms,
		.new_report = b->cfg->k.kind == POLICY_AVAILABLE || b->cfg->k.kind == POLICY_MOM ?
			      v->new_stats : v->new_report,
		.stats = v->have_stats ? &v->stats : NULL, .stats_ms = v->stats_ms,
		.unseen_reclaims = v->unseen_reclaims,
		.host_free_pct = b->host.free.n && b->host.total ?
				 mom_avg_get(&b->host.free) / (double)b->host.total : -1,
		.plan = v->plan,
		.host_swapped = vm_swapped(b, v),
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
			log_decision(b, v, &d, v->target);
		snprintf(v->last_keep, sizeof(v->last_keep), "%s", d.reason);
		return;
	}
	v->last_keep[0] = 0;
	if (b->cfg->dry_run) {
		v->target = d.target;
		v->decisions++;
		log_decision(b, v, &d, d.target);
		return;
	}
	v->d = d;
	v->balloon_to = d.target;
	v->queued |= 1u << OP_BALLOON;
}
