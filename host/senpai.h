/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pressure policy's rule: oomd's Senpai (src/oomd/plugins/Senpai.cpp),
 * ported to the balloon.  Senpai moves a cgroup's memory.high; here the
 * limit is the balloon target, the guest's memory as QMP counts it.  Pure:
 * the caller reads the guest's cumulative memory stall and passes it in,
 * once per tick, so that tests/unit/test_host_senpai.c can replay
 * recorded sequences.
 *
 * Each tick adds the stall since the last tick to a running sum.  When
 * the sum reaches the target, the limit backs off at once, by a factor
 * that grows with the square of the overshoot; otherwise, every
 * @interval ticks, the limit probes down, by a factor that grows with the
 * square of how far the stall stayed under the target.  Either resets the
 * sum and the countdown.
 */
#ifndef __WSR_HOST_SENPAI_H
#define __WSR_HOST_SENPAI_H

#include <linux/types.h>

struct senpai_knobs {
	unsigned int interval;	/* ticks between probes */
	double pressure_us;	/* stall per interval the rule aims at */
	double max_probe;	/* largest probe, a fraction of the limit */
	double max_backoff;	/* largest backoff, a fraction of the limit */
	/* max_probe is reached when the stall falls below pressure / coeff_probe */
	double coeff_probe;
	/* max_backoff is reached at a stall of pressure * coeff_backoff */
	double coeff_backoff;
};

struct senpai_state {
	__u64 limit;		/* bytes; 0 before senpai_start() */
	__u64 last_total_us;	/* the stall total at the last tick */
	__u64 cumulative_us;	/* stall since the last adjustment */
	unsigned int ticks;	/* ticks left before the next probe */
};

/* Senpai's defaults: 6 ticks, 10 ms, 1% probe, 100% backoff, 10, 20 */
void senpai_knobs_default(struct senpai_knobs *k);

/* (re)start from @limit (the guest's memory now) and its stall total */
void senpai_start(const struct senpai_knobs *k, struct senpai_state *s, __u64 limit,
		  __u64 total_us);

/*
 * One tick: @total_us is the guest's cumulative stall ("some" total of
 * /proc/pressure/memory, in µs).  The new limit is kept within [@min,
 * @max] and rounded down to 4 KiB.  Returns the factor applied to the
 * limit: negative for a probe, positive for a backoff, 0 for none.  A
 * total that went backwards (a rebooted guest) restarts the state.
 */
double senpai_tick(const struct senpai_knobs *k, struct senpai_state *s, __u64 total_us,
		   __u64 min, __u64 max);

#endif /* __WSR_HOST_SENPAI_H */
