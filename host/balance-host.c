// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host balance: the host's memory as mom and proxmox see it, sampled
 * when due, and proxmox's round that shares the host's goal out among the
 * VMs.
 */
#include <stdio.h>
#include <string.h>
#include "libwsr.h"
#include "balance-state.h"
#include "hostmem.h"

/*
 * The host's memory: /proc/meminfo, or --host-budget-mib with what is used
 * of it from --host-used-file, or else the sum of the guests' sizes.  0,
 * -1 on a failed read (said once), 1 when a guest's size is not known yet.
 */
static int host_read(struct balance *b, struct host_mem *h)
{
	char err[sizeof(b->host.err)] = "";
	unsigned int i;
	int e = 0;

	if (!b->cfg->host_budget) {
		e = hostmem_read_meminfo(h, err, sizeof(err));
	} else if (b->cfg->host_used_file) {
		h->total = b->cfg->host_budget;
		e = hostmem_read_bytes(b->cfg->host_used_file, &h->used, err, sizeof(err));
	} else {
		/*
		 * a VM that is down counts at its full size (it comes back
		 * so); none is known before every VM's size was read once
		 */
		h->total = b->cfg->host_budget;
		for (h->used = 0, i = 0; i < b->cfg->nr_vms; i++) {
			const struct vm *v = &b->vms[i];

			if (v->removed)
				continue;
			if (!v->ram)
				return 1;
			h->used += v->state == VM_UP && v->actual ? v->actual : full_size(v);
		}
	}
	if (e && strcmp(err, b->host.err))
		err_msg("balance: the host's memory: %s", err);
	snprintf(b->host.err, sizeof(b->host.err), "%s", err);
	return e ? -1 : 0;
}

/*
 * proxmox: pvestatd's round, every 10 s: the host's goal shared out among
 * the VMs that are up with a balloon, each VM's share its plan, decided
 * on at once
 */
static void host_round(struct balance *b, const struct host_mem *h)
{
	struct pve_vm pv[BALANCE_MAX_VMS];
	unsigned int at[BALANCE_MAX_VMS], n = 0, i;
	__u64 res[BALANCE_MAX_VMS];
	long long goal = pve_goal(h->total, h->used, (unsigned int)b->cfg->k.host_target_pct);

	for (i = 0; i < b->cfg->nr_vms; i++) {
		struct vm *v = &b->vms[i];

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
			b->vms[at[i]].plan = res[i];
			b->vms[at[i]].pending = 1;
		}
}

/* the host's sample (mom) and round (proxmox) when due; the next in *@next */
void host_step(struct balance *b, double *next)
{
	enum policy_kind kind = b->cfg->k.kind;
	double now = now_ms();
	struct host_mem h;
	int r;

	if ((kind != POLICY_MOM && kind != POLICY_PROXMOX) || b->exiting)
		return;
	if (now >= b->host.next_sample) {
		r = host_read(b, &h);
		/* a guest's size not known yet: again at the next tick */
		b->host.next_sample = now + (r > 0 ? (double)b->cfg->tick_ms :
					  kind == POLICY_MOM ? MOM_SAMPLE_MS : BASELINE_ROUND_MS);
		if (!r) {
			b->host.total = h.total;
			mom_avg_add(&b->host.free, h.total > h.used ? (double)(h.total - h.used) : 0);
			if (kind == POLICY_PROXMOX)
				host_round(b, &h);
		}
	}
	if (b->host.next_sample < *next)
		*next = b->host.next_sample;
}
