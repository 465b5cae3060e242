/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What reclaim costs a guest, for wsr-host balance's policies: the
 * promotion rate (pages the guest brings back from swap or disk, per
 * minute, relative to its working set) that moves working-set's idle
 * threshold T, and the guest's memory stall (PSI "some", from the report
 * header) that holds an inflation back.  Pure, as policy.c: the caller
 * passes the time, tests/unit/test_host_policy.c replays sequences.
 */
#ifndef __WSR_HOST_COSTAWARE_H
#define __WSR_HOST_COSTAWARE_H

#include "policy.h"

/* a window of promotions is this long: the SLO is per minute */
#define COST_WINDOW_MS 60000.0
/* the working set the rate is relative to: memory idle for less than this */
#define COST_WS_MS 120000ULL
/* T comes down only after this many windows in a row below SLO / 4 */
#define COST_QUIET_WINDOWS 5
/* Senpai's interval (6 ticks of 5 s): stall is compared per this long */
#define COST_STALL_PER_MS 30000.0

/* T now (--idle-ms before the first window) */
__u64 cost_idle_ms(const struct policy_knobs *k, struct cost_state *c);

/*
 * Pages promoted since boot from @s (swap-ins + major faults): 0 and *pages,
 * or -1 when the guest sends neither (a kernel without
 * CONFIG_VM_EVENT_COUNTERS).
 */
int cost_promotions(const struct ws_stats *s, __u64 *pages);

/*
 * Stats read at @stats_ms, with @r the latest report: a window that has
 * run COST_WINDOW_MS gives the promotion rate and moves T (doubled above
 * the SLO, halved after COST_QUIET_WINDOWS windows below a quarter of it,
 * within [idle_min_ms, idle_max_ms]).  Stats seen before change nothing.
 */
void cost_take_stats(const struct policy_knobs *k, struct cost_state *c,
		     const struct ws_stats *s, double stats_ms, const struct ws_report *r);

/*
 * A new report that arrived at @report_ms: the stall since the report
 * before, per COST_STALL_PER_MS, into c->stall_us_per_30s (-1 without the
 * header's pressure, or a total that went backwards).
 */
void cost_take_report(struct cost_state *c, const struct ws_report *r, double report_ms);

/* the stall between the last two reports reached --pressure-us: no inflation */
int cost_stalled(const struct policy_knobs *k, const struct cost_state *c);

#endif /* __WSR_HOST_COSTAWARE_H */
