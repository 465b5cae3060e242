// SPDX-License-Identifier: GPL-2.0
/* wsr-host balance's policies: see policy.h, and docs/policies.md. */
#include <stdio.h>
#include <string.h>
#include "policy.h"
#include "costaware.h"

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
	/*
	 * As long as the hold-off: a guest whose working set changed by more
	 * than a band within it (one growing, or one that just freed what it
	 * used) is not inflated until it keeps one for as long.
	 */
	k->steady_ms = 30000;
	k->step = 64 * MIB;
	k->floor = 256 * MIB;
	k->max_age_ms = 10000;
	k->available_pct = 20;
	/*
	 * T between 10 s (the estimator's error, above) and 10 minutes:
	 * Google's far memory runs T from 2 to 10 minutes or more, and a
	 * guest that still misses its SLO at 10 minutes has no cold memory
	 * worth the balloon taking.
	 */
	k->idle_min_ms = 10000;
	k->idle_max_ms = 600000;
	/* Google's far-memory SLO: at most 0.2% of the working set per minute */
	k->slo_ppm = 2000;
	/* oomd Senpai's defaults: 10 ms of stall per interval of 6 ticks of 5 s */
	k->pressure_us = 10000;
	k->pressure_tick_ms = 5000;
	/* pvenode's ballooning-target: 80% of the host's memory used */
	k->host_target_pct = 80;
}

static const char *const kind_names[] = {
	[POLICY_NONE] = "none",
	[POLICY_AVAILABLE] = "available",
	[POLICY_WORKING_SET] = "working-set",
	[POLICY_PRESSURE] = "pressure",
	[POLICY_MOM] = "mom",
	[POLICY_PROXMOX] = "proxmox",
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
	return kind <= POLICY_PROXMOX ? kind_names[kind] : "?";
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
 * at most one step from actual, on new data (@fresh) only, not while the
 * hold-off runs nor while the guest stalls (@stalled).  Changes under
 * POLICY_MIN_CHANGE are kept.
 */
static void move_to(const struct policy_knobs *k, struct policy_state *st,
		    const struct policy_input *in, __u64 want, int fresh, double age_ms,
		    int stalled, struct policy_decision *d)
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
	if (stalled) {
		keep(d, "pressure");
		return;
	}
	t = in->actual > want + k->step ? in->actual - k->step : want;
	if (t + POLICY_MIN_CHANGE > cur) {
		keep(d, "inflating");
		return;
	}
	set(d, t, t == want ? "inflate" : "inflate-step");
	st->last_inflate_ms = in->now_ms;
}

/*
 * A reclaim the policy learns of: the latest report's cause, or reclaim
 * reports it did not see (replaced before a decision, or lost: the
 * header's sequence number jumped).  @need_free is the need with the free
 * memory the stats report taken off; @self says the policy's own
 * inflation caused it.
 */
static void on_reclaim(const struct policy_knobs *k, struct policy_state *st,
		       const struct policy_input *in, __u64 total, int self, __u64 free,
		       struct policy_decision *d)
{
	__u64 want, cur = in->target ? in->target : in->actual;
	const char *why = in->report->cause == WSR_CAUSE_RECLAIM && in->new_report ?
			  "deflate-reclaim" : "deflate-missed";

