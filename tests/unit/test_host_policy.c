// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host balance's decisions (host/policy.c) on recorded sequences of
 * reports and stats: a 512 MiB guest with two nodes and bins 1, 5, 10 and
 * 60 s (and the catch-all), as vmtests/balloon-test.sh boots it.
 */
#include <string.h>
#include "costaware.h"
#include "policy.h"
#include "unit.h"

#define MIB (1ULL << 20)
#define RAM (512 * MIB)
#define CATCH_ALL 9223372036854775807ULL

static const __u64 bounds[] = { 1000, 5000, 10000, 60000, CATCH_ALL };

/*
 * A report with @mib[i] MiB of anon in bin i on each of two nodes (the
 * bytes split evenly), cause reclaim or request.
 */
static struct ws_report report(int reclaim, const unsigned int mib[5])
{
	struct ws_report r = { .cause = reclaim ? WSR_CAUSE_RECLAIM : WSR_CAUSE_REQUEST,
			       .data_age_ms = 500, .nr_nodes = 2 };
	__u32 n, b;

	for (n = 0; n < 2; n++) {
		r.nodes[n].id = n;
		r.nodes[n].hist.nr_bins = 5;
		for (b = 0; b < 5; b++) {
			r.nodes[n].hist.bound_ms[b] = bounds[b];
			r.nodes[n].hist.anon[b] = mib[b] * MIB / 2;
		}
	}
	return r;
}

/* one VM as balance keeps it: the knobs, the state, the last target */
struct vm {
	struct policy_knobs k;
	struct policy_state st;
	struct policy_input in;
	struct ws_report r;
	struct ws_stats stats;
	struct policy_decision d;
};

static void vm_init(struct vm *v, enum policy_kind kind)
{
	memset(v, 0, sizeof(*v));
	policy_knobs_default(&v->k);
	v->k.kind = kind;
	/* the rules once a working set has held; steadiness has tests of its own */
	v->k.steady_ms = 0;
	v->in.ram = RAM;
	v->in.actual = RAM;
	v->in.now_ms = 100000;
	v->stats.available = -1;
	v->stats.free = -1;
	v->stats.swap_in = -1;
	v->stats.major_faults = -1;
}

/*
 * A report arrives at @now; decide; a target set is taken, and the balloon
 * reaches it at once (actual = target) when @follow.
 */
static void step(struct vm *v, double now, int reclaim, const unsigned int mib[5], int follow)
{
	v->r = report(reclaim, mib);
	v->in.now_ms = now;
	v->in.report = &v->r;
	v->in.report_ms = now;
	v->in.new_report = 1;
	v->in.stats = v->stats.free >= 0 || v->stats.available >= 0 || v->stats.swap_in >= 0 ||
		      v->stats.major_faults >= 0 ? &v->stats : NULL;
	v->in.stats_ms = now;
	policy_decide(&v->k, &v->st, &v->in, &v->d);
	if (v->d.action == POLICY_SET) {
		v->in.target = v->d.target;
		if (follow)
			v->in.actual = v->d.target;
	}
}

/* 64 MiB hot (idle <= 1 s), 300 MiB idle for more than a minute */
static const unsigned int hot64_cold300[5] = { 64, 0, 0, 0, 300 };

/*
 * Steady state: a guest whose memory is all in use (everything idle for
 * less than T, 380 MiB) but for its kernel (4 MiB) and about a headroom
 * free keeps its size, however the free memory moves by a few MiB.
 */
static const char *test_steady_state_keeps_target(void)
{
	static const unsigned int all_hot[5] = { 200, 100, 80, 0, 0 };
	struct vm v;
	int i;

	vm_init(&v, POLICY_WORKING_SET);
	v.in.actual = 448 * MIB;
	for (i = 0; i < 20; i++) {
		v.stats.free = (62 + i % 5) * MIB;
		step(&v, 100000 + i * 2000, 0, all_hot, 1);
		ASSERT_EQ(v.d.action, POLICY_KEEP, "report %d's action", i);
		ASSERT_STREQ(v.d.reason, "steady", "report %d's reason", i);
	}
	return NULL;
}

/*
 * Cold memory goes in steps of at most --step-mib per new report, down to
 * hot + headroom + what the histogram does not count, and stays there.
 * The guest as it would be: what the balloon takes comes out of its cold
 * memory (evicted), and the 148 MiB the histogram does not count (kernel,
 * slab, free) stay, as no stats say what is free.
 */
static const char *test_inflates_in_bounded_steps_to_working_set(void)
{
	unsigned int mib[5] = { 64, 0, 0, 0, 300 };
	struct vm v;
	__u64 prev, want;
	int i, sets = 0;

	vm_init(&v, POLICY_WORKING_SET);
	want = 64 * MIB + v.k.headroom + 148 * MIB;
	for (i = 0; i < 20; i++) {
		prev = v.in.actual;
		mib[4] = 300 - (RAM - v.in.actual) / MIB;
		step(&v, 100000 + i * 2000, 0, mib, 1);
		if (v.d.action != POLICY_SET)
			continue;
		sets++;
		ASSERT_LT(v.d.target, prev, "report %d's target, against the size before", i);
		ASSERT_LE(prev - v.d.target, v.k.step, "report %d's inflation", i);
		ASSERT_GE(v.d.target, want, "report %d's target, against the working set", i);
		ASSERT_STREQ(v.d.reason, v.d.target == want ? "inflate" : "inflate-step",
			     "report %d's reason", i);
	}
	ASSERT_GE(sets, 2, "targets set");
	ASSERT_EQ(v.in.actual, want, "the size at the end, against the working set");
	return NULL;
}

/*
 * A guest whose working set grows (the bench's xz, its tables filling
 * for two minutes) is not inflated while it grows, whatever its reports
 * show idle: 32 MiB hot and 100 MiB idle at first, 17 MiB more hot every
 * 2 s (more than the band of 16 MiB each time).  Once it holds for
 * --steady-ms, the balloon takes the idle memory.
 */
static const char *test_growing_working_set_is_not_inflated_until_it_holds(void)
{
	unsigned int mib[5] = { 32, 0, 0, 0, 100 };
	struct vm v;
	double t = 100000, steady_from;
	int i;

	vm_init(&v, POLICY_WORKING_SET);
	v.k.steady_ms = 30000;
	for (i = 0; i < 12; i++, t += 2000) {
		mib[0] = 32 + 17 * i;
		step(&v, t, 0, mib, 1);
		ASSERT_EQ(v.d.action, POLICY_KEEP, "report %d's action, growing", i);
		ASSERT_STREQ(v.d.reason, "settling", "report %d's reason", i);
	}
	/* 219 MiB hot from the last report on: inflation waits --steady-ms */
	steady_from = t - 2000;
	for (; t < steady_from + v.k.steady_ms; t += 2000) {
		step(&v, t, 0, mib, 1);
		ASSERT_STREQ(v.d.reason, "settling", "the reason %.0f ms into a steady working set",
			     t - steady_from);
	}
	step(&v, t, 0, mib, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action once it held for --steady-ms");
	ASSERT_STREQ(v.d.reason, "inflate", "the reason once it held for --steady-ms");
	ASSERT_EQ(v.in.actual, RAM + v.k.headroom - 100 * MIB, "the size: all but the idle");
	return NULL;
}

/*
 * A working set that moves within its band (16 MiB, or 1/16 of it) holds:
 * reports of 64 MiB hot give or take 6 MiB inflate once --steady-ms has
 * passed.  One that falls (a job ended and freed what it used) settles
 * again before the balloon takes what it freed; a deflation never waits.
 */
static const char *test_steadiness_allows_noise_and_never_delays_a_deflation(void)
{
	unsigned int mib[5] = { 64, 0, 0, 0, 300 };
	static const unsigned int big[5] = { 480, 0, 0, 0, 0 };
	struct vm v;
	double t = 100000;
	int i;

	vm_init(&v, POLICY_WORKING_SET);
	v.k.steady_ms = 30000;
	for (i = 0; i < 15; i++, t += 2000) {
		mib[0] = i % 2 ? 70 : 58;
		step(&v, t, 0, mib, 1);
		ASSERT_STREQ(v.d.reason, "settling", "report %d, before --steady-ms", i);
	}
	step(&v, t, 0, mib, 1);
	ASSERT_STREQ(v.d.reason, "inflate-step", "after 30 s within 6 MiB of 64 MiB");
	/* grows past the balloon: deflated at once, though it is not steady */
	t += 2000;
	step(&v, t, 0, big, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "a guest grown past its size: the action");
	ASSERT_EQ(v.d.target, RAM, "its target");
	/* back to 64 MiB: it settles for --steady-ms again before inflation */
	t += 2000;
	step(&v, t, 0, mib, 1);
	ASSERT_STREQ(v.d.reason, "settling", "right after the working set fell");
	return NULL;
}

/*
 * What the host holds in its swap for the guest stays in the guest, up
 * to all of its idle memory: ballooning it out frees none of the host's
 * RAM and pages it in twice.  The same inflation as above, with 200 MiB
 * of the guest in the host's swap, ends 200 MiB higher; with more in
 * the host's swap than the guest has idle, nothing idle goes.
 */
static const char *test_memory_in_the_host_swap_is_not_ballooned_out(void)
{
	static const __u64 swapped[] = { 200 * MIB, 1000 * MIB };
	static const __u64 kept[] = { 200 * MIB, 300 * MIB };
	unsigned int mib[5] = { 64, 0, 0, 0, 300 };
	struct vm v;
	__u64 want;
	int c, i;

	for (c = 0; c < 2; c++) {
		vm_init(&v, POLICY_WORKING_SET);
		v.in.host_swapped = swapped[c];
		want = 64 * MIB + kept[c] + v.k.headroom + 148 * MIB;
		for (i = 0; i < 20; i++) {
			mib[4] = 300 - (RAM - v.in.actual) / MIB;
			step(&v, 100000 + i * 2000, 0, mib, 1);
			ASSERT_EQ(v.d.swapped, kept[c], "case %d, report %d: kept for the host's swap",
				  c, i);
		}
		ASSERT_EQ(v.in.actual, want > RAM ? RAM : want, "case %d: the size at the end", c);
	}
	return NULL;
}

/* an inflation waits for new data: one step per report, not per tick */
static const char *test_inflation_needs_a_new_report(void)
{
	struct vm v;

	vm_init(&v, POLICY_WORKING_SET);
	step(&v, 100000, 0, hot64_cold300, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "the first report's action (%s)", v.d.reason);
	v.in.new_report = 0;
	v.in.now_ms += 1000;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "the action without a new report (%s)", v.d.reason);
	return NULL;
}

