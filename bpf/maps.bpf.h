/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * What the estimator object (wsr.bpf.c) and the balloon object
 * (balloon.bpf.c) share: the settings the loader writes before load, and
 * the maps both use.  Each object declares these maps; the estimator
 * creates and pins them, the balloon object reuses the pins (loader/
 * balloon-attach.c), so their definitions must stay alike in both.
 */
#ifndef __WSR_MAPS_BPF_H
#define __WSR_MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "wsr.h"
#include "binning.h"
#include "vgen.h"

extern unsigned int CONFIG_HZ __kconfig;

/* set by the loader before load: node_possible count of the kernel */
const volatile __u32 nr_nodes = 1;
/* set by the loader before load: steps of a subtree walk (see wsr.h) */
const volatile __u32 walk_steps = WSR_MAX_WALK_STEPS;

/* limits reached: one entry, see struct wsr_stats */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wsr_stats);
} stats SEC(".maps");

/*
 * Tasks inside node_reclaim() (vm.zone_reclaim_mode), 1 from its begin
 * tracepoint to its end one (reclaim_reports.bpf.h): their reclaim passes
 * make no report, as in the seed, whose reports come from kswapd and
 * shrink_zones() only.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} node_reclaiming SEC(".maps");

/* a memcg subtree walk in pre-order, as css_next_descendant_pre() */
struct memcg_walk {
	__u64 root;		/* struct cgroup_subsys_state * of the subtree */
	__u64 pos;		/* the css the walk is at */
	__u32 arrived;		/* pos is still to be visited */
	__u32 done;
	__u32 node_lo, node_hi;	/* the nodes whose lruvecs are added */
};

/*
 * Scratch space too large for the 512-byte BPF stack.  The balloon's
 * fields are here for both objects: a map reused through its pin must have
 * the value size it was made with.
 */
struct scratch {
	struct wsr_gens gens;
	struct wsr_vgen v;	/* v.parts: the parts of gens' oldest generations */
	long nr_pages[WSR_NR_GENS * 2 * 8];	/* [gen][type][zone], flat */
	struct wsr_report report;
	struct memcg_walk walk;
	struct wsr_hist nhist[WSR_MAX_NODES];	/* a walk's histogram per node */
	struct wsr_hist delta;
	struct wsr_bounds bounds;
	struct wsr_span span;
	struct wsr_balloon_config bcfg;	/* the balloon device's configuration */
	struct wsr_config bbins;	/* its bins, as our histograms take them */
	/*
	 * the knobs a walk or a report bins with, copied from the config
	 * map once at its start: an update of another key may reuse the
	 * map's element meanwhile (a preallocated hash hands the replaced
	 * element to the next update), and a walk is long
	 */
	struct wsr_config cfg;
	struct wsr_balloon_node bnodes[WSR_MAX_NODES];
	struct wsr_balloon_report breport;	/* its header: balloon_build() sets the flags */
	__u64 data_age_j;	/* of the lruvecs added so far: see add_lruvec() */
};

/* the readers', the walks' and the reclaim reports' scratch */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch_map SEC(".maps");

/*
 * The kept parts of each lruvec's oldest generations (vgen.h), per lruvec
 * from its first aging with four generations to its memcg's removal.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, WSR_MAX_VGENS);
	__type(key, struct wsr_key);
	__type(value, struct wsr_vgen);
} vgens SEC(".maps");

/* the one entry of a per-CPU scratch map */
static __always_inline struct scratch *scratch_in(void *map)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(map, &zero);
}

static __always_inline struct scratch *get_scratch(void)
{
	return scratch_in(&scratch_map);
}

/* count a limit reached (see struct wsr_stats) */
#define STAT_INC(field)							\
	do {								\
		__u32 __zero = 0;					\
		struct wsr_stats *__st = bpf_map_lookup_elem(&stats, &__zero); \
									\
		if (__st)						\
			__sync_fetch_and_add(&__st->field, 1);		\
	} while (0)

#endif /* __WSR_MAPS_BPF_H */