	st->last_reclaim_ms = in->now_ms;
	/*
	 * The guest reclaims.  Its free memory is at the watermarks,
	 * whatever stats from before the pressure say: none is subtracted.
	 * Unless the policy's own inflation caused it: then free memory
	 * the stats still see (on another node than the one the balloon
	 * took its pages from) is not what the guest needs, and it is
	 * deflated by what it needs, not by all of its free memory.
	 */
	if (!self)
		free = 0;
	else if (free)
		why = "deflate-self";
	d->other = in->actual > total + free ? in->actual - total - free : 0;
	/*
	 * No margin on a reclaim the policy's own inflation caused: the
	 * guest gives up what has been idle for T or more, which is what
	 * the balloon is there to take.  With the margin (and free memory
	 * unknown since the inflation), every step deflated by more than it
	 * took, and a guest whose hot set was near its size ratcheted up.
	 */
	want = d->hot + d->swapped + k->headroom + d->other + (self ? 0 : k->reclaim_margin);
	d->want = want;
	/*
	 * The target leaves room for the memory in use, the headroom and
	 * the margin: what the guest reclaims has been idle for T or more,
	 * which is what the balloon is there to take (an inflation under
	 * way pushes it out).  Inflation goes on: holding off here would
	 * stop every inflation at the first page it evicts.
	 */
	if (want <= cur) {
		keep(d, "reclaim-covered");
		return;
	}
	/* the policy's own, and short by less than a change: no hold-off */
	if (self && want < cur + POLICY_MIN_CHANGE) {
		keep(d, "reclaim-self");
		return;
	}
	/*
	 * Short of memory in use: to what it needs at once, inflate nothing
	 * for a while.  An inflation under way goes on down to that need,
	 * not only to where the balloon happens to be (the bottom of the
	 * saw is the need, not the balloon's actual size).
	 */
	st->hold_until_ms = in->now_ms + (double)k->hold_ms;
	want = clamp(k, in, want);
	if (want >= cur + POLICY_MIN_CHANGE)
		set(d, want, why);
	else
		keep(d, "hold");
}

/*
 * The guest's free memory from the stats, if they are fresh and were read
 * after the balloon last moved; else 0.  Free memory read before an
 * inflation took its pages still counts those pages: added to the
 * actual size seen since, it would take them twice, and a guest whose
 * anon cannot be reclaimed would be squeezed into an OOM kill.
 */
static __u64 stats_free(const struct policy_knobs *k, const struct policy_state *st,
			const struct policy_input *in)
{
	if (!in->stats || in->stats->free < 0 ||
	    in->now_ms - in->stats_ms > (double)k->max_age_ms || in->stats_ms < st->moved_ms)
		return 0;
	return (__u64)in->stats->free;
}

/* fresh stats that say what is free, but from before the balloon last moved */
static int stats_stale(const struct policy_knobs *k, const struct policy_state *st,
		       const struct policy_input *in)
{
	return in->stats && in->stats->free >= 0 &&
	       in->now_ms - in->stats_ms <= (double)k->max_age_ms && in->stats_ms < st->moved_ms;
}

/*
 * What the guest keeps of its idle memory because the host holds it in
 * its swap already: such pages use none of the host's RAM, so the balloon
 * frees nothing by taking them, and costs two page-ins each (the host's,
 * so that the guest can write the page to its own swap; the guest's, if
 * it touches it again).  Up to all of what is idle: the host may also
 * have swapped out memory the guest has free.
 */
static __u64 swapped_kept(const struct policy_input *in, __u64 total, __u64 hot)
{
	__u64 idle = total > hot ? total - hot : 0;

	return in->host_swapped < idle ? in->host_swapped : idle;
}

/* how far a working set may move and still be the same: 16 MiB or 1/16 of it */
static __u64 steady_band(__u64 hot)
{
	return hot / 16 > 16 * MIB ? hot / 16 : 16 * MIB;
}

/*
 * Has the working set held, within its band, for --steady-ms?  A guest
 * whose demand grows (a compressor building its tables, a cache filling)
 * shows a small working set early; one that freed what it used shows
 * one that returns.  Inflating either to what it shows now makes it
 * reclaim what it is about to use, and deflating after the reclaim came
 * too late for it: the bench's xz guest, squeezed to its first report's
 * 19 MiB, finished no pass.  The reference moves when the working set
 * leaves the band around it; a drift, however slow, leaves it in the end.
 */
static int ws_steady(const struct policy_knobs *k, struct policy_state *st,
		     const struct policy_input *in, __u64 hot)
{
	__u64 ref = st->steady_hot, band = steady_band(ref);

	if (!st->steady_since_ms || hot > ref + band || hot + band < ref) {
		st->steady_hot = hot;
		st->steady_since_ms = in->now_ms;
	}
	return in->now_ms - st->steady_since_ms >= (double)k->steady_ms;
}