/*
 * A reclaim report mid-inflation: the balloon is on its way down (target
 * below actual); the target goes at once to at least actual and to hot +
 * headroom + other + margin.
 */
static const char *test_reclaim_mid_inflation_deflates_at_once(void)
{
	static const unsigned int thrash[5] = { 300, 60, 0, 0, 0 };
	struct vm v;
	__u64 need;

	vm_init(&v, POLICY_WORKING_SET);
	step(&v, 100000, 0, hot64_cold300, 0);
	ASSERT_EQ(v.d.action, POLICY_SET, "the first report's action (%s)", v.d.reason);
	ASSERT_LT(v.in.target, v.in.actual, "the target, against the size");
	/* the balloon got half-way; the guest now uses 360 MiB, reclaiming */
	v.in.actual = RAM - 32 * MIB;
	step(&v, 101000, 1, thrash, 0);
	need = 360 * MIB + v.k.headroom + (v.in.actual - 360 * MIB) + v.k.reclaim_margin;
	if (need > RAM)
		need = RAM;
	ASSERT_EQ(v.d.action, POLICY_SET, "the reclaim report's action (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "deflate-reclaim", "the reclaim report's reason");
	ASSERT_GE(v.d.target, v.in.actual, "the target, against the size");
	ASSERT_EQ(v.d.target, need, "the target, against what is needed");
	return NULL;
}

/*
 * A reclaim report on a squeezed guest gives it headroom and margin more
 * than it has, whatever free memory stats from before the pressure say.
 */
static const char *test_reclaim_deflates_by_headroom_and_margin(void)
{
	static const unsigned int thrash[5] = { 200, 40, 0, 0, 0 };
	struct vm v;

	vm_init(&v, POLICY_WORKING_SET);
	v.in.actual = v.in.target = 300 * MIB;
	v.stats.free = 50 * MIB;
	step(&v, 100000, 1, thrash, 0);
	/* 240 hot, 60 other (300 - 240; free not subtracted), 64 headroom, 64 margin */
	ASSERT_EQ(v.d.action, POLICY_SET, "the action (%s)", v.d.reason);
	ASSERT_EQ(v.d.target, 428 * MIB, "the target");
	return NULL;
}

/*
 * After a reclaim report, no inflation for hold_ms however cold the guest
 * looks; the first new report after it inflates again, a step.
 */
static const char *test_hold_off_then_inflation_resumes(void)
{
	static const unsigned int thrash[5] = { 300, 60, 0, 0, 0 };
	struct vm v;
	double t0 = 100000, t;

	vm_init(&v, POLICY_WORKING_SET);
	step(&v, t0, 1, thrash, 1);
	/* the same reclaim report, decided on again without a new one: no new hold-off */
	v.in.new_report = 0;
	v.in.now_ms = t0 + 1000;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_TRUE(v.st.hold_until_ms == t0 + v.k.hold_ms, "the hold-off, decided again");
	for (t = t0 + 2000; t < t0 + v.k.hold_ms; t += 2000) {
		step(&v, t, 0, hot64_cold300, 1);
		ASSERT_EQ(v.d.action, POLICY_KEEP, "the action at +%.0f ms", t - t0);
		ASSERT_STREQ(v.d.reason, "hold", "the reason at +%.0f ms", t - t0);
	}
	step(&v, t0 + v.k.hold_ms, 0, hot64_cold300, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action after the hold-off (%s)", v.d.reason);
	ASSERT_STRPREFIX(v.d.reason, "inflate", "the reason after the hold-off");
	return NULL;
}

/*
 * The balloon's own inflation makes the guest reclaim: a reclaim report
 * comes with every step while cold memory goes to swap.  As long as the
 * target leaves room for hot + headroom + other + margin, such a report
 * neither stops the inflation nor holds it off: the guest still gets down
 * to its working set, in steps, as without reclaim reports.
 */
static const char *test_reclaim_of_cold_memory_does_not_stop_inflation(void)
{
	unsigned int mib[5] = { 64, 0, 0, 0, 300 };
	struct vm v;
	__u64 want, prev, at;
	double hold;
	int i, covered = 0;

	vm_init(&v, POLICY_WORKING_SET);
	want = 64 * MIB + v.k.headroom + 148 * MIB;
	for (i = 0; i < 20; i++) {
		prev = v.in.actual;
		mib[4] = 300 - (RAM - v.in.actual) / MIB;
		step(&v, 100000 + i * 2000, 0, mib, 1);
		if (v.d.action != POLICY_KEEP)
			ASSERT_LE(v.d.target, prev, "request %d's target (%s)", i, v.d.reason);
		/* the step evicts cold pages: a reclaim report right after */
		mib[4] = 300 - (RAM - v.in.actual) / MIB;
		at = v.in.actual;
		hold = v.st.hold_until_ms;
		step(&v, 100000 + i * 2000 + 100, 1, mib, 1);
		if (at < want + v.k.reclaim_margin)
			continue;	/* too close to the working set: deflating is right */
		ASSERT_EQ(v.d.action, POLICY_KEEP, "reclaim report %d's action at %llu MiB", i,
			  at / MIB);
		ASSERT_STREQ(v.d.reason, "reclaim-covered", "reclaim report %d's reason", i);
		ASSERT_TRUE(v.st.hold_until_ms == hold, "reclaim report %d's hold-off", i);
		covered++;
	}
	ASSERT_GE(covered, 2, "reclaim reports while cold memory went");
	ASSERT_LE(v.in.actual, want + v.k.reclaim_margin + v.k.headroom,
		  "the size at the end, against the working set, margin and headroom");
	return NULL;
}

/* a deflation does not wait for the hold-off, nor for a step */
static const char *test_growth_deflates_at_once_during_hold(void)
{
	static const unsigned int grown[5] = { 400, 40, 0, 0, 0 };
	struct vm v;

	vm_init(&v, POLICY_WORKING_SET);
	v.in.actual = v.in.target = 300 * MIB;
	v.st.hold_until_ms = 1e12;
	/* the histogram counts more than actual: nothing else, 440 + 64 */
	step(&v, 100000, 0, grown, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action (%s)", v.d.reason);
	ASSERT_EQ(v.d.target, 504 * MIB, "the target");
	return NULL;
}

/*
 * Never below the floor, however little is in use (54 MiB counted, 8 MiB
 * of kernel, the rest free); a guest found below it is deflated to it.
 */
static const char *test_floor(void)
{
	static const unsigned int tiny[5] = { 4, 0, 0, 0, 50 };
	struct vm v;
	int i;

	vm_init(&v, POLICY_WORKING_SET);
	v.k.step = RAM;
	for (i = 0; i < 10; i++) {
		v.stats.free = v.in.actual - 62 * MIB;
		step(&v, 100000 + i * 2000, 0, tiny, 1);
		ASSERT_GE(v.in.actual, v.k.floor, "the size after report %d, against the floor", i);
	}
	ASSERT_EQ(v.in.actual, v.k.floor, "the size at the end, against the floor");
	v.in.actual = v.in.target = 200 * MIB;
	step(&v, 200000, 0, tiny, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action below the floor (%s)", v.d.reason);
	ASSERT_EQ(v.d.target, v.k.floor, "the target below the floor");
	/* less than a change below it: deflated all the same */
	v.in.actual = v.in.target = v.k.floor - 2 * MIB;
	step(&v, 202000, 0, tiny, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action 2 MiB below the floor (%s)", v.d.reason);
	ASSERT_EQ(v.d.target, v.k.floor, "the target 2 MiB below the floor");
	return NULL;
}

/*
 * Never above the ceiling (--vm's max=): a guest found above it goes down
 * to it at once, not a step at a time nor waiting for new data, and a
 * reclaim report deflates no further than it.
 */
static const char *test_ceiling(void)
{
	static const unsigned int thrash[5] = { 300, 60, 0, 0, 0 };
	static const unsigned int grown[5] = { 400, 100, 0, 0, 0 };
	struct vm v;

	vm_init(&v, POLICY_WORKING_SET);
	v.k.ceiling = 300 * MIB;
	step(&v, 100000, 0, hot64_cold300, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "above the ceiling: the action");
	ASSERT_EQ(v.d.target, 300 * MIB, "above the ceiling: the target");
	ASSERT_STREQ(v.d.reason, "max", "above the ceiling: the reason");
	/* the same again with no new report: still at once */
	v.in.target = 0;
	v.in.actual = RAM;
	v.in.new_report = 0;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.action, POLICY_SET, "above the ceiling, no new data: the action");
	ASSERT_EQ(v.d.target, 300 * MIB, "above the ceiling, no new data: the target");
	v.in.actual = v.in.target = 300 * MIB;
	step(&v, 101000, 1, thrash, 0);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "a reclaim report at the ceiling (%s, target %llu MiB)",
		  v.d.reason, (unsigned long long)(v.d.target / MIB));
	/* and a guest that grew past it, once the hold-off ended */
	step(&v, 101000 + v.k.hold_ms, 0, thrash, 0);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "a grown guest at the ceiling (%s, target %llu MiB)",
		  v.d.reason, (unsigned long long)(v.d.target / MIB));
	/* a ceiling under the floor wins: the floor is the operator's default */
	v.k.floor = 400 * MIB;
	v.in.actual = v.in.target = 200 * MIB;
	step(&v, 200000, 0, hot64_cold300, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "a ceiling under the floor: the action");
	ASSERT_EQ(v.d.target, 300 * MIB, "a ceiling under the floor: the target");
	/* a ceiling above the RAM: the RAM is the bound */
	vm_init(&v, POLICY_WORKING_SET);
	v.k.ceiling = 2 * RAM;
	v.in.actual = v.in.target = 300 * MIB;
	step(&v, 100000, 0, grown, 0);
	ASSERT_EQ(v.d.action, POLICY_SET, "a ceiling above the RAM: the action (%s)", v.d.reason);
	ASSERT_EQ(v.d.target, RAM, "a ceiling above the RAM: the target");
	return NULL;
}

/* an old report (data age plus time since it came) inflates nothing */
static const char *test_stale_report_inflates_nothing(void)
{
	struct vm v;

	vm_init(&v, POLICY_WORKING_SET);
	v.r = report(0, hot64_cold300);
	v.r.data_age_ms = v.k.max_age_ms + 1;
	v.in.report = &v.r;
	v.in.report_ms = v.in.now_ms;
	v.in.new_report = 1;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "the action");
	ASSERT_STREQ(v.d.reason, "stale", "the reason");
	/* exactly --max-age-ms old: not stale yet */
	v.r.data_age_ms = v.k.max_age_ms;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action at --max-age-ms (%s)", v.d.reason);
	return NULL;
}

/* T between two bounds counts the bin that holds it (rounded up) */
static const char *test_idle_time_rounds_up_to_a_bound(void)
{
	static const unsigned int mib[5] = { 1, 2, 4, 8, 16 };
	struct ws_report r = report(0, mib);

	ASSERT_EQ(ws_report_hot(&r, 1000), 1 * MIB, "hot bytes at T 1 s");
	ASSERT_EQ(ws_report_hot(&r, 7000), 7 * MIB, "hot bytes at T 7 s");
	ASSERT_EQ(ws_report_hot(&r, 10000), 7 * MIB, "hot bytes at T 10 s");
	ASSERT_EQ(ws_report_total(&r), 31 * MIB, "total bytes");
	return NULL;
}

/*
 * The baseline keeps available_pct of RAM available (MemAvailable), from
 * stats alone: inflates in steps while more is available, deflates at once
 * when less is, and does nothing without stats.
 */
static const char *test_available_baseline(void)
{
	static const unsigned int any[5] = { 1, 1, 1, 1, 1 };
	__u64 keep_avail = RAM / 100 * 20;
	struct vm v;

	vm_init(&v, POLICY_AVAILABLE);
	step(&v, 100000, 0, any, 1);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "the action without stats");
	ASSERT_STREQ(v.d.reason, "no-stats", "the reason without stats");
	v.stats.available = 400 * MIB;
	step(&v, 102000, 0, any, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action, 400 MiB available (%s)", v.d.reason);
	ASSERT_EQ(v.d.target, RAM - v.k.step, "the target, 400 MiB available");
	/* the balloon took 64 MiB: available drops with it */
	v.stats.available = 336 * MIB;
	step(&v, 104000, 0, any, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action, 336 MiB available (%s)", v.d.reason);
	ASSERT_EQ(v.d.target, RAM - 2 * v.k.step, "the target, 336 MiB available");
	/* the guest took memory: 20 MiB available, deflate to keep 20% at once */
	v.stats.available = 20 * MIB;
	step(&v, 106000, 0, any, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action, 20 MiB available (%s)", v.d.reason);
	ASSERT_EQ(v.d.target, RAM - 128 * MIB - 20 * MIB + keep_avail,
		  "the target, 20 MiB available");
	/* the working set plays no part: a reclaim report holds nothing off */
	v.stats.available = 300 * MIB;
	step(&v, 107000, 1, any, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action on a reclaim report (%s)", v.d.reason);
	ASSERT_STRPREFIX(v.d.reason, "inflate", "the reason on a reclaim report");
	/* stats that do not say what is available are none */
	v.stats.available = -1;
	v.stats.free = 100 * MIB;
	step(&v, 109000, 0, any, 1);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "the action without available memory");
	ASSERT_STREQ(v.d.reason, "no-stats", "the reason without available memory");
	/* stats 20 s old inflate nothing */
	v.stats.available = 300 * MIB;
	v.in.now_ms = 131000;
	v.in.stats_ms = 111000;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "the action on stats 20 s old (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "stale", "the reason on stats 20 s old");
	return NULL;
}

static const char *test_none_never_sets(void)
{
	static const unsigned int thrash[5] = { 300, 60, 0, 0, 0 };
	struct vm v;

	vm_init(&v, POLICY_NONE);
	v.stats.available = 400 * MIB;
	step(&v, 100000, 0, hot64_cold300, 1);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "the action (%s)", v.d.reason);
	step(&v, 101000, 1, thrash, 1);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "the action on a reclaim report (%s)", v.d.reason);
	return NULL;
}

static const char *test_knob_names(void)
{
	enum policy_kind k;

	ASSERT_OK(policy_kind_parse("working-set", &k), "working-set");
	ASSERT_EQ(k, POLICY_WORKING_SET, "working-set");
	ASSERT_OK(policy_kind_parse("available", &k), "available");
	ASSERT_EQ(k, POLICY_AVAILABLE, "available");
	ASSERT_OK(policy_kind_parse("none", &k), "none");
	ASSERT_EQ(k, POLICY_NONE, "none");
	ASSERT_OK(policy_kind_parse("pressure", &k), "pressure");
	ASSERT_EQ(k, POLICY_PRESSURE, "pressure");
	ASSERT_OK(policy_kind_parse("mom", &k), "mom");
	ASSERT_EQ(k, POLICY_MOM, "mom");
	ASSERT_OK(policy_kind_parse("proxmox", &k), "proxmox");
	ASSERT_EQ(k, POLICY_PROXMOX, "proxmox");
	ASSERT_ERR(policy_kind_parse("workingset", &k), "workingset");
	ASSERT_STREQ(policy_kind_name(POLICY_NONE), "none", "the name of none");
	ASSERT_STREQ(policy_kind_name(POLICY_PRESSURE), "pressure", "the name of pressure");
	ASSERT_STREQ(policy_kind_name(POLICY_PROXMOX), "proxmox", "the name of proxmox");
	ASSERT_STREQ(policy_kind_name(POLICY_PROXMOX + 1), "?", "the name past the last");
	return NULL;
}

/*
 * The bottom of the saw.  A reclaim report while an inflation is under
 * way (the balloon got 16 MiB of its 64 MiB step) is the policy's own:
 * the guest gives up what has been idle for T, which is what the balloon
 * is there to take.  Its need (no margin: 64 hot + headroom 64 + other
 * 496 - 214) is below the step's target, so the inflation goes on, with
 * no hold-off, down to the need of the request reports.  (With the
 * margin, a guest whose hot set is near its size deflates on each of
 * its own reclaims and ratchets up, as the balance bench's set 2 guest F
 * showed.)
 */
static const char *test_saw_bottom_is_the_need(void)
{
	/* 64 MiB hot, 150 MiB cold: the guest reclaims the cold pages */
	static const unsigned int reclaiming[5] = { 64, 0, 0, 0, 150 };
	struct vm v;
	__u64 want, need;
	double t;

	vm_init(&v, POLICY_WORKING_SET);
	step(&v, 100000, 0, hot64_cold300, 0);
	ASSERT_EQ(v.d.action, POLICY_SET, "the first report's action (%s)", v.d.reason);
	ASSERT_EQ(v.in.target, RAM - v.k.step, "the first step's target");
	v.in.actual = RAM - 16 * MIB;
	step(&v, 101000, 1, reclaiming, 0);
	want = 64 * MIB + v.k.headroom + (v.in.actual - 214 * MIB);
	ASSERT_EQ(want, 410 * MIB, "the need of the recorded report");
	ASSERT_LT(want, v.in.target, "the need, against the step's target");
	ASSERT_EQ(v.d.action, POLICY_KEEP, "the reclaim report's action (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "reclaim-covered", "the reclaim report's reason");
	ASSERT_EQ(v.in.target, RAM - v.k.step, "the target, kept");
	/* down to the need, in steps, with no hold-off: 64 hot + 64 headroom + 148 other */
	need = 64 * MIB + v.k.headroom + 148 * MIB;
	v.in.actual = v.in.target;
	for (t = 103000; t < 103000 + 20000; t += 2000) {
		unsigned int mib[5] = { 64, 0, 0, 0, 300 - (RAM - v.in.actual) / MIB };

		step(&v, t, 0, mib, 1);
	}
	ASSERT_EQ(v.in.actual, need, "the size at the end, against the need");
	return NULL;
}

/*
 * A reclaim report that balance's own inflation caused: a 1 GiB guest
 * with 100 MiB in use and 600 MiB free (by the stats, read after each
 * step) reclaims after every step, as kswapd wakes on the node the
 * balloon takes its pages from while the free memory is on the other.
 * Each report is weighed with that free memory taken off: inflation goes
 * on, and at its end the guest is deflated by what it needs (the margin
 * over the need), never back to its RAM.
 */
static const char *test_self_caused_reclaim_deflates_by_the_need(void)
{
	static const unsigned int in_use[5] = { 100, 0, 0, 0, 0 };
	__u64 ram = 1024 * MIB, need, covered = 0, prev;
	struct vm v;
	double t = 100000;
	int i;

	vm_init(&v, POLICY_WORKING_SET);
	v.in.ram = v.in.actual = ram;
	/* 100 in use, 600 free, 324 the kernel and the rest */
	need = 100 * MIB + v.k.headroom + 324 * MIB;
	for (i = 0; i < 12; i++, t += 2000) {
		v.stats.free = 600 * MIB - (ram - v.in.actual);
		step(&v, t, 0, in_use, 1);
		if (v.d.action == POLICY_SET)
			ASSERT_STRPREFIX(v.d.reason, "inflate", "request %d's reason", i);
		/* the step's reclaim report, with stats read after the step */
		v.stats.free = 600 * MIB - (ram - v.in.actual);
		prev = v.in.actual;
		step(&v, t + 500, 1, in_use, 1);
		ASSERT_LT(v.in.actual, ram, "the size after reclaim report %d (%s)", i,
			  v.d.reason);
		if (v.d.action == POLICY_KEEP) {
			ASSERT_STREQ(v.d.reason, "reclaim-covered", "reclaim report %d's reason", i);
			covered++;
		} else {
			ASSERT_STREQ(v.d.reason, "deflate-self", "reclaim report %d's reason", i);
			ASSERT_LE(v.d.target - prev, v.k.reclaim_margin + v.k.headroom,
				  "reclaim report %d's deflation", i);
		}
	}
	ASSERT_GE(covered, 5, "reclaim reports that left the inflation going");
	ASSERT_LE(v.in.actual, need + v.k.reclaim_margin, "the size at the end");
	ASSERT_GE(v.in.actual, need, "the size at the end");
	return NULL;
}

/* a report with the extended header: @swap is anon_reclaimable, PSI some @some_us */
static void with_ext(struct ws_report *r, int swap, __u64 some_us, __u32 seq)
{
	r->ext = (struct ws_report_ext){ .known = 1, .anon_reclaimable = swap,
					 .reclaim_seq = seq, .mem_some_us = some_us };
}

/*
 * A report with the extended header (@swap: anon_reclaimable) arrives at
 * @now, the stats as they are; decide; a target set is followed at once.
 */
static void ext_step(struct vm *v, double now, const unsigned int mib[5], int swap)
{
	v->r = report(0, mib);
	with_ext(&v->r, swap, 0, 0);
	v->in.now_ms = now;
	v->in.report = &v->r;
	v->in.report_ms = now;
	v->in.new_report = 1;
	policy_decide(&v->k, &v->st, &v->in, &v->d);
	if (v->d.action == POLICY_SET)
		v->in.actual = v->in.target = v->d.target;
}

/*
 * A guest without swap, with 64 MiB hot and 256 MiB of cold anon, which
 * its report still counts in a bin: that anon is not reclaimable, and the
 * balloon never takes it, however many reports say it is cold.
 */
static const char *test_no_swap_cold_anon_is_kept(void)
{
	struct vm v;
	__u64 keep;
	int i;

	vm_init(&v, POLICY_WORKING_SET);
	v.k.step = RAM;
	/* 64 hot + 256 cold anon + headroom; 176 MiB kernel and free (no stats) */
	keep = 64 * MIB + 256 * MIB + v.k.headroom;
	for (i = 0; i < 20; i++) {
		static const unsigned int cold_anon[5] = { 64, 0, 0, 0, 256 };

		ext_step(&v, 100000 + i * 2000, cold_anon, 0);
		ASSERT_GE(v.in.actual, keep, "the size after report %d (%s)", i, v.d.reason);
	}
	return NULL;
}

/*
 * Stats read before an inflation took its pages still count those pages as
 * free: the inflation that follows must wait for stats read after it.  A
 * guest without swap: 16 MiB hot, 300 MiB of anon that it cannot reclaim
 * (its bins hold none of it), 100 MiB free by stats read once, at the
 * start.  The balloon follows each target at once; the guest's anon, kernel
 * and headroom (a 352 MiB floor here) must never be taken, however many
 * reports come before new stats.
 */
static const char *test_stale_free_memory_is_not_taken_twice(void)
{
	static const unsigned int hot16[5] = { 16, 0, 0, 0, 0 };
	struct vm v;
	int i;

	vm_init(&v, POLICY_WORKING_SET);
	v.k.step = RAM;
	v.k.hold_ms = 0;
	v.in.actual = 512 * MIB;
	v.stats.free = 100 * MIB;
	v.in.stats = &v.stats;
	v.in.stats_ms = 100000;
	for (i = 0; i < 10; i++) {
		ext_step(&v, 100000 + i * 1000, hot16, 0);
		ASSERT_GE(v.in.actual, 412 * MIB - v.k.headroom,
			  "the size after report %d (%s), stats from the start", i, v.d.reason);
	}
	return NULL;
}

/*
 * Stale stats hold inflation back, not deflation: right after an
 * inflation, before new stats, a guest whose hot set grows by 200 MiB is
 * deflated at once (stale stats overstate what is free: a need above the
 * target even by them is real).
 */
static const char *test_stale_stats_still_deflate_a_growing_guest(void)
{
	static const unsigned int hot16[5] = { 16, 0, 0, 0, 300 };
	static const unsigned int hot216[5] = { 216, 0, 0, 0, 100 };
	struct vm v;
	__u64 before;

	vm_init(&v, POLICY_WORKING_SET);
	v.k.step = RAM;
	v.k.hold_ms = 0;
	v.stats.free = 100 * MIB;
	v.in.stats = &v.stats;
	v.in.stats_ms = 100000;
	v.r = report(0, hot16);
	v.in.now_ms = 100000;
	v.in.report = &v.r;
	v.in.report_ms = v.in.now_ms;
	v.in.new_report = 1;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.action, POLICY_SET, "the first decision (%s)", v.d.reason);
	v.in.actual = v.in.target = v.d.target;
	before = v.in.actual;
	v.r = report(0, hot216);
	v.in.now_ms = 101000;
	v.in.report_ms = v.in.now_ms;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.action, POLICY_SET, "the growing guest's decision (%s)", v.d.reason);
	ASSERT_GT(v.d.target, before, "the target after the hot set grew");
	return NULL;
}

