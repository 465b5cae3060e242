// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * wsr: working-set histograms from MGLRU generations.
 *
 * MGLRU sorts each lruvec's pages into up to four generations stamped with
 * their birth time.  From those we compute, per (memcg, node), how many
 * anon and file pages have been idle for how long, binned by the
 * configured intervals.  The histogram of a memcg covers it and all its
 * descendants; the root memcg's histogram on a node is the node's.
 *
 * - fentry/shrink_node sees each reclaim pass on a node.  As the seed's
 *   report_wss(): a pass of global reclaim (kswapd, or direct reclaim with
 *   no target memcg) reports the node level, a pass of reclaim that targets
 *   a memcg reports that memcg, at most once per report_ms, never at
 *   DEF_PRIORITY nor for proactive reclaim (memory.reclaim).  A report
 *   walks the memcg subtree (every lruvec, like a read) and tells the
 *   watchers.
 * - fentry/reset_batch_size sees the page-table walk's generation deltas:
 *   pages leaving an older generation were found accessed again, and are
 *   counted in the reaccess histogram by the age they had.
 * - iter/cgroup walks a memcg subtree on demand and prints its live
 *   histogram; pinned, it is a file that cat prints.
 * - fentry/mem_cgroup_css_offline forgets a memcg going away.
 * - the balloon programs hand per-node reports of the whole guest to the
 *   virtio-balloon driver through its kfuncs: on global reclaim at most
 *   once per the device's report_ms, and when the daemon runs the request
 *   iterator on the device's behalf.  They are loaded apart from the rest
 *   (and only when the driver is there), since a program calling a
 *   module's kfunc keeps the module loaded.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "wsr.h"
#include "binning.h"
#include "balloon.h"
#include "reclaim.h"
#include "refresh.h"
#include "vgen.h"

/* GPL-compatible: the 6.1 verifier refuses kfunc calls from other programs */
char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* errno values (uapi asm-generic/errno*.h): the driver's kfuncs return them */
#define ENODEV		19
#define EINVAL		22
#define EALREADY	114
#define ESTALE		116

extern unsigned int CONFIG_HZ __kconfig;

/* set by the loader before load: node_possible count of the kernel */
const volatile __u32 nr_nodes = 1;
/* set by the loader before load: steps of a subtree walk (see wsr.h) */
const volatile __u32 walk_steps = WSR_MAX_WALK_STEPS;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WSR_MAX_KEYS);
	__type(key, struct wsr_key);
	__type(value, struct wsr_config);
} config SEC(".maps");

/* the last report of each (memcg, node), made on reclaim or by a reader */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WSR_MAX_KEYS);
	__type(key, struct wsr_key);
	__type(value, struct wsr_report);
} reports SEC(".maps");

/* the histogram the last iterator walk computed (live, no aging) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WSR_MAX_KEYS);
	__type(key, struct wsr_key);
	__type(value, struct wsr_report);
} live SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WSR_MAX_KEYS);
	__type(key, struct wsr_key);
	__type(value, struct wsr_hist);
} reaccess SEC(".maps");

/* limits reached: one entry, see struct wsr_stats */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wsr_stats);
} stats SEC(".maps");

/* watcher slot -> pid of the "wsr watch" that owns the slot's ring */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WSR_MAX_WATCHERS);
	__type(key, __u32);
	__type(value, __u32);
} watchers SEC(".maps");

#define WATCH_RING(n)						\
	struct {						\
		__uint(type, BPF_MAP_TYPE_RINGBUF);		\
		__uint(max_entries, 64 * 1024);			\
	} watch##n SEC(".maps")
WATCH_RING(0);
WATCH_RING(1);
WATCH_RING(2);
WATCH_RING(3);
WATCH_RING(4);
WATCH_RING(5);
WATCH_RING(6);
WATCH_RING(7);

/* a memcg subtree walk in pre-order, as css_next_descendant_pre() */
struct memcg_walk {
	__u64 root;		/* struct cgroup_subsys_state * of the subtree */
	__u64 pos;		/* the css the walk is at */
	__u32 arrived;		/* pos is still to be visited */
	__u32 done;
	__u32 node_lo, node_hi;	/* the nodes whose lruvecs are added */
};

/* scratch space too large for the 512-byte BPF stack */
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
	struct wsr_balloon_node bnodes[WSR_MAX_NODES];
	__u64 data_age_j;	/* of the lruvecs added so far: see add_lruvec() */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch_map SEC(".maps");

/* what wsr last handed to the balloon driver: one entry */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wsr_balloon);
} balloon SEC(".maps");

/* per iterator session: one histogram per node for the walk's root */
struct walk_acc {
	__u64 root;
	struct wsr_hist hist[WSR_MAX_NODES];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, struct walk_acc);
} walks SEC(".maps");

static const struct walk_acc zero_acc;
static const struct wsr_report zero_report;

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

/* ---- reading kernel state ---------------------------------------------- */

static __always_inline __u32 nr_zones(void)
{
	__u32 nz = bpf_core_enum_value(enum zone_type, __MAX_NR_ZONES);

	return nz > 8 ? 8 : nz;
}

