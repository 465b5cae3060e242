// SPDX-License-Identifier: GPL-2.0
/*
 * The baselines hosts run (host/baselines.c): oVirt MOM's balloon.rules
 * and Proxmox VE's compute_alg1(), on recorded figures with their results
 * worked out by hand from the originals; the host's memory as both read
 * it (host/hostmem.c); and both policies as balance's decisions drive
 * them (host/policy.c): rounds, samples, bounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "baselines.h"
#include "hostmem.h"
#include "policy.h"
#include "unit.h"

#define MIB (1ULL << 20)
#define GIB (1ULL << 30)
/* signed, for goals */
#define MIBL ((long long)MIB)

static struct mom_guest guest(__u64 cur_mib, __u64 free_mib, __u64 min_mib, __u64 max_mib)
{
	return (struct mom_guest){
		.balloon_cur = cur_mib * MIB, .avg_cur = (double)(cur_mib * MIB),
		.avg_unused = (double)(free_mib * MIB), .balloon_min = min_mib * MIB,
		.balloon_max = max_mib * MIB,
	};
}

/* the host 10% free: a guest that uses little shrinks by 5% of its size */
static const char *mom_shrinks_by_5pct_a_round_when_the_host_is_short(void)
{
	struct mom_guest g = guest(1000, 700, 256, 1024);
	const char *why = NULL;

	ASSERT_EQ(mom_rule(&g, 0.10, &why), (__u64)(1000 * MIB * 0.95) & ~0xfffULL,
		  "the target after one round");
	ASSERT_STREQ(why, "mom-shrink", "the reason");
	return NULL;
}

/*
 * The host 10% free: the guest keeps what it uses plus a free share of
 * 20% x 10/20 = 10% of its size, when that is above the 5% step
 */
static const char *mom_shrink_keeps_use_plus_a_share_scaled_by_host_free(void)
{
	struct mom_guest g = guest(1000, 120, 256, 1024);
	const char *why;

	/* 880 MiB used: 980, above the step's 950 */
	ASSERT_EQ(mom_rule(&g, 0.10, &why), 980 * MIB, "use plus 10%% of the size");
	/* the host at 19%: a share of 19%: 1070 MiB, above its size: no shrink */
	ASSERT_EQ(mom_rule(&g, 0.19, &why), 0, "the target at 19%% free");
	/* the host at 6%: a share of 6%: 940 MiB, below the step: the step */
	ASSERT_EQ(mom_rule(&g, 0.06, &why), 950 * MIB, "the target at 6%% free");
	return NULL;
}

/* the host at 5% free or less: the free share goes negative, the guest swaps */
static const char *mom_critical_host_squeezes_below_what_the_guest_uses(void)
{
	struct mom_guest g = guest(1000, 10, 256, 1024);
	const char *why;
	__u64 t;

	/* 990 MiB used; at 4%: a share of -1% of 1000 MiB: 980 MiB */
	t = mom_rule(&g, 0.04, &why);
	ASSERT_EQ(t, (__u64)(990 * MIB - 0.01 * 1000 * MIB) & ~0xfffULL, "the target at 4%% free");
	ASSERT_LT(t, 990 * MIB, "below what the guest uses");
	/* at 5% exactly, still critical: the share is 0, the target its use */
	t = mom_rule(&g, 0.05, &why);
	ASSERT_EQ(t, 990 * MIB, "the target at 5%% free");
	/* at 6%: a share of 6%: 1050 MiB, above its size: no change */
	ASSERT_EQ(mom_rule(&g, 0.06, &why), 0, "the target at 6%% free");
	return NULL;
}

/* never below the guaranteed memory */
static const char *mom_shrink_stops_at_the_guaranteed_memory(void)
{
	struct mom_guest g = guest(300, 280, 290, 1024);
	const char *why;

	ASSERT_EQ(mom_rule(&g, 0.01, &why), 290 * MIB, "the floor");
	return NULL;
}

