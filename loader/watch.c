// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* wsr watch: print each report made on reclaim as it comes. */
#include <errno.h>
#include <stdio.h>
#include "cli.h"

struct watch_ctx {
	const struct wsr_memcg *m;
	bool json;
	long count, seen;	/* count -1: no --count */
};

static int on_report(void *ctx, __u32 node, const struct wsr_report *rep)
{
	struct watch_ctx *w = ctx;

	/* one poll may bring more reports than --count still wants */
	if (w->count > 0 && w->seen >= w->count)
		return 0;
	if (w->json) {
		if (wsr_json_print(stdout, wsr_report_json(w->m->rel, node, rep), "\n")) {
			err_msg("out of memory");
			exiting = 1;
			return -ENOMEM;
		}
	} else {
		printf("N%u\n", node);
		wsr_print_hist(stdout, &rep->hist);
	}
	fflush(stdout);
	if (w->count > 0 && ++w->seen >= w->count)
		exiting = 1;
	return 0;
}

static int do_watch(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "memcg", required_argument, NULL, 'm' },
		{ "node", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "count", required_argument, NULL, 'c' },
		{ 0 },
	};
	struct watch_ctx w = { .count = -1 };
	struct wsr_watch *watch;
	const char *memcg = "/";
	struct wsr_memcg m;
	struct wsr_pins p;
	struct wsr_err err;
	int opt, node = -1, ret = 0;
	__u64 v;

	while ((opt = cmd_getopt(argc, argv, "m:n:jc:", opts)) != -1) {
		switch (opt) {
		case 'm':
			memcg = optarg;
			break;
		case 'n':
			if (parse_node_opt(optarg, &node))
				return 2;
			break;
		case 'j':
			w.json = true;
			break;
		case 'c':
			if (wsr_parse_range(optarg, &v, 1, WSR_BIN_INF, "--count", &err)) {
				err_msg("%s", err.msg);
				return 2;
			}
			w.count = (long)v;
			break;
		default:
			return 2;
		}
	}
	if (!cmd_args(argc, argv, 0, NULL))
		return 2;
	if (wsr_memcg_resolve(&sys, memcg, &m, &err) || wsr_pins_open(&p, pin_dir, &sys, &err)) {
		err_msg("%s", err.msg);
		return 1;
	}
	w.m = &m;
	if (wsr_watch_open(&p, &m, node, on_report, &w, &watch, &err)) {
		err_msg("%s", err.msg);
		wsr_pins_close(&p);
		return 1;
	}
	while (!exiting && !ret)
		if (wsr_watch_poll(watch, 200, &err)) {
			err_msg("%s", err.msg);
			ret = 1;
		}
	wsr_watch_close(watch);
	wsr_pins_close(&p);
	return ret;
}

const struct wsr_cmd cmd_watch = {
	.name = "watch",
	.fn = do_watch,
	.synopsis = "[--memcg PATH] [--node N] [--json] [--count N]",
	.help =
"Wait for reports made on reclaim and print each: global reclaim reports\n"
"the node level (--memcg /), reclaim within a memcg's limit that memcg; at\n"
"most one per report_ms; 8 watchers at a time.\n\n"
MEMCG_HELP NODE_HELP JSON_HELP
"  -c, --count N          stop after N reports\n",
};