/* generations of @lruvec now; nr_pages summed over zones, a negative sum as 0 */
static __noinline int read_gens(struct lruvec *lruvec, struct scratch *s)
{
	struct wsr_gens *g = &s->gens;
	__u32 nz = nr_zones(), gen, type, zone;
	__u32 size = bpf_core_field_size(lruvec->lrugen.nr_pages);

	if (size > sizeof(s->nr_pages))
		return -1;
	g->max_seq = BPF_CORE_READ(lruvec, lrugen.max_seq);
	g->min_seq[0] = BPF_CORE_READ(lruvec, lrugen.min_seq[0]);
	g->min_seq[1] = BPF_CORE_READ(lruvec, lrugen.min_seq[1]);
	if (bpf_core_read(g->birth, sizeof(g->birth), &lruvec->lrugen.timestamps) ||
	    bpf_probe_read_kernel(s->nr_pages, size & 0x3ff, &lruvec->lrugen.nr_pages))
		return -1;
	for (gen = 0; gen < WSR_NR_GENS; gen++) {
		for (type = 0; type < 2; type++) {
			long sum = 0;

			for (zone = 0; zone < 8 && zone < nz; zone++) {
				sum += s->nr_pages[((gen * 2 + type) * nz + zone) & 63];
			}
			/*
			 * A zone's count goes negative while pages move between
			 * generations; summed over zones it cancels, as in lru_gen.
			 */
			g->pages[gen][type] = sum > 0 ? sum : 0;
		}
	}
	return 0;
}

/* the memcg owning @lruvec: it is embedded in a mem_cgroup_per_node */
static __always_inline struct mem_cgroup *lruvec_memcg(struct lruvec *lruvec)
{
	struct mem_cgroup_per_node *mz;

	mz = (void *)lruvec - bpf_core_field_offset(struct mem_cgroup_per_node, lruvec);
	return BPF_CORE_READ(mz, memcg);
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

static __always_inline struct mem_cgroup *css_memcg(struct cgroup_subsys_state *css)
{
	return (void *)css - bpf_core_field_offset(struct mem_cgroup, css);
}

/* the cgroup id (cgroup v2 inode number) of a memcg's css */
static __always_inline __u64 css_cgroup_id(struct cgroup_subsys_state *css)
{
	struct cgroup *cgrp = BPF_CORE_READ(css, cgroup);

	return cgrp ? BPF_CORE_READ(cgrp, kn, id) : WSR_ROOT_CGROUP;
}

/* the root memcg's css: the memory css of the default hierarchy's root */
static __always_inline struct cgroup_subsys_state *root_memcg_css(void)
{
	int id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
	struct task_struct *task = (void *)bpf_get_current_task();
	struct cgroup_root *root = BPF_CORE_READ(task, cgroups, dfl_cgrp, root);

	if (!root)
		return NULL;
	return BPF_CORE_READ(root, cgrp.subsys[id]);
}

/* ---- virtual generations (see vgen.h) -------------------------------------- */

/* per lruvec, from its first aging with four generations to its memcg's removal */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, WSR_MAX_VGENS);
	__type(key, struct wsr_key);
	__type(value, struct wsr_vgen);
} vgens SEC(".maps");

static const struct wsr_vgen zero_vgen;

/*
 * The aging hooks' scratch, apart from scratch_map: reclaim can age a
 * lruvec on a CPU whose scratch_map a preempted reader or walk still uses
 * (on a kernel with full preemption).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} aging_scratch SEC(".maps");

static __always_inline struct scratch *get_aging_scratch(void)
{
	return scratch_in(&aging_scratch);
}

static __always_inline void lruvec_key(struct lruvec *lruvec, struct wsr_key *key)
{
	key->cgroup_id = css_cgroup_id(&lruvec_memcg(lruvec)->css);
	key->node = BPF_CORE_READ(lruvec, pgdat, node_id);
	key->pad = 0;
}

/*
 * A global function, like bin_gens(): the verifier checks it once on its
 * own, not inside every program that reads a histogram.
 */
__noinline int vgen_read(struct wsr_vgen *v, const struct wsr_gens *g)
{
	if (!v || !g)
		return 0;
	wsr_vgen_read(v, g);
	return 0;
}

struct parts_ctx {
	struct wsr_vgen *v;
	struct scratch *s;
	__u64 ok;
};

/*
 * One try at a copy of c->v while no CPU updates it (v->seq even and
 * unchanged across the copy).  A bpf_loop() step: unrolled, the 584-byte
 * copies made the verifier check every caller of read_parts() many times
 * over (seconds of load time under emulation).
 */
static int parts_try(__u32 i, struct parts_ctx *c)
{
	struct wsr_vgen *v = c->v;
	struct scratch *s = c->s;
	__u64 seq;

	if (!v || !s)
		return 1;
	/* atomic reads: full barriers around the copy */
	seq = __sync_fetch_and_add(&v->seq, 0);
	if (seq & 1)
		return 0;
	s->v = *v;
	if (__sync_fetch_and_add(&v->seq, 0) != seq)
		return 0;
	c->ok = 1;
	return 1;
}

/*
 * The parts of @lruvec's oldest generations, as of s->gens, into
 * s->v.parts; none if they are being updated at each of 16 tries (an
 * update is a few hundred instructions): the oldest generations are then
 * binned at MGLRU's births (README "Aging and idle ages").
 */
static __noinline int read_parts(struct lruvec *lruvec, struct scratch *s)
{
	struct parts_ctx c = { .s = s };
	struct wsr_key key;

	lruvec_key(lruvec, &key);
	c.v = bpf_map_lookup_elem(&vgens, &key);
	if (c.v)
		bpf_loop(16, parts_try, &c, 0);
	if (c.ok) {
		vgen_read(&s->v, &s->gens);
		return 0;
	}
	s->v.parts.t[0].nr = 0;
	s->v.parts.t[1].nr = 0;
	return 0;
}

/*
 * @lruvec's kept parts, locked for an update, created if @create and its
 * memcg is online (an offline one's entry, deleted by wsr_offline, must
 * not come back).  NULL if another CPU holds them through 64 tries: that
 * update is lost, and the parts fall back on MGLRU's births at the next
 * merge.
 */
