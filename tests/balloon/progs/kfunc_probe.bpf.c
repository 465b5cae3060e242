// SPDX-License-Identifier: GPL-2.0
/*
 * Calls the virtio_balloon working-set kfuncs the ways a careless or a
 * busy tracing program would, for tests/balloon/kfunc_*.sh:
 *
 *   kfunc_probe_null   (iter/cgroup, run by reading it) passes the result
 *                      of a lookup in an empty map, NULL at run time,
 *                      which the 6.1 verifier lets through to a
 *                      ptr, ptr__sz pair; then a valid buffer.
 *   kfunc_probe_switch (tp_btf/sched_switch) reads the configuration and
 *                      queues a report on every context switch, under
 *                      the runqueue lock, counting what the kfuncs return.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "wsr.h"
#include "kfunc_probe.h"

extern int bpf_virtio_balloon_ws_config(void *cfg, __u32 cfg__sz) __ksym;
extern int bpf_virtio_balloon_ws_report(void *nodes, __u32 nodes__sz, __u64 configs,
					__u32 cause, __u64 data_age_ms) __ksym;

char LICENSE[] SEC("license") = "GPL";

/* vmlinux.h has no errno values */
#define EINVAL	22
#define EBUSY	16
#define ENODEV	19
#define ESTALE	116

/* never written: every lookup returns NULL */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wsr_balloon_node);
} empty_nodes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wsr_balloon_config);
} empty_config SEC(".maps");

/* what a context switch hands the driver: per CPU, as programs nest */
struct switch_buf {
	struct wsr_balloon_config cfg;
	struct wsr_balloon_node node;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct switch_buf);
} switch_bufs SEC(".maps");

struct kfunc_tally tally;

static void count(int err)
{
	if (err == -EBUSY)
		__sync_fetch_and_add(&tally.busy, 1);
	else if (err == -ENODEV)
		__sync_fetch_and_add(&tally.nodev, 1);
	else if (err == -ESTALE)
		__sync_fetch_and_add(&tally.stale, 1);
	else if (err) {
		__sync_fetch_and_add(&tally.other, 1);
		tally.last_other = err;
	}
}

SEC("iter/cgroup")
int kfunc_probe_null(struct bpf_iter__cgroup *ctx)
{
	struct wsr_balloon_config *cfg_null, cfg = {};
	struct wsr_balloon_node *node_null;
	__u32 zero = 0;
	int err_cfg, err_report, err_valid;

	if (ctx->meta->seq_num != 0 || !ctx->cgroup)
		return 0;
	cfg_null = bpf_map_lookup_elem(&empty_config, &zero);
	node_null = bpf_map_lookup_elem(&empty_nodes, &zero);
	/* no NULL check, on purpose */
	err_cfg = bpf_virtio_balloon_ws_config(cfg_null, sizeof(*cfg_null));
	err_report = bpf_virtio_balloon_ws_report(node_null, sizeof(*node_null), 0,
						  WSR_CAUSE_RECLAIM, 0);
	err_valid = bpf_virtio_balloon_ws_config(&cfg, sizeof(cfg));
	BPF_SEQ_PRINTF(ctx->meta->seq, "config_null=%d report_null=%d config=%d\n",
		       err_cfg, err_report, err_valid);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(kfunc_probe_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	struct switch_buf *b;
	__u32 zero = 0;
	int err;

	b = bpf_map_lookup_elem(&switch_bufs, &zero);
	if (!b)
		return 0;
	__sync_fetch_and_add(&tally.calls, 1);
	err = bpf_virtio_balloon_ws_config(&b->cfg, sizeof(b->cfg));
	if (err) {
		count(err);
		return 0;
	}
	b->node.node_id = 0;
	b->node.anon_bytes[0] = 4096;
	b->node.file_bytes[0] = 8192;
	err = bpf_virtio_balloon_ws_report(&b->node, sizeof(b->node), b->cfg.configs,
					   WSR_CAUSE_RECLAIM, 0);
	if (err)
		count(err);
	else
		__sync_fetch_and_add(&tally.queued, 1);
	return 0;
}
