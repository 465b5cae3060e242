// SPDX-License-Identifier: GPL-2.0
/*
 * Holds the virtio_balloon driver's send work inside the window that
 * decides the order of its removal, for the debug kernel's
 * balloon_driver_removed_during_a_failed_send_cancels_its_retry test:
 *
 *   send_hold_fail (fmod_ret/ws_add_report) fails the one add to the ws
 *                  queue with -ENOMEM while "fail" is set.  The send then
 *                  counts its answer as unanswered and re-arms the request
 *                  work, 500 ms on.  On a working queue nothing else can
 *                  fail that add: one report is in flight at a time.
 *   send_hold_rearm (fentry/queue_delayed_work_on) spins for hold_ns in
 *                  that re-arm, once per "armed", when a kworker running
 *                  ws_send_func queues ws_request_func.  The send saw
 *                  ws_ready set before it got here; a removal that starts
 *                  meanwhile must wait for the send before it cancels the
 *                  request work, or the work is queued after its cancel.
 *                  At the end of the hold it records whether ws_ready is
 *                  clear (the removal got to ws_stop() during the hold)
 *                  and when the hold ended, for the loader to check.
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

/*
 * The driver's struct virtio_balloon, as far as this program reads it
 * (CO-RE finds the fields in the kernel's or the module's BTF; the
 * ___wsr suffix keeps the name apart from a vmlinux.h that has it): the
 * flag that ws_stop() clears first, and the request work that is the
 * dwork queued.
 */
struct virtio_balloon___wsr {
	bool ws_ready;
	struct delayed_work ws_request_work;
} __attribute__((preserve_access_index));

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
	struct virtio_balloon___wsr *vb;
	struct kthread *kthread;
	struct worker *worker;
	__u64 t0, deadline;
	int i;

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
	/* each bpf_loop() at most 1 << 23 clock reads: more than a second
	 * under TCG, a quarter of one under KVM
	 */
	for (i = 0; i < 64 && bpf_ktime_get_ns() < deadline; i++)
		bpf_loop(1 << 23, spin, &deadline, 0);
	vb = (void *)dwork - bpf_core_field_offset(struct virtio_balloon___wsr, ws_request_work);
	state.ready_after = BPF_CORE_READ(vb, ws_ready);
	state.hold_end_ns = bpf_ktime_get_ns();
	state.held_ns = state.hold_end_ns - t0;
	state.holding = 0;
	__sync_fetch_and_add(&state.held, 1);
	return 0;
}
