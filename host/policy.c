// SPDX-License-Identifier: GPL-2.0
/* wsr-host balance's policies: see policy.h, and docs/policies.md. */
#include <stdio.h>
#include <string.h>
#include "policy.h"

#define MIB (1ULL << 20)

void policy_knobs_default(struct policy_knobs *k)
{
	memset(k, 0, sizeof(*k));
	k->kind = POLICY_WORKING_SET;
	/*
	 * T = 10 s: the shortest idle time safely above the estimator's error
	 * (a page touched more often than R + I reads as idle for less than
	 * 2 (R + I): 4 s with refresh_ms 1000 and the daemon's default
	 * --interval-ms 1000, 3 s at 500), so no page in use counts as idle;
	 * short enough that a host reclaims within a minute.  Slow swap wants
	 * more (Google's far memory starts at 120 s).
	 */
	k->idle_ms = 10000;
	k->headroom = 64 * MIB;
	k->reclaim_margin = 64 * MIB;
	k->hold_ms = 30000;
	k->step = 64 * MIB;
	k->floor = 256 * MIB;
	k->max_age_ms = 10000;
	k->available_pct = 20;
}

static const char *const kind_names[] = {
	[POLICY_NONE] = "none",
	[POLICY_AVAILABLE] = "available",
	[POLICY_WORKING_SET] = "working-set",
};

int policy_kind_parse(const char *s, enum policy_kind *kind)
{
	unsigned int i;

	for (i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(s, kind_names[i])) {
			*kind = i;
			return 0;
		}
	return -1;
}

const char *policy_kind_name(enum policy_kind kind)
{
	return kind <= POLICY_WORKING_SET ? kind_names[kind] : "?";
}

__u64 ws_report_hot(const struct ws_report *r, __u64 idle_ms)
{
	__u64 sum = 0;
	__u32 n, b;

	for (n = 0; n < r->nr_nodes; n++) {
		const struct ws_node *node = &r->nodes[n];

		/* every bin up to the first whose bound reaches T */
		for (b = 0; b < node->nr_bins; b++) {
			sum += node->bins[b].anon + node->bins[b].file;
			if (node->bins[b].idle_le_ms >= idle_ms)
				break;
		}
	}
	return sum;
}

__u64 ws_report_total(const struct ws_report *r)
{
	__u64 sum = 0;
	__u32 n, b;

	for (n = 0; n < r->nr_nodes; n++)
		for (b = 0; b < r->nodes[n].nr_bins; b++)
			sum += r->nodes[n].bins[b].anon + r->nodes[n].bins[b].file;
	return sum;
}

/* the largest target: the RAM, or the ceiling below it */
static __u64 top(const struct policy_knobs *k, const struct policy_input *in)
{
	return k->ceiling && k->ceiling < in->ram ? k->ceiling : in->ram;
}

static __u64 clamp(const struct policy_knobs *k, const struct policy_input *in, __u64 v)
{
	__u64 ceiling = top(k, in), floor = k->floor < ceiling ? k->floor : ceiling;

	if (v < floor)
		return floor;
	return v > ceiling ? ceiling : v;
}

static __u64 max_u64(__u64 a, __u64 b)
{
	return a > b ? a : b;
}

static void keep(struct policy_decision *d, const char *why)
{
	d->action = POLICY_KEEP;
	snprintf(d->reason, sizeof(d->reason), "%s", why);
}

static void set(struct policy_decision *d, __u64 target, const char *why)
{
	d->action = POLICY_SET;
	d->target = target;
	snprintf(d->reason, sizeof(d->reason), "%s", why);
}

/*
 * Towards @want (already clamped): a deflation at once, an inflation by
 * at most one step from actual, on new data (@fresh) only, and not while
 * the hold-off runs.  Changes under POLICY_MIN_CHANGE are kept.
 */
static void move_to(const struct policy_knobs *k, const struct policy_state *st,
		    const struct policy_input *in, __u64 want, int fresh, double age_ms,
		    struct policy_decision *d)
{
	__u64 cur = in->target ? in->target : in->actual;
	__u64 t;