static __always_inline struct wsr_vgen *lock_parts(struct lruvec *lruvec, bool create)
{
	struct mem_cgroup *memcg = lruvec_memcg(lruvec);
	struct wsr_key key;
	struct wsr_vgen *v;
	__u32 i;

	lruvec_key(lruvec, &key);
	v = bpf_map_lookup_elem(&vgens, &key);
	if (!v && create && (BPF_CORE_READ(memcg, css.flags) & CSS_ONLINE)) {
		bpf_map_update_elem(&vgens, &key, &zero_vgen, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&vgens, &key);
		if (!v)
			STAT_INC(maps_full);
	}
	if (!v)
		return NULL;
	/* the other CPU's update is a few hundred instructions */
	for (i = 0; i < 64; i++)
		if (!__sync_val_compare_and_swap(&v->busy, 0, 1)) {
			/*
			 * Odd while held.  An entry deleted by wsr_offline()
			 * while held is reused at once (no preallocation): the
			 * old holder's unlock may have left it odd.
			 */
			if (!(__sync_fetch_and_add(&v->seq, 1) & 1))
				return v;
			__sync_fetch_and_add(&v->seq, 1);
			return v;
		}
	return NULL;
}

/* full barriers (BPF_ATOMIC): the updates are seen before v->seq is even */
static __always_inline void unlock_parts(struct wsr_vgen *v)
{
	__sync_fetch_and_add(&v->seq, 1);
	__sync_lock_test_and_set(&v->busy, 0);
}

SEC("fentry/try_to_inc_max_seq")
int BPF_PROG(wsr_aging_begin, struct lruvec *lruvec, unsigned long max_seq,
	     struct scan_control *sc, bool can_swap)
{
	struct scratch *s = get_aging_scratch();
	struct wsr_vgen *v;

	if (!s || read_gens(lruvec, s))
		return 0;
	s->gens.now = bpf_jiffies64();
	/* only a lruvec with four generations merges one when aged */
	v = lock_parts(lruvec, wsr_gens_full(&s->gens));
	if (!v)
		return 0;
	wsr_vgen_begin(v, &s->gens, max_seq, can_swap);
	unlock_parts(v);
	return 0;
}

SEC("fexit/try_to_inc_max_seq")
int BPF_PROG(wsr_aging_end, struct lruvec *lruvec, unsigned long max_seq,
	     struct scan_control *sc, bool can_swap)
{
	struct scratch *s = get_aging_scratch();
	struct wsr_vgen *v;

	if (!s || read_gens(lruvec, s))
		return 0;
	s->gens.now = bpf_jiffies64();
	v = lock_parts(lruvec, false);
	if (!v)
		return 0;
	wsr_vgen_end(v, &s->gens, max_seq, can_swap);
	unlock_parts(v);
	return 0;
}

/* ---- histograms ---------------------------------------------------------- */

/* bin bounds of @cfg in jiffies into s->bounds */
static __always_inline void load_bounds(const struct wsr_config *cfg, bool reaccess,
					struct scratch *s)
{
	const __u64 *ms = reaccess ? cfg->reaccess_intervals_ms : cfg->intervals_ms;
	__u32 n = reaccess ? cfg->reaccess_nr_intervals : cfg->nr_intervals, i;

	for (i = 0; i < WSR_MAX_INTERVALS; i++)
		s->bounds.j[i] = wsr_ms_to_jiffies(ms[i], CONFIG_HZ);
	s->bounds.n = n > WSR_MAX_INTERVALS ? WSR_MAX_INTERVALS : n;
}

/*
 * A global function: the verifier checks it once on its own instead of
 * at every call site, which keeps loading fast even under emulation.
 */
__noinline int bin_gens(const struct wsr_gens *g, const struct wsr_vgens *vt,
			const struct wsr_bounds *b, struct wsr_hist *h, struct wsr_span *span)
{
	if (!g || !vt || !b || !h || !span)
		return 0;
	wsr_bin_gens(g, vt, b, h, span);
	return 0;
}

/* empty histogram with the bounds of @cfg (a catch-all bin if no config) */
static __always_inline void init_hist(struct wsr_hist *h, const struct wsr_config *cfg,
				      bool reaccess)
{
	__u32 n = 0, i;

	if (cfg)
		n = reaccess ? cfg->reaccess_nr_intervals : cfg->nr_intervals;
	if (n > WSR_MAX_INTERVALS)
		n = WSR_MAX_INTERVALS;
	for (i = 0; i < WSR_MAX_BINS; i++) {
		h->anon[i] = 0;
		h->file[i] = 0;
		h->bound_ms[i] = WSR_BIN_INF;
		if (i < n && cfg)
			h->bound_ms[i] = reaccess ? cfg->reaccess_intervals_ms[i]
						  : cfg->intervals_ms[i];
	}
	h->nr_bins = n + 1;
}

/* add the live generations of @lruvec into @h; s->data_age_j keeps the oldest */
static __noinline int add_lruvec(struct lruvec *lruvec, const struct wsr_config *cfg,
				 struct wsr_hist *h, struct scratch *s)
{
	__u64 age;

	if (read_gens(lruvec, s))
		return -1;
	s->bounds.n = 0;
	if (cfg)
		load_bounds(cfg, false, s);
	s->gens.now = bpf_jiffies64();
	s->gens.skip = 0;
	read_parts(lruvec, s);
	age = wsr_gens_data_age(&s->gens);
	if (age > s->data_age_j)
		s->data_age_j = age;
	return bin_gens(&s->gens, &s->v.parts, &s->bounds, h, &s->span);
}

