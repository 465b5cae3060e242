// SPDX-License-Identifier: GPL-2.0
/* The pressure policy's rule, after oomd's Senpai: see senpai.h. */
#include "senpai.h"

void senpai_knobs_default(struct senpai_knobs *k)
{
	k->interval = 6;
	k->pressure_us = 10000;
	k->max_probe = 0.01;
	k->max_backoff = 1.0;
	k->coeff_probe = 10;
	k->coeff_backoff = 20;
}

void senpai_start(const struct senpai_knobs *k, struct senpai_state *s, __u64 limit,
		  __u64 total_us)
{
	s->limit = limit;
	s->last_total_us = total_us;
	s->cumulative_us = 0;
	s->ticks = k->interval;
}

/* limit * (1 + factor), within [min, max], a multiple of 4 KiB */
static void adjust(const struct senpai_knobs *k, struct senpai_state *s, double factor,
		   __u64 min, __u64 max)
{
	double v = (double)s->limit * (1.0 + factor);
	__u64 limit = v <= 0 ? 0 : v >= (double)max ? max : (__u64)v;

	if (limit < min)
		limit = min;
	if (limit > max)
		limit = max;
	s->limit = limit & ~0xfffULL;
	s->ticks = k->interval;
	s->cumulative_us = 0;
}

double senpai_tick(const struct senpai_knobs *k, struct senpai_state *s, __u64 total_us,
		   __u64 min, __u64 max)
{
	double err, factor;

	if (total_us < s->last_total_us) {
		senpai_start(k, s, s->limit, total_us);
		return 0;
	}
	s->cumulative_us += total_us - s->last_total_us;
	s->last_total_us = total_us;

	if ((double)s->cumulative_us >= k->pressure_us) {
		/* too much stall: back off at once, by the overshoot squared */
		err = (double)s->cumulative_us / k->pressure_us / k->coeff_backoff;
		factor = err * err * k->max_backoff;
		if (factor > k->max_backoff)
			factor = k->max_backoff;
		adjust(k, s, factor, min, max);
		return factor;
	}
	if (s->ticks) {
		s->ticks--;
		return 0;
	}
	/* too little stall for a whole interval: probe, by the undershoot squared */
	err = k->pressure_us / (double)(s->cumulative_us ? s->cumulative_us : 1) / k->coeff_probe;
	factor = err * err * k->max_probe;
	if (factor > k->max_probe)
		factor = k->max_probe;
	adjust(k, s, -factor, min, max);
	return -factor;
}
