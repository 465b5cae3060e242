// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * wsr's balloon programs: per-node histograms of the whole guest handed to
 * the virtio-balloon driver through its kfuncs, which queue them on the
 * device's working-set virtqueue.
 *
 * - fentry/shrink_node: on a pass of global reclaim, a report at most once
 *   per the device's report_ms.
 * - tp_btf/virtio_balloon_ws_request: the driver's request tracepoint; an
 *   answer when no daemon answers in time.
 * - iter/cgroup wsr_balloon_request: the daemon's answer, after it aged.
 *
 * An object of its own: a program calling a module's kfunc keeps the
 * module loaded, and it loads only where the driver is.  It shares the
 * lruvec reading and binning with the estimator (wsr.bpf.c) through the
 * .bpf.h headers, and the maps of maps.bpf.h through their pins.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "subtree_walk.bpf.h"
#include "balloon.h"

/* GPL-compatible: the 6.1 verifier refuses kfunc calls from other programs */
char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* errno values (uapi asm-generic/errno*.h): the driver's kfuncs return them */
#define EINVAL		22
#define EALREADY	114
#define ESTALE		116


/*
 * The virtio_balloon driver's kfuncs.  Not weak: this object is loaded
 * only where the driver has them (loader/balloon-attach.c), and a driver
 * without them is better refused at load than called through a NULL.
 */
extern int bpf_virtio_balloon_ws_config(void *cfg, __u32 cfg__sz) __ksym;
extern int bpf_virtio_balloon_ws_report(void *nodes, __u32 nodes__sz, __u64 configs,
					__u32 cause, __u64 data_age_ms) __ksym;

/*
 * Made and pinned by the first load of this object, kept by "wsr balloon
 * detach" and reused by every later load, as the estimator's maps are.
 */

/* what wsr last handed to the balloon driver: one entry */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wsr_balloon);
} balloon SEC(".maps");

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
	if (c->num_bins < 2 || c->num_bins > WSR_MAX_BINS)
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
		for (i = 0; i < WSR_MAX_BINS; i++) {
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
	/* the balloon's causes are the wire's (wsr.h) */
	err = bpf_virtio_balloon_ws_report(s->bnodes, nr * sizeof(s->bnodes[0]),
					   s->bcfg.configs, cause, age_ms);
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
