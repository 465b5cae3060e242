/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which reclaim passes make reports, as the seed's report_wss() decides.
 * Pure functions of the scan_control fields, included by the BPF programs
 * (kernel.bpf.h) and by the host unit tests, so that the rule the guest
 * runs is the one tested.
 */
#ifndef __WSR_RECLAIM_H
#define __WSR_RECLAIM_H

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
 * nothing was hard to find yet) nor on proactive reclaim (memory.reclaim:
 * nobody is short of memory).
 */
static __always_inline enum wsr_reclaim_report wsr_reclaim_reports(int priority, int proactive,
								   int has_target)
{
	if (priority == WSR_DEF_PRIORITY || proactive)
		return WSR_REPORT_NONE;
	return has_target ? WSR_REPORT_TARGET : WSR_REPORT_NODE;
}

#endif /* __WSR_RECLAIM_H */
