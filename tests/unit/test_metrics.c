// SPDX-License-Identifier: GPL-2.0
/*
 * "wsr metrics": libwsr's exposition of guest histograms
 * (wsr_print_metrics()) checked sample by sample and by Prometheus' own
 * checker (promtool.h), and the memcg paths --all-memcgs finds for the
 * configured ids (wsr_memcg_paths()) in a fake cgroup tree.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "libwsr.h"
#include "promtool.h"
#include "unit.h"

#define NOW_NS 100000000000ULL

/* "/" and @name, each on nodes 0 and 1, with 4 bins (3 intervals) */
static char *exposition(const char *name)
{
	static const __u64 bounds[] = { 1000, 10000, 60000, WSR_BIN_INF };
	struct wsr_metrics_entry e[4] = {};
	char *text = NULL;
	size_t len = 0;
	unsigned int i, b;
	FILE *f;

	for (i = 0; i < 4; i++) {
		struct wsr_report *r = &e[i].rep;

		e[i].memcg = i < 2 ? "/" : name;
		e[i].node = i % 2;
		e[i].reclaim_reports = i * 3;
		r->time_ns = NOW_NS - 1500000000ULL * i;
		r->flags = i == 3 ? WSR_REPORT_INCOMPLETE : 0;
		/* "/job" on node 0 could not swap; on node 1 one of its memcgs could */
		r->hist.flags = i == 2 ? WSR_HIST_NOSWAP :
				i == 3 ? WSR_HIST_NOSWAP | WSR_HIST_SWAP : WSR_HIST_SWAP;
		r->hist.nr_bins = 4;
		for (b = 0; b < 4; b++) {
			r->hist.bound_ms[b] = bounds[b];
			r->hist.anon[b] = i * 100 + b + 1;
			r->hist.file[b] = i * 1000 + b + 1;
		}
	}
	f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	if (wsr_print_metrics(f, e, 4, 4096, NOW_NS)) {
		fclose(f);
		free(text);
		return NULL;
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static const char *test_samples(void)
{
	static const char *const want[] = {
		"# TYPE wsr_working_set_bytes gauge\n",
		"wsr_working_set_bytes{memcg=\"/\",node=\"0\",type=\"anon\",idle_le_ms=\"1000\"} 4096\n",
		"wsr_working_set_bytes{memcg=\"/\",node=\"1\",type=\"file\",idle_le_ms=\"60000\"} "
		"4108288\n",
		"wsr_working_set_bytes{memcg=\"/job\",node=\"1\",type=\"anon\",idle_le_ms=\"+Inf\"} "
		"1245184\n",
		"# TYPE wsr_working_set_age_seconds gauge\n",
		"wsr_working_set_age_seconds{memcg=\"/\",node=\"0\"} 0.000\n",
		"wsr_working_set_age_seconds{memcg=\"/job\",node=\"1\"} 4.500\n",
		"wsr_working_set_incomplete{memcg=\"/job\",node=\"0\"} 0\n",
		"wsr_working_set_incomplete{memcg=\"/job\",node=\"1\"} 1\n",
		"# TYPE wsr_working_set_anon_reclaimable gauge\n",
		"wsr_working_set_anon_reclaimable{memcg=\"/\",node=\"0\"} 1\n",
		"wsr_working_set_anon_reclaimable{memcg=\"/job\",node=\"0\"} 0\n",
		"wsr_working_set_anon_reclaimable{memcg=\"/job\",node=\"1\"} 1\n",
		"# TYPE wsr_reports_total counter\n",
		"wsr_reports_total{memcg=\"/job\",node=\"1\",cause=\"reclaim\"} 9\n",
	};
	static const char *const names[] = { "wsr_working_set_bytes",
		"wsr_working_set_age_seconds", "wsr_working_set_incomplete",
		"wsr_working_set_anon_reclaimable", "wsr_reports_total" };
	char *t = exposition("/job"), help[128], type[128];
	const char *h;
	unsigned int i;

	ASSERT_OK_PTR(t, "the exposition");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ASSERT_HAS_SUBSTR(t, want[i], "the exposition");
	/* 2 memcgs x 2 nodes x 4 bins x 2 types */
	ASSERT_EQ(count(t, "\nwsr_working_set_bytes{"), 32, "working-set samples");
	/* every metric has its HELP, right before its TYPE */
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(help, sizeof(help), "# HELP %s ", names[i]);
		snprintf(type, sizeof(type), "\n# TYPE %s ", names[i]);
		h = strstr(t, help);
		ASSERT_OK_PTR(h, "the HELP of %s", names[i]);
		ASSERT_STRPREFIX(strchr(h, '\n'), type, "the line after the HELP of %s", names[i]);
	}
	free(t);
	return NULL;
}

static const char *test_label_escapes(void)
{
	char *t = exposition("/a\"b\\c\nd");

	ASSERT_HAS_SUBSTR(t, "wsr_reports_total{memcg=\"/a\\\"b\\\\c\\nd\",node=\"0\","
			  "cause=\"reclaim\"} 6\n", "the exposition");
	free(t);
	return NULL;
}

/*
 * A cgroup's name may hold any byte, the format takes UTF-8 alone: a byte
 * that begins no valid sequence (0xff; an overlong "/" C0 AF; a surrogate
 * ED A0 80; a sequence cut short E2 82) is written \xHH, and valid UTF-8
 * (é, C3 A9; U+10FFFF, F4 8F BF BF) is kept as it is.
 */
static const char *test_label_not_utf8_escaped(void)
{
	char *t = exposition("/a\xff\xc0\xaf" "b\xc3\xa9\xed\xa0\x80\xf4\x8f\xbf\xbf\xe2\x82");

	ASSERT_OK_PTR(t, "the exposition");
	ASSERT_HAS_SUBSTR(t, "wsr_reports_total{memcg=\"/a\\\\xff\\\\xc0\\\\xafb\xc3\xa9"
			  "\\\\xed\\\\xa0\\\\x80\xf4\x8f\xbf\xbf\\\\xe2\\\\x82\",node=\"0\","
			  "cause=\"reclaim\"} 6\n", "the exposition");
	free(t);
	return NULL;
}

static const char *test_promtool_accepts(void)
{
	char *t = exposition("/a\"b\\c\xff\xc3\xa9\xed\xa0\x80");
	const char *err;

	ASSERT_OK_PTR(t, "the exposition");
	err = promtool_check(t);
	free(t);
	return err;
}

static char base[] = "/tmp/wsr-test-metrics.XXXXXX";

static int remove_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static void remove_base(void)
{
	nftw(base, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* the paths of ids in a tree; ids of no folder (a memcg gone) left out */
static const char *test_memcg_paths(void)
{
	static const char *const dirs[] = { "job", "job/web", "job/db", "zz", "a\"q" };
	struct wsr_err err;
	struct stat st;
	char p[PATH_MAX], **paths = NULL;
	__u64 ids[5];
	size_t n = 0, i;
	static const char *const want[] = { "/", "/a\"q", "/job/db", "/zz" };

	ASSERT_OK_PTR(mkdtemp(base), "mkdtemp: %m");
	atexit(remove_base);
	for (i = 0; i < 5; i++) {
		snprintf(p, sizeof(p), "%s/%s", base, dirs[i]);
		ASSERT_OK(mkdir(p, 0755), "mkdir %s: %m", p);
		ASSERT_OK(stat(p, &st), "stat %s: %m", p);
		ids[i] = st.st_ino;
	}
	ASSERT_OK(stat(base, &st), "stat %s: %m", base);
	/* the root, job/db, zz, a"q, and an id of nothing; not job, job/web */
	ids[0] = st.st_ino;
	ids[1] = 123456789;
	ASSERT_OK(wsr_memcg_paths(base, ids, 5, &paths, &n, &err), "%s", err.msg);
	ASSERT_EQ(n, 4, "paths");
	for (i = 0; i < n; i++)
		ASSERT_STREQ(paths[i], want[i], "path %zu", i);
	wsr_free_paths(paths, n);
	return NULL;
}

static const struct unit_test tests[] = {
	{ "metrics_samples_are_bytes_with_the_hosts_labels", test_samples },
	{ "metrics_memcg_label_escaped", test_label_escapes },
	{ "metrics_memcg_label_not_utf8_escaped", test_label_not_utf8_escaped },
	{ "metrics_exposition_passes_promtool_check", test_promtool_accepts },
	{ "metrics_all_memcgs_finds_configured_paths", test_memcg_paths },
};

UNIT_MAIN(tests)