/* the host at 20% free or more: a ballooned guest grows by 5%, to its max */
static const char *mom_grows_by_5pct_when_the_host_has_room(void)
{
	struct mom_guest g = guest(800, 700, 256, 1024);
	const char *why = NULL;

	ASSERT_EQ(mom_rule(&g, 0.20, &why), 840 * MIB, "20%% free is no pressure: grow 5%%");
	ASSERT_STREQ(why, "mom-grow", "the reason");
	g = guest(1000, 700, 256, 1024);
	ASSERT_EQ(mom_rule(&g, 0.5, &why), 1024 * MIB, "the growth capped at the max");
	g = guest(1024, 700, 256, 1024);
	ASSERT_EQ(mom_rule(&g, 0.5, &why), 0, "a guest at its max does not move");
	/* below its guaranteed memory: at once to it */
	g = guest(300, 280, 500, 1024);
	ASSERT_EQ(mom_rule(&g, 0.5, &why), 500 * MIB, "a guest below its minimum grows to it");
	/* one that uses nearly all: at once to its use plus 20% of its size */
	g = guest(600, 0, 256, 2048);
	ASSERT_EQ(mom_rule(&g, 0.5, &why), (__u64)(600 * MIB * 1.2) & ~0xfffULL,
		  "use plus 20%% of the size, above the 5%% step");
	return NULL;
}

/* a move of 0.25% of the guest's size or less is not made */
static const char *mom_small_change_is_not_made(void)
{
	struct mom_guest g = guest(1000, 0, 256, 1024);
	const char *why;

	/* grow to its use plus 20%: 1200 capped at 1024; 1000 -> 1002.5 is too small */
	g.balloon_max = 1002 * MIB;
	ASSERT_EQ(mom_rule(&g, 0.5, &why), 0, "2 MiB on 1000");
	g.balloon_max = 1003 * MIB;
	ASSERT_EQ(mom_rule(&g, 0.5, &why), 1003 * MIB, "3 MiB on 1000");
	/* exactly 0.25%: not more than it */
	g.balloon_max = 1000 * MIB + 1000 * MIB / 400;
	ASSERT_EQ(mom_rule(&g, 0.5, &why), 0, "2.5 MiB on 1000");
	return NULL;
}

/* StatAvg: the mean of the last 10 samples */
static const char *mom_average_is_the_mean_of_the_last_ten(void)
{
	struct mom_avg a = { 0 };
	unsigned int i;

	ASSERT_TRUE(mom_avg_get(&a) == 0, "no samples: 0");
	for (i = 1; i <= 15; i++)
		mom_avg_add(&a, i);
	ASSERT_TRUE(mom_avg_get(&a) == 10.5, "the mean of 6..15 is 10.5, not %g", mom_avg_get(&a));
	memset(&a, 0, sizeof(a));
	for (i = 1; i <= 3; i++)
		mom_avg_add(&a, i);
	ASSERT_TRUE(mom_avg_get(&a) == 2, "the mean of 1..3 is 2, not %g", mom_avg_get(&a));
	return NULL;
}

static struct pve_vm pve(__u64 bal_mib, __u64 min_mib, __u64 max_mib, long long free_mib)
{
	return (struct pve_vm){
		.balloon = bal_mib * MIB, .balloon_min = min_mib * MIB, .maxmem = max_mib * MIB,
		.freemem = free_mib < 0 ? -1 : (long long)(free_mib * MIB), .shares = 1000,
	};
}

/* pvestatd: 80% of the host used is the aim; within 10 MiB of it, nothing */
static const char *pve_changes_nothing_within_10_mib_of_the_goal(void)
{
	struct pve_vm v[2] = { pve(2048, 512, 4096, 1500), pve(1024, 512, 4096, 10) };
	__u64 res[2];

	ASSERT_EQ(pve_goal(10 * GIB, 8 * GIB, 80), (long long)(0.8 * 10 * GIB) - (long long)(8 * GIB),
		  "the goal");
	ASSERT_EQ(pve_alg1(v, 2, 10 << 20, PVE_MAX_CHANGE, res), 10 << 20, "+10 MiB left");
	ASSERT_TRUE(!res[0] && !res[1], "no change at +10 MiB");
	ASSERT_EQ(pve_alg1(v, 2, -(10 << 20), PVE_MAX_CHANGE, res), -(10 << 20), "-10 MiB left");
	ASSERT_TRUE(!res[0] && !res[1], "no change at -10 MiB");
	pve_alg1(v, 2, 11 << 20, PVE_MAX_CHANGE, res);
	ASSERT_TRUE(res[0] || res[1], "+11 MiB moves something");
	return NULL;
}