/* ---- subtree walks ------------------------------------------------------ */

struct walk_ctx {
	const struct wsr_config *cfg;	/* bins of the histograms */
	struct scratch *s;		/* s->walk: the walk; s->nhist: the sums */
};

/* add @css's lruvecs on the walk's nodes into s->nhist */
static __always_inline int walk_visit(struct cgroup_subsys_state *css, struct walk_ctx *c)
{
	struct mem_cgroup *memcg = css_memcg(css);
	struct scratch *s = c->s;
	__u32 n;

	for (n = 0; n < WSR_MAX_NODES && n < nr_nodes; n++) {
		struct mem_cgroup_per_node *mz;

		if (n < s->walk.node_lo || n >= s->walk.node_hi)
			continue;
		mz = BPF_CORE_READ(memcg, nodeinfo[n]);
		if (mz)
			add_lruvec(&mz->lruvec, c->cfg, &s->nhist[n], s);
	}
	return 0;
}

/*
 * One step of a pre-order walk: visit the css just arrived at and go to
 * its first child, or go to the next sibling, or climb one level.  The
 * lists are RCU-protected and tracing programs run under rcu_read_lock();
 * a memcg removed meanwhile keeps its next pointers (list_del_rcu()).
 */
static long walk_step(__u32 i, struct walk_ctx *c)
{
	struct memcg_walk *w = &c->s->walk;
	struct cgroup_subsys_state *pos = (void *)w->pos, *parent;
	__u64 children = bpf_core_field_offset(struct cgroup_subsys_state, children);
	__u64 sibling = bpf_core_field_offset(struct cgroup_subsys_state, sibling);
	void *next;

	if (w->arrived) {
		walk_visit(pos, c);
		next = BPF_CORE_READ(pos, children.next);
		if (next && next != (void *)pos + children) {
			w->pos = (__u64)(next - sibling);
			return 0;
		}
		w->arrived = 0;
	}
	parent = BPF_CORE_READ(pos, parent);
	if (w->pos == w->root || !parent) {
		w->done = 1;
		return 1;
	}
	next = BPF_CORE_READ(pos, sibling.next);
	if (next && next != (void *)parent + children) {
		w->pos = (__u64)(next - sibling);
		w->arrived = 1;
	} else {
		w->pos = (__u64)parent;
	}
	return 0;
}

/*
 * Sum every lruvec of @root's subtree on nodes [lo, hi) into s->nhist,
 * each node's histogram with the bins of @cfg.  s->data_age_j gets the
 * oldest data age.  Returns WSR_REPORT_INCOMPLETE if the walk ran out of
 * steps (counted in stats), else 0.
 */
static __always_inline __u32 walk_subtree(struct cgroup_subsys_state *root, __u32 lo, __u32 hi,
					  const struct wsr_config *cfg, struct scratch *s)
{
	struct walk_ctx c = { .cfg = cfg, .s = s };
	__u32 n;

	for (n = 0; n < WSR_MAX_NODES; n++)
		init_hist(&s->nhist[n], cfg, false);
	s->data_age_j = 0;
	s->walk.root = (__u64)root;
	s->walk.pos = (__u64)root;
	s->walk.arrived = 1;
	s->walk.done = 0;
	s->walk.node_lo = lo;
	s->walk.node_hi = hi;
	if (!root)
		return 0;
	bpf_loop(walk_steps, walk_step, &c, 0);
	if (s->walk.done)
		return 0;
	STAT_INC(walks_truncated);
	return WSR_REPORT_INCOMPLETE;
}

/* ---- reports on reclaim ------------------------------------------------ */

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

	if (!cfg || !cfg->report_ms || !s || node >= WSR_MAX_NODES)
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