static void decide_ws(const struct policy_knobs *k, struct policy_state *st,
		      const struct policy_input *in, struct policy_decision *d)
{
	const struct ws_report *r = in->report;
	__u64 total, free = 0, need, cur = in->target ? in->target : in->actual;
	int reclaim, self, steady;
	double age;

	d->idle_ms = cost_idle_ms(k, &st->cost);
	if (!r) {
		keep(d, "no-report");
		return;
	}
	if (in->new_report)
		cost_take_report(&st->cost, r, in->report_ms);
	if (in->stats)
		cost_take_stats(k, &st->cost, in->stats, in->stats_ms, r);
	d->idle_ms = st->cost.idle_ms;
	d->hot = ws_report_kept(r, d->idle_ms);
	steady = ws_steady(k, st, in, d->hot);
	total = ws_report_total(r);
	d->swapped = swapped_kept(in, total, d->hot);
	/* free memory beyond the headroom is not needed: the stats say how much */
	free = stats_free(k, st, in);
	d->other = in->actual > total + free ? in->actual - total - free : 0;
	need = d->hot + d->swapped + k->headroom + d->other;
	age = in->now_ms - in->report_ms + (double)r->data_age_ms;
	reclaim = (r->cause == WSR_CAUSE_RECLAIM && in->new_report) || in->unseen_reclaims;
	if (reclaim) {
		/*
		 * Balance's own: an inflation still under way (target below
		 * actual), or one set within --max-age-ms
		 */
		self = (in->target && in->target + POLICY_MIN_CHANGE <= in->actual) ||
		       (st->last_inflate_ms && in->now_ms - st->last_inflate_ms <=
			(double)k->max_age_ms);
		/* free memory counts only as seen after the inflation took its pages */
		if (!in->stats || in->stats_ms <= st->last_inflate_ms)
			free = 0;
		on_reclaim(k, st, in, total, self, free, d);
		return;
	}
	/*
	 * Stale stats count what the balloon took as free: no inflation on
	 * them.  A deflation still goes at once if even they say the guest
	 * needs more, since the true need is larger still.
	 */
	if (stats_stale(k, st, in)) {
		__u64 f = (__u64)in->stats->free;

		d->other = in->actual > total + f ? in->actual - total - f : 0;
		need = d->hot + d->swapped + k->headroom + d->other;
		if (clamp(k, in, need) < cur + POLICY_MIN_CHANGE) {
			d->want = need;
			keep(d, "wait-stats");
			return;
		}
	}
	d->want = need;
	/* deflations at once; inflation only once the working set holds */
	if (!steady && clamp(k, in, need) + POLICY_MIN_CHANGE <= cur) {
		keep(d, "settling");
		return;
	}
	move_to(k, st, in, clamp(k, in, need), in->new_report, age,
		cost_stalled(k, &st->cost), d);
}

/*
 * The fallback stall of a guest whose reports carry no pressure: each
 * page swapped in and each major fault as 1 ms (a read from a virtio
 * disk; more than a fast SSD's, so that the rule backs off sooner)
 */
#define PRESSURE_FAULT_US 1000ULL

/*
 * pressure on a guest that cannot swap: never below what it cannot give
 * up.  0 and *lo raised to it, or -1 (d says wait-stats): stats from
 * before the balloon last moved count what it took as still free, and
 * the need from them would undo every probe.
 */
static int pressure_swapless_floor(const struct policy_knobs *k, struct policy_state *st,
				   const struct policy_input *in, struct policy_decision *d,
				   __u64 *lo)
{
	const struct ws_report *r = in->report;
	__u64 free;

	if (stats_stale(k, st, in)) {
		keep(d, "wait-stats");
		return -1;
	}
	free = stats_free(k, st, in);
	d->hot = ws_report_kept(r, k->idle_ms);
	d->other = in->actual > ws_report_total(r) + free ? in->actual - ws_report_total(r) - free
							    : 0;
	*lo = clamp(k, in, d->hot + k->headroom + d->other);
	return 0;
}