/*
 * A shrink goes to the VMs with free memory first (more than a quarter of
 * their minimum): A (2048, 1500 free) gives 100 MiB, its most a round;
 * B, short of free memory, is left alone while A could give.
 */
static const char *pve_shrink_takes_from_vms_with_free_memory_first(void)
{
	struct pve_vm v[2] = { pve(2048, 512, 4096, 1500), pve(1024, 512, 4096, 10) };
	__u64 res[2];
	long long rest = pve_alg1(v, 2, -150 * MIBL, PVE_MAX_CHANGE, res);

	ASSERT_EQ(res[0], 1948 * MIB, "A shrinks by 100 MiB, its most a round");
	ASSERT_EQ(res[1], 0, "B, short of free memory, is left alone");
	ASSERT_EQ(rest, -50 * MIBL, "50 MiB of the goal left for the next round");
	/* free memory above a quarter of the minimum (160 of 512) is to spare */
	v[1] = pve(2048, 512, 4096, 160);
	pve_alg1(v, 2, -150 * MIBL, PVE_MAX_CHANGE, res);
	ASSERT_NEQ(res[1], 0, "B, with 160 MiB free, shrinks too");
	/* none to spare: all of them shrink */
	v[0].freemem = v[1].freemem = 10 * MIBL;
	pve_alg1(v, 2, -150 * MIBL, PVE_MAX_CHANGE, res);
	ASSERT_TRUE(res[0] && res[1], "both shrink when neither has memory to spare");
	/* a shrink grows no VM, however far below its share it is */
	v[0] = pve(2048, 512, 4096, 1500);
	v[1] = pve(600, 512, 4096, 1500);
	pve_alg1(v, 2, -100 * MIBL, PVE_MAX_CHANGE, res);
	ASSERT_EQ(res[0], 1948 * MIB, "A shrinks");
	ASSERT_EQ(res[1], 0, "B, below its share, does not grow");
	return NULL;
}

/* a growth goes to the VMs short of free memory first */
static const char *pve_grow_gives_to_pressured_vms_first(void)
{
	struct pve_vm v[2] = { pve(1024, 512, 2048, 10), pve(1024, 512, 2048, 900) };
	__u64 res[2];

	pve_alg1(v, 2, 150 * MIBL, PVE_MAX_CHANGE, res);
	ASSERT_EQ(res[0], 1124 * MIB, "the pressured VM grows by 100 MiB");
	ASSERT_EQ(res[1], 0, "the VM with free memory does not grow");
	/* none pressured: every VM shares the growth */
	v[0].freemem = 900 * MIBL;
	pve_alg1(v, 2, 150 * MIBL, PVE_MAX_CHANGE, res);
	ASSERT_EQ(res[0], 1024 * MIB + 75 * MIB, "A's share of the growth");
	ASSERT_EQ(res[1], 1024 * MIB + 75 * MIB, "B's share of the growth");
	/* below its minimum (set by hand), a VM counts as pressured whatever is free */
	v[0] = pve(400, 512, 2048, 900);
	pve_alg1(v, 2, 150 * MIBL, PVE_MAX_CHANGE, res);
	ASSERT_EQ(res[0], 500 * MIB, "the VM below its minimum grows first");
	ASSERT_EQ(res[1], 0, "the other waits");
	return NULL;
}

/*
 * The goal is shared by room above the minimum: growing the host's use by
 * 60 MiB, A (1024) gives and B (768) takes until both have the same room
 */
static const char *pve_shares_equalize_room_above_the_minimum(void)
{
	struct pve_vm v[2] = { pve(1024, 512, 2048, 10), pve(768, 512, 2048, 10) };
	__u64 res[2];

	pve_alg1(v, 2, 60 * MIBL, PVE_MAX_CHANGE, res);
	ASSERT_EQ(res[0], 926 * MIB, "A down to 512 + (768 + 60) / 2");
	ASSERT_EQ(res[1], 868 * MIB, "B up by 100 MiB, its most a round");
	return NULL;
}

