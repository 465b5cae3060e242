// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libwsr: a guest's histograms in Prometheus' text format (libwsr.h), for
 * node_exporter's textfile collector.  The names, units and labels are
 * wsr-host balance's where the meaning is the same (lib/prom.c): the memcg
 * label stands where the host has vm.
 */
#include <errno.h>
#include "libwsr.h"

/* "NAME{memcg="...",node="N"" without the closing brace */
static void series(FILE *f, const char *name, const struct wsr_metrics_entry *e)
{
	fprintf(f, "%s{memcg=\"", name);
	wsr_prom_label_value(f, e->memcg);
	fprintf(f, "\",node=\"%u\"", e->node);
}

int wsr_print_metrics(FILE *f, const struct wsr_metrics_entry *e, size_t nr, __u64 page_size,
		      __u64 now_ns)
{
	size_t i;
	__u32 b;

	wsr_prom_head(f, "wsr_working_set_bytes", "gauge",
		      "Bytes of the memcg's memory (its subtree; memcg \"/\" is the node level) "
		      "idle for at most idle_le_ms (and more than the bin before), per NUMA node "
		      "and type, as wsr show reads them.");
	for (i = 0; i < nr; i++) {
		const struct wsr_hist *h = &e[i].rep.hist;

		for (b = 0; b < h->nr_bins && b < WSR_MAX_BINS; b++) {
			wsr_prom_ws_sample(f, "memcg", e[i].memcg, e[i].node, false, h->bound_ms[b],
					   h->anon[b] * page_size);
			wsr_prom_ws_sample(f, "memcg", e[i].memcg, e[i].node, true, h->bound_ms[b],
					   h->file[b] * page_size);
		}
	}
	wsr_prom_head(f, "wsr_working_set_age_seconds", "gauge",
		      "Seconds since the histogram's data was collected: the reclaim report a "
		      "read returned (younger than refresh_ms), or the read's own collection.");
	for (i = 0; i < nr; i++) {
		__u64 t = e[i].rep.time_ns;

		series(f, "wsr_working_set_age_seconds", &e[i]);
		fprintf(f, "} %.3f\n", now_ns > t ? (now_ns - t) / 1e9 : 0.0);
	}
	wsr_prom_head(f, "wsr_working_set_incomplete", "gauge",
		      "1 if the histogram's memcg walk ran out of steps and missed memcgs "
		      "(wsr daemon --max-walk-steps).");
	for (i = 0; i < nr; i++) {
		series(f, "wsr_working_set_incomplete", &e[i]);
		fprintf(f, "} %d\n", !!(e[i].rep.flags & WSR_REPORT_INCOMPLETE));
	}
	wsr_prom_head(f, "wsr_reports_total", "counter",
		      "Working-set reports made, by cause: reclaim (global reclaim for memcg \"/\", "
		      "reclaim within the memcg's limits otherwise; at most one per report_ms).");
	for (i = 0; i < nr; i++) {
		series(f, "wsr_reports_total", &e[i]);
		fprintf(f, ",cause=\"reclaim\"} %llu\n", (unsigned long long)e[i].reclaim_reports);
	}
	return ferror(f) ? -EIO : 0;
}
