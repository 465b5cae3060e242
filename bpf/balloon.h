/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Decisions of the balloon programs that need no kernel types, included by
 * balloon.bpf.c and by the host unit tests, so that what the guest runs is
 * what is tested.
 */
#ifndef __WSR_BALLOON_H
#define __WSR_BALLOON_H

#include "wsr.h"
#include "pure.h"

/*
 * Whether a global reclaim pass at @now (boot ns) may lead to a report, from
 * the device's configuration cached in @b: reclaim passes come often, and
 * the config kfunc takes the driver's locks, so the driver is asked only
 * when a report is due by the cached report_ms, or when the cache is empty
 * or older than WSR_BALLOON_CONFIG_CACHE_MS (a new report_ms takes effect
 * within that time).
 */
static __always_inline int wsr_balloon_ask_driver(const struct wsr_balloon *b, __u64 now)
{
	__u64 report_ms = b->cache_report_ms, last = b->claim_ns;

	if (!b->cache_ns || now - b->cache_ns >= WSR_BALLOON_CONFIG_CACHE_MS * 1000000ULL)
		return 1;
	return report_ms && (!last || now - last >= report_ms * 1000000ULL);
}

#endif /* __WSR_BALLOON_H */