/* never above maxmem, never below the minimum; VMs without one skipped */
static const char *pve_keeps_bounds_and_skips_vms_without_a_minimum(void)
{
	struct pve_vm v[3] = { pve(2000, 512, 2048, 10), pve(600, 512, 2048, 1000),
			       pve(1024, 0, 2048, 10) };
	__u64 res[3];

	pve_alg1(v, 3, 4 * 1024 * MIBL, PVE_MAX_CHANGE, res);
	ASSERT_EQ(res[0], 2048 * MIB, "A grows to its maxmem, no further");
	ASSERT_EQ(res[2], 0, "C has no minimum: not auto-ballooned");
	pve_alg1(v, 3, -4 * 1024 * MIBL, PVE_MAX_CHANGE, res);
	ASSERT_EQ(res[1], 512 * MIB, "B shrinks to its minimum, no further");
	ASSERT_EQ(res[2], 0, "C is still left alone");
	v[0].shares = 0;
	pve_alg1(v, 3, 4 * 1024 * MIBL, PVE_MAX_CHANGE, res);
	ASSERT_EQ(res[0], 0, "shares 0: left alone");
	return NULL;
}

static const char *hostmem_counts_buffers_and_cache_as_free(void)
{
	static const char text[] =
		"MemTotal:       24000000 kB\nMemFree:        10000000 kB\n"
		"MemAvailable:   20000000 kB\nBuffers:          500000 kB\n"
		"Cached:          3500000 kB\nSwapCached:            0 kB\n";
	struct host_mem h;

	ASSERT_OK(hostmem_parse_meminfo(text, &h), "parse");
	ASSERT_EQ(h.total, 24000000ULL << 10, "total");
	ASSERT_EQ(h.used, 10000000ULL << 10, "used: total - free - buffers - cached");
	ASSERT_ERR(hostmem_parse_meminfo("MemTotal: 1 kB\nMemFree: 1 kB\nBuffers: 1 kB\n", &h),
		   "no Cached");
	ASSERT_ERR(hostmem_parse_meminfo("MemTotal: x kB\nMemFree: 1 kB\nBuffers: 1 kB\n"
					 "Cached: 1 kB\n", &h), "MemTotal no number");
	ASSERT_ERR(hostmem_parse_meminfo("MemTotal: 5\nMemFree: 1 kB\nBuffers: 1 kB\n"
					 "Cached: 1 kB\n", &h), "MemTotal in no unit");
	/* a field whose name starts with another's is not that one */
	ASSERT_OK(hostmem_parse_meminfo("MemTotal: 100 kB\nMemFree: 10 kB\nBuffers: 10 kB\n"
					"CachedMore: 70 kB\nCached: 10 kB\n", &h), "parse");
	ASSERT_EQ(h.used, 70ULL << 10, "used, with Cached's 10 kB");
	return NULL;
}

static const char *hostmem_reads_a_cgroup_counter_and_refuses_junk(void)
{
	char path[] = "/tmp/wsr-hostmem-XXXXXX", err[160];
	__u64 v = 0;
	int fd = mkstemp(path);
	const char *bad[] = { "", "-5\n", "12 kB\n", "abc\n" };
	unsigned int i;

	ASSERT_GE(fd, 0, "mkstemp");
	ASSERT_EQ(write(fd, "123456789\n", 10), 10, "write");
	close(fd);
	ASSERT_OK(hostmem_read_bytes(path, &v, err, sizeof(err)), "read");
	ASSERT_EQ(v, 123456789, "the bytes");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = fopen(path, "w");

		fputs(bad[i], f);
		fclose(f);
		v = 7;
		ASSERT_ERR(hostmem_read_bytes(path, &v, err, sizeof(err)), "'%s' refused", bad[i]);
		ASSERT_EQ(v, 7, "'%s' changes nothing", bad[i]);
	}
	unlink(path);
	ASSERT_ERR(hostmem_read_bytes(path, &v, err, sizeof(err)), "a missing file");
	ASSERT_HAS_SUBSTR(err, path, "the error names the file");
	return NULL;
}

