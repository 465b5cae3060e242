// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host balance's command line (host/balance-args.c) against what the
 * operator reads: docs/policies.md's table of knobs is the program's, row
 * for row, and the defaults its table sets are the policy's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "balance-args.h"
#include "unit.h"

#ifndef WSR_SRC_ROOT
#error "WSR_SRC_ROOT: the source tree, where docs/policies.md is"
#endif

#define MAX_ROWS 128

/*
 * The rows of @text's table of knobs, each up to the end of its fourth
 * cell ("| `--NAME` | UNIT | RANGE | DEFAULT |"), into @rows: the count.
 * The docs' section "## The knobs" runs to the next "## ".
 */
static unsigned int knob_rows(char *text, char **rows)
{
	char *line, *save, *sec = strstr(text, "\n## The knobs\n");
	unsigned int n = 0;
	int in = 0;

	if (!sec)
		return 0;
	for (line = strtok_r(sec, "\n", &save); line && n < MAX_ROWS;
	     line = strtok_r(NULL, "\n", &save)) {
		char *p = line;
		int bars = 0;

		if (in && !strncmp(line, "## ", 3))
			break;
		in = 1;
		if (strncmp(line, "| `--", 5))
			continue;
		while (*p && bars < 5)
			bars += *p++ == '|';
		*p = 0;
		rows[n++] = line;
	}
	return n;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, n;
	char buf[4096];
	FILE *m = open_memstream(&text, &len);

	if (!f || !m) {
		if (f)
			fclose(f);
		if (m)
			fclose(m);
		free(text);
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, m);
	fclose(f);
	fclose(m);
	return text;
}

/*
 * Every option's name, unit, range and default in the docs are those
 * balance_knobs_markdown() prints from the table getopt, the range checks
 * and --help are made from, in the same order: a knob added, renamed or
 * changed in one place and not in the other fails here, with the row to
 * paste.
 */
static const char *test_knob_table_is_the_docs(void)
{
	char *doc = slurp(WSR_SRC_ROOT "/docs/policies.md"), *prog = NULL;
	char *want[MAX_ROWS], *have[MAX_ROWS];
	unsigned int nw, nh, i;
	size_t len = 0;
	FILE *m = open_memstream(&prog, &len);

	ASSERT_TRUE(doc != NULL, "docs/policies.md read");
	ASSERT_TRUE(m != NULL, "a memory stream");
	/* the program's rows go through the docs' cut, as a section of their own */
	fputs("\n## The knobs\n", m);
	balance_knobs_markdown(m);
	fclose(m);
	nw = knob_rows(prog, want);
	nh = knob_rows(doc, have);
	ASSERT_GE(nw, 30, "the program's options");
	for (i = 0; i < nw && i < nh; i++)
		ASSERT_STREQ(have[i], want[i], "docs/policies.md's knob row %u", i + 1);
	ASSERT_EQ(nh, nw, "docs/policies.md's knob rows (the program's next: %s)",
		  nh < nw ? want[nh] : "none");
	free(doc);
	free(prog);
	return NULL;
}

/*
 * balance sets its defaults from its table, after policy_knobs_default():
 * each must be the policy's own (what test_host_policy holds and
 * docs/policies.md explains), or balance would run another policy than
 * the one tested.
 */
static const char *test_knob_defaults_are_the_policys(void)
{
	char *argv[] = { "balance", "--vm", "a=/x", NULL };
	struct balance_cfg *c = calloc(1, sizeof(*c));
	struct policy_knobs k;
	int r;

	ASSERT_TRUE(c != NULL, "a config");
	policy_knobs_default(&k);
	r = balance_parse_args(3, argv, c);
	ASSERT_EQ(r, -1, "balance_parse_args's verdict");
	ASSERT_EQ(c->k.kind, k.kind, "the policy");
	ASSERT_EQ(c->k.idle_ms, k.idle_ms, "--idle-ms");
	ASSERT_EQ(c->k.headroom, k.headroom, "--headroom-mib");
	ASSERT_EQ(c->k.reclaim_margin, k.reclaim_margin, "--reclaim-margin-mib");
	ASSERT_EQ(c->k.hold_ms, k.hold_ms, "--hold-ms");
	ASSERT_EQ(c->k.steady_ms, k.steady_ms, "--steady-ms");
	ASSERT_EQ(c->k.step, k.step, "--step-mib");
	ASSERT_EQ(c->k.floor, k.floor, "--floor-mib");
	ASSERT_EQ(c->k.ceiling, k.ceiling, "the ceiling");
	ASSERT_EQ(c->k.max_age_ms, k.max_age_ms, "--max-age-ms");
	ASSERT_EQ(c->k.available_pct, k.available_pct, "--available-pct");
	ASSERT_EQ(c->k.idle_min_ms, k.idle_min_ms, "--idle-min-ms");
	ASSERT_EQ(c->k.idle_max_ms, k.idle_max_ms, "--idle-max-ms");
	ASSERT_EQ(c->k.slo_ppm, k.slo_ppm, "--slo-ppm");
	ASSERT_EQ(c->k.pressure_us, k.pressure_us, "--pressure-us");
	ASSERT_EQ(c->k.pressure_tick_ms, k.pressure_tick_ms, "--pressure-tick-ms");
	ASSERT_EQ(c->k.host_target_pct, k.host_target_pct, "--host-target-pct");
	/* and a field added to the knobs later, which no line above names */
	ASSERT_TRUE(!memcmp(&c->k, &k, sizeof(k)), "the knobs, byte for byte");
	free(c);
	return NULL;
}

static const struct unit_test tests[] = {
	{ "balance_knob_table_is_the_docs", test_knob_table_is_the_docs },
	{ "balance_knob_defaults_are_the_policys", test_knob_defaults_are_the_policys },
};

UNIT_MAIN(tests)
