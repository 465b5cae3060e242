/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsr-host balance's policies: from a VM's latest working-set report,
 * balloon stats and balloon size, the next balloon target and why.  Pure:
 * no I/O and no clock of its own (the caller passes the time), so that
 * tests/unit/test_host_policy.c can drive it with recorded sequences.
 *
 * Sizes are bytes of guest memory as QMP's "balloon" and "query-balloon"
 * count them: the guest's RAM minus the balloon ("actual").  A larger
 * target deflates the balloon, a smaller one inflates it.
 */
#ifndef __WSR_HOST_POLICY_H
#define __WSR_HOST_POLICY_H

#include "wsr.h"

struct ws_bin {
	__u64 idle_le_ms;	/* pages idle for at most this long (the last bin: any) */
	__u64 anon, file;	/* bytes */
};

struct ws_node {
	__u32 id;
	__u32 nr_bins;
	struct ws_bin bins[WSR_MAX_BINS];
};

/* one WORKING_SET_EVENT (or guest-working-set) as the policy reads it */
struct ws_report {
	__u32 cause;		/* WSR_CAUSE_REQUEST or WSR_CAUSE_RECLAIM */
	__u64 data_age_ms;
	__u32 nr_nodes;
	struct ws_node nodes[WSR_MAX_NODES];
};

/* virtio-balloon stats (guest-stats), bytes; -1 when the guest gave none */
struct ws_stats {
	long long available;	/* stat-available-memory (MemAvailable) */
	long long free;		/* stat-free-memory (MemFree) */
};

enum policy_kind {
	POLICY_NONE,		/* never sets a target */
	POLICY_AVAILABLE,	/* stats only, as oVirt MOM */
	POLICY_WORKING_SET,	/* the working set */
};

/* the knobs; policy_knobs_default() documents the defaults (docs/policies.md too) */
struct policy_knobs {
	enum policy_kind kind;
	__u64 idle_ms;		/* T: memory idle for less is kept */
	__u64 headroom;		/* bytes kept on top of the working set */
	__u64 reclaim_margin;	/* bytes more on a reclaim report */
	__u64 hold_ms;		/* no inflation this long after a reclaim report */
	__u64 step;		/* at most this many bytes inflated per decision */
	__u64 floor;		/* never a target below (nor above the RAM) */
	__u64 ceiling;		/* never a target above (0: the RAM); --vm's max= */
	__u64 max_age_ms;	/* no inflation on a report or stats older */
	__u64 available_pct;	/* available: % of RAM kept available */
};

void policy_knobs_default(struct policy_knobs *k);
/* "none", "available", "working-set" -> 0 and *kind, or -1 */
int policy_kind_parse(const char *s, enum policy_kind *kind);
const char *policy_kind_name(enum policy_kind kind);

/* what the policy remembers of one VM between decisions */
struct policy_state {
	double hold_until_ms;	/* no inflation before */
	double last_reclaim_ms;	/* when the last reclaim report was seen */
};

/* what one decision sees */
struct policy_input {
	double now_ms;
	__u64 ram;			/* the VM's RAM, bytes */
	__u64 actual;			/* query-balloon's actual, bytes */
	__u64 target;			/* the last target set, 0 before the first */
	const struct ws_report *report;	/* NULL before the first */
	double report_ms;		/* when it arrived */
	/*
	 * new data since the last decision: a report (working-set) or stats
	 * (available); an inflation step needs new data
	 */
	int new_report;
	const struct ws_stats *stats;	/* NULL when polling gave none yet */
	double stats_ms;		/* when the stats were read */
};

enum policy_action {
	POLICY_KEEP,		/* no new target */
	POLICY_SET,		/* set target (QMP balloon) */
};

struct policy_decision {
	enum policy_action action;
	__u64 target;		/* the new target with POLICY_SET */
	__u64 want;		/* what the rule asked for before step, floor, RAM */
	__u64 hot;		/* working-set: bytes idle for less than T */
	__u64 other;		/* working-set: bytes the histogram does not count */
	char reason[32];	/* one word: deflate-reclaim, inflate-step, hold, max, ... */
};

/* a change smaller than this is no decision (QMP balloon is not free) */
#define POLICY_MIN_CHANGE (4ULL << 20)

/*
 * The next target of a VM.  Updates @st (the hold-off); @d says whether
 * to set a target, which, and why.
 */
void policy_decide(const struct policy_knobs *k, struct policy_state *st,
		   const struct policy_input *in, struct policy_decision *d);

/* working-set: bytes in bins idle for at most T (T rounded up to a bound) */
__u64 ws_report_hot(const struct ws_report *r, __u64 idle_ms);
/* all bytes the report counts */
__u64 ws_report_total(const struct ws_report *r);

#endif /* __WSR_HOST_POLICY_H */