/* the policies as balance drives them */
struct vm {
	struct policy_knobs k;
	struct policy_state st;
	struct policy_input in;
	struct ws_stats stats;
	struct policy_decision d;
};

static void vm_init(struct vm *v, enum policy_kind kind, __u64 ram)
{
	memset(v, 0, sizeof(*v));
	policy_knobs_default(&v->k);
	v->k.kind = kind;
	v->in.ram = ram;
	v->in.actual = ram;
	v->stats = (struct ws_stats){ .available = -1, .free = -1, .swap_in = -1, .major_faults = -1 };
}

/* new stats at @now with @free_mib free, the host at @host_pct free; decide */
static void mom_step(struct vm *v, double now, __u64 free_mib, double host_pct)
{
	v->stats.free = (long long)(free_mib * MIB);
	v->in.now_ms = now;
	v->in.stats = &v->stats;
	v->in.stats_ms = now;
	v->in.new_report = 1;
	v->in.host_free_pct = host_pct;
	policy_decide(&v->k, &v->st, &v->in, &v->d);
	if (v->d.action == POLICY_SET)
		v->in.actual = v->in.target = v->d.target;
}

/* mom decides once per 10 s round, whatever the pace of the stats (2 s) */
static const char *mom_policy_decides_once_a_round(void)
{
	struct vm v;
	unsigned int sets = 0, i;

	vm_init(&v, POLICY_MOM, GIB);
	for (i = 0; i < 30; i++) {
		mom_step(&v, 100000 + i * 2000, 800, 0.10);
		sets += v.d.action == POLICY_SET;
	}
	/* 58 s: rounds at 0, 10, ..., 50 s: 6 shrinks of 5% */
	ASSERT_EQ(sets, 6, "one shrink a round");
	ASSERT_LT(v.in.actual, (__u64)(GIB * 0.95 * 0.95 * 0.95 * 0.95 * 0.95) + MIB,
		  "after 6 rounds");
	ASSERT_GT(v.in.actual, (__u64)(GIB * 0.95 * 0.95 * 0.95 * 0.95 * 0.95 * 0.95) - MIB,
		  "after 6 rounds");
	/* no host figure: nothing */
	mom_step(&v, 200000, 800, -1);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "no host figure");
	ASSERT_STREQ(v.d.reason, "no-host", "its reason");
	return NULL;
}

/*
 * mom samples the guest every 5 s (MOM's guest monitor), whatever the
 * pace of its stats: free memory that is low at each 5-s sample and
 * high between them leaves the guest as it is
 */
static const char *mom_policy_samples_the_guest_every_5_s(void)
{
	struct vm v;
	unsigned int i;

	vm_init(&v, POLICY_MOM, GIB);
	for (i = 0; i <= 10; i++)
		/* at 0, 5 and 10 s: 100 MiB free (a use of 924 MiB); else 800 */
		mom_step(&v, 100000 + i * 1000, i % 5 ? 800 : 100, 0.10);
	ASSERT_EQ(v.in.actual, GIB, "the guest's size after two rounds");
	ASSERT_EQ(v.d.action, POLICY_KEEP, "the round at 10 s");
	return NULL;
}

