/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by kfunc_probe.bpf.c and its loader, kfunc_probe.c */
#ifndef __KFUNC_PROBE_H
#define __KFUNC_PROBE_H

/* the sched_switch program's tally, read by the loader */
struct kfunc_tally {
	__u64 calls;		/* switches seen */
	__u64 queued;		/* reports the driver took */
	__u64 busy;		/* -EBUSY from either kfunc */
	__u64 nodev;		/* -ENODEV */
	__u64 stale;		/* -ESTALE: a CONFIG came in between */
	__u64 other;		/* anything else: a failure */
	__s64 last_other;	/* the last such value */
};

#endif /* __KFUNC_PROBE_H */
