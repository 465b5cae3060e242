// SPDX-License-Identifier: GPL-2.0
/* wsr-host's working-set report: printed, and its bins summed (report.h). */
#include "libwsr.h"
#include "report.h"

void ws_report_print(FILE *f, const struct ws_report *r)
{
	struct wsr_hist pages;
	__u32 n, i;

	fprintf(f, "cause=%s data_age_ms=%llu\n", wsr_cause_name(r->cause),
		(unsigned long long)r->data_age_ms);
	if (r->ext.known)
		fprintf(f, "incomplete=%d anon_reclaimable=%d reclaim_seq=%u mem_some_us=%llu "
			"mem_full_us=%llu\n", r->ext.incomplete, r->ext.anon_reclaimable,
			r->ext.reclaim_seq, (unsigned long long)r->ext.mem_some_us,
			(unsigned long long)r->ext.mem_full_us);
	for (n = 0; n < r->nr_nodes && n < WSR_MAX_NODES; n++) {
		/* the guest's pages, which libwsr's printer prints as the seed did */
		pages = r->nodes[n].hist;
		for (i = 0; i < pages.nr_bins && i < WSR_MAX_BINS; i++) {
			pages.anon[i] /= WSR_PAGE_SIZE;
			pages.file[i] /= WSR_PAGE_SIZE;
		}
		fprintf(f, "N%u\n", r->nodes[n].id);
		wsr_print_hist(f, &pages);
	}
}

__u64 ws_report_hot(const struct ws_report *r, __u64 idle_ms)
{
	__u64 sum = 0;
	__u32 n, b;

	for (n = 0; n < r->nr_nodes; n++) {
		const struct wsr_hist *h = &r->nodes[n].hist;

		/* every bin up to the first whose bound reaches T */
		for (b = 0; b < h->nr_bins; b++) {
			sum += h->anon[b] + h->file[b];
			if (h->bound_ms[b] >= idle_ms)
				break;
		}
	}
	return sum;
}

__u64 ws_report_kept(const struct ws_report *r, __u64 idle_ms)
{
	__u64 sum = ws_report_hot(r, idle_ms);
	__u32 n, b;

	if (!r->ext.known || r->ext.anon_reclaimable)
		return sum;
	for (n = 0; n < r->nr_nodes; n++) {
		const struct wsr_hist *h = &r->nodes[n].hist;

		/* the anon of the bins past the one that holds T */
		for (b = 0; b < h->nr_bins && h->bound_ms[b] < idle_ms; b++)
			;
		for (b++; b < h->nr_bins; b++)
			sum += h->anon[b];
	}
	return sum;
}

__u64 ws_report_total(const struct ws_report *r)
{
	__u64 sum = 0;
	__u32 n, b;

	for (n = 0; n < r->nr_nodes; n++)
		for (b = 0; b < r->nodes[n].hist.nr_bins; b++)
			sum += r->nodes[n].hist.anon[b] + r->nodes[n].hist.file[b];
	return sum;
}