/* what this reclaim pass reports (see bpf/reclaim.h) */
static __always_inline enum wsr_reclaim_report pass_reports(struct scan_control *sc)
{
	return wsr_reclaim_reports(BPF_CORE_READ(sc, priority),
				   BPF_CORE_READ_BITFIELD_PROBED(sc, proactive),
				   BPF_CORE_READ(sc, target_mem_cgroup) != NULL);
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

/* ---- reaccess ------------------------------------------------------------ */

/*
 * Bin the generation deltas of one page-table walk batch: a page found
 * accessed again moves from its generation to max_seq, so a negative
 * delta in an older generation counts reaccesses at that generation's age.
 */
static __noinline int bin_reaccess(__u64 root, __u32 node, struct scratch *s)
{
	struct wsr_key key = { .cgroup_id = root, .node = node };
	struct wsr_config *cfg = bpf_map_lookup_elem(&config, &key);
	struct wsr_hist *h;
	__u32 i;

	if (!cfg || !cfg->reaccess_nr_intervals)
		return 0;
	h = bpf_map_lookup_elem(&reaccess, &key);
	if (!h) {
		init_hist(&s->delta, cfg, true);
		bpf_map_update_elem(&reaccess, &key, &s->delta, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&reaccess, &key);
		if (!h) {
			STAT_INC(maps_full);
			return 0;
		}
	}
	load_bounds(cfg, true, s);
	init_hist(&s->delta, cfg, true);
	/* max_seq is where reaccessed pages go: count the others */
	s->gens.now = bpf_jiffies64();
	s->gens.skip = 1;
	/* a reaccessed page's age is its generation's: no parts */
	s->v.parts.t[0].nr = 0;
	s->v.parts.t[1].nr = 0;
	bin_gens(&s->gens, &s->v.parts, &s->bounds, &s->delta, &s->span);
	for (i = 0; i < WSR_MAX_BINS; i++) {
		if (s->delta.anon[i])
			__sync_fetch_and_add(&h->anon[i], s->delta.anon[i]);
		if (s->delta.file[i])
			__sync_fetch_and_add(&h->file[i], s->delta.file[i]);
	}
	return 0;
}

struct ancestor_ctx {
	struct cgroup_subsys_state *css;
	__u32 node;
};

/*
 * One ancestor per bpf_loop step: the verifier checks bin_reaccess() once,
 * where an unrolled loop had it check a copy per level (seconds of load
 * time, ten times that on a sanitizer kernel).
 */
static int ancestor_step(__u32 i, struct ancestor_ctx *c)
{
	struct cgroup_subsys_state *css = c->css;
	struct scratch *s = get_scratch();

	/* css in a local: inside BPF_CORE_READ, c->css would be relocated too */
	if (!css || !s)
		return 1;
	bin_reaccess(css_cgroup_id(css), c->node, s);
	c->css = BPF_CORE_READ(css, parent);
	return 0;
}

SEC("fentry/reset_batch_size")
int BPF_PROG(wsr_reaccess, struct lruvec *lruvec, struct lru_gen_mm_walk *walk)
{
	__u32 node = BPF_CORE_READ(lruvec, pgdat, node_id);
	__u32 nz = nr_zones(), size, gen, type, zone;
	struct scratch *s = get_scratch();
	struct ancestor_ctx c;
	int deltas[WSR_NR_GENS * 2 * 8];

	if (!s || node >= WSR_MAX_NODES)
		return 0;
	size = bpf_core_field_size(walk->nr_pages);
	if (size > sizeof(deltas) ||
	    bpf_probe_read_kernel(deltas, size & 0xff, &walk->nr_pages))
		return 0;
	s->gens.max_seq = BPF_CORE_READ(walk, max_seq);
	s->gens.min_seq[0] = BPF_CORE_READ(lruvec, lrugen.min_seq[0]);
	s->gens.min_seq[1] = BPF_CORE_READ(lruvec, lrugen.min_seq[1]);
	if (bpf_core_read(s->gens.birth, sizeof(s->gens.birth), &lruvec->lrugen.timestamps))
		return 0;
	/* pages[gen][type] = pages that left the generation */
	for (gen = 0; gen < WSR_NR_GENS; gen++) {
		for (type = 0; type < 2; type++) {
			__u64 left = 0;

			for (zone = 0; zone < 8 && zone < nz; zone++) {
				int d = deltas[((gen * 2 + type) * nz + zone) & 63];

				left += d < 0 ? -d : 0;
			}
			s->gens.pages[gen][type] = left;
		}
	}
	/* the memcg and each of its ancestors, up to the root */
	c.css = &lruvec_memcg(lruvec)->css;
	c.node = node;
	bpf_loop(WSR_MAX_ANCESTORS, ancestor_step, &c, 0);
	if (c.css)
		STAT_INC(ancestors_truncated);
	return 0;
}

/* ---- on-demand histograms ----------------------------------------------- */

static __always_inline struct mem_cgroup *cgroup_memcg(struct cgroup *cgrp)
{
	int id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
	struct cgroup_subsys_state *css;

	css = BPF_CORE_READ(cgrp, subsys[id]);
	if (!css)
		return NULL;
	return (void *)css - bpf_core_field_offset(struct mem_cgroup, css);
}

static __noinline int walk_start(__u64 session, __u64 root)
{
	struct walk_acc *acc;
	__u32 n;

	bpf_map_update_elem(&walks, &session, &zero_acc, BPF_ANY);
	acc = bpf_map_lookup_elem(&walks, &session);
	if (!acc)
		return -1;
	acc->root = root;
	for (n = 0; n < WSR_MAX_NODES && n < nr_nodes; n++) {
		struct wsr_key key = { .cgroup_id = root, .node = n };

		init_hist(&acc->hist[n], bpf_map_lookup_elem(&config, &key), false);
	}
	return 0;
}

static __noinline int walk_add(struct walk_acc *acc, struct mem_cgroup *memcg)
{
	struct scratch *s = get_scratch();
	__u32 n;

	if (!s)
		return 0;
	for (n = 0; n < WSR_MAX_NODES && n < nr_nodes; n++) {
		struct wsr_key key = { .cgroup_id = acc->root, .node = n };
		struct mem_cgroup_per_node *mz = BPF_CORE_READ(memcg, nodeinfo[n]);
		struct lruvec *lruvec;

		if (!mz)
			continue;
		lruvec = &mz->lruvec;
		add_lruvec(lruvec, bpf_map_lookup_elem(&config, &key), &acc->hist[n], s);
	}
	return 0;
}

/* store the walk's histograms as the root's live histograms and print them */
static __noinline int walk_finish(struct seq_file *seq, struct walk_acc *acc)
{
	struct scratch *s = get_scratch();
	__u32 n, i;

	if (!s)
		return 0;
	for (n = 0; n < WSR_MAX_NODES && n < nr_nodes; n++) {
		struct wsr_key key = { .cgroup_id = acc->root, .node = n };
		struct wsr_hist *h = &acc->hist[n];
		struct wsr_report *old = bpf_map_lookup_elem(&live, &key);

		s->report.seq = old ? old->seq + 1 : 1;
		s->report.time_ns = bpf_ktime_get_boot_ns();
		s->report.cause = WSR_CAUSE_READ;
		s->report.hist = *h;
		bpf_map_update_elem(&live, &key, &s->report, BPF_ANY);

		BPF_SEQ_PRINTF(seq, "N%u\n", n);
		for (i = 0; i < WSR_MAX_BINS && i < h->nr_bins; i++)
			BPF_SEQ_PRINTF(seq, "%llu anon=%llu file=%llu\n",
				       h->bound_ms[i], h->anon[i], h->file[i]);
	}
	return 0;
}

SEC("iter/cgroup")
int wsr_histogram(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	__u64 session = ctx->meta->session_id;
	struct walk_acc *acc;
	struct mem_cgroup *memcg;

	/* pre-order: the first cgroup of the walk is its root */
	if (ctx->meta->seq_num == 0 && cgrp && walk_start(session, cgrp->kn->id))
		return 1;
	acc = bpf_map_lookup_elem(&walks, &session);
	if (!acc)
		return 0;
	if (!cgrp) {
		walk_finish(ctx->meta->seq, acc);
		bpf_map_delete_elem(&walks, &session);
		return 0;
	}
	memcg = cgroup_memcg(cgrp);
	if (memcg)
		walk_add(acc, memcg);
	return 0;
}

/* ---- what a refresh may age --------------------------------------------- */

/* per iterator session: the cgroup id of the walk's root */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u64);
} refresh_walks SEC(".maps");

