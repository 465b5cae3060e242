/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Types shared by wsr's BPF programs and its user space: map keys and
 * values, limits and report records.  Plain fixed-size types only, so that
 * clang -target bpf and gcc lay them out the same way, and so that
 * "bpftool map dump" prints their fields by name.
 */
#ifndef __WSR_H
#define __WSR_H

/* BPF programs get the same types from vmlinux.h */
#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
/*
 * The balloon wire's values (VIRTIO_BALLOON_WS_*), defined by the kernel
 * series' uapi header alone: the Makefile takes them from it, without its
 * types (vmlinux.h has those), into $(BUILD)/uapi (vmtests/uapi-header.sh).
 */
#include "virtio_balloon_ws.h"

/*
 * A histogram has 3..15 intervals plus a catch-all bin (4..16 bins): the
 * bins a balloon report carries, so that every histogram can be sent.
 */
#define WSR_MIN_INTERVALS	(VIRTIO_BALLOON_WS_MIN_NUM_BINS - 1)
#define WSR_MAX_BINS		VIRTIO_BALLOON_WS_MAX_NUM_BINS
#define WSR_MAX_INTERVALS	(WSR_MAX_BINS - 1)
/*
 * The catch-all bin's bound, printed as in the seed's interface
 * (9223372036854775807), the last bin's age on the wire
 */
#define WSR_BIN_INF		VIRTIO_BALLOON_WS_LAST_BIN_AGE
/*
 * The largest ms value a knob or an interval takes.  The BPF programs and
 * user space compare times in ns as ms * 1000000ULL, which wraps above
 * about 1.8e13 ms; 10^12 ms (about 31 years) keeps ms * 10^6 within 64 bits.
 * What goes to the balloon device is bounded by VIRTIO_BALLOON_WS_MAX_MS
 * (a week): QEMU and the driver refuse more.
 */
#define WSR_MAX_MS		1000000000000ULL
/*
 * Balloon reports carry bytes: the virtio format (and QEMU's QMP report)
 * has no page size.  The BPF programs, built for x86 alone, make the bytes
 * from MGLRU's page counts with x86's 4 KiB pages; the guest CLI and
 * wsr-host print them back as the seed's page counts with this same
 * constant, defined here alone.  Everything else on the host (balance's
 * policy, its metrics) stays in bytes.
 */
#define WSR_PAGE_SHIFT		12
#define WSR_PAGE_SIZE		(1ULL << WSR_PAGE_SHIFT)

#define WSR_MAX_NODES		16	/* NUMA nodes a histogram covers */
#define WSR_MAX_KEYS		16384	/* memcg x node pairs configured */
#define WSR_MAX_WATCHERS	8	/* concurrent "wsr watch" readers: one ring each */
#define WSR_ROOT_CGROUP		1	/* cgroup id of the root: node level */
/*
 * A report walks its memcg subtree in BPF, one step per memcg visited or
 * per level climbed back: enough for about 500,000 memcgs.  A walk that
 * runs out of steps makes an incomplete report (WSR_REPORT_INCOMPLETE).
 */
#define WSR_MAX_WALK_STEPS	(1U << 20)
/* reaccess counts go to this many ancestors of a memcg at most */
#define WSR_MAX_ANCESTORS	64
/* the daemon's own aging runs at most this often (wsr daemon, docs/estimator.md) */
#define WSR_BACKGROUND_MIN_MS	500
/*
 * lruvecs whose merged generations wsr keeps apart (bpf/vgen.h): 16,384
 * memcgs on 2 nodes.  The map's table of buckets, 16 bytes an entry, is
 * taken when it is made, whatever the guest has.
 */
#define WSR_MAX_VGENS		32768

/* One histogram per (memcg, node); memcg is the cgroup v2 inode number. */
struct wsr_key {
	__u64 cgroup_id;
	__u32 node;
	__u32 pad;
};

/*
 * Configuration of one (memcg, node).  nr_intervals == 0 means no bins
 * are set: the histogram is a single catch-all bin.  report_ms == 0
 * disables reports on reclaim.  A read older than refresh_ms since the last
 * report ages the lruvecs that have fewer than MGLRU's four generations,
 * whose youngest generation is older than refresh_ms and whose memcg is not
 * below memory.min (the seed's refresh_wss()); refresh_ms == 0 means reads
 * never age, they only collect again.
 */
