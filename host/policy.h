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
#include "report.h"
#include "senpai.h"
#include "baselines.h"

enum policy_kind {
	POLICY_NONE,		/* never sets a target */
	POLICY_AVAILABLE,	/* stats only, as oVirt MOM */
	POLICY_WORKING_SET,	/* the working set */
	POLICY_PRESSURE,	/* oomd's Senpai on the guest's stall (senpai.h) */
	POLICY_MOM,		/* oVirt MOM's balloon.rules (baselines.h) */
	POLICY_PROXMOX,		/* Proxmox VE's auto-ballooning (baselines.h) */
};

/* the knobs; policy_knobs_default() documents the defaults (docs/policies.md too) */
struct policy_knobs {
	enum policy_kind kind;
	__u64 idle_ms;		/* T: memory idle for less is kept */
	__u64 headroom;		/* bytes kept on top of the working set */
	__u64 reclaim_margin;	/* bytes more on a reclaim report */
	__u64 hold_ms;		/* no inflation this long after a reclaim report */
	__u64 steady_ms;	/* working-set: inflate once the working set held this long */
	__u64 step;		/* at most this many bytes inflated per decision */
	__u64 floor;		/* never a target below (nor above the RAM) */
	__u64 ceiling;		/* never a target above (0: the RAM); --vm's max= */
	__u64 max_age_ms;	/* no inflation on a report or stats older */
	__u64 available_pct;	/* available: % of RAM kept available */
	/* working-set's cost-aware T (costaware.h): T moves within these */
	__u64 idle_min_ms, idle_max_ms;
	__u64 slo_ppm;		/* promotions per minute, ppm of the working set */
	/* pressure, and working-set's hold on inflation: stall per 30 s aimed at */
	__u64 pressure_us;
	__u64 pressure_tick_ms;	/* pressure: Senpai's tick */
	__u64 host_target_pct;	/* proxmox: % of the host's memory it aims to use */
};

void policy_knobs_default(struct policy_knobs *k);
/* "none", "available", "working-set", "pressure", "mom", "proxmox" -> 0 and *kind, or -1 */
int policy_kind_parse(const char *s, enum policy_kind *kind);
const char *policy_kind_name(enum policy_kind kind);

/*
 * What reclaim costs one guest (costaware.c): the promotion rate that
 * moves working-set's T, and the stall that holds inflation back.
 */
struct cost_state {
	__u64 idle_ms;		/* T now; 0 before the first decision (then --idle-ms) */
	int win_valid;		/* a window of promotions is open */
	double win_ms;		/* when it opened (the stats' time) */
	__u64 win_pages;	/* promotions (pages) at its start */
	double last_stats_ms;	/* the stats last taken */
	unsigned int quiet;	/* windows in a row well below the SLO */
	double rate_ppm;	/* the last window's promotions/min, ppm of the working set; -1 none */
	int psi_valid;
	__u64 psi_us;		/* the stall total of the last report seen */
	double psi_ms;		/* its time (arrival less data age) */
	double stall_us_per_30s;	/* between the last two reports; -1 none */
};

/* what the policy remembers of one VM between decisions */
struct policy_state {
	double hold_until_ms;	/* no inflation before */
	double last_reclaim_ms;	/* when the last reclaim report was seen */
	double last_inflate_ms;	/* when the policy last set an inflation; 0 never */
	/* the balloon's actual size as last seen, and since when (or a target set) */
	__u64 last_actual;
	double moved_ms;
	struct cost_state cost;	/* working-set */
	/* working-set: the working set steady_ms is measured from, and since when */
	__u64 steady_hot;
	double steady_since_ms;
	/* pressure: Senpai's state, started at the first decision */
	struct senpai_state sp;
	int sp_started;
	double next_tick_ms;
	int sp_from_stats;	/* its stall total is the fallback from the stats */
	/* mom: the guest's samples (MOM's StatAvg), its next sample and round */
	struct mom_avg mom_cur, mom_unused;
	double mom_next_sample_ms, mom_next_round_ms;
	char mom_last[16];	/* the last round's outcome, kept between rounds */
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
	/*
	 * reclaim reports the policy has not decided on: received but
	 * replaced by a later report before a decision, or never received
	 * (the header's reclaim_seq jumped by more than one)
	 */
	unsigned int unseen_reclaims;
	/*
	 * the host-gated baselines: mom, the host's free memory as a share
	 * of its total (MOM's StatAvg("mem_free") / mem_available; < 0
	 * unknown); proxmox, the target this VM's share of the host's round
	 * gave it (0: none this round)
	 */
	double host_free_pct;
	__u64 plan;
	/* the VM's memory in the host's swap (its QEMU's), bytes; 0 unknown */
	__u64 host_swapped;
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
	__u64 swapped;		/* working-set: idle bytes kept for the host's swap */
	__u64 idle_ms;		/* working-set: T used */
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

#endif /* __WSR_HOST_POLICY_H */
