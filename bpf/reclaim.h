/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which reclaim passes make reports, as the seed's report_wss() decides.
 * Pure functions of the scan_control fields, included by the BPF programs
 * (kernel.bpf.h) and by the host unit tests, so that the rule the guest
 * runs is the one tested.
 */
#ifndef __WSR_RECLAIM_H
#define __WSR_RECLAIM_H

#include "wsr.h"
#include "pure.h"

#define WSR_DEF_PRIORITY	12	/* mm/internal.h: a reclaim's first pass */

/* what a reclaim pass on a node reports */
enum wsr_reclaim_report {
	WSR_REPORT_NONE,
	WSR_REPORT_NODE,	/* the node level (and the balloon device) */
	WSR_REPORT_TARGET,	/* the memcg the reclaim targets, only */
};

/*
 * A pass of global reclaim (kswapd, or direct reclaim: no target memcg)
 * reports the node level; a pass of reclaim that targets a memcg (its
 * limit) reports that memcg.  None on a reclaim's first pass (DEF_PRIORITY:
 * nothing was hard to find yet), on proactive reclaim (memory.reclaim:
 * nobody is short of memory), nor on a pass of node_reclaim()
 * (vm.zone_reclaim_mode: the node's own page cache reclaimed before
 * another node's memory is used), which the seed never reports from.
 */
static __always_inline enum wsr_reclaim_report wsr_reclaim_reports(int priority, int proactive,
								   int has_target,
								   int node_reclaim)
{
	if (priority == WSR_DEF_PRIORITY || proactive || node_reclaim)
		return WSR_REPORT_NONE;
	return has_target ? WSR_REPORT_TARGET : WSR_REPORT_NODE;
}

/*
 * The seed's DEFINE_RATELIMIT_STATE(rate, HZ, 3) in report_wss(): at most
 * WSR_REPORT_BURST reports in each window of WSR_REPORT_WINDOW_MS, a window
 * beginning at the first report after the last one ended, across every
 * memcg and node.  Balloon reports do not count: the seed's balloon has
 * its own report_ms.  The state is one word, so that BPF can update it
 * with a compare-and-swap: the window's start in ms above the low 8 bits,
 * the reports made in it below (0: none yet).
 */
#define WSR_REPORT_BURST	3
#define WSR_REPORT_WINDOW_MS	1000

/* the state after a report asked for at @now_ms; *@ok: may it be made? */
static __always_inline __u64 wsr_report_rate(__u64 state, __u64 now_ms, int *ok)
{
	__u64 begin = state >> 8, n = state & 0xff;

	if (!state || now_ms - begin >= WSR_REPORT_WINDOW_MS) {
		begin = now_ms;
		n = 0;
	}
	*ok = n < WSR_REPORT_BURST;
	return begin << 8 | (n + (*ok ? 1 : 0));
}

#endif /* __WSR_RECLAIM_H */
