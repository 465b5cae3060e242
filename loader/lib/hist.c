// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libwsr: histogram reads and the knobs, from the pinned maps (libwsr.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "libwsr.h"

__u64 wsr_now_ns(void)
{
	struct timespec ts;

	/* the clock of bpf_ktime_get_boot_ns(), which reports are stamped with */
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Our hash maps keyed by (memcg, node) are not preallocated
 * (bpf/wsr.bpf.c).  Such a map takes a new element from a per-CPU cache
 * that the kernel refills by irq_work once an update found it low; on 6.1
 * (bpf_mem_alloc) the cache starts with one element, and an update that
 * finds it empty fails with ENOMEM, however much memory is free: the
 * second key "wsr set" made on Debian's 6.1 did.  The refill was raised
 * by that failure, so the update is tried again, for a bounded time
 * (docs/estimator.md, "What wsr costs a guest"); a machine truly out of
 * memory still gets ENOMEM, later.
 */
#define ENOMEM_TRIES	200
#define ENOMEM_WAIT_US	1000

static int map_update(int fd, const void *key, const void *value, __u64 flags)
{
	int i;

	for (i = 0;; i++) {
		if (!bpf_map_update_elem(fd, key, value, flags))
			return 0;
		if (errno != ENOMEM || i == ENOMEM_TRIES)
			return -errno;
		usleep(ENOMEM_WAIT_US);
	}
}

void wsr_get_config(const struct wsr_pins *p, __u64 id, __u32 node, struct wsr_config *cfg)
{
	struct wsr_key key = { .cgroup_id = id, .node = node };

	if (bpf_map_lookup_elem(p->config, &key, cfg))
		memset(cfg, 0, sizeof(*cfg));
}

bool wsr_same_bins(const struct wsr_hist *h, const struct wsr_config *cfg)
{
	__u32 i;

	if (h->nr_bins != cfg->nr_intervals + 1)
		return false;
	for (i = 0; i < cfg->nr_intervals && i < WSR_MAX_INTERVALS; i++)
		if (h->bound_ms[i] != cfg->intervals_ms[i])
			return false;
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

int wsr_configured_ids(const struct wsr_pins *p, __u64 **ids, size_t *nr, struct wsr_err *err)
{
	struct wsr_key key, next;
	void *prev = NULL;
	size_t n = 0, i, u = 0;
	__u64 *out;

	/* no more keys than the map holds: a bound on the loop too */
	out = calloc(WSR_MAX_KEYS, sizeof(*out));
	if (!out) {
		snprintf(err->msg, sizeof(err->msg), "out of memory for %u memcg ids",
			 WSR_MAX_KEYS);
		return -ENOMEM;
	}
	while (n < WSR_MAX_KEYS && !bpf_map_get_next_key(p->config, prev, &next)) {
		out[n++] = next.cgroup_id;
		key = next;
		prev = &key;
	}
	/* a memcg has a key per node: each id once */
	qsort(out, n, sizeof(*out), cmp_u64);
	for (i = 0; i < n; i++)
		if (!u || out[u - 1] != out[i])
			out[u++] = out[i];
	*ids = out;
	*nr = u;
	return 0;
}

__u64 wsr_reclaim_reports(const struct wsr_pins *p, __u64 id, __u32 node)
{
	struct wsr_key key = { .cgroup_id = id, .node = node };
	struct wsr_report r;

	return bpf_map_lookup_elem(p->reports, &key, &r) ? 0 : r.seq;
}

/* Reads leave the reports, and so the report clock, alone. */
int wsr_read_hists(const struct wsr_pins *p, const struct wsr_memcg *m, __u64 nodes,
		   bool refresh, struct wsr_report *reps, struct wsr_err *err)
{
	struct wsr_refresh_args args = {};
	__u64 stale = 0, now = wsr_now_ns();
	struct wsr_config cfg;
	__u32 n, i;
	int ret;

	for (n = 0; n < WSR_MAX_NODES; n++) {
		struct wsr_key key = { .cgroup_id = m->id, .node = n };

		if (!(nodes >> n & 1))
			continue;
		wsr_get_config(p, m->id, n, &cfg);
		if (bpf_map_lookup_elem(p->reports, &key, &reps[n]))
			memset(&reps[n], 0, sizeof(reps[n]));
		if (!refresh || !reps[n].time_ns ||
		    now - reps[n].time_ns >= cfg.refresh_ms * 1000000ULL ||
		    !wsr_same_bins(&reps[n].hist, &cfg))
			stale |= 1ULL << n;
		if (refresh && (stale >> n & 1) && cfg.refresh_ms) {
			args.refresh_ms[n] = cfg.refresh_ms;
			args.nodes |= 1ULL << n;
		}
	}
	if (args.nodes) {
		ret = wsr_refresh_subtree(p->dir, p->sys, m, &args, err);
		if (ret)
			return ret;
	}
	if (!stale)
		return 0;
	for (i = 0;; i++) {
		/* walk @m's subtree with the histogram iterator: fills "live" */
		now = wsr_now_ns();
		ret = wsr_run_iter(p->dir, WSR_PIN_PROG_HISTOGRAM, m, true, NULL, err);
		if (ret)
			return ret;
		ret = 0;
		for (n = 0; n < WSR_MAX_NODES && !ret; n++) {
			struct wsr_key key = { .cgroup_id = m->id, .node = n };

			if (!(stale >> n & 1))
				continue;
			if (bpf_map_lookup_elem(p->live, &key, &reps[n]))
				ret = -errno;
			/* the walk could not store its entry (map_update() says why) */
			else if (reps[n].time_ns < now)
				ret = -ENOMEM;
			if (ret)
				snprintf(err->msg, sizeof(err->msg), "no N%u histogram of %s: %s",
					 n, m->rel, strerror(-ret));
		}
		if (!ret || i == ENOMEM_TRIES)
			return ret;
		usleep(ENOMEM_WAIT_US);
	}
}

/*
 * As the seed's memory.reaccess.histogram read, which refreshes the
 * working set first (wss_refresh()) on nodes with bins: the aging that
 * refresh does is what counts reaccesses.
 */
int wsr_read_reaccess(const struct wsr_pins *p, const struct wsr_memcg *m, __u64 nodes,
		      bool refresh, struct wsr_report *reps, struct wsr_err *err)
{
	struct wsr_config cfg;
	__u64 binned = 0;
	__u32 n, i;
	int ret;

	for (n = 0; refresh && n < WSR_MAX_NODES; n++) {
		if (!(nodes >> n & 1))
			continue;
		wsr_get_config(p, m->id, n, &cfg);
		if (cfg.nr_intervals)
			binned |= 1ULL << n;
	}
	if (binned) {
		ret = wsr_read_hists(p, m, binned, true, reps, err);
		if (ret)
			return ret;
		memset(reps, 0, WSR_MAX_NODES * sizeof(*reps));
	}
	for (n = 0; n < WSR_MAX_NODES; n++) {
		struct wsr_key key = { .cgroup_id = m->id, .node = n };

		if (!(nodes >> n & 1))
			continue;
		if (!bpf_map_lookup_elem(p->reaccess, &key, &reps[n].hist))
			continue;
		wsr_get_config(p, m->id, n, &cfg);
		reps[n].hist.nr_bins = cfg.reaccess_nr_intervals + 1;
		for (i = 0; i < WSR_MAX_BINS; i++)
			reps[n].hist.bound_ms[i] = i < cfg.reaccess_nr_intervals ?
				cfg.reaccess_intervals_ms[i] : WSR_BIN_INF;
	}
	return 0;
}

/*
 * New reaccess bins start a new reaccess histogram, made here rather than
 * by BPF: the program that counts (bpf/reaccess.bpf.h) runs with
 * interrupts off, where a map that is not preallocated has only the few
 * elements its per-CPU cache holds.  It still makes the entry if this
 * update failed, and counts in wsr_stats.maps_full one it could not make.
 */
static void new_reaccess(const struct wsr_pins *p, const struct wsr_key *key,
			 const struct wsr_config *cfg)
{
	struct wsr_hist h = { .nr_bins = cfg->reaccess_nr_intervals + 1 };
	__u32 i;

	if (!cfg->reaccess_nr_intervals) {
		bpf_map_delete_elem(p->reaccess, key);
		return;
	}
	for (i = 0; i < WSR_MAX_BINS; i++)
		h.bound_ms[i] = i < cfg->reaccess_nr_intervals ? cfg->reaccess_intervals_ms[i] :
								 WSR_BIN_INF;
	map_update(p->reaccess, key, &h, BPF_ANY);
}

/*
 * -EINVAL and -ERANGE are kept for a refused value (the CLI's usage
 * error): a map update that fails with EINVAL is reported as -EIO.
 */
int wsr_set_knob(const struct wsr_pins *p, const struct wsr_memcg *m, __u64 nodes,
		 int node, enum wsr_knob knob, const char *value, struct wsr_err *err)
{
	static const struct wsr_report no_report;
	struct wsr_config cfgs[WSR_MAX_NODES];
	__u32 nr_nodes = wsr_possible_nodes(p->sys), n;
	int ret = 0, dir;

	/*
	 * A node's knobs are one map value: the read, change and write of
	 * each under the pin folder's lock, or another set's write between
	 * our read and ours would be undone.  A lock in the value
	 * (BPF_F_LOCK) would only keep each copy whole, not our read and
	 * write together; the folder's lock is let go when a set is killed.
	 */
	dir = wsr_lock_pin_dir(p->dir, WSR_LOCK_TIMEOUT_MS, err);
	if (dir < 0)
		return dir == -EINVAL ? -EIO : dir;
	/* validate for every node first: bad input changes nothing */
	for (n = 0; n < nr_nodes; n++) {
		if (!(nodes >> n & 1))
			continue;
		wsr_get_config(p, m->id, n, &cfgs[n]);
		if (node < 0 || (int)n == node) {
			ret = wsr_config_set(&cfgs[n], knob, value, err);
			if (ret)
				goto out;
		}
	}
	/* one update per node: killed between two, each node is old or new */
	for (n = 0; n < nr_nodes; n++) {
		struct wsr_key key = { .cgroup_id = m->id, .node = n };

		if (!(nodes >> n & 1) || (node >= 0 && (int)n != node))
			continue;
		ret = map_update(p->config, &key, &cfgs[n], BPF_ANY);
		if (ret) {
			snprintf(err->msg, sizeof(err->msg), "cannot store the configuration: %s",
				 strerror(-ret));
			ret = ret == -EINVAL ? -EIO : ret;
			goto out;
		}
		if (knob == WSR_KNOB_REACCESS_INTERVALS)
			new_reaccess(p, &key, &cfgs[n]);
		/*
		 * a report's entry, made here rather than on reclaim, where
		 * BPF has only the per-CPU cache (map_update()); reads take
		 * an entry with no report yet (time_ns 0) as none
		 */
		if (knob == WSR_KNOB_REPORT && cfgs[n].report_ms)
			map_update(p->reports, &key, &no_report, BPF_NOEXIST);
	}
out:
	close(dir);
	return ret;
}
