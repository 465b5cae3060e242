// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* wsr show, wsr reaccess: histograms in the seed's formats or as JSON. */
#include <stdio.h>
#include "cli.h"

enum format { TEXT, JSON, BARS };

/*
 * memcg format ("N0" then bins, per node) or node format (one node, bins),
 * or a JSON array of one report per node; -1 when out of memory
 */
static int print_hists(const struct wsr_memcg *m, const struct wsr_report *reps,
		       __u64 nodes, int only_node, enum format fmt)
{
	struct json_object *arr = fmt == JSON ? json_object_new_array() : NULL;
	int err = 0;
	__u32 n;

	for (n = 0; n < WSR_MAX_NODES; n++) {
		if (!(nodes >> n & 1) || (only_node >= 0 && (int)n != only_node))
			continue;
		if (reps[n].flags & WSR_REPORT_INCOMPLETE)
			err_msg("warning: the N%u histogram is incomplete: its memcg walk "
				"ran out of its %u steps (wsr daemon --max-walk-steps)", n,
				wsr_loaded_walk_steps(pin_dir));
		if (fmt == JSON) {
			err |= wsr_json_append(arr, wsr_report_json(m->rel, n, &reps[n]));
		} else {
			if (only_node < 0)
				printf("N%u\n", n);
			if (fmt == BARS)
				wsr_print_hist_bars(stdout, &reps[n].hist, 40);
			else
				wsr_print_hist(stdout, &reps[n].hist);
		}
	}
	if (fmt != JSON)
		return 0;
	if (err) {
		json_object_put(arr);
		return -1;
	}
	return wsr_json_print(stdout, arr, "\n");
}

enum { OPT_NO_REFRESH = 256 };

static int show(int argc, char **argv, bool reaccess)
{
	static const struct option show_opts[] = {
		{ "memcg", required_argument, NULL, 'm' },
		{ "node", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "bars", no_argument, NULL, 'b' },
		{ "no-refresh", no_argument, NULL, OPT_NO_REFRESH },
		{ 0 },
	};
	/* reaccess: the same without --bars */
	static const struct option reaccess_opts[] = {
		{ "memcg", required_argument, NULL, 'm' },
		{ "node", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-refresh", no_argument, NULL, OPT_NO_REFRESH },
		{ 0 },
	};
	struct wsr_report reps[WSR_MAX_NODES] = {};
	__u64 nodes = wsr_memory_nodes(&sys);
	const char *memcg = "/";
	bool json = false, bars = false, no_refresh = false;
	struct wsr_memcg m;
	struct wsr_pins p;
	struct wsr_err err;
	int opt, node = -1, ret;

	while ((opt = cmd_getopt(argc, argv, reaccess ? "m:n:j" : "m:n:jb",
				 reaccess ? reaccess_opts : show_opts)) != -1) {
		switch (opt) {
		case 'm':
			memcg = optarg;
			break;
		case 'n':
			if (parse_node_opt(optarg, &node))
				return 2;
			break;
		case 'j':
			json = true;
			break;
		case 'b':
			bars = true;
			break;
		case OPT_NO_REFRESH:
			no_refresh = true;
			break;
		default:
			return 2;
		}
	}
	if (!cmd_args(argc, argv, 0, NULL))
		return 2;
	if (json && bars) {
		err_msg("--json and --bars: one or the other");
		return 2;
	}
	if (wsr_memcg_resolve(&sys, memcg, &m, &err) || wsr_pins_open(&p, pin_dir, &sys, &err)) {
		err_msg("%s", err.msg);
		return 1;
	}
	ret = reaccess ? wsr_read_reaccess(&p, &m, nodes, !no_refresh, reps, &err) :
			 wsr_read_hists(&p, &m, nodes, !no_refresh, reps, &err);
	if (ret) {
		err_msg("%s", err.msg);
		wsr_pins_close(&p);
		return 1;
	}
	ret = print_hists(&m, reps, nodes, node, json ? JSON : bars ? BARS : TEXT);
	if (ret)
		err_msg("out of memory");
	wsr_pins_close(&p);
	return ret ? 1 : 0;
}

static int do_show(int argc, char **argv)
{
	return show(argc, argv, false);
}

const struct wsr_cmd cmd_show = {
	.name = "show",
	.fn = do_show,
	.synopsis = "[--memcg PATH] [--node N] [--json | --bars] [--no-refresh]",
	.help =
"Print the working-set histogram of each node with memory: the last report\n"
"if younger than refresh_ms, else collected again, after aging the lruvecs\n"
"with fewer than 4 generations whose youngest is older than refresh_ms and\n"
"whose memcg is not below memory.min (refresh_ms 0: no aging).\n\n"
MEMCG_HELP NODE_HELP JSON_HELP
"  -b, --bars             draw each bin's pages as a bar, anon and file\n"
"      --no-refresh       never age, print the live histogram\n",
};

static int do_reaccess(int argc, char **argv)
{
	return show(argc, argv, true);
}

const struct wsr_cmd cmd_reaccess = {
	.name = "reaccess",
	.fn = do_reaccess,
	.synopsis = "[--memcg PATH] [--node N] [--json] [--no-refresh]",
	.help =
"Print the reaccess histogram: pages found young again by aging, binned\n"
"by how long they had been idle.  As the seed's read, on the nodes with\n"
"intervals_ms set, first what wsr show does (aging the lruvecs due):\n"
"that aging is what counts reaccesses.\n\n"
MEMCG_HELP NODE_HELP JSON_HELP
"      --no-refresh       never age, print the counts as they are\n",
};
