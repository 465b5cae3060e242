/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rules of the two balloon managers hosts run today, ported so that
 * balance can run them beside working-set on the same guests:
 *
 * - oVirt MOM's auto-balloon policy, doc/balloon.rules (oVirt/mom at
 *   e0f3d3b, the rules as shipped since 0.5): when the host's free memory
 *   (MemFree + Buffers + Cached, averaged) is under 20% of its total,
 *   every guest shrinks by 5% of its size a round, not below what it uses
 *   (its size less MemFree, averaged) plus a free share that falls with
 *   the host's free memory; otherwise every ballooned guest grows by 5%.
 * - Proxmox VE's auto-ballooning, PVE/AutoBalloon.pm's compute_alg1()
 *   (pve-manager 8.x) as pvestatd's auto_balloning() calls it every 10 s:
 *   the host aims at --host-target-pct (pvenode's ballooning-target, 80)
 *   of its memory used; the difference is shared out among the VMs above
 *   their minimum by shares, at most 100 MiB per VM a round, nothing when
 *   it is within 10 MiB; a growth goes first to VMs short of free memory,
 *   a shrink first to VMs with plenty.
 *
 * Pure: the caller reads the host's and the guests' memory and passes them
 * in (host/hostmem.c reads the host's), so that
 * tests/unit/test_host_baselines.c can replay recorded sequences.  What
 * was ported and what was left out: docs/policies.md.
 */
#ifndef __WSR_HOST_BASELINES_H
#define __WSR_HOST_BASELINES_H

#include <linux/types.h>

/* MOM's sample-history-length: StatAvg() is the mean of the last 10 samples */
#define MOM_HISTORY 10
/* MOM's guest- and host-monitor-interval: a sample every 5 s */
#define MOM_SAMPLE_MS 5000.0
/* MOM's policy-engine-interval, and pvestatd's update loop: a round every 10 s */
#define BASELINE_ROUND_MS 10000.0

/* a moving mean of the last MOM_HISTORY samples (MOM's StatAvg) */
struct mom_avg {
	double v[MOM_HISTORY];
	unsigned int n, next;
};

void mom_avg_add(struct mom_avg *a, double v);
/* the mean of the samples; 0 with none */
double mom_avg_get(const struct mom_avg *a);

/* one guest as balloon.rules sees it, bytes */
struct mom_guest {
	__u64 balloon_cur;		/* the balloon's actual size now */
	double avg_cur;			/* StatAvg("balloon_cur") */
	double avg_unused;		/* StatAvg("mem_unused"): the guest's MemFree */
	__u64 balloon_min;		/* the guaranteed memory (--floor-mib, min=) */
	__u64 balloon_max;		/* the RAM, or max= below it */
};

/*
 * One round of balloon.rules for @g, with the host's free memory at
 * @host_free_pct (0..1) of its total: the new target, or 0 for none (no
 * change big enough, or a guest at its maximum with room to spare).
 * @why gets "mom-shrink" or "mom-grow".
 */
__u64 mom_rule(const struct mom_guest *g, double host_free_pct, const char **why);

/* one VM as compute_alg1() sees it, bytes */
struct pve_vm {
	__u64 balloon;		/* the balloon's actual size now; 0: no driver (skipped) */
	__u64 balloon_min;	/* the VM's minimum; 0: not auto-ballooned (skipped) */
	__u64 maxmem;		/* its RAM (max= below it) */
	long long freemem;	/* the guest's MemFree; < 0 unknown */
	unsigned int shares;	/* its weight (Proxmox's default 1000); 0 skips the VM */
};

/* the VMs compute_alg1() takes at most (balance has at most 64) */
#define PVE_MAX_VMS 256

/* pvestatd's per-VM limit a round, and compute_alg1()'s dead band */
#define PVE_MAX_CHANGE (100ULL << 20)
#define PVE_DEAD_BAND (10LL << 20)

/*
 * compute_alg1(): @goal is the change of host memory use wanted, bytes
 * (positive: the VMs may grow by that much).  @res[i] gets VM i's new
 * balloon target, or 0 for no change.  @n is at most PVE_MAX_VMS (the
 * rest are left alone).  Returns what of @goal is left.
 */
long long pve_alg1(const struct pve_vm *vms, unsigned int n, long long goal,
		   __u64 maxchange, __u64 *res);

/* pvestatd's goal: @target_pct of the host's @total used, less what is used */
long long pve_goal(__u64 total, __u64 used, unsigned int target_pct);

#endif /* __WSR_HOST_BASELINES_H */
