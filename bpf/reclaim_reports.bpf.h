/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Reports on reclaim (the seed's report_wss()): a pass of global reclaim
 * reports its node level, a pass of reclaim that targets a memcg reports
 * that memcg, at most once per report_ms and at most 3 a second in all (the
 * seed's global limit), none from node_reclaim(), each walking its whole
 * subtree;
 * every report is told to the watchers' rings (wsr watch).
 *
 * Part of the estimator (wsr.bpf.c, whose config and reports maps it
 * uses).
 */
#ifndef __WSR_RECLAIM_REPORTS_BPF_H
#define __WSR_RECLAIM_REPORTS_BPF_H

#include "subtree_walk.bpf.h"

/* watcher slot -> pid of the "wsr watch" that owns the slot's ring */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WSR_MAX_WATCHERS);
	__type(key, __u32);
	__type(value, __u32);
} watchers SEC(".maps");

/*
 * A ring's pages are taken when it is made, whether a watcher uses it or
 * not: 16 KiB holds 341 events (struct wsr_event and its 8-byte header),
 * the reports of two minutes at most (3 a second in all, reclaim.h)
 */
#define WATCH_RING(n)						\
	struct {						\
		__uint(type, BPF_MAP_TYPE_RINGBUF);		\
		__uint(max_entries, 16 * 1024);			\
	} watch##n SEC(".maps")
WATCH_RING(0);
WATCH_RING(1);
WATCH_RING(2);
WATCH_RING(3);
WATCH_RING(4);
WATCH_RING(5);
WATCH_RING(6);
WATCH_RING(7);

static const struct wsr_report zero_report;

static __always_inline void notify_watchers(const struct wsr_key *key,
					    const struct wsr_report *rep)
{
	struct wsr_event ev = {
		.key = *key, .seq = rep->seq, .time_ns = rep->time_ns, .cause = rep->cause,
	};

/* unrolled: each slot is its own ring map */
#define NOTIFY(n)							\
	do {								\
		__u32 slot = n;						\
									\
		if (bpf_map_lookup_elem(&watchers, &slot))		\
			bpf_ringbuf_output(&watch##n, &ev, sizeof(ev), 0); \
	} while (0)
	NOTIFY(0);
	NOTIFY(1);
	NOTIFY(2);
	NOTIFY(3);
	NOTIFY(4);
	NOTIFY(5);
	NOTIFY(6);
	NOTIFY(7);
#undef NOTIFY
}

/* the seed's global limit on reports (reclaim.h); this load's, from 0 */
__u64 report_rate;

/* may a report be made at @now_ns under the global limit?  Counts it if so */
static __always_inline int report_rate_ok(__u64 now_ns)
{
	__u64 old, next;
	int ok, i;

	/* a few tries: other CPUs may be asking at once */
	for (i = 0; i < 4; i++) {
		old = report_rate;
		next = wsr_report_rate(old, now_ns / 1000000, &ok);
		if (!ok)
			return 0;
		if (__sync_val_compare_and_swap(&report_rate, old, next) == old)
			return 1;
	}
	return 0;
}

/*
 * Claim the right to report (@root, @node) now: at most one report per
 * report_ms on the report's own clock, even when several CPUs reclaim at
 * once.
 */
static __always_inline struct wsr_report *claim_report(struct wsr_key *key,
						       const struct wsr_config *cfg,
						       __u64 now)
{
	struct wsr_report *rep;
	__u64 last;

	rep = bpf_map_lookup_elem(&reports, key);
	if (!rep) {
		bpf_map_update_elem(&reports, key, &zero_report, BPF_NOEXIST);
		rep = bpf_map_lookup_elem(&reports, key);
		if (!rep) {
			STAT_INC(maps_full);
			return NULL;
		}
	}
	/*
	 * Claims are made on their own clock: time_ns is written once the
	 * histogram is, so that a reader never sees a new time on old bins.
	 * Both must be report_ms old, so that reports' times are too.
	 */
	if (rep->time_ns && now - rep->time_ns < cfg->report_ms * 1000000ULL)
		return NULL;
	last = rep->claim_ns;
	if (last && now - last < cfg->report_ms * 1000000ULL)
		return NULL;
	if (!report_rate_ok(now))
		return NULL;
	if (__sync_val_compare_and_swap(&rep->claim_ns, last, now) != last)
		return NULL;
	return rep;
}

/* a report of the subtree of @css on @node, if its report_ms has passed */
static __noinline int report_subtree(struct cgroup_subsys_state *css, __u32 node)
{
	struct wsr_key key = { .cgroup_id = css_cgroup_id(css), .node = node };
	struct wsr_config *cfg = bpf_map_lookup_elem(&config, &key);
	struct scratch *s = get_scratch();
	struct wsr_report *rep;
	__u32 flags;

	if (!cfg || !s || node >= WSR_MAX_NODES)
		return 0;
	/* one read of the knobs for the whole report (struct scratch says why) */
	s->cfg = *cfg;
	cfg = &s->cfg;
	/* as the seed: no report without intervals, whatever report_ms says */
	if (!cfg->report_ms || !cfg->nr_intervals)
		return 0;
	rep = claim_report(&key, cfg, bpf_ktime_get_boot_ns());
	if (!rep)
		return 0;
	flags = walk_subtree(css, node, node + 1, cfg, s);
	rep->hist = s->nhist[node & (WSR_MAX_NODES - 1)];
	rep->cause = WSR_CAUSE_RECLAIM;
	rep->flags = flags;
	rep->time_ns = bpf_ktime_get_boot_ns();
	__sync_fetch_and_add(&rep->seq, 1);
	notify_watchers(&key, rep);
	return 0;
}

SEC("fentry/shrink_node")
int BPF_PROG(wsr_reclaim, struct pglist_data *pgdat, struct scan_control *sc)
{
	struct mem_cgroup *target = BPF_CORE_READ(sc, target_mem_cgroup);
	__u32 node = BPF_CORE_READ(pgdat, node_id);

	if (node >= WSR_MAX_NODES)
		return 0;
	switch (pass_reports(sc)) {
	case WSR_REPORT_NODE:
		report_subtree(root_memcg_css(), node);
		break;
	case WSR_REPORT_TARGET:
		report_subtree(&target->css, node);
		break;
	default:
		break;
	}
	return 0;
}

/* node_reclaim() begins and ends in the task that allocates: see node_reclaiming */
SEC("tp_btf/mm_vmscan_node_reclaim_begin")
int BPF_PROG(wsr_node_reclaim_begin, int nid, int order, gfp_t gfp_flags)
{
	__u32 *in = bpf_task_storage_get(&node_reclaiming, bpf_get_current_task_btf(), 0,
					 BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (in)
		*in = 1;
	return 0;
}

SEC("tp_btf/mm_vmscan_node_reclaim_end")
int BPF_PROG(wsr_node_reclaim_end, unsigned long nr_reclaimed)
{
	__u32 *in = bpf_task_storage_get(&node_reclaiming, bpf_get_current_task_btf(), 0, 0);

	if (in)
		*in = 0;
	return 0;
}

#endif /* __WSR_RECLAIM_REPORTS_BPF_H */