/*
 * Senpai started (again when its stall's source changed) between @lo and
 * @hi.  Senpai starts a cgroup's memory.high at its memory.current: the
 * guest's is what it holds less what is free (fresh stats).  Starting at
 * its size instead would spend the first probes, 1% per 30 s, on free
 * memory that free page reporting already gives back.  Not a guest
 * without swap (@swapless): memory.high throttles a cgroup that grows
 * past it, but the balloon is a hard limit, and such a guest, still
 * growing, was OOM-killed seconds after the start (the bench, set 2, G);
 * it starts at its size (@cur) and is probed down from there.  Only a
 * report says whether a guest can swap: until one does, it is taken as
 * one that cannot (G, started on its stats' faults a second after boot,
 * was killed again so).
 */
static void pressure_start(const struct policy_knobs *k, struct policy_state *st,
			   const struct policy_input *in, const struct senpai_knobs *sk,
			   __u64 cur, __u64 lo, __u64 hi, __u64 total, int from_stats,
			   int swapless)
{
	const struct ws_report *r = in->report;
	__u64 used = cur, spare = 0;

	if (!swapless && r && r->ext.known && r->ext.anon_reclaimable)
		spare = stats_free(k, st, in);
	if (spare && in->actual > spare)
		used = in->actual - spare;
	senpai_start(sk, &st->sp, used < lo ? lo : used > hi ? hi : used, total);
	st->sp_started = 1;
	st->sp_from_stats = from_stats;
	st->next_tick_ms = in->now_ms + (double)k->pressure_tick_ms;
}

/*
 * pressure: oomd's Senpai (senpai.c) moves the target.  Its tick is
 * --pressure-tick-ms apart whatever the decisions' pace; its limit never
 * goes below the floor, nor, on a guest whose anon cannot be reclaimed
 * (no swap), below what working-set would keep.
 */
static void decide_pressure(const struct policy_knobs *k, struct policy_state *st,
			    const struct policy_input *in, struct policy_decision *d)
{
	const struct ws_report *r = in->report;
	__u64 cur = in->target ? in->target : in->actual, total, pages, lo, hi, t;
	struct senpai_knobs sk;
	int from_stats, swapless = 0;
	double f;

	senpai_knobs_default(&sk);
	sk.pressure_us = (double)k->pressure_us;
	hi = top(k, in);
	if (cur >= hi + POLICY_MIN_CHANGE) {
		set(d, hi, "max");
		if (st->sp_started && st->sp.limit > hi)
			st->sp.limit = hi;
		return;
	}
	if (r && r->ext.known) {
		total = r->ext.mem_some_us;
		from_stats = 0;
	} else if (!cost_promotions(in->stats, &pages)) {
		total = pages * PRESSURE_FAULT_US;
		from_stats = 1;
	} else {
		keep(d, "no-pressure");
		return;
	}
	lo = clamp(k, in, 0);
	if (r && r->ext.known && !r->ext.anon_reclaimable) {
		if (pressure_swapless_floor(k, st, in, d, &lo))
			return;
		swapless = 1;
	}
	if (!st->sp_started || from_stats != st->sp_from_stats)
		pressure_start(k, st, in, &sk, cur, lo, hi, total, from_stats, swapless);
	f = 0;
	if (in->now_ms >= st->next_tick_ms) {
		st->next_tick_ms += (double)k->pressure_tick_ms;
		if (st->next_tick_ms <= in->now_ms)
			st->next_tick_ms = in->now_ms + (double)k->pressure_tick_ms;
		f = senpai_tick(&sk, &st->sp, total, lo, hi);
	}
	if (st->sp.limit < lo)
		st->sp.limit = lo;
	if (st->sp.limit > hi)
		st->sp.limit = hi;
	t = st->sp.limit;
	d->want = t;
	if (t >= cur + POLICY_MIN_CHANGE)
		set(d, t, t == lo && f <= 0 ? "floor" : "backoff");
	else if (t + POLICY_MIN_CHANGE <= cur)
		set(d, t, f < 0 ? "probe" : "start");
	else
		keep(d, f < 0 && t == lo ? "floor" : "pressure-wait");
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
	move_to(k, st, in, clamp(k, in, d->want), in->new_report, in->now_ms - in->stats_ms, 0, d);
}