struct wsr_config {
	__u64 intervals_ms[WSR_MAX_INTERVALS];
	__u32 nr_intervals;
	__u32 reaccess_nr_intervals;
	__u64 reaccess_intervals_ms[WSR_MAX_INTERVALS];
	__u64 report_ms;
	__u64 refresh_ms;
};

/*
 * A histogram: bins[i] holds pages whose idle age is above bound_ms[i - 1]
 * (0 for the first) and at most bound_ms[i], as the seed's bins.
 */
struct wsr_hist {
	__u64 bound_ms[WSR_MAX_BINS];
	__u64 anon[WSR_MAX_BINS];
	__u64 file[WSR_MAX_BINS];
	__u32 nr_bins;
	__u32 flags;		/* WSR_HIST_* */
};

/*
 * What a histogram's lruvecs could swap.  MGLRU moves no anon page between
 * generations where it cannot swap (get_swappiness() is 0: no swap, a full
 * one, vm.swappiness 0, memory.swap.max): the ages of that anon mean
 * nothing and it cannot be reclaimed, so, as the seed, it is not binned.
 * Its anon is "reclaimable" unless every lruvec summed had no swap.
 */
#define WSR_MIN_LRU_BATCH	64	/* mm/vmscan.c: BITS_PER_LONG */
#define WSR_HIST_SWAP		1	/* a lruvec summed could swap */
#define WSR_HIST_NOSWAP		2	/* a lruvec summed could not: its anon left out */

static inline int wsr_hist_anon_reclaimable(__u32 flags)
{
	return !(flags & WSR_HIST_NOSWAP) || (flags & WSR_HIST_SWAP);
}

/*
 * Why a report was made: the balloon's two causes are the wire's, so that
 * a cause goes to the driver as it is; their names are QMP's
 * (wsr_cause_name(), wsr_cause_by_name()).
 */
enum wsr_report_cause {
	WSR_CAUSE_NONE = 0,	/* no report yet */
	/* the balloon device asked */
	WSR_CAUSE_REQUEST = VIRTIO_BALLOON_WS_CAUSE_REQUEST,
	/* aging during kswapd or direct reclaim */
	WSR_CAUSE_RECLAIM = VIRTIO_BALLOON_WS_CAUSE_RECLAIM,
	WSR_CAUSE_READ,		/* a reader asked (on-demand) */
	WSR_NR_CAUSES,
};

/* a report's flags */
#define WSR_REPORT_INCOMPLETE	1	/* its subtree walk ran out of steps */

/*
 * The last report of a (memcg, node).  In the "reports" map, made on
 * reclaim only: its time_ns is the report clock of report_ms, which reads
 * never move.  In "live", the last collection made for a reader.
 */
struct wsr_report {
	__u64 seq;		/* reports made so far for this key */
	__u64 time_ns;		/* bpf_ktime_get_boot_ns() when its histogram was stored */
	__u64 claim_ns;		/* when its walk began: report_ms counts from it */
	__u32 cause;		/* enum wsr_report_cause */
	__u32 flags;		/* WSR_REPORT_* */
	struct wsr_hist hist;
};

/* What a watcher's ring buffer receives for each report */
struct wsr_event {
	struct wsr_key key;
	__u64 seq;
	__u64 time_ns;
	__u32 cause;
	__u32 pad;
};

/*
 * What a refresh ages (map "refresh_args", keyed by the reader's tgid):
 * the iterator wsr_refresh_list prints the lru_gen command for each
 * lruvec of the subtree that bpf/refresh.h finds due under these.
 */
struct wsr_refresh_args {
	__u64 refresh_ms[WSR_MAX_NODES];	/* per node; see "merge" for 0 */
	__u64 nodes;		/* bit n: age lruvecs on node n */
	__u64 swap_free;	/* free swap pages on the machine */
	__u64 start_j;		/* jiffies when the refresh began: set by BPF */
	__u32 swappiness;	/* vm.swappiness */
	__u32 merge;		/* enum wsr_refresh_mode */
};

/* which lruvecs a refresh ages (bpf/refresh.h) */
enum wsr_refresh_mode {
	WSR_REFRESH_SEED,	/* a read or a balloon answer: as the seed's refresh_wss() */
	WSR_REFRESH_BALLOON,	/* the daemon for the device: refresh_ms old (0: all), with pages */
	WSR_REFRESH_BACKGROUND,	/* the daemon: refresh_ms old, refresh_ms not 0, not below memory.min */
};

