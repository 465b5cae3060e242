// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host balance's decisions (host/policy.c) on recorded sequences of
 * reports and stats: a 512 MiB guest with two nodes and bins 1, 5, 10 and
 * 60 s (and the catch-all), as vmtests/balloon-test.sh boots it.
 */
#include <string.h>
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
		r.nodes[n].nr_bins = 5;
		for (b = 0; b < 5; b++) {
			r.nodes[n].bins[b].idle_le_ms = bounds[b];
			r.nodes[n].bins[b].anon = mib[b] * MIB / 2;
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
	v->in.ram = RAM;
	v->in.actual = RAM;
	v->in.now_ms = 100000;
	v->stats.available = -1;
	v->stats.free = -1;
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
	v->in.stats = v->stats.free >= 0 || v->stats.available >= 0 ? &v->stats : NULL;
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
	}
	ASSERT_GE(sets, 2, "targets set");
	ASSERT_EQ(v.in.actual, want, "the size at the end, against the working set");
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
	if (v.d.action == POLICY_SET)
		ASSERT_LE(v.d.target, 300 * MIB, "a reclaim report's target, under the ceiling");
	/* a ceiling under the floor wins: the floor is the operator's default */
	v.k.floor = 400 * MIB;
	v.in.actual = v.in.target = 200 * MIB;
	step(&v, 200000, 0, hot64_cold300, 1);
	ASSERT_EQ(v.d.action, POLICY_SET, "a ceiling under the floor: the action");
	ASSERT_EQ(v.d.target, 300 * MIB, "a ceiling under the floor: the target");
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
	ASSERT_ERR(policy_kind_parse("workingset", &k), "workingset");
	return NULL;
}

static const struct unit_test tests[] = {
	{ "policy_steady_state_keeps_target", test_steady_state_keeps_target },
	{ "policy_inflates_in_bounded_steps_to_working_set",
	  test_inflates_in_bounded_steps_to_working_set },
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
	{ "policy_never_above_ceiling", test_ceiling },
	{ "policy_stale_report_inflates_nothing", test_stale_report_inflates_nothing },
	{ "policy_idle_time_rounds_up_to_a_bound", test_idle_time_rounds_up_to_a_bound },
	{ "policy_available_baseline", test_available_baseline },
	{ "policy_none_never_sets", test_none_never_sets },
	{ "policy_kind_names", test_knob_names },
};

UNIT_MAIN(tests)