/* stats at @ms with these counters since boot */
static void stats_at(struct vm *v, double ms, long long swap_in, long long majflt)
{
	v->stats.swap_in = swap_in;
	v->stats.major_faults = majflt;
	v->in.stats = &v->stats;
	v->in.stats_ms = ms;
}

/*
 * T goes up: 64 MiB of working set (idle < 120 s) and 300 MiB idle for
 * more than a minute; the guest faults 100 pages back every 2 s (6 MiB
 * a minute: 9% of its working set, 0.2% allowed).  T doubles every
 * minute, to 80 s after three; past the 60 s bin the cold memory counts
 * as in use, and the guest is deflated.  It stops at --idle-max-ms (600 s).
 */
static const char *test_idle_threshold_goes_up(void)
{
	struct vm v;
	long long faults = 0;
	int i;

	vm_init(&v, POLICY_WORKING_SET);
	v.stats.free = -1;
	for (i = 0; i <= 8 * 30; i++) {
		double now = 100000 + i * 2000;

		stats_at(&v, now, 0, faults);
		faults += 100;
		step(&v, now, 0, hot64_cold300, 1);
		if (i == 30)
			ASSERT_EQ(v.d.idle_ms, 20000, "T after a minute");
		if (i == 60)
			ASSERT_EQ(v.d.idle_ms, 40000, "T after two minutes");
		if (i == 90) {
			ASSERT_EQ(v.d.idle_ms, 80000, "T after three minutes");
			ASSERT_GE(v.in.actual, 364 * MIB + v.k.headroom, "the size with T at 80 s");
		}
	}
	/* 160, 320, then --idle-max-ms */
	ASSERT_EQ(v.d.idle_ms, v.k.idle_max_ms, "T after eight minutes");
	ASSERT_TRUE(v.st.cost.rate_ppm > 2000, "the rate %.0f ppm/min, against the SLO",
		    v.st.cost.rate_ppm);
	return NULL;
}

