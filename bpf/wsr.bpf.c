// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * wsr's estimator: working-set histograms from MGLRU generations.
 *
 * MGLRU sorts each lruvec's pages into up to four generations stamped with
 * their birth time.  From those we compute, per (memcg, node), how many
 * anon and file pages have been idle for how long, binned by the
 * configured intervals.  The histogram of a memcg covers it and all its
 * descendants; the root memcg's histogram on a node is the node's.
 *
 * This file holds the maps of the knobs and reports and the memcg removal
 * hook; each other concern has its header, and the programs in it:
 * - aging_hooks.bpf.h: fentry/fexit try_to_inc_max_seq keep the ages of
 *   merged generations (wsr_aging_begin, wsr_aging_end);
 * - reclaim_reports.bpf.h: fentry/shrink_node reports on reclaim, as the
 *   seed's report_wss(), and tells the watchers (wsr_reclaim);
 * - reaccess.bpf.h: fentry/reset_batch_size counts pages found accessed
 *   again by the age they had (wsr_reaccess);
 * - histogram_iter.bpf.h: iter/cgroup prints a subtree's live histogram,
 *   pinned as the file "histogram" (wsr_histogram);
 * - refresh_list.bpf.h: iter/cgroup lists the lruvecs a refresh ages
 *   (wsr_refresh_list);
 * and, shared with the balloon object (balloon.bpf.c): the shared maps
 * (maps.bpf.h), reading kernel state (kernel.bpf.h), binning one lruvec
 * (lruvec_hist.bpf.h) and walking a memcg subtree (subtree_walk.bpf.h).
 * The pure rules they apply are in binning.h, vgen.h, reclaim.h and
 * refresh.h, unit-tested on the host.
 *
 * This object calls no kfunc: it loads whether or not the virtio_balloon
 * driver is there.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "wsr.h"

/* GPL-compatible: the tracing helpers used here are GPL-only */
char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * The hash maps keyed by (memcg, node) are not preallocated: an entry's
 * memory is taken when the entry is made, so that a guest pays for the
 * keys it has, not for WSR_MAX_KEYS (docs/estimator.md, "What wsr costs
 * a guest").  WSR_MAX_KEYS stays the cap.
 */

/* the knobs of each (memcg, node): struct wsr_config */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, WSR_MAX_KEYS);
	__type(key, struct wsr_key);
	__type(value, struct wsr_config);
} config SEC(".maps");

/* the last report of each (memcg, node), made on reclaim or by a reader */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, WSR_MAX_KEYS);
	__type(key, struct wsr_key);
	__type(value, struct wsr_report);
} reports SEC(".maps");

/* the concerns, after the maps above that several of them use */
#include "aging_hooks.bpf.h"
#include "reclaim_reports.bpf.h"
#include "reaccess.bpf.h"
#include "histogram_iter.bpf.h"
#include "refresh_list.bpf.h"

/* a memcg going away: forget its knobs, reports, histograms and kept parts */
SEC("fentry/mem_cgroup_css_offline")
int BPF_PROG(wsr_offline, struct cgroup_subsys_state *css)
{
	struct wsr_key key = { .cgroup_id = BPF_CORE_READ(css, cgroup, kn, id) };
	__u32 n;

	for (n = 0; n < WSR_MAX_NODES && n < nr_nodes; n++) {
		key.node = n;
		bpf_map_delete_elem(&config, &key);
		bpf_map_delete_elem(&reports, &key);
		bpf_map_delete_elem(&live, &key);
		bpf_map_delete_elem(&reaccess, &key);
		bpf_map_delete_elem(&vgens, &key);
	}
	return 0;
}