	/*
	 * Above the operator's ceiling (--vm's max=): down to it at once,
	 * whatever the data; the bound is not a guess that a step would
	 * limit the cost of.
	 */
	if (cur >= top(k, in) + POLICY_MIN_CHANGE) {
		set(d, top(k, in), "max");
		return;
	}
	if (want >= cur + POLICY_MIN_CHANGE || (want > cur && in->actual < clamp(k, in, 0))) {
		set(d, want, "deflate");
		return;
	}
	if (want + POLICY_MIN_CHANGE > in->actual) {
		keep(d, "steady");
		return;
	}
	if (in->now_ms < st->hold_until_ms) {
		keep(d, "hold");
		return;
	}
	if (age_ms > (double)k->max_age_ms) {
		keep(d, "stale");
		return;
	}
	if (!fresh) {
		keep(d, "wait-data");
		return;
	}
	t = in->actual > want + k->step ? in->actual - k->step : want;
	if (t + POLICY_MIN_CHANGE > cur) {
		keep(d, "inflating");
		return;
	}
	set(d, t, t == want ? "inflate" : "inflate-step");
}

static void decide_ws(const struct policy_knobs *k, struct policy_state *st,
		      const struct policy_input *in, struct policy_decision *d)
{
	const struct ws_report *r = in->report;
	__u64 total, free = 0, need, want, base, cur;
	double age;

	if (!r) {
		keep(d, "no-report");
		return;
	}
	d->hot = ws_report_hot(r, k->idle_ms);
	total = ws_report_total(r);
	/* free memory beyond the headroom is not needed: the stats say how much */
	if (in->stats && in->stats->free >= 0 &&
	    in->now_ms - in->stats_ms <= (double)k->max_age_ms)
		free = (__u64)in->stats->free;
	d->other = in->actual > total + free ? in->actual - total - free : 0;
	need = d->hot + k->headroom + d->other;
	age = in->now_ms - in->report_ms + (double)r->data_age_ms;
	if (r->cause == WSR_CAUSE_RECLAIM && in->new_report) {
		/*
		 * The guest reclaims.  Its free memory is at the watermarks,
		 * whatever stats from before the pressure say: none is
		 * subtracted.
		 */
		st->last_reclaim_ms = in->now_ms;
		d->other = in->actual > total ? in->actual - total : 0;
		want = d->hot + k->headroom + d->other + k->reclaim_margin;
		d->want = want;
		cur = in->target ? in->target : in->actual;
		/*
		 * The target leaves room for the memory in use, the headroom
		 * and the margin: what the guest reclaims has been idle for T
		 * or more, which is what the balloon is there to take (an
		 * inflation under way pushes it out).  Inflation goes on:
		 * holding off here would stop every inflation at the first
		 * page it evicts.
		 */
		if (want <= cur) {
			keep(d, "reclaim-covered");
			return;
		}
		/* short of memory in use: deflate at once, inflate nothing for a while */
		st->hold_until_ms = in->now_ms + (double)k->hold_ms;
		base = max_u64(in->actual, in->target);
		want = clamp(k, in, max_u64(want, base));
		if (want >= cur + POLICY_MIN_CHANGE || (in->target && in->target < in->actual))
			set(d, want, "deflate-reclaim");
		else
			keep(d, "hold");
		return;
	}
	d->want = need;
	move_to(k, st, in, clamp(k, in, need), in->new_report, age, d);
}

static void decide_available(const struct policy_knobs *k, struct policy_state *st,
			     const struct policy_input *in, struct policy_decision *d)
{
	__u64 keep_avail = in->ram / 100 * k->available_pct, avail;

	if (!in->stats || in->stats->available < 0) {
		keep(d, "no-stats");
		return;
	}
	avail = (__u64)in->stats->available;
	d->want = in->actual > avail ? in->actual - avail + keep_avail : keep_avail;
	move_to(k, st, in, clamp(k, in, d->want), in->new_report, in->now_ms - in->stats_ms, d);
}

void policy_decide(const struct policy_knobs *k, struct policy_state *st,
		   const struct policy_input *in, struct policy_decision *d)
{
	memset(d, 0, sizeof(*d));
	switch (k->kind) {
	case POLICY_WORKING_SET:
		decide_ws(k, st, in, d);
		break;
	case POLICY_AVAILABLE:
		decide_available(k, st, in, d);
		break;
	default:
		keep(d, "none");
		break;
	}
}