/*
 * Is @memcg below its memory.min as seen from a reclaim of @root_id (the
 * seed's mem_cgroup_calculate_protection(root, memcg), then
 * mem_cgroup_below_min())?  The kernel keeps the effective protection
 * (memory.emin) only as the last reclaim computed it, top-down; this
 * computes it now, top-down too (wsr_below_min()), with cgroup2's
 * memory_recursiveprot and siblings that claim more than their parent has.
 * The root of the walk and the root memcg are never protected.  Deeper
 * than WSR_PROT_LEVELS below the root, the protection is taken as the
 * smallest memory.min on the way up: right unless siblings overcommit or
 * memory_recursiveprot hands down what a parent's children leave.
 */
static __noinline int memcg_protected(struct mem_cgroup *memcg, __u64 root_id)
{
	struct cgroup_subsys_state *css = &memcg->css, *parent;
	struct wsr_prot_level lv[WSR_PROT_LEVELS];
	__u64 usage = BPF_CORE_READ(memcg, memory.usage.counter), emin = ~0ULL, min;
	__u32 i, n, k;
	int recursive;

	/* read below at an offset the verifier knows only by its bounds */
	__builtin_memset(lv, 0, sizeof(lv));
	/* the levels, bottom-up into lv[WSR_PROT_LEVELS - 1 - i] */
	for (i = 0; i < WSR_MAX_ANCESTORS; i++) {
		struct mem_cgroup *m = css_memcg(css);

		parent = BPF_CORE_READ(css, parent);
		if (!parent || css_cgroup_id(css) == root_id)
			break;
		min = BPF_CORE_READ(m, memory.min);
		if (min < emin)
			emin = min;
		if (i < WSR_PROT_LEVELS) {
			k = WSR_PROT_LEVELS - 1 - i;
			lv[k].usage = BPF_CORE_READ(m, memory.usage.counter);
			lv[k].min = min;
			lv[k].children_min = BPF_CORE_READ(m, memory.children_min_usage.counter);
		}
		css = parent;
	}
	if (i == 0)
		return 0;
	if (i > WSR_PROT_LEVELS)
		return emin && usage <= emin;
	n = i;
	recursive = !!(BPF_CORE_READ(memcg, css.cgroup, root, flags) &
		       CGRP_ROOT_MEMORY_RECURSIVE_PROT);
	return wsr_below_min(&lv[WSR_PROT_LEVELS - n], n, recursive);
}

/*
 * Swap pages @memcg may still use, as mem_cgroup_get_nr_swap_pages() limits
 * them on the way up (without the global count, which user space adds):
 * with fewer than MIN_LRU_BATCH, MGLRU ages it without anon (can_swap 0).
 */
static __noinline __s64 memcg_swap_room(struct mem_cgroup *memcg)
{
	struct cgroup_subsys_state *css = &memcg->css, *parent;
	__s64 room = 0x7fffffffffffffffLL, r;
	__u32 i;

	for (i = 0; i < WSR_MAX_ANCESTORS; i++) {
		struct mem_cgroup *m = css_memcg(css);

		parent = BPF_CORE_READ(css, parent);
		if (!parent)
			break;
		r = (__s64)BPF_CORE_READ(m, swap.max) - BPF_CORE_READ(m, swap.usage.counter);
		if (r < room)
			room = r;
		css = parent;
	}
	return room < 0 ? 0 : room;
}

/* what each reader's refresh ages, by its tgid (see struct wsr_refresh_args) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct wsr_refresh_args);
} refresh_args SEC(".maps");

/* the facts bpf/refresh.h decides on, of the lruvec read into s->gens */
static __always_inline void refresh_facts(struct wsr_refresh_facts *f, struct scratch *s,
					  __u64 now, __u64 swap_room, int prot)
{
	struct wsr_gens *g = &s->gens;
	__u32 i;

	f->birth_j = g->birth[g->max_seq & (WSR_NR_GENS - 1)];
	f->age_ms = now > f->birth_j ? (now - f->birth_j) * 1000 / CONFIG_HZ : 0;
	f->swap_room = swap_room;
	f->protected = prot;
	f->gens[0] = g->max_seq - g->min_seq[0] + 1;
	f->oldest[0] = g->pages[g->min_seq[0] & (WSR_NR_GENS - 1)][0];
	f->gens[1] = g->max_seq - g->min_seq[1] + 1;
	f->oldest[1] = g->pages[g->min_seq[1] & (WSR_NR_GENS - 1)][1];
	f->pages = 0;
	for (i = 0; i < WSR_NR_GENS; i++)
		f->pages += g->pages[i][0] + g->pages[i][1];
}