/*
 * T comes down: from 80 s, a guest that faults nothing back has it
 * halved after 5 quiet minutes, again after 5 more, and never below
 * --idle-min-ms.
 */
static const char *test_idle_threshold_comes_down(void)
{
	struct vm v;
	int i;

	vm_init(&v, POLICY_WORKING_SET);
	v.k.idle_ms = 80000;
	for (i = 0; i <= 40 * 30; i++) {
		double now = 100000 + i * 2000;

		stats_at(&v, now, 4096 * 1000, 500);
		step(&v, now, 0, hot64_cold300, 1);
		if (i == 4 * 30)
			ASSERT_EQ(v.d.idle_ms, 80000, "T after 4 quiet minutes");
		if (i == 5 * 30)
			ASSERT_EQ(v.d.idle_ms, 40000, "T after 5 quiet minutes");
		if (i == 10 * 30)
			ASSERT_EQ(v.d.idle_ms, 20000, "T after 10 quiet minutes");
	}
	ASSERT_EQ(v.d.idle_ms, v.k.idle_min_ms, "T after 40 quiet minutes");
	return NULL;
}

/*
 * The guest's stall holds inflation back: 64 MiB hot and 300 cold, but
 * 5 ms of memory stall per 2 s between reports (75 ms per 30 s, 10 ms
 * allowed): no inflation (reason pressure).  When the stall stops,
 * inflation goes on.
 */
static const char *test_pressure_holds_inflation_back(void)
{
	struct vm v;
	__u64 some = 1000000;
	int i;

	vm_init(&v, POLICY_WORKING_SET);
	for (i = 0; i < 10; i++) {
		v.r = report(0, hot64_cold300);
		with_ext(&v.r, 1, some, 0);
		some += 5000;
		v.in.now_ms = 100000 + i * 2000;
		v.in.report = &v.r;
		v.in.report_ms = v.in.now_ms;
		v.in.new_report = 1;
		policy_decide(&v.k, &v.st, &v.in, &v.d);
		if (i == 0)
			continue;	/* no stall known yet from one report */
		ASSERT_EQ(v.d.action, POLICY_KEEP, "report %d's action (%s)", i, v.d.reason);
		ASSERT_STREQ(v.d.reason, "pressure", "report %d's reason", i);
	}
	v.in.target = v.in.actual = RAM;
	v.r = report(0, hot64_cold300);
	with_ext(&v.r, 1, some - 5000, 0);
	v.in.now_ms += 2000;
	v.in.report_ms = v.in.now_ms;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action once the stall stopped (%s)", v.d.reason);
	ASSERT_STRPREFIX(v.d.reason, "inflate", "the reason once the stall stopped");
	return NULL;
}

/*
 * A reclaim the host never received: a request report whose reclaim
 * sequence number jumped, or one that replaced a reclaim report before a
 * decision (balance counts both), is decided on as a reclaim.
 */
static const char *test_unseen_reclaim_deflates(void)
{
	static const unsigned int thrash[5] = { 200, 40, 0, 0, 0 };
	struct vm v;

	vm_init(&v, POLICY_WORKING_SET);
	v.in.actual = v.in.target = 300 * MIB;
	v.stats.free = 50 * MIB;
	v.in.unseen_reclaims = 1;
	step(&v, 100000, 0, thrash, 0);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "deflate-missed", "the reason");
	/* as a reclaim report: 240 hot, 60 other, headroom and margin */
	ASSERT_EQ(v.d.target, 428 * MIB, "the target");
	return NULL;
}

/* a VM under the pressure policy whose stats, read at @stats_ms, say @free is free */
static void pressure_vm(struct vm *v, __u64 free, double stats_ms)
{
	vm_init(v, POLICY_PRESSURE);
	v->stats.free = free;
	v->in.stats = &v->stats;
	v->in.stats_ms = stats_ms;
}