/*
 * Pinned map "stats": limits reached, ever.  The daemon logs the first
 * time each one moves; the reports they affect carry WSR_REPORT_INCOMPLETE.
 */
struct wsr_stats {
	__u64 walks_truncated;		/* subtree walks that ran out of steps */
	__u64 ancestors_truncated;	/* reaccess counts past WSR_MAX_ANCESTORS */
	__u64 maps_full;		/* a map entry not made: map full, or no memory */
	__u64 walk_steps;		/* the walk limit loaded (wsr daemon --max-walk-steps) */
};

/*
 * Reports for the virtio-balloon device (kernel-patches/).  The driver's
 * kfuncs take these two layouts, which mirror its struct
 * virtio_balloon_ws_bpf_config and struct virtio_balloon_ws_bpf_node: it
 * checks their sizes, tests/unit/test_kfunc_layout.c every field against
 * the patched kernel's BTF.
 */
struct wsr_balloon_config {
	__u64 refresh_ms;	/* how old a requested report's data may be */
	__u64 report_ms;	/* least time between reclaim reports; 0: none */
	__u64 intervals_ms[WSR_MAX_INTERVALS];
	__u32 num_bins;
	__u32 reserved;
	__u64 configs;		/* configurations the device sent so far */
	__u64 requests;		/* requests it sent so far */
	__u64 answered;		/* requests answered so far */
};

struct wsr_balloon_node {
	__u32 node_id;
	__u32 reserved;
	__u64 anon_bytes[WSR_MAX_BINS];
	__u64 file_bytes[WSR_MAX_BINS];
};

/* a report's header as the report kfunc takes it (the driver numbers reclaim reports) */
struct wsr_balloon_report {
	__u64 configs;		/* the configs count of the bins used */
	__u64 data_age_ms;
	__u64 mem_some_us;	/* memory pressure: PSI totals since boot */
	__u64 mem_full_us;
	__u32 cause;		/* VIRTIO_BALLOON_WS_CAUSE_* */
	__u32 flags;		/* VIRTIO_BALLOON_WS_F_* */
};

/* Pinned map "balloon": what wsr last handed to the balloon driver */
struct wsr_balloon {
	__u64 claim_ns;		/* when the last reclaim report was claimed */
	__u64 sent;		/* reports the driver queued */
	__u64 refused;		/* reports it refused */
	__u64 hook_answers;	/* requests answered by the request hook */
	__u64 reclaim_passes;	/* global reclaim passes seen (shrink_node) */
	__u64 config_reads;	/* config kfunc calls they made (see the cache) */
	__u64 time_ns;		/* bpf_ktime_get_boot_ns() of the last report */
	__u64 data_age_ms;	/* how old its data was */
	__s32 err;		/* the driver's answer to it: 0 or -errno */
	__u32 cause;		/* enum wsr_report_cause */
	__u32 nr_nodes;
	__u32 flags;		/* WSR_REPORT_* */
	struct wsr_balloon_report header;	/* the header it handed over */
	/* the device's report_ms as last read, and when (boot ns) */
	__u64 cache_report_ms;
	__u64 cache_ns;
	struct wsr_balloon_config config;	/* the configuration it used */
	struct wsr_balloon_node nodes[WSR_MAX_NODES];
};

/* Reclaim reads the device's configuration at most this often */
#define WSR_BALLOON_CONFIG_CACHE_MS	1000
/*
 * A request is the daemon's to answer for this long after it arrives, and
 * for WSR_BALLOON_CLAIM_MS after the daemon claims it; then the request
 * hook answers it (the driver fires the hook again every 500 ms).
 */
#define WSR_BALLOON_DAEMON_MS		500
#define WSR_BALLOON_CLAIM_MS		2000
/* Requests answered per run of the request hook or iterator, at most */
#define WSR_BALLOON_ANSWER_STEPS	8

/* Pinned map "balloon_claim": the daemon's claim on the device's requests */
struct wsr_balloon_claim {
	__u64 request;		/* requests it has claimed: "requests" when read */
	__u64 until_ns;		/* boot ns when the claim runs out */
	__u32 daemon_pid;	/* the daemon serving requests; 0: none */
	__u32 pad;
};

#endif /* __WSR_H */
