/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsr-host's working-set report: what qmp_report_parse() (qmp.c) reads
 * out of a reply to qom-get of guest-working-set or a WORKING_SET_EVENT,
 * and all that show, watch, balance's policies and its metrics read of
 * it.  A node's bins are libwsr's struct wsr_hist, the guest's own, so
 * that libwsr's printers print them; here they count bytes, as QMP does.
 */
#ifndef __WSR_HOST_REPORT_H
#define __WSR_HOST_REPORT_H

#include <stdio.h>
#include "wsr.h"

/* one node's bins */
struct ws_node {
	__u32 id;
	/*
	 * bound_ms[i]: bin i holds pages idle for at most this long (the
	 * last bin: any); anon[i] and file[i] are bytes; flags 0
	 */
	struct wsr_hist hist;
};

/*
 * The header fields a QEMU with the 32-byte wire header adds to a report
 * (qemu-patches/0003): "known" 0 when the report has none of them (an
 * older QEMU), and then the others are 0 and mean nothing.
 */
struct ws_report_ext {
	int known;
	int incomplete;		/* the guest's walk was cut short: bins are a lower bound */
	int anon_reclaimable;	/* 0: the guest cannot swap, its anon bins are 0 */
	__u32 reclaim_seq;	/* reclaim reports the guest's driver made (wraps at 2^32) */
	__u64 mem_some_us;	/* the guest's PSI memory "some" total, us since boot */
	__u64 mem_full_us;	/* and "full" */
};

/* one WORKING_SET_EVENT (or guest-working-set) */
struct ws_report {
	__u32 cause;		/* WSR_CAUSE_REQUEST or WSR_CAUSE_RECLAIM */
	__u64 data_age_ms;
	struct ws_report_ext ext;
	__u32 nr_nodes;
	struct ws_node nodes[WSR_MAX_NODES];
};

/* virtio-balloon stats (guest-stats); -1 when the guest gave none */
struct ws_stats {
	long long available;	/* stat-available-memory (MemAvailable), bytes */
	long long free;		/* stat-free-memory (MemFree), bytes */
	long long swap_in;	/* stat-swap-in: bytes swapped in since boot */
	long long major_faults;	/* stat-major-faults: since boot */
};

/*
 * @r as show prints it: "cause=<cause> data_age_ms=<ms>", then, with the
 * 32-byte header, "incomplete=<0|1> anon_reclaimable=<0|1>
 * reclaim_seq=<n> mem_some_us=<us> mem_full_us=<us>", then per node
 * "N<node>" and its bins in the seed's format, wsr_print_hist()'s: the
 * bytes in pages of WSR_PAGE_SIZE (wsr.h), as the guest counted them.
 */
void ws_report_print(FILE *f, const struct ws_report *r);

/* working-set: bytes in bins idle for at most T (T rounded up to a bound) */
__u64 ws_report_hot(const struct ws_report *r, __u64 idle_ms);
/*
 * What the guest cannot give up: ws_report_hot(), plus every anon byte
 * of the colder bins when the header says its anon is not reclaimable (no
 * swap: such a guest's anon is 0 in its bins, but a bin that counts some
 * is kept all the same)
 */
__u64 ws_report_kept(const struct ws_report *r, __u64 idle_ms);
/* all bytes the report counts */
__u64 ws_report_total(const struct ws_report *r);

#endif /* __WSR_HOST_REPORT_H */