/* pressure: Senpai's tick every 5 s, on the header's stall total @some */
static void pressure_tick(struct vm *v, double now, __u64 some, int swap)
{
	static const unsigned int cold_anon[5] = { 64, 0, 0, 0, 256 };

	v->r = report(0, cold_anon);
	with_ext(&v->r, swap, some, 0);
	v->in.now_ms = now;
	v->in.report = &v->r;
	v->in.report_ms = now;
	v->in.new_report = 1;
	policy_decide(&v->k, &v->st, &v->in, &v->d);
	if (v->d.action == POLICY_SET)
		v->in.actual = v->in.target = v->d.target;
}

/*
 * Senpai through the policy: a 1 GiB guest with no stall is probed down
 * by 1% after each interval (6 ticks of 5 s); 100 ms of stall in one
 * tick backs it off at once, by (100 / 10 / 20)^2 = 25%.
 */
static const char *test_pressure_probes_and_backs_off(void)
{
	__u64 some = 5000000, before;
	struct vm v;
	double t = 100000;
	int i, probes = 0;

	vm_init(&v, POLICY_PRESSURE);
	v.in.ram = 1024 * MIB;
	v.in.actual = 800 * MIB;
	for (i = 0; i < 7 * 4; i++, t += 5000) {
		before = v.in.actual;
		pressure_tick(&v, t, some, 1);
		if (v.d.action != POLICY_SET)
			continue;
		probes++;
		ASSERT_STREQ(v.d.reason, "probe", "tick %d's reason", i);
		ASSERT_EQ(v.d.target, (__u64)(before * 0.99) & ~0xfffULL, "tick %d's target", i);
	}
	ASSERT_EQ(probes, 3, "probes in 28 ticks (one per 7)");
	before = v.in.actual;
	some += 100000;
	pressure_tick(&v, t, some, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action on 100 ms of stall (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "backoff", "the reason on 100 ms of stall");
	ASSERT_EQ(v.d.target, (__u64)(before * 1.25) & ~0xfffULL, "the target after the backoff");
	return NULL;
}

/*
 * Senpai starts memory.high at memory.current: the port starts a 512 MiB
 * guest with 200 MiB free (fresh stats) at the 312 MiB it uses, not at
 * its size, which 1% probes would take 20 minutes to come down from.
 * Stats from before the balloon last moved do not count (the start is
 * then the size).
 */
static const char *test_pressure_starts_at_used_memory(void)
{
	struct vm v;

	/* stats read a second before the first decision: fresh */
	pressure_vm(&v, 200 * MIB, 99000);
	pressure_tick(&v, 100000, 5000000, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "the first decision's action (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "start", "the first decision's reason");
	ASSERT_EQ(v.d.target, RAM - 200 * MIB, "the start: the memory in use");
	/* then Senpai's rule from there: no move until its interval ends */
	pressure_tick(&v, 105000, 5000000, 1);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "the next tick's action (%s)", v.d.reason);

	pressure_vm(&v, 200 * MIB, 100000);
	v.st.moved_ms = 100500;
	pressure_tick(&v, 101000, 5000000, 1);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "the action on stale stats (%s)", v.d.reason);
	ASSERT_EQ(v.st.sp.limit, RAM, "the start on stale stats: the size");
	return NULL;
}

/*
 * The fallback: an older QEMU's reports carry no pressure; the stats'
 * swap-ins and major faults do, as 1 ms each.  100 major faults in a tick
 * (100 ms, over 10) back the guest off by 25%.
 */
static const char *test_pressure_falls_back_to_faults(void)
{
	struct vm v;
	double t = 100000;
	int i;

	vm_init(&v, POLICY_PRESSURE);
	v.in.actual = 400 * MIB;
	v.r = report(0, hot64_cold300);
	v.in.report = &v.r;
	for (i = 0; i < 8; i++, t += 5000) {
		v.in.now_ms = t;
		stats_at(&v, t, 0, 0);
		policy_decide(&v.k, &v.st, &v.in, &v.d);
		ASSERT_TRUE(strcmp(v.d.reason, "no-pressure"), "tick %d's reason: %s", i,
			    v.d.reason);
	}
	v.in.now_ms = t;
	stats_at(&v, t, 0, 100);
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action on 100 faults (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "backoff", "the reason on 100 faults");
	ASSERT_GT(v.d.target, 400 * MIB, "the target after the backoff");
	/* the same with 100 pages swapped in (bytes, as the stats count them) */
	vm_init(&v, POLICY_PRESSURE);
	v.in.actual = 400 * MIB;
	v.in.report = &v.r;
	/* the start and 6 ticks: no probe yet */
	for (i = 0; i < 7; i++, t += 5000) {
		v.in.now_ms = t;
		stats_at(&v, t, 0, 0);
		policy_decide(&v.k, &v.st, &v.in, &v.d);
	}
	v.in.now_ms = t;
	stats_at(&v, t, 100 * 4096, 0);
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action on 100 pages swapped in (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "backoff", "the reason on 100 pages swapped in");
	ASSERT_EQ(v.d.target, 500 * MIB, "the target after 100 pages swapped in");
	/* no pressure of any kind: nothing moves */
	v.in.stats = NULL;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_STREQ(v.d.reason, "no-pressure", "the reason without any pressure signal");
	return NULL;
}

/*
 * pressure on a guest without swap: no stall ever comes from its 256 MiB
 * of cold anon, which it cannot give up, so the probes would go on down
 * into an OOM kill.  They stop at what working-set keeps: 64 hot + 256
 * anon + headroom + what the histogram does not count, less the free
 * memory (100 MiB of kernel; the rest free, as the stats say).
 */
static const char *test_pressure_never_probes_a_swapless_guest_below_its_need(void)
{
	struct vm v;
	double t = 100000;
	__u64 keep;
	int i, probes = 0;

	vm_init(&v, POLICY_PRESSURE);
	keep = 64 * MIB + 256 * MIB + v.k.headroom + 100 * MIB;
	for (i = 0; i < 2000; i++, t += 5000) {
		v.stats.free = v.in.actual > 420 * MIB ? v.in.actual - 420 * MIB : 0;
		v.in.stats = &v.stats;
		v.in.stats_ms = t;
		pressure_tick(&v, t, 1000, 0);
		probes += v.d.action == POLICY_SET;
		ASSERT_GE(v.in.actual + POLICY_MIN_CHANGE, keep, "the size at tick %d (%s)", i,
			  v.d.reason);
	}
	ASSERT_GE(probes, 1, "moves down");
	ASSERT_LE(v.in.actual, keep + 8 * MIB, "the size at the end: down to the need");
	/* its hot set grows by 64 MiB between two ticks: up to the new need at once */
	{
		static const unsigned int grown[5] = { 128, 0, 0, 0, 256 };

		v.r = report(0, grown);
		with_ext(&v.r, 0, 1000, 0);
		v.stats.free = 0;
		v.in.now_ms = v.in.report_ms = v.in.stats_ms = t - 2500;
		policy_decide(&v.k, &v.st, &v.in, &v.d);
		ASSERT_EQ(v.d.action, POLICY_SET, "the action once the hot set grew (%s)", v.d.reason);
		ASSERT_EQ(v.d.target, RAM, "the target once the hot set grew: its need, the RAM");
	}
	return NULL;
}

/*
 * pressure on a guest without swap: it starts at its size, not at the
 * memory it uses (a hard limit there OOM-killed a guest still growing,
 * seconds after the start, in the bench); then, the balloon just moved
 * by a probe, stats read before the move count what it took as free, and
 * the need from them (nothing free) would raise the guest back at once,
 * undoing each probe (seen in the bench: 1024 -> 1013 -> 1024 MiB, every
 * 30 s).  It waits for newer stats instead (which may then raise it,
 * rightly).
 */
static const char *test_pressure_swapless_waits_for_stats_after_a_move(void)
{
	struct vm v;
	double t = 100000;
	int i;

	pressure_vm(&v, 300 * MIB, t);
	pressure_tick(&v, t, 1000, 0);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "the start's action (%s, target %llu MiB)",
		  v.d.reason, (unsigned long long)(v.d.target / MIB));
	ASSERT_EQ(v.st.sp.limit, RAM, "the start: the size");
	/* no stall for an interval: the first probe, fresh stats each tick */
	for (i = 0; i < 7 && v.d.action != POLICY_SET; i++) {
		t += 5000;
		v.in.stats_ms = t;
		pressure_tick(&v, t, 1000, 0);
	}
	ASSERT_EQ(v.d.action, POLICY_SET, "a probe within 7 ticks (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "probe", "the reason of the first move");
	/* the balloon is there; the stats are the ones from before */
	pressure_tick(&v, t + 2000, 1000, 0);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "the action on stale stats (%s, target %llu MiB)",
		  v.d.reason, (unsigned long long)(v.d.target / MIB));
	ASSERT_STREQ(v.d.reason, "wait-stats", "the reason on stale stats");
	return NULL;
}

/*
 * pressure before any report: the stats' faults are a pressure signal,
 * but nothing yet says whether the guest can swap, so it starts at its
 * size, as a guest without swap does (the bench's G, started at the 256
 * MiB it used a second after boot, was OOM-killed as it grew): a 512 MiB
 * guest with 200 MiB free.  The
 * first report that says it can swap starts it again, at what it uses.
 */
