// SPDX-License-Identifier: GPL-2.0
/* MOM's and Proxmox's balloon rules: see baselines.h. */
#include <string.h>
#include "baselines.h"

/* balloon.rules' constants */
#define MOM_PRESSURE_THRESHOLD 0.20
#define MOM_PRESSURE_CRITICAL 0.05
#define MOM_MIN_GUEST_FREE 0.20
#define MOM_MAX_CHANGE 0.05
#define MOM_MIN_CHANGE 0.0025

void mom_avg_add(struct mom_avg *a, double v)
{
	a->v[a->next] = v;
	a->next = (a->next + 1) % MOM_HISTORY;
	if (a->n < MOM_HISTORY)
		a->n++;
}

double mom_avg_get(const struct mom_avg *a)
{
	double sum = 0;
	unsigned int i;

	for (i = 0; i < a->n; i++)
		sum += a->v[i];
	return a->n ? sum / a->n : 0;
}

/* change_big_enough: a move of more than 0.25% of the guest's size */
static int big_enough(const struct mom_guest *g, double v)
{
	double d = v - (double)g->balloon_cur;

	return (d < 0 ? -d : d) > MOM_MIN_CHANGE * (double)g->balloon_cur;
}

static __u64 bytes(double v)
{
	return v <= 0 ? 0 : (__u64)v & ~0xfffULL;
}

__u64 mom_rule(const struct mom_guest *g, double host_free_pct, const char **why)
{
	double cur = (double)g->balloon_cur, used = g->avg_cur - g->avg_unused;
	double free_pct, lo, size;

	if (host_free_pct < MOM_PRESSURE_THRESHOLD) {
		*why = "mom-shrink";
		/* critical: a negative free share makes the guest swap */
		if (host_free_pct <= MOM_PRESSURE_CRITICAL)
			free_pct = host_free_pct - 0.05;
		else
			free_pct = MOM_MIN_GUEST_FREE * (host_free_pct / MOM_PRESSURE_THRESHOLD);
		lo = used + free_pct * cur;
		if (lo < (double)g->balloon_min)
			lo = (double)g->balloon_min;
		size = cur * (1 - MOM_MAX_CHANGE);
		if (size < lo)
			size = lo;
		return size <= cur && big_enough(g, size) ? bytes(size) : 0;
	}
	*why = "mom-grow";
	/* only a ballooned guest grows */
	if (g->balloon_cur >= g->balloon_max)
		return 0;
	lo = used + MOM_MIN_GUEST_FREE * cur;
	if (lo < (double)g->balloon_min)
		lo = (double)g->balloon_min;
	size = cur * (1 + MOM_MAX_CHANGE);
	if (size < lo)
		size = lo;
	if (size > (double)g->balloon_max)
		size = (double)g->balloon_max;
	return big_enough(g, size) ? bytes(size) : 0;
}

long long pve_goal(__u64 total, __u64 used, unsigned int target_pct)
{
	return (long long)((double)total * target_pct / 100) - (long long)used;
}

static double shares(const struct pve_vm *v)
{
	return v->shares;
}

/*
 * compute_alg1()'s $change_func: share @bytes out among the VMs of @ids
 * (@nr of them) until it is spent, nothing moves or every VM is at its
 * bound; @res is the plan so far (0: untouched).  Returns what is left.
 */
static long long change(const struct pve_vm *vms, const unsigned int *ids, unsigned int nr,
			long long bytes, long long maxchange, __u64 *res)
{
	unsigned char done[PVE_MAX_VMS];
	long long rest = bytes, progress = 1;
	int repeat = 1;
	unsigned int i;

	memset(done, 0, sizeof(done));
	while (rest && repeat && progress) {
		double shares_total = 0, alloc_old = 0, alloc_new;
		long long changes = 0;

		repeat = 0;
		progress = 0;
		for (i = 0; i < nr; i++) {
			const struct pve_vm *d = &vms[ids[i]];
			__u64 b = res[ids[i]] ? res[ids[i]] : d->balloon;

			if (done[i])
				continue;
			alloc_old += (double)b - (double)d->balloon_min;
			shares_total += shares(d);
		}
		alloc_new = alloc_old + (double)rest;
		for (i = 0; i < nr; i++) {
			const struct pve_vm *d = &vms[ids[i]];
			long long desired, bal = (long long)d->balloon, nb, old, diff, ch;

			if (done[i])
				continue;
			/* Perl's int(): toward zero */
			desired = (long long)d->balloon_min +
				  (long long)(alloc_new / shares_total * shares(d));
			if (desired > (long long)d->maxmem) {
				desired = (long long)d->maxmem;
				repeat = 1;
			} else if (desired < (long long)d->balloon_min) {
				desired = (long long)d->balloon_min;
				repeat = 1;
			}
			if (bytes > 0 && desired > bal) {
				nb = bal + maxchange;
				nb = nb > desired ? desired : nb;
			} else if (desired < bal) {
				nb = bal - maxchange;
				nb = nb > desired ? nb : desired;
			} else {
				done[i] = 1;
				continue;
			}
			diff = nb - bal;
			if (!diff)
				continue;
			old = res[ids[i]] ? (long long)res[ids[i]] : bal;
			res[ids[i]] = (__u64)nb;
			ch = nb - old;
			if (ch) {
				changes += ch;
				progress += diff < 0 ? -diff : diff;
				repeat = 1;
			}
		}
		rest -= changes;
	}
	return rest;
}

long long pve_alg1(const struct pve_vm *vms, unsigned int n, long long goal,
		   __u64 maxchange, __u64 *res)
{
	unsigned int all[PVE_MAX_VMS], pressed[PVE_MAX_VMS], spare[PVE_MAX_VMS];
	unsigned int na = 0, np = 0, ns = 0, i;
	long long rest = goal, mc = (long long)maxchange;

	if (n > PVE_MAX_VMS)
		n = PVE_MAX_VMS;
	memset(res, 0, n * sizeof(*res));
	for (i = 0; i < n; i++) {
		const struct pve_vm *d = &vms[i];

		/* no driver, no minimum set, or shares 0: not auto-ballooned */
		if (!d->balloon || !d->balloon_min || d->shares == 0)
			continue;
		all[na++] = i;
		if (d->freemem > 0 && (double)d->freemem > (double)d->balloon_min * 0.25 &&
		    d->balloon >= d->balloon_min)
			spare[ns++] = i;
		else
			pressed[np++] = i;
	}
	if (goal > PVE_DEAD_BAND) {
		/* VMs short of free memory first; all of them if that moved nothing */
		rest = change(vms, pressed, np, goal, mc, res);
		if (rest >= goal)
			rest = change(vms, all, na, rest, mc, res);
	} else if (goal < -PVE_DEAD_BAND) {
		/* VMs with free memory to spare first */
		rest = change(vms, spare, ns, goal, mc, res);
		if (rest <= goal)
			rest = change(vms, all, na, rest, mc, res);
	}
	/* change() sets a target only where it differs from the balloon */
	return rest;
}
