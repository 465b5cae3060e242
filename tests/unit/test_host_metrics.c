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
		  .reports = { [WSR_CAUSE_REQUEST] = 7, [WSR_CAUSE_RECLAIM] = 3 }, .decisions = 4 },
		{ .name = "b" },
	};
	__u32 n, b;

	memset(&rep, 0, sizeof(rep));
	rep.cause = WSR_CAUSE_RECLAIM;
	rep.data_age_ms = 250;
	rep.nr_nodes = 2;
	for (n = 0; n < 2; n++) {
		rep.nodes[n].id = n;
		rep.nodes[n].nr_bins = 4;
		for (b = 0; b < 4; b++) {
			rep.nodes[n].bins[b].idle_le_ms = bounds[b];
			rep.nodes[n].bins[b].anon = (n * 10 + b + 1) * MIB;
			rep.nodes[n].bins[b].file = (n * 10 + b + 1) * 4096;
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
	{ "metrics_exposition_passes_promtool_check", test_promtool_accepts },
};

UNIT_MAIN(tests)
