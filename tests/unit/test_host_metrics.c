// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host balance's Prometheus exposition (host/metrics.c's
 * metrics_text()): the samples and their labels, and Prometheus' own
 * checker on the text (promtool.h).
 */
#include <stdlib.h>
#include <string.h>
#include "metrics.h"
#include "promtool.h"
#include "unit.h"

#define MIB (1ULL << 20)

static struct ws_report rep;

/* two VMs: "a" with a two-node report, "b" down and with none */
static char *two_vms(const char *name_a)
{
	static const __u64 bounds[] = { 1000, 10000, 60000, 9223372036854775807ULL };
	struct metrics_vm v[2] = {
		{ .name = name_a, .up = 1, .report = &rep, .report_age_s = 1.5,
		  .ram = 512 * MIB, .actual = 300 * MIB, .target = 296 * MIB,
		  .reports = { [WSR_CAUSE_REQUEST] = 7, [WSR_CAUSE_RECLAIM] = 3 }, .decisions = 4,
		  .missed_reclaims = 2, .idle_s = 20, .promotion_rate = 0.001 },
		{ .name = "b", .promotion_rate = -1 },
	};
	__u32 n, b;

	memset(&rep, 0, sizeof(rep));
	rep.cause = WSR_CAUSE_RECLAIM;
	rep.data_age_ms = 250;
	rep.ext = (struct ws_report_ext) { .known = 1, .incomplete = 1, .anon_reclaimable = 1,
					   .reclaim_seq = 5, .mem_some_us = 2500000,
					   .mem_full_us = 1250 };
	rep.nr_nodes = 2;
	for (n = 0; n < 2; n++) {
		rep.nodes[n].id = n;
		rep.nodes[n].hist.nr_bins = 4;
		for (b = 0; b < 4; b++) {
			rep.nodes[n].hist.bound_ms[b] = bounds[b];
			rep.nodes[n].hist.anon[b] = (n * 10 + b + 1) * MIB;
			rep.nodes[n].hist.file[b] = (n * 10 + b + 1) * 4096;
		}
	}
	return metrics_text(v, 2);
}

static const char *test_samples(void)
{
	static const char *const want[] = {
		"wsr_up{vm=\"a\"} 1\n",
		"wsr_up{vm=\"b\"} 0\n",
		"wsr_working_set_bytes{vm=\"a\",node=\"0\",type=\"anon\",idle_le_ms=\"1000\"} 1048576\n",
		"wsr_working_set_bytes{vm=\"a\",node=\"1\",type=\"file\",idle_le_ms=\"60000\"} 53248\n",
		"wsr_working_set_bytes{vm=\"a\",node=\"1\",type=\"anon\",idle_le_ms=\"+Inf\"} 14680064\n",
		"wsr_report_age_seconds{vm=\"a\"} 1.5\n",
		"wsr_report_data_age_seconds{vm=\"a\"} 0.25\n",
		"wsr_report_incomplete{vm=\"a\"} 1\n",
		"wsr_report_anon_reclaimable{vm=\"a\"} 1\n",
		"wsr_guest_reclaim_reports_total{vm=\"a\"} 5\n",
		"wsr_guest_memory_some_seconds_total{vm=\"a\"} 2.5\n",
		"wsr_guest_memory_full_seconds_total{vm=\"a\"} 0.00125\n",
		"# TYPE wsr_report_incomplete gauge\n",
		"# TYPE wsr_guest_reclaim_reports_total counter\n",
		"# TYPE wsr_guest_memory_some_seconds_total counter\n",
		"# TYPE wsr_guest_memory_full_seconds_total counter\n",
		"wsr_reports_total{vm=\"a\",cause=\"request\"} 7\n",
		"wsr_reports_total{vm=\"a\",cause=\"reclaim\"} 3\n",
		"wsr_reports_total{vm=\"b\",cause=\"reclaim\"} 0\n",
		"wsr_balloon_target_bytes{vm=\"a\"} 310378496\n",
		"wsr_balloon_actual_bytes{vm=\"a\"} 314572800\n",
		"wsr_guest_ram_bytes{vm=\"a\"} 536870912\n",
		"wsr_balance_decisions_total{vm=\"a\"} 4\n",
		"wsr_balance_decisions_total{vm=\"b\"} 0\n",
		"# TYPE wsr_reports_total counter\n",
		"# TYPE wsr_balance_decisions_total counter\n",
		"# TYPE wsr_working_set_bytes gauge\n",
		"wsr_balance_missed_reclaims_total{vm=\"a\"} 2\n",
		"wsr_balance_missed_reclaims_total{vm=\"b\"} 0\n",
		"wsr_balance_idle_threshold_seconds{vm=\"a\"} 20\n",
		"wsr_balance_promotion_rate{vm=\"a\"} 0.001\n",
		"# TYPE wsr_balance_missed_reclaims_total counter\n",
		"# TYPE wsr_balance_idle_threshold_seconds gauge\n",
	};
	char *t = two_vms("a");
	unsigned int i;

	ASSERT_OK_PTR(t, "the exposition");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ASSERT_HAS_SUBSTR(t, want[i], "the exposition");
	/* 2 nodes x 4 bins x 2 types of "a"; nothing of "b"'s missing report */
	ASSERT_EQ(count(t, "\nwsr_working_set_bytes{"), 16, "working-set samples");
	/* b has none */
	ASSERT_NO_SUBSTR(t, "wsr_balloon_target_bytes{vm=\"b\"}", "the exposition");
	/* b has no T (not working-set) and no rate */
	ASSERT_NO_SUBSTR(t, "wsr_balance_idle_threshold_seconds{vm=\"b\"}", "the exposition");
	ASSERT_NO_SUBSTR(t, "wsr_balance_promotion_rate{vm=\"b\"}", "the exposition");
	free(t);
	return NULL;
}

