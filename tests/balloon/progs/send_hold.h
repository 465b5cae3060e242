/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by send_hold.bpf.c and its loader, send_hold.c */
#ifndef __SEND_HOLD_H
#define __SEND_HOLD_H

/* written by both: the loader arms, the programs count and hold */
struct send_hold_state {
	__u32 fail;		/* loader: fail the ws queue's adds */
	__u32 armed;		/* loader: hold the next re-arm (cleared then) */
	__u32 holding;		/* a re-arm is held right now */
	__u32 ready_after;	/* ws_ready at the end of the last hold */
	__u64 failed;		/* adds failed */
	__u64 held;		/* re-arms held */
	__u64 held_ns;		/* how long the last one was held */
	__u64 hold_end_ns;	/* when it ended (CLOCK_MONOTONIC) */
};

#endif /* __SEND_HOLD_H */