/*
 * The lru_gen commands that age the lruvecs of the subtree due under the
 * reader's refresh_args: "+ <memcg id> <node> <max_seq> <can_swap>
 * <force_scan>" per line.  A cgroup iterator cannot go on past the first
 * read's buffer (6.1: -EOPNOTSUPP), so the reader ages what it got and
 * reads again: a lruvec aged since the refresh began is never due again.
 */
SEC("iter/cgroup")
int wsr_refresh_list(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	__u64 session = ctx->meta->session_id, *root, now = bpf_jiffies64();
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct wsr_refresh_args *args;
	struct wsr_refresh_facts f;
	struct mem_cgroup *memcg;
	struct scratch *s;
	__u32 n, id;
	__s64 room;
	int prot, can_swap;

	if (!cgrp) {
		bpf_map_delete_elem(&refresh_walks, &session);
		return 0;
	}
	args = bpf_map_lookup_elem(&refresh_args, &tgid);
	if (!args)
		return 0;
	if (!args->start_j)
		args->start_j = now;
	if (ctx->meta->seq_num == 0) {
		__u64 id0 = cgrp->kn->id;

		bpf_map_update_elem(&refresh_walks, &session, &id0, BPF_ANY);
	}
	root = bpf_map_lookup_elem(&refresh_walks, &session);
	memcg = cgroup_memcg(cgrp);
	s = get_scratch();
	if (!root || !memcg || !s)
		return 0;
	prot = memcg_protected(memcg, *root);
	room = memcg_swap_room(memcg);
	id = BPF_CORE_READ(memcg, id.id);
	for (n = 0; n < WSR_MAX_NODES && n < nr_nodes; n++) {
		struct mem_cgroup_per_node *mz = BPF_CORE_READ(memcg, nodeinfo[n]);

		if (!mz || read_gens(&mz->lruvec, s))
			continue;
		refresh_facts(&f, s, now, room, prot);
		can_swap = wsr_refresh_can_swap(&f, args);
		if (!wsr_refresh_due(args, n, &f, can_swap))
			continue;
		BPF_SEQ_PRINTF(ctx->meta->seq, "+ %u %u %llu %d %d\n", id, n, s->gens.max_seq,
			       can_swap, wsr_refresh_force(&f, can_swap));
	}
	return 0;
}

/* ---- virtio-balloon reports ----------------------------------------------- */

/* the virtio_balloon driver's kfuncs; weak, so that the rest loads without it */
extern int bpf_virtio_balloon_ws_config(void *cfg, __u32 cfg__sz) __ksym __weak;
extern int bpf_virtio_balloon_ws_report(void *nodes, __u32 nodes__sz, __u64 configs,
					__u32 cause, __u64 data_age_ms) __ksym __weak;

/* the request programs' scratch, apart from the aging programs' scratch_map */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} request_scratch SEC(".maps");

/* the daemon's claim on the device's requests: one entry, see wsr.h */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wsr_balloon_claim);
} balloon_claim SEC(".maps");

static __always_inline struct scratch *get_request_scratch(void)
{
	return scratch_in(&request_scratch);
}

/* the device's configuration into s->bcfg, and its bins into s->bbins */
static __noinline int balloon_config(struct scratch *s)
{
	struct wsr_balloon_config *c = &s->bcfg;
	__u32 i;
	int err;

	err = bpf_virtio_balloon_ws_config(c, sizeof(*c));
	if (err)
		return err;
	if (c->num_bins < 2 || c->num_bins > WSR_BALLOON_MAX_BINS)
		return -EINVAL;
	__builtin_memset(&s->bbins, 0, sizeof(s->bbins));
	for (i = 0; i < WSR_MAX_INTERVALS; i++)
		s->bbins.intervals_ms[i] = c->intervals_ms[i];
	s->bbins.nr_intervals = c->num_bins - 1;
	return 0;
}

/*
 * The whole guest's histogram on each node, in bytes, into s->bnodes.
 * Returns WSR_REPORT_INCOMPLETE if the memcg walk ran out of steps.
 */
static __noinline __u32 balloon_build(struct scratch *s)
{
	__u32 n, i, flags;

	flags = walk_subtree(root_memcg_css(), 0, nr_nodes, &s->bbins, s);
	for (n = 0; n < WSR_MAX_NODES && n < nr_nodes; n++) {
		struct wsr_balloon_node *bn = &s->bnodes[n];
		struct wsr_hist *h = &s->nhist[n];

		bn->node_id = n;
		bn->reserved = 0;
		for (i = 0; i < WSR_BALLOON_MAX_BINS; i++) {
			bn->anon_bytes[i] = h->anon[i] << WSR_PAGE_SHIFT;
			bn->file_bytes[i] = h->file[i] << WSR_PAGE_SHIFT;
		}
	}
	return flags;
}

/* hand s->bnodes to the driver and remember what was sent; the driver's answer */
static __noinline int balloon_send(struct scratch *s, struct wsr_balloon *b, __u32 cause,
			       __u32 flags)
{
	__u32 nr = nr_nodes > WSR_MAX_NODES ? WSR_MAX_NODES : nr_nodes, n;
	__u64 age_ms = s->data_age_j * 1000 / CONFIG_HZ;
	int err;

	if (!nr)
		return -EINVAL;
	err = bpf_virtio_balloon_ws_report(s->bnodes, nr * sizeof(s->bnodes[0]),
					   s->bcfg.configs,
					   cause == WSR_CAUSE_REQUEST ? WSR_BALLOON_CAUSE_REQUEST :
					   WSR_BALLOON_CAUSE_RECLAIM, age_ms);
	__sync_fetch_and_add(err ? &b->refused : &b->sent, 1);
	b->time_ns = bpf_ktime_get_boot_ns();
	b->err = err;
	b->cause = cause;
	b->flags = flags;
	b->nr_nodes = nr;
	b->data_age_ms = age_ms;
	b->config = s->bcfg;
	for (n = 0; n < WSR_MAX_NODES && n < nr; n++)
		b->nodes[n] = s->bnodes[n];
	return err;
}