/*
 * mom: balloon.rules every BASELINE_ROUND_MS on the guest's samples, one
 * every MOM_SAMPLE_MS of fresh stats (MOM's guest monitor), the host's
 * free memory averaged by the caller.  Between rounds the last round's
 * outcome stands (a kept target is logged once, not every round).
 */
static void decide_mom(const struct policy_knobs *k, struct policy_state *st,
		       const struct policy_input *in, struct policy_decision *d)
{
	__u64 cur = in->target ? in->target : in->actual, t;
	struct mom_guest g;
	const char *why;

	if (cur >= top(k, in) + POLICY_MIN_CHANGE) {
		set(d, top(k, in), "max");
		return;
	}
	if (!in->stats || in->stats->free < 0 || in->now_ms - in->stats_ms > (double)k->max_age_ms) {
		keep(d, "no-stats");
		return;
	}
	if (in->new_report && in->now_ms >= st->mom_next_sample_ms) {
		mom_avg_add(&st->mom_cur, (double)in->actual);
		mom_avg_add(&st->mom_unused, (double)in->stats->free);
		st->mom_next_sample_ms = in->now_ms + MOM_SAMPLE_MS;
	}
	if (in->host_free_pct < 0) {
		keep(d, "no-host");
		return;
	}
	if (in->now_ms < st->mom_next_round_ms || !st->mom_cur.n) {
		keep(d, st->mom_last[0] ? st->mom_last : "wait-data");
		return;
	}
	st->mom_next_round_ms = in->now_ms + BASELINE_ROUND_MS;
	g = (struct mom_guest){
		.balloon_cur = in->actual, .avg_cur = mom_avg_get(&st->mom_cur),
		.avg_unused = mom_avg_get(&st->mom_unused), .balloon_min = clamp(k, in, 0),
		.balloon_max = top(k, in),
	};
	t = mom_rule(&g, in->host_free_pct, &why);
	d->want = t;
	if (!t) {
		snprintf(st->mom_last, sizeof(st->mom_last), "steady");
		keep(d, st->mom_last);
		return;
	}
	st->mom_last[0] = 0;
	set(d, clamp(k, in, t), why);
}

/*
 * proxmox: the host's round (balance, every BASELINE_ROUND_MS) shared the
 * host's goal out among the VMs; this VM's share is @in->plan.
 */
static void decide_proxmox(const struct policy_knobs *k, const struct policy_input *in,
			   struct policy_decision *d)
{
	__u64 cur = in->target ? in->target : in->actual, t;

	if (cur >= top(k, in) + POLICY_MIN_CHANGE) {
		set(d, top(k, in), "max");
		return;
	}
	if (!in->plan) {
		keep(d, "steady");
		return;
	}
	t = clamp(k, in, in->plan);
	d->want = in->plan;
	if (t == cur)
		keep(d, "steady");
	else
		set(d, t, t > cur ? "pve-grow" : "pve-shrink");
}

void policy_decide(const struct policy_knobs *k, struct policy_state *st,
		   const struct policy_input *in, struct policy_decision *d)
{
	memset(d, 0, sizeof(*d));
	/* the balloon moved since the last decision: stats from before are stale */
	if (st->last_actual && in->actual != st->last_actual)
		st->moved_ms = in->now_ms;
	st->last_actual = in->actual;
	switch (k->kind) {
	case POLICY_WORKING_SET:
		decide_ws(k, st, in, d);
		break;
	case POLICY_AVAILABLE:
		decide_available(k, st, in, d);
		break;
	case POLICY_PRESSURE:
		decide_pressure(k, st, in, d);
		break;
	case POLICY_MOM:
		decide_mom(k, st, in, d);
		break;
	case POLICY_PROXMOX:
		decide_proxmox(k, in, d);
		break;
	default:
		keep(d, "none");
		break;
	}
	/* after this decision's stats, whenever they were read */
	if (d->action == POLICY_SET)
		st->moved_ms = in->now_ms + 0.001;
}