/*
 * The extended header's samples come only from a report that has it: a
 * VM whose QEMU predates the 32-byte header has its other samples, not
 * these (no 0 that would read as "complete" or "no pressure")
 */
static const char *test_older_qemu_has_no_header_samples(void)
{
	static const char *const ext_names[] = {
		"wsr_report_incomplete{", "wsr_report_anon_reclaimable{",
		"wsr_guest_reclaim_reports_total{", "wsr_guest_memory_some_seconds_total{",
		"wsr_guest_memory_full_seconds_total{",
	};
	char *t = two_vms("a");
	unsigned int i;

	free(t);
	rep.ext = (struct ws_report_ext) { 0 };
	{
		struct metrics_vm v = { .name = "old", .up = 1, .report = &rep };

		t = metrics_text(&v, 1);
	}
	ASSERT_OK_PTR(t, "the exposition");
	ASSERT_HAS_SUBSTR(t, "wsr_report_data_age_seconds{vm=\"old\"} 0.25\n", "the exposition");
	for (i = 0; i < sizeof(ext_names) / sizeof(ext_names[0]); i++)
		ASSERT_NO_SUBSTR(t, ext_names[i], "the exposition");
	free(t);
	return NULL;
}

static const char *test_label_escapes(void)
{
	char *t = two_vms("x\"y\\z\n");

	ASSERT_HAS_SUBSTR(t, "wsr_up{vm=\"x\\\"y\\\\z\\n\"} 1\n", "the exposition");
	free(t);
	return NULL;
}

/* promtool check metrics: the format and Prometheus' naming rules */
static const char *test_promtool_accepts(void)
{
	char *t = two_vms("a");
	const char *err;

	ASSERT_OK_PTR(t, "the exposition");
	err = promtool_check(t);
	free(t);
	return err;
}

static const struct unit_test tests[] = {
	{ "metrics_samples_and_labels", test_samples },
	{ "metrics_label_values_escaped", test_label_escapes },
	{ "metrics_older_qemu_has_no_header_samples", test_older_qemu_has_no_header_samples },
	{ "metrics_exposition_passes_promtool_check", test_promtool_accepts },
};

UNIT_MAIN(tests)