static __always_inline struct wsr_balloon *balloon_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&balloon, &zero);
}

/*
 * On a pass of global reclaim (the host, not a memcg limit, is short of
 * memory): a report if the device's report_ms has passed.
 */
SEC("fentry/shrink_node")
int BPF_PROG(wsr_balloon_reclaim, struct pglist_data *pgdat, struct scan_control *sc)
{
	struct scratch *s = get_scratch();
	struct wsr_balloon *b = balloon_state();
	__u64 now = bpf_ktime_get_boot_ns(), last;
	__u32 flags;

	if (!s || !b || pass_reports(sc) != WSR_REPORT_NODE)
		return 0;
	__sync_fetch_and_add(&b->reclaim_passes, 1);
	if (!wsr_balloon_ask_driver(b, now))
		return 0;
	__sync_fetch_and_add(&b->config_reads, 1);
	if (balloon_config(s))
		return 0;
	b->cache_report_ms = s->bcfg.report_ms;
	b->cache_ns = now;
	if (!s->bcfg.report_ms)
		return 0;
	last = b->claim_ns;
	if (last && now - last < s->bcfg.report_ms * 1000000ULL)
		return 0;
	/* one report per report_ms, even when several CPUs reclaim at once */
	if (__sync_val_compare_and_swap(&b->claim_ns, last, now) != last)
		return 0;
	flags = balloon_build(s);
	/* the bins changed under us: once more with the new ones */
	if (balloon_send(s, b, WSR_CAUSE_RECLAIM, flags) == -ESTALE && !balloon_config(s)) {
		flags = balloon_build(s);
		balloon_send(s, b, WSR_CAUSE_RECLAIM, flags);
	}
	return 0;
}

struct answer_ctx {
	struct scratch *s;
	struct wsr_balloon *b;
	__u32 answered;
	int err;
};

/*
 * One step of balloon_answer(): answer the oldest unanswered request, or
 * stop (return 1) when none is left or the driver cannot take one now.
 * A configuration arriving between the config and the report kfuncs makes
 * the report stale: the next step bins it again.
 */
static int answer_step(__u32 i, struct answer_ctx *c)
{
	struct scratch *s = c->s;
	int err;

	err = balloon_config(s);
	if (!err && s->bcfg.answered >= s->bcfg.requests)
		err = -EALREADY;
	if (!err)
		err = balloon_send(s, c->b, WSR_CAUSE_REQUEST, balloon_build(s));
	c->err = err;
	if (!err)
		c->answered++;
	return err && err != -ESTALE;
}

/*
 * Answer every request of the device still unanswered, each with one
 * report of the data as it is now.  The driver takes one answer per
 * request and refuses more (-EALREADY), so that the daemon and the request
 * hook may race: each request still gets exactly one.  Returns the number
 * answered; c->err holds the driver's last answer (-EALREADY: none left).
 */
static __noinline __u32 balloon_answer(struct answer_ctx *c)
{
	bpf_loop(WSR_BALLOON_ANSWER_STEPS, answer_step, c, 0);
	return c->answered;
}

/*
 * A request of the device waits: the driver fires this when it arrives and
 * every 500 ms while one is unanswered.  The daemon answers it with data
 * it refreshes first; this answers with the data as it is when no daemon
 * serves requests, when the daemon has not claimed the request within
 * WSR_BALLOON_DAEMON_MS, or when its claim has run out (stopped or killed
 * while answering).
 */
SEC("tp_btf/virtio_balloon_ws_request")
int BPF_PROG(wsr_balloon_request_hook, struct virtio_device *vdev, __u64 requests,
	     __u64 answered, unsigned int waited_ms)
{
	struct answer_ctx c = { .s = get_request_scratch(), .b = balloon_state() };
	__u32 zero = 0;
	struct wsr_balloon_claim *claim = bpf_map_lookup_elem(&balloon_claim, &zero);
	__u64 now = bpf_ktime_get_boot_ns();

	if (!c.s || !c.b || !claim)
		return 0;
	if (claim->daemon_pid) {
		if (waited_ms < WSR_BALLOON_DAEMON_MS)
			return 0;
		if (claim->request > answered && now < claim->until_ns)
			return 0;
	}
	if (balloon_answer(&c))
		__sync_fetch_and_add(&c.b->hook_answers, c.answered);
	return 0;
}

/*
 * The daemon's answer: it claims the request, ages what is older than the
 * device's refresh_ms, then reads this iterator over the root cgroup,
 * which prints "answered N err E" (E the driver's last answer, 0 or -errno).
 */
SEC("iter/cgroup")
int wsr_balloon_request(struct bpf_iter__cgroup *ctx)
{
	struct answer_ctx c = { .s = get_request_scratch(), .b = balloon_state() };

	if (!ctx->cgroup || !c.s || !c.b)
		return 0;
	balloon_answer(&c);
	BPF_SEQ_PRINTF(ctx->meta->seq, "answered %u err %d\n", c.answered, c.err);
	return 0;
}

/* ---- memcg removal --------------------------------------------------------- */

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
