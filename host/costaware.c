// SPDX-License-Identifier: GPL-2.0
/* What reclaim costs a guest: see costaware.h, and docs/policies.md. */
#include "costaware.h"

/* a page of the guest's: what one promotion brings back at least */
#define PAGE 4096ULL

static __u64 t_lo(const struct policy_knobs *k)
{
	return k->idle_min_ms < k->idle_ms ? k->idle_min_ms : k->idle_ms;
}

static __u64 t_hi(const struct policy_knobs *k)
{
	return k->idle_max_ms > k->idle_ms ? k->idle_max_ms : k->idle_ms;
}

__u64 cost_idle_ms(const struct policy_knobs *k, struct cost_state *c)
{
	if (!c->idle_ms) {
		c->idle_ms = k->idle_ms;
		c->rate_ppm = -1;
		c->stall_us_per_30s = -1;
	}
	return c->idle_ms;
}

int cost_promotions(const struct ws_stats *s, __u64 *pages)
{
	if (!s || (s->swap_in < 0 && s->major_faults < 0))
		return -1;
	/*
	 * The sum, as the SLO counts them: a swap-in fault is a major
	 * fault too, so anon comes back counted twice (T goes up sooner)
	 */
	*pages = (s->swap_in > 0 ? (__u64)s->swap_in / PAGE : 0) +
		 (s->major_faults > 0 ? (__u64)s->major_faults : 0);
	return 0;
}

/* bytes idle for less than COST_WS_MS: bins whose bound is within it */
static __u64 ws_bytes(const struct ws_report *r)
{
	__u64 sum = 0;
	__u32 n, b;

	for (n = 0; r && n < r->nr_nodes; n++)
		for (b = 0; b < r->nodes[n].hist.nr_bins; b++)
			if (r->nodes[n].hist.bound_ms[b] <= COST_WS_MS)
				sum += r->nodes[n].hist.anon[b] + r->nodes[n].hist.file[b];
	return sum;
}

static void open_window(struct cost_state *c, __u64 pages, double ms)
{
	c->win_valid = 1;
	c->win_pages = pages;
	c->win_ms = ms;
}

void cost_take_stats(const struct policy_knobs *k, struct cost_state *c,
		     const struct ws_stats *s, double stats_ms, const struct ws_report *r)
{
	__u64 pages, ws, t = cost_idle_ms(k, c);
	double rate;

	if (stats_ms <= c->last_stats_ms || cost_promotions(s, &pages))
		return;
	c->last_stats_ms = stats_ms;
	/* the first stats, or counters that went back (a rebooted guest) */
	if (!c->win_valid || pages < c->win_pages) {
		open_window(c, pages, stats_ms);
		return;
	}
	if (stats_ms - c->win_ms < COST_WINDOW_MS)
		return;
	ws = ws_bytes(r);
	if (!ws) {
		open_window(c, pages, stats_ms);
		return;
	}
	rate = (double)(pages - c->win_pages) * PAGE / (double)ws * 1e6 *
	       (60000.0 / (stats_ms - c->win_ms));
	c->rate_ppm = rate;
	if (rate > (double)k->slo_ppm) {
		t = t * 2 < t_hi(k) ? t * 2 : t_hi(k);
		c->quiet = 0;
	} else if (rate < (double)k->slo_ppm / 4 && ++c->quiet >= COST_QUIET_WINDOWS) {
		t = t / 2 > t_lo(k) ? t / 2 : t_lo(k);
		c->quiet = 0;
	} else if (rate >= (double)k->slo_ppm / 4) {
		c->quiet = 0;
	}
	c->idle_ms = t;
	open_window(c, pages, stats_ms);
}

void cost_take_report(struct cost_state *c, const struct ws_report *r, double report_ms)
{
	double at = report_ms - (double)r->data_age_ms;

	if (!r->ext.known) {
		c->psi_valid = 0;
		c->stall_us_per_30s = -1;
		return;
	}
	if (c->psi_valid && at > c->psi_ms && r->ext.mem_some_us >= c->psi_us)
		c->stall_us_per_30s = (double)(r->ext.mem_some_us - c->psi_us) *
				      COST_STALL_PER_MS / (at - c->psi_ms);
	else if (c->psi_valid && r->ext.mem_some_us < c->psi_us)
		c->stall_us_per_30s = -1;
	if (!c->psi_valid || at > c->psi_ms) {
		c->psi_valid = 1;
		c->psi_us = r->ext.mem_some_us;
		c->psi_ms = at;
	}
}

int cost_stalled(const struct policy_knobs *k, const struct cost_state *c)
{
	return c->stall_us_per_30s >= 0 && c->stall_us_per_30s >= (double)k->pressure_us;
}
