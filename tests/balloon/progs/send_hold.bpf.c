// SPDX-License-Identifier: GPL-2.0
/*
 * Holds the virtio_balloon driver's send work inside the window that
 * decides the order of its removal, for the debug kernel's
 * balloon_driver_removed_during_a_failed_send_leaves_no_work test:
 *
 *   send_hold_fail (fmod_ret/ws_add_report) fails the one add to the ws
 *                  queue with -ENOMEM while "fail" is set.  The send then
 *                  counts its answer as unanswered and re-arms the request
 *                  work, 500 ms on.  On a working queue nothing else can
 *                  fail that add: one report is in flight at a time.
 *   send_hold_rearm (fentry/queue_delayed_work_on) spins for hold_ns in
 *                  that re-arm, once per "armed", when a kworker running
 *                  ws_send_func queues ws_request_func.  The send has seen
 *                  ws_ready set by then; a removal that starts meanwhile
 *                  must still find the request work queued, and cancel it.
 *
 * The two functions' addresses come from /proc/kallsyms (send-hold.c):
 * they are the driver's own, static ones.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "send_hold.h"

char LICENSE[] SEC("license") = "GPL";

#define ENOMEM		12
/* include/linux/sched.h: the task is a workqueue worker */
#define PF_WQ_WORKER	0x00000020

const volatile __u64 send_func;		/* ws_send_func */
const volatile __u64 request_func;	/* ws_request_func */
const volatile __u64 hold_ns;

struct send_hold_state state;

SEC("fmod_ret/ws_add_report")
int BPF_PROG(send_hold_fail, void *vq, void *sg, void *data)
{
	if (!state.fail)
		return 0;
	__sync_fetch_and_add(&state.failed, 1);
	return -ENOMEM;
}

static long spin(__u64 i, void *deadline)
{
	return bpf_ktime_get_ns() >= *(__u64 *)deadline;
}

SEC("fentry/queue_delayed_work_on")
int BPF_PROG(send_hold_rearm, int cpu, struct workqueue_struct *wq,
	     struct delayed_work *dwork, unsigned long delay)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct kthread *kthread;
	struct worker *worker;
	__u64 t0, deadline;

	if (!state.armed || (__u64)dwork->work.func != request_func)
		return 0;
	/* only the send work's re-arm: the request work re-arms itself too */
	if (!(task->flags & PF_WQ_WORKER))
		return 0;
	kthread = task->worker_private;
	worker = BPF_CORE_READ(kthread, data);
	if ((__u64)BPF_CORE_READ(worker, current_func) != send_func)
		return 0;
	/* one hold per arming: one send work runs at a time */
	state.armed = 0;
	t0 = bpf_ktime_get_ns();
	deadline = t0 + hold_ns;
	state.holding = 1;
	/* 1 << 23 is bpf_loop()'s most: more than a second of clock reads */
	bpf_loop(1 << 23, spin, &deadline, 0);
	state.holding = 0;
	state.held_ns = bpf_ktime_get_ns() - t0;
	__sync_fetch_and_add(&state.held, 1);
	return 0;
}