/* mom and proxmox keep the floor and go down to max= at once */
static const char *baseline_policies_keep_operator_bounds(void)
{
	struct vm v;

	vm_init(&v, POLICY_MOM, GIB);
	v.k.floor = 900 * MIB;
	mom_step(&v, 100000, 1000, 0.01);
	ASSERT_EQ(v.d.action, POLICY_SET, "a shrink");
	ASSERT_EQ(v.d.target, (__u64)(GIB * 0.95) & ~0xfffULL, "5%% below 1 GiB");
	mom_step(&v, 110000, 1000, 0.01);
	mom_step(&v, 120000, 1000, 0.01);
	mom_step(&v, 130000, 1000, 0.01);
	ASSERT_EQ(v.in.actual, 900 * MIB, "never below --floor-mib");
	mom_step(&v, 140000, 1000, 0.01);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "at the floor: no change, not one to the floor again");
	v.k.ceiling = 600 * MIB;
	v.k.floor = 256 * MIB;
	mom_step(&v, 150000, 1000, 0.5);
	ASSERT_STREQ(v.d.reason, "max", "above max=: down at once");
	ASSERT_EQ(v.d.target, 600 * MIB, "to max=");

	vm_init(&v, POLICY_PROXMOX, GIB);
	v.in.now_ms = 100000;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "no plan: no change");
	v.k.ceiling = 600 * MIB;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_STREQ(v.d.reason, "max", "above max=, no plan: down at once");
	ASSERT_EQ(v.d.target, 600 * MIB, "to max=");
	v.k.ceiling = 0;
	v.in.plan = 200 * MIB;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.target, 256 * MIB, "a plan below the floor goes to the floor");
	ASSERT_STREQ(v.d.reason, "pve-shrink", "its reason");
	v.in.actual = v.in.target = 256 * MIB;
	v.in.plan = 0;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.action, POLICY_KEEP, "no plan: no change");
	v.in.plan = 356 * MIB;
	policy_decide(&v.k, &v.st, &v.in, &v.d);
	ASSERT_EQ(v.d.target, 356 * MIB, "the plan");
	ASSERT_STREQ(v.d.reason, "pve-grow", "its reason");
	return NULL;
}

/* Proxmox's default ballooning-target */
static const char *baseline_knob_defaults(void)
{
	struct policy_knobs k;

	policy_knobs_default(&k);
	ASSERT_EQ(k.host_target_pct, 80, "--host-target-pct");
	return NULL;
}

static const struct unit_test tests[] = {
	{ "mom_shrinks_by_5pct_a_round_when_the_host_is_short",
	  mom_shrinks_by_5pct_a_round_when_the_host_is_short },
	{ "mom_shrink_keeps_use_plus_a_share_scaled_by_host_free",
	  mom_shrink_keeps_use_plus_a_share_scaled_by_host_free },
	{ "mom_critical_host_squeezes_below_what_the_guest_uses",
	  mom_critical_host_squeezes_below_what_the_guest_uses },
	{ "mom_shrink_stops_at_the_guaranteed_memory", mom_shrink_stops_at_the_guaranteed_memory },
	{ "mom_grows_by_5pct_when_the_host_has_room", mom_grows_by_5pct_when_the_host_has_room },
	{ "mom_small_change_is_not_made", mom_small_change_is_not_made },
	{ "mom_average_is_the_mean_of_the_last_ten", mom_average_is_the_mean_of_the_last_ten },
	{ "pve_changes_nothing_within_10_mib_of_the_goal",
	  pve_changes_nothing_within_10_mib_of_the_goal },
	{ "pve_shrink_takes_from_vms_with_free_memory_first",
	  pve_shrink_takes_from_vms_with_free_memory_first },
	{ "pve_grow_gives_to_pressured_vms_first", pve_grow_gives_to_pressured_vms_first },
	{ "pve_shares_equalize_room_above_the_minimum",
	  pve_shares_equalize_room_above_the_minimum },
	{ "pve_keeps_bounds_and_skips_vms_without_a_minimum",
	  pve_keeps_bounds_and_skips_vms_without_a_minimum },
	{ "hostmem_counts_buffers_and_cache_as_free", hostmem_counts_buffers_and_cache_as_free },
	{ "hostmem_reads_a_cgroup_counter_and_refuses_junk",
	  hostmem_reads_a_cgroup_counter_and_refuses_junk },
	{ "mom_policy_decides_once_a_round", mom_policy_decides_once_a_round },
	{ "mom_policy_samples_the_guest_every_5_s", mom_policy_samples_the_guest_every_5_s },
	{ "baseline_knob_defaults_are_mom_and_proxmox_own", baseline_knob_defaults },
	{ "baseline_policies_keep_operator_bounds", baseline_policies_keep_operator_bounds },
};

UNIT_MAIN(tests)