static const char *test_pressure_starts_at_the_size_until_a_report_says_it_can_swap(void)
{
	struct vm v;

	pressure_vm(&v, 200 * MIB, 100000);
	stats_at(&v, 100000, 0, 0);
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_TRUE(v.d.action != POLICY_SET || v.d.target >= RAM,
		    "the first decision without a report (%s, target %llu MiB)", v.d.reason,
		    (unsigned long long)(v.d.target / MIB));
	ASSERT_EQ(v.st.sp.limit, RAM, "the start without a report: the size");
	pressure_tick(&v, 100000, 5000000, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action on the first report (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "start", "the reason on the first report");
	ASSERT_EQ(v.d.target, RAM - 200 * MIB, "the start once it can swap: the memory in use");
	return NULL;
}

/*
 * The defaults wsr-host balance --help gives (host/balance-args.c) and
 * docs/policies.md explains: an operator reads them there, not here.
 */
static const char *test_defaults_are_the_documented_ones(void)
{
	struct policy_knobs k;

	policy_knobs_default(&k);
	ASSERT_EQ(k.kind, POLICY_WORKING_SET, "the policy");
	ASSERT_EQ(k.idle_ms, 10000, "--idle-ms");
	ASSERT_EQ(k.headroom, 64 * MIB, "--headroom-mib");
	ASSERT_EQ(k.reclaim_margin, 64 * MIB, "the reclaim margin");
	ASSERT_EQ(k.hold_ms, 30000, "--hold-ms");
	ASSERT_EQ(k.steady_ms, 30000, "--steady-ms");
	ASSERT_EQ(k.step, 64 * MIB, "--step-mib");
	ASSERT_EQ(k.floor, 256 * MIB, "--floor-mib");
	ASSERT_EQ(k.ceiling, 0, "the ceiling (the RAM)");
	ASSERT_EQ(k.max_age_ms, 10000, "--max-age-ms");
	ASSERT_EQ(k.available_pct, 20, "--available-pct");
	ASSERT_EQ(k.idle_min_ms, 10000, "--idle-min-ms");
	ASSERT_EQ(k.idle_max_ms, 600000, "--idle-max-ms");
	ASSERT_EQ(k.slo_ppm, 2000, "--slo-ppm");
	ASSERT_EQ(k.pressure_us, 10000, "--pressure-us");
	ASSERT_EQ(k.pressure_tick_ms, 5000, "--pressure-tick-ms");
	return NULL;
}

/*
 * Hot counts anon and file up to the bin that holds T; total counts
 * every bin.  On a guest without swap, kept adds the anon (not the file)
 * of the bins past the one that holds T, each once: 1, 2, 4, 8 and 16 MiB
 * of anon and 2 MiB of file per bin, T 10 s (the 10 s bin holds it) or
 * 7 s (rounded up to the same bin).
 */
static const char *test_kept_counts_cold_anon_once_on_a_guest_without_swap(void)
{
	static const unsigned int mib[5] = { 1, 2, 4, 8, 16 };
	struct ws_report r = report(0, mib);
	__u32 n, b;

	for (n = 0; n < 2; n++)
		for (b = 0; b < 5; b++)
			r.nodes[n].hist.file[b] = MIB;
	ASSERT_EQ(ws_report_hot(&r, 10000), 13 * MIB, "hot at T 10 s");
	ASSERT_EQ(ws_report_total(&r), 41 * MIB, "total");
	ASSERT_EQ(ws_report_kept(&r, 10000), 13 * MIB, "kept, swap unknown");
	with_ext(&r, 1, 0, 0);
	ASSERT_EQ(ws_report_kept(&r, 10000), 13 * MIB, "kept with swap");
	with_ext(&r, 0, 0, 0);
	ASSERT_EQ(ws_report_kept(&r, 10000), 37 * MIB, "kept without swap, T 10 s");
	ASSERT_EQ(ws_report_kept(&r, 7000), 37 * MIB, "kept without swap, T 7 s");
	ASSERT_EQ(ws_report_kept(&r, 60000), 39 * MIB, "kept without swap, T 60 s");
	return NULL;
}

/*
 * An inflation under way: the target is a step below the size, and the
 * balloon has not got there.  A new report does not set the same step
 * again (the target, not the size, is where the next step starts).
 */
static const char *test_inflation_under_way_is_not_stepped_again(void)
{
	struct vm v;

	vm_init(&v, POLICY_WORKING_SET);
	step(&v, 100000, 0, hot64_cold300, 0);
	ASSERT_EQ(v.d.action, POLICY_SET, "the first report's action (%s)", v.d.reason);
	ASSERT_EQ(v.d.target, RAM - v.k.step, "the first step");
	step(&v, 102000, 0, hot64_cold300, 0);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "the next report's action (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "inflating", "the next report's reason");
	return NULL;
}

/*
 * A reclaim report that balance's own inflation caused counts the free
 * memory of stats read after that inflation, and only those: a guest at
 * 300 MiB, 200 MiB of it in use, 10 MiB free, inflated a second before.
 * Stats read after: its need is 200 + 64 headroom + 90 other, no margin
 * (deflate-self).  Stats read before: nothing free is known, 100 other.
 * And an inflation still under way (target below the size) is the
 * policy's own too, however long ago it was set.
 */
static const char *test_self_caused_reclaim_counts_free_memory_read_after_the_inflation(void)
{
	static const unsigned int in_use[5] = { 200, 0, 0, 0, 0 };
	struct vm v;

	vm_init(&v, POLICY_WORKING_SET);
	v.in.actual = v.in.target = 300 * MIB;
	v.st.last_actual = v.in.actual;
	v.st.last_inflate_ms = 99000;
	v.stats.free = 10 * MIB;
	step(&v, 100000, 1, in_use, 0);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action, stats after (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "deflate-self", "the reason, stats after");
	ASSERT_EQ(v.d.target, 354 * MIB, "the target, stats after");

	vm_init(&v, POLICY_WORKING_SET);
	v.in.actual = v.in.target = 300 * MIB;
	v.st.last_actual = v.in.actual;
	v.st.last_inflate_ms = 99000;
	v.stats.free = 10 * MIB;
	v.r = report(1, in_use);
	v.in.now_ms = v.in.report_ms = 100000;
	v.in.report = &v.r;
	v.in.new_report = 1;
	v.in.stats = &v.stats;
	v.in.stats_ms = 98000;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action, stats before (%s)", v.d.reason);
	ASSERT_EQ(v.d.target, 364 * MIB, "the target, stats before");

	/* set a minute ago, the balloon still 20 MiB above it */
	vm_init(&v, POLICY_WORKING_SET);
	v.in.actual = 320 * MIB;
	v.in.target = 300 * MIB;
	v.st.last_actual = v.in.actual;
	v.st.last_inflate_ms = 40000;
	v.stats.free = 10 * MIB;
	step(&v, 100000, 1, in_use, 0);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action, under way (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "deflate-self", "the reason, under way");
	ASSERT_EQ(v.d.target, 374 * MIB, "the target, under way: 200 + 64 + 110");
	return NULL;
}

/*
 * A reclaim report that is not the policy's own and asks for less than
 * a change more (2 MiB: 64 hot, 126 cold, 400 MiB) starts the hold-off,
 * without a target; one that asks for exactly the target is covered and
 * starts none.
 */
static const char *test_reclaim_short_by_less_than_a_change_holds_off(void)
{
	static const unsigned int short2[5] = { 64, 0, 0, 0, 126 };
	static const unsigned int exact[5] = { 64, 0, 0, 0, 128 };
	struct vm v;

	vm_init(&v, POLICY_WORKING_SET);
	v.in.actual = v.in.target = 400 * MIB;
	step(&v, 100000, 1, exact, 0);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "the covered report's action (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "reclaim-covered", "the covered report's reason");
	ASSERT_TRUE(v.st.hold_until_ms == 0, "no hold-off after the covered report");
	step(&v, 101000, 1, short2, 0);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "the short report's action (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "hold", "the short report's reason");
	ASSERT_TRUE(v.st.hold_until_ms == 101000 + v.k.hold_ms, "the hold-off after the short report");
	return NULL;
}

/*
 * Free memory counts only from stats that say it (free >= 0) and are
 * younger than --max-age-ms: a guest of 448 MiB with 380 in use and 64
 * free is steady on fresh stats, and deflated to its RAM on stats 20 s
 * old (68 MiB it cannot account for); one of 400 MiB whose stats say
 * nothing of free memory has 20 MiB it cannot account for.
 */
static const char *test_free_memory_counts_only_from_fresh_stats_that_say_it(void)
{
	static const unsigned int all_hot[5] = { 200, 100, 80, 0, 0 };
	struct vm v;

	vm_init(&v, POLICY_WORKING_SET);
	v.in.actual = v.in.target = 448 * MIB;
	v.st.last_actual = v.in.actual;
	v.stats.free = 64 * MIB;
	step(&v, 100000, 0, all_hot, 0);
	ASSERT_STREQ(v.d.reason, "steady", "the reason on fresh stats");

	vm_init(&v, POLICY_WORKING_SET);
	v.in.actual = v.in.target = 400 * MIB;
	v.st.last_actual = v.in.actual;
	v.stats.major_faults = 0;
	step(&v, 102000, 0, all_hot, 0);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action without free memory (%s)", v.d.reason);
	ASSERT_EQ(v.d.target, 464 * MIB, "the target without free memory: 380 + 64 + 20");

	vm_init(&v, POLICY_WORKING_SET);
	v.in.actual = v.in.target = 448 * MIB;
	v.st.last_actual = v.in.actual;
	v.stats.free = 64 * MIB;
	v.in.stats = &v.stats;
	v.in.report = &v.r;
	v.in.new_report = 1;
	v.r = report(0, all_hot);
	v.in.now_ms = v.in.report_ms = 104000;
	v.in.stats_ms = 104000 - 20000;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action on stats 20 s old (%s)", v.d.reason);
	ASSERT_EQ(v.d.target, RAM, "the target on stats 20 s old");
	return NULL;
}

/*
 * Stats read before the balloon last moved are stale, whoever moved it:
 * the policy (a target set at the very ms the stats were read), or
 * another (the size changed between two decisions with no target of the
 * policy's).  No inflation on them (wait-stats).  Stats older than
 * --max-age-ms are no stats at all: the report alone decides.
 */
static const char *test_stats_from_before_the_balloon_moved_are_stale(void)
{
	struct vm v;

	/* the policy's own move: a step, with stats read at the same ms */
	vm_init(&v, POLICY_WORKING_SET);
	v.stats.free = 100 * MIB;
	v.in.stats = &v.stats;
	v.r = report(0, hot64_cold300);
	v.in.report = &v.r;
	v.in.new_report = 1;
	v.in.now_ms = v.in.report_ms = v.in.stats_ms = 100000;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.action, POLICY_SET, "the first decision (%s)", v.d.reason);
	v.in.target = v.d.target;
	v.in.now_ms = v.in.report_ms = 101000;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_STREQ(v.d.reason, "wait-stats", "the reason after the policy's step");

	/* another's move: the size went from 512 to 480 MiB meanwhile */
	vm_init(&v, POLICY_WORKING_SET);
	v.st.hold_until_ms = 1e12;
	v.stats.free = 100 * MIB;
	v.in.stats = &v.stats;
	v.r = report(0, hot64_cold300);
	v.in.report = &v.r;
	v.in.new_report = 1;
	v.in.now_ms = v.in.report_ms = v.in.stats_ms = 100000;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_STREQ(v.d.reason, "hold", "the first decision's reason");
	v.in.actual = 480 * MIB;
	v.in.now_ms = v.in.report_ms = 101000;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_STREQ(v.d.reason, "wait-stats", "the reason after another's move");

	/* stats 20 s old, from before a move 15 s ago: the report decides */
	vm_init(&v, POLICY_WORKING_SET);
	v.stats.free = 100 * MIB;
	v.in.stats = &v.stats;
	v.in.stats_ms = 80000;
	v.st.last_actual = v.in.actual;
	v.st.moved_ms = 85000;
	v.r = report(0, hot64_cold300);
	v.in.report = &v.r;
	v.in.new_report = 1;
	v.in.now_ms = v.in.report_ms = 100000;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action on old stats (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "inflate-step", "the reason on old stats");
	return NULL;
}

