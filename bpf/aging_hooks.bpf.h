/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The aging hooks: on entry and exit of try_to_inc_max_seq(), the one
 * function every MGLRU aging goes through, record per lruvec what the
 * aging merged and when it was born, as parts of the oldest generation
 * (the pinned map vgens; the rules in vgen.h), so that merged generations
 * keep their ages (docs/estimator.md "Aging and idle ages").
 *
 * Part of the estimator (wsr.bpf.c).
 */
#ifndef __WSR_AGING_HOOKS_BPF_H
#define __WSR_AGING_HOOKS_BPF_H

#include "lruvec_hist.bpf.h"

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

#endif /* __WSR_AGING_HOOKS_BPF_H */