/* one node's bins: 32 MiB anon and 32 file idle <= 60 s, 64 anon <= 120 s, 300 older */
static struct ws_report ws128(void)
{
	struct ws_report r = { .cause = WSR_CAUSE_REQUEST, .nr_nodes = 1 };

	r.nodes[0].hist = (struct wsr_hist){ .nr_bins = 3,
					     .bound_ms = { 60000, 120000, CATCH_ALL },
					     .anon = { 32 * MIB, 64 * MIB, 300 * MIB },
					     .file = { 32 * MIB } };
	return r;
}

/* stats at @ms: @pages promoted since boot, as major faults or (@bytes) swapped in */
static void promoted(const struct policy_knobs *k, struct cost_state *c,
		     const struct ws_report *r, double ms, long long pages, int bytes)
{
	struct ws_stats s = { .available = -1, .free = -1, .swap_in = bytes ? pages * 4096 : -1,
			      .major_faults = bytes ? -1 : pages };

	cost_take_stats(k, c, &s, ms, r);
}

/* 1000 pages a minute against the 128 MiB idle for at most 120 s: 30517.6 ppm */
#define RATE_1000 (1000.0 * 4096 / (128 * MIB) * 1e6)

/*
 * The promotion rate: major faults, or bytes swapped in (pages of 4
 * KiB), per minute, against the working set (anon and file of the bins
 * up to 120 s); stats older than the last taken change nothing, counters
 * that went back (a rebooted guest) start a new window, and a guest with
 * no working set has no rate.
 */
static const char *test_promotion_rate_counts_faults_and_swapped_in_bytes(void)
{
	struct ws_report r = ws128(), none = { .nr_nodes = 1 };
	struct policy_knobs k;
	struct cost_state c;
	__u64 t;
	int bytes;

	policy_knobs_default(&k);
	for (bytes = 0; bytes < 2; bytes++) {
		memset(&c, 0, sizeof(c));
		cost_idle_ms(&k, &c);
		promoted(&k, &c, &r, 100000, 0, bytes);
		promoted(&k, &c, &r, 160000, 1000, bytes);
		ASSERT_TRUE(c.rate_ppm > RATE_1000 - 1 && c.rate_ppm < RATE_1000 + 1,
			    "the rate of 1000 %s a minute: %.1f ppm, not %.1f",
			    bytes ? "pages swapped in" : "faults", c.rate_ppm, RATE_1000);
	}
	/* an older reading between, with fewer pages: ignored */
	memset(&c, 0, sizeof(c));
	cost_idle_ms(&k, &c);
	promoted(&k, &c, &r, 20000, 500, 0);
	promoted(&k, &c, &r, 10000, 100, 0);
	promoted(&k, &c, &r, 80000, 1500, 0);
	ASSERT_TRUE(c.rate_ppm > RATE_1000 - 1 && c.rate_ppm < RATE_1000 + 1,
		    "the rate with an older reading between: %.1f ppm", c.rate_ppm);
	/* rebooted: the counters went back; then 10 pages a minute */
	t = c.idle_ms;
	promoted(&k, &c, &r, 140000, 10, 0);
	ASSERT_EQ(c.idle_ms, t, "T after the counters went back");
	promoted(&k, &c, &r, 200000, 20, 0);
	ASSERT_TRUE(c.rate_ppm > RATE_1000 / 100 - 1 && c.rate_ppm < RATE_1000 / 100 + 1,
		    "the rate after a reboot: %.1f ppm", c.rate_ppm);
	/* nothing idle for less than 120 s: no rate, T as it was */
	none.nodes[0].hist = (struct wsr_hist){ .nr_bins = 1, .bound_ms = { CATCH_ALL },
						.anon = { 300 * MIB } };
	promoted(&k, &c, &none, 260000, 30, 0);
	ASSERT_EQ(c.idle_ms, t, "T without a working set");
	return NULL;
}

/* @n windows of a minute with @per_min promotions each, from @ms; returns the time after */
static double windows(const struct policy_knobs *k, struct cost_state *c, double ms,
		      long long *pages, long long per_min, int n)
{
	const struct ws_report r = ws128();
	int i;

	for (i = 0; i < n; i++) {
		ms += 60000;
		*pages += per_min;
		promoted(k, c, &r, ms, *pages, 0);
	}
	return ms;
}

/*
 * T doubles on a window above --slo-ppm (100 pages a minute: 3052 ppm,
 * 1.5 times the SLO), never past --idle-max-ms; it halves after 5 windows
 * in a row below a quarter of the SLO (a window above a quarter, 23 pages:
 * 702 ppm, starts the count again), never below --idle-min-ms.  T set
 * outside those bounds by --idle-ms stays there.
 */
static const char *test_idle_threshold_moves_by_the_slo_within_its_bounds(void)
{
	struct policy_knobs k;
	struct cost_state c;
	long long pages = 0;
	double ms = 100000;

	policy_knobs_default(&k);
	k.idle_max_ms = 30000;
	memset(&c, 0, sizeof(c));
	cost_idle_ms(&k, &c);
	ms = windows(&k, &c, ms, &pages, 0, 1);
	ms = windows(&k, &c, ms, &pages, 100, 1);
	ASSERT_EQ(c.idle_ms, 20000, "T after a window at 1.5 times the SLO");
	ms = windows(&k, &c, ms, &pages, 100, 1);
	ASSERT_EQ(c.idle_ms, 30000, "T after two: --idle-max-ms");
	ms = windows(&k, &c, ms, &pages, 100, 3);
	ASSERT_EQ(c.idle_ms, 30000, "T after five: --idle-max-ms");
	ms = windows(&k, &c, ms, &pages, 23, 10);
	ASSERT_EQ(c.idle_ms, 30000, "T after 10 windows at a third of the SLO");
	ms = windows(&k, &c, ms, &pages, 0, 4);
	ms = windows(&k, &c, ms, &pages, 23, 1);
	ms = windows(&k, &c, ms, &pages, 0, 4);
	ASSERT_EQ(c.idle_ms, 30000, "T after 4 quiet windows, one not, 4 quiet");
	ms = windows(&k, &c, ms, &pages, 0, 1);
	ASSERT_EQ(c.idle_ms, 15000, "T after the fifth quiet window in a row");
	ms = windows(&k, &c, ms, &pages, 0, 5);
	ASSERT_EQ(c.idle_ms, k.idle_min_ms, "T after 5 more: --idle-min-ms");

	/* --idle-ms below --idle-min-ms, quiet: T stays */
	policy_knobs_default(&k);
	k.idle_ms = 5000;
	memset(&c, 0, sizeof(c));
	cost_idle_ms(&k, &c);
	ms = windows(&k, &c, ms, &pages, 0, 11);
	ASSERT_EQ(c.idle_ms, 5000, "T from --idle-ms 5000 after 10 quiet windows");
	/* --idle-ms above --idle-max-ms, busy: T stays */
	k.idle_ms = 900000;
	memset(&c, 0, sizeof(c));
	cost_idle_ms(&k, &c);
	ms = windows(&k, &c, ms, &pages, 100, 3);
	ASSERT_EQ(c.idle_ms, 900000, "T from --idle-ms 900000 after 2 busy windows");
	return NULL;
}

/* a report at @ms with the stall total @some_us, or (@known 0) an older QEMU's */
static void psi_at(struct cost_state *c, double ms, __u64 some_us, int known)
{
	struct ws_report r = { .cause = WSR_CAUSE_REQUEST };

	if (known)
		with_ext(&r, 1, some_us, 0);
	cost_take_report(c, &r, ms);
}

/*
 * The stall that holds inflation back: between two reports, per 30 s,
 * against --pressure-us (10 ms): 12 ms in 30 s holds, 8 ms does not; the
 * stall of the last two reports only; none when the total went back (a
 * rebooted guest), when two reports have the same data time, or from
 * the first report after an older QEMU's.
 */
static const char *test_stall_between_reports_against_pressure_us(void)
{
	struct policy_knobs k;
	struct cost_state c;

	policy_knobs_default(&k);
	memset(&c, 0, sizeof(c));
	cost_idle_ms(&k, &c);
	psi_at(&c, 100000, 0, 1);
	ASSERT_FALSE(cost_stalled(&k, &c), "stalled after one report");
	psi_at(&c, 130000, 12000, 1);
	ASSERT_TRUE(cost_stalled(&k, &c), "stalled at 12 ms in 30 s (%.0f us)", c.stall_us_per_30s);
	psi_at(&c, 160000, 20000, 1);
	ASSERT_FALSE(cost_stalled(&k, &c), "stalled at 8 ms in 30 s (%.0f us)", c.stall_us_per_30s);
	psi_at(&c, 190000, 100000, 1);
	ASSERT_TRUE(cost_stalled(&k, &c), "stalled at 80 ms in 30 s");
	psi_at(&c, 220000, 100000, 1);
	ASSERT_FALSE(cost_stalled(&k, &c), "stalled 30 s after the stall stopped (%.0f us)",
		     c.stall_us_per_30s);
	psi_at(&c, 250000, 200000, 1);
	ASSERT_TRUE(cost_stalled(&k, &c), "stalled at 100 ms in 30 s");
	psi_at(&c, 280000, 10, 1);
	ASSERT_FALSE(cost_stalled(&k, &c), "stalled after the total went back");
	psi_at(&c, 280000, 5000, 1);
	ASSERT_FALSE(cost_stalled(&k, &c), "stalled on a report of the same data time (%.0f us)",
		     c.stall_us_per_30s);
	psi_at(&c, 310000, 0, 0);
	psi_at(&c, 340000, 50000, 1);
	ASSERT_FALSE(cost_stalled(&k, &c), "stalled on the first report after an older QEMU's (%.0f us)",
		     c.stall_us_per_30s);
	return NULL;
}

/*
 * pressure: Senpai's stall target is --pressure-us: at 40 ms, 100 ms of
 * stall in a tick backs off by (100 / 40 / 20)^2, not by the 25% of 10 ms
 */
static const char *test_pressure_backs_off_against_pressure_us(void)
{
	struct vm v;
	__u64 before;

	vm_init(&v, POLICY_PRESSURE);
	v.k.pressure_us = 40000;
	v.in.ram = 1024 * MIB;
	v.in.actual = 800 * MIB;
	pressure_tick(&v, 100000, 5000000, 1);
	before = v.in.actual;
	pressure_tick(&v, 105000, 5100000, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "the action on 100 ms of stall (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "backoff", "the reason on 100 ms of stall");
	ASSERT_EQ(v.d.target, (__u64)(before * 1.015625) & ~0xfffULL, "the target after the backoff");
	return NULL;
}

/*
 * pressure within the bounds: a guest above --vm's max= goes down to it
 * at once (max), one below the floor up to it (floor); the probes of a
 * guest with swap stop at the floor, and no target moves by less than a
 * change (4 MiB; 1% of 300 MiB is less: every other probe moves it).
 */
static const char *test_pressure_stays_within_floor_and_ceiling(void)
{
	struct vm v;
	__u64 cur;
	int i, moves = 0;

	vm_init(&v, POLICY_PRESSURE);
	v.k.ceiling = 300 * MIB;
	pressure_tick(&v, 100000, 1000, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "above the ceiling: the action (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "max", "above the ceiling: the reason");
	ASSERT_EQ(v.d.target, 300 * MIB, "above the ceiling: the target");

	vm_init(&v, POLICY_PRESSURE);
	v.in.actual = 200 * MIB;
	pressure_tick(&v, 100000, 1000, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "below the floor: the action (%s)", v.d.reason);
	ASSERT_STREQ(v.d.reason, "floor", "below the floor: the reason");
	ASSERT_EQ(v.d.target, v.k.floor, "below the floor: the target");

	vm_init(&v, POLICY_PRESSURE);
	v.in.actual = 300 * MIB;
	for (i = 0; i < 7 * 20; i++) {
		cur = v.in.target ? v.in.target : v.in.actual;
		pressure_tick(&v, 100000 + i * 5000, 1000, 1);
		if (v.d.action != POLICY_SET)
			continue;
		moves++;
		ASSERT_GE(cur - v.d.target, POLICY_MIN_CHANGE, "probe %d's move (%s)", moves,
			  v.d.reason);
		ASSERT_GE(v.d.target, v.k.floor, "probe %d's target", moves);
	}
	ASSERT_GE(moves, 4, "moves down");
	ASSERT_LT(v.in.actual, v.k.floor + POLICY_MIN_CHANGE, "the size at the end");
	return NULL;
}

/*
 * pressure: Senpai ticks every --pressure-tick-ms whatever the pace of
 * the decisions.  Every 1.5 s, a guest without stall is probed at the
 * first decision 7 ticks (35 s) after the start; after a gap of a minute,
 * the ticks start again at the decision that ends it, not one a decision
 * until they catch up: the next probe comes 30 s later.
 */
static const char *test_pressure_ticks_keep_their_pace_after_a_gap(void)
{
	double t0 = 100000, t, first = 0, gap, second = 0;
	struct vm v;

	vm_init(&v, POLICY_PRESSURE);
	pressure_tick(&v, t0, 1000, 1);
	for (t = t0 + 1500; t < t0 + 60000 && !first; t += 1500) {
		pressure_tick(&v, t, 1000, 1);
		if (v.d.action == POLICY_SET)
			first = t;
	}
	ASSERT_STREQ(v.d.reason, "probe", "the first move");
	ASSERT_TRUE(first >= t0 + 35000 && first <= t0 + 36500,
		    "the first probe %.0f ms after the start", first - t0);
	gap = first + 60000;
	for (t = gap; t < gap + 60000 && !second; t += 1500) {
		pressure_tick(&v, t, 1000, 1);
		if (v.d.action == POLICY_SET)
			second = t;
	}
	ASSERT_TRUE(second >= gap + 29000 && second <= gap + 31500,
		    "the probe %.0f ms after the gap", second - gap);
	return NULL;
}

static const struct unit_test tests[] = {
	{ "policy_steady_state_keeps_target", test_steady_state_keeps_target },
	{ "policy_inflates_in_bounded_steps_to_working_set",
	  test_inflates_in_bounded_steps_to_working_set },
	{ "policy_growing_working_set_is_not_inflated_until_it_holds",
	  test_growing_working_set_is_not_inflated_until_it_holds },
	{ "policy_steadiness_allows_noise_and_never_delays_a_deflation",
	  test_steadiness_allows_noise_and_never_delays_a_deflation },
	{ "policy_inflation_needs_a_new_report", test_inflation_needs_a_new_report },
	{ "policy_reclaim_mid_inflation_deflates_at_once",
	  test_reclaim_mid_inflation_deflates_at_once },
	{ "policy_reclaim_deflates_by_headroom_and_margin",
	  test_reclaim_deflates_by_headroom_and_margin },
	{ "policy_hold_off_then_inflation_resumes", test_hold_off_then_inflation_resumes },
	{ "policy_reclaim_of_cold_memory_does_not_stop_inflation",
	  test_reclaim_of_cold_memory_does_not_stop_inflation },
	{ "policy_growth_deflates_at_once_during_hold", test_growth_deflates_at_once_during_hold },
	{ "policy_never_below_floor", test_floor },
	{ "policy_memory_in_the_host_swap_is_not_ballooned_out",
	  test_memory_in_the_host_swap_is_not_ballooned_out },
	{ "policy_stale_free_memory_is_not_taken_twice", test_stale_free_memory_is_not_taken_twice },
	{ "policy_stale_stats_still_deflate_a_growing_guest",
	  test_stale_stats_still_deflate_a_growing_guest },
	{ "policy_never_above_ceiling", test_ceiling },
	{ "policy_stale_report_inflates_nothing", test_stale_report_inflates_nothing },
	{ "policy_idle_time_rounds_up_to_a_bound", test_idle_time_rounds_up_to_a_bound },
	{ "policy_available_baseline", test_available_baseline },
	{ "policy_none_never_sets", test_none_never_sets },
	{ "policy_kind_names", test_knob_names },
	{ "policy_saw_bottom_is_the_need", test_saw_bottom_is_the_need },
	{ "policy_self_caused_reclaim_deflates_by_the_need",
	  test_self_caused_reclaim_deflates_by_the_need },
	{ "policy_no_swap_cold_anon_is_kept", test_no_swap_cold_anon_is_kept },
	{ "policy_unseen_reclaim_deflates", test_unseen_reclaim_deflates },
	{ "policy_idle_threshold_goes_up", test_idle_threshold_goes_up },
	{ "policy_idle_threshold_comes_down", test_idle_threshold_comes_down },
	{ "policy_pressure_holds_inflation_back", test_pressure_holds_inflation_back },
	{ "policy_pressure_probes_and_backs_off", test_pressure_probes_and_backs_off },
	{ "policy_pressure_starts_at_used_memory", test_pressure_starts_at_used_memory },
	{ "policy_pressure_starts_at_the_size_until_a_report_says_it_can_swap",
	  test_pressure_starts_at_the_size_until_a_report_says_it_can_swap },
	{ "policy_pressure_swapless_waits_for_stats_after_a_move",
	  test_pressure_swapless_waits_for_stats_after_a_move },
	{ "policy_pressure_falls_back_to_faults", test_pressure_falls_back_to_faults },
	{ "policy_pressure_never_probes_a_swapless_guest_below_its_need",
	  test_pressure_never_probes_a_swapless_guest_below_its_need },
	{ "policy_defaults_are_the_documented_ones", test_defaults_are_the_documented_ones },
	{ "policy_kept_counts_cold_anon_once_on_a_guest_without_swap",
	  test_kept_counts_cold_anon_once_on_a_guest_without_swap },
	{ "policy_inflation_under_way_is_not_stepped_again",
	  test_inflation_under_way_is_not_stepped_again },
	{ "policy_self_caused_reclaim_counts_free_memory_read_after_the_inflation",
	  test_self_caused_reclaim_counts_free_memory_read_after_the_inflation },
	{ "policy_reclaim_short_by_less_than_a_change_holds_off",
	  test_reclaim_short_by_less_than_a_change_holds_off },
	{ "policy_free_memory_counts_only_from_fresh_stats_that_say_it",
	  test_free_memory_counts_only_from_fresh_stats_that_say_it },
	{ "policy_stats_from_before_the_balloon_moved_are_stale",
	  test_stats_from_before_the_balloon_moved_are_stale },
	{ "policy_promotion_rate_counts_faults_and_swapped_in_bytes",
	  test_promotion_rate_counts_faults_and_swapped_in_bytes },
	{ "policy_idle_threshold_moves_by_the_slo_within_its_bounds",
	  test_idle_threshold_moves_by_the_slo_within_its_bounds },
	{ "policy_stall_between_reports_against_pressure_us",
	  test_stall_between_reports_against_pressure_us },
	{ "policy_pressure_backs_off_against_pressure_us",
	  test_pressure_backs_off_against_pressure_us },
	{ "policy_pressure_stays_within_floor_and_ceiling",
	  test_pressure_stays_within_floor_and_ceiling },
	{ "policy_pressure_ticks_keep_their_pace_after_a_gap",
	  test_pressure_ticks_keep_their_pace_after_a_gap },
};

UNIT_MAIN(tests)
