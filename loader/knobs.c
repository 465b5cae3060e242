// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* wsr get, wsr set: the knobs of the seed's memory.wss.* files, per node. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "cli.h"

static const struct option get_opts[] = {
	{ "memcg", required_argument, NULL, 'm' },
	{ "node", required_argument, NULL, 'n' },
	{ "json", no_argument, NULL, 'j' },
	{ 0 },
};

/* set prints nothing: no --json */
static const struct option set_opts[] = {
	{ "memcg", required_argument, NULL, 'm' },
	{ "node", required_argument, NULL, 'n' },
	{ 0 },
};

/* --memcg, --node and (get only: @json not NULL) --json; 2 on bad usage */
static int knob_options(int argc, char **argv, const char **memcg, int *node, bool *json)
{
	int opt;

	*memcg = "/";
	*node = -1;
	while ((opt = cmd_getopt(argc, argv, json ? "m:n:j" : "m:n:",
				 json ? get_opts : set_opts)) != -1) {
		switch (opt) {
		case 'm':
			*memcg = optarg;
			break;
		case 'n':
			if (parse_node_opt(optarg, node))
				return 2;
			break;
		case 'j':
			*json = true;
			break;
		default:
			return 2;
		}
	}
	return 0;
}

/*
 * As the seed's, a memcg reports only with bins: report_ms set on a node
 * without intervals_ms is kept, and said, since nothing else would.
 */
static void warn_no_intervals(const struct wsr_pins *p, const struct wsr_memcg *m,
			      __u64 nodes, int node)
{
	struct wsr_config cfg;
	__u32 n;

	for (n = 0; n < WSR_MAX_NODES; n++) {
		if (!(nodes >> n & 1) || (node >= 0 && (int)n != node))
			continue;
		wsr_get_config(p, m->id, n, &cfg);
		if (cfg.report_ms && !cfg.nr_intervals)
			err_msg("warning: %s has no intervals_ms on N%u: no report until they "
				"are set", m->rel, n);
	}
}

static int do_set(int argc, char **argv)
{
	__u64 nodes = wsr_memory_nodes(&sys);
	const char *memcg, *value;
	struct wsr_err err;
	struct wsr_memcg m;
	struct wsr_pins p;
	int knob, node, opt_node, ret;

	if (knob_options(argc, argv, &memcg, &opt_node, NULL))
		return 2;
	if (!cmd_args(argc, argv, 2,
		      "set takes a knob and a value, e.g. \"wsr set report_ms N0=1000\""))
		return 2;
	knob = wsr_knob_by_name(argv[optind]);
	if (knob < 0) {
		err_msg("unknown knob '%s' (intervals_ms, report_ms, refresh_ms, "
			"reaccess_intervals_ms)", argv[optind]);
		return 2;
	}
	if (wsr_parse_node_value(argv[optind + 1], wsr_possible_nodes(&sys), &node, &value, &err)) {
		err_msg("%s", err.msg);
		return 2;
	}
	if (node >= 0 && opt_node >= 0 && node != opt_node) {
		err_msg("--node %d and N%d= disagree", opt_node, node);
		return 2;
	}
	if (node < 0)
		node = opt_node;
	if (node >= 0 && !(nodes >> node & 1)) {
		err_msg("node %d has no memory (%s/has_memory)", node, sys.node);
		return 2;
	}
	if (wsr_memcg_resolve(&sys, memcg, &m, &err) || wsr_pins_open(&p, pin_dir, &sys, &err)) {
		err_msg("%s", err.msg);
		return 1;
	}
	ret = wsr_set_knob(&p, &m, nodes, node, knob, value, &err);
	if (!ret && knob == WSR_KNOB_REPORT)
		warn_no_intervals(&p, &m, nodes, node);
	wsr_pins_close(&p);
	if (ret)
		err_msg("%s", err.msg);
	return ret == -EINVAL || ret == -ERANGE ? 2 : ret ? 1 : 0;
}

const struct wsr_cmd cmd_set = {
	.name = "set",
	.fn = do_set,
	.synopsis = "[--memcg PATH] [--node N] KNOB VALUE",
	.help =
"Set a knob: intervals_ms, report_ms, refresh_ms, reaccess_intervals_ms;\n"
"VALUE is N<node>=<v> as in the seed's memory.wss.* files, or <v> for\n"
"--node or for every node; times are ms, 0 to 1000000000000.\n\n"
MEMCG_HELP NODE_HELP,
};

/* the knob's text (as get prints it) as a JSON string, or NULL when out of memory */
static struct json_object *knob_json(const struct wsr_config *cfg, enum wsr_knob knob)
{
	struct json_object *o = NULL;
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	wsr_print_knob(f, cfg, knob);
	if (!fclose(f))
		o = json_object_new_string_len(text, (int)len);
	free(text);
	return o;
}

static int do_get(int argc, char **argv)
{
	__u64 nodes = wsr_memory_nodes(&sys);
	struct json_object *obj = NULL;
	struct wsr_config cfg;
	bool first = true, json = false;
	const char *memcg;
	struct wsr_err err;
	struct wsr_memcg m;
	struct wsr_pins p;
	int knob = -1, node, ret = 0, dir;
	char id[16];
	__u32 n;

	if (knob_options(argc, argv, &memcg, &node, &json))
		return 2;
	if (argc - optind == 1)
		knob = wsr_knob_by_name(argv[optind]);
	if (knob < 0) {
		err_msg("get takes one knob: intervals_ms, report_ms, refresh_ms, "
			"reaccess_intervals_ms");
		return 2;
	}
	if (wsr_memcg_resolve(&sys, memcg, &m, &err) || wsr_pins_open(&p, pin_dir, &sys, &err)) {
		err_msg("%s", err.msg);
		return 1;
	}
	/* no set's write seen half done (wsr_share_pin_dir()) */
	dir = wsr_share_pin_dir(p.dir, WSR_LOCK_TIMEOUT_MS, &err);
	if (dir < 0) {
		err_msg("%s", err.msg);
		wsr_pins_close(&p);
		return 1;
	}
	/* --json: {"<node>":"<value as the seed prints it>",...} */
	if (json)
		obj = json_object_new_object();
	for (n = 0; n < WSR_MAX_NODES; n++) {
		if (!(nodes >> n & 1) || (node >= 0 && (int)n != node))
			continue;
		wsr_get_config(&p, m.id, n, &cfg);
		if (json) {
			snprintf(id, sizeof(id), "%u", n);
			ret |= wsr_json_add(obj, id, knob_json(&cfg, knob));
			continue;
		}
		if (node < 0)
			printf("%sN%u=", first ? "" : " ", n);
		wsr_print_knob(stdout, &cfg, knob);
		first = false;
	}
	close(dir);
	if (!json)
		putchar('\n');
	else if (ret)
		json_object_put(obj);
	else
		ret = wsr_json_print(stdout, obj, "\n");
	if (ret)
		err_msg("out of memory");
	wsr_pins_close(&p);
	return ret ? 1 : 0;
}

const struct wsr_cmd cmd_get = {
	.name = "get",
	.fn = do_get,
	.synopsis = "[--memcg PATH] [--node N] [--json] KNOB",
	.help =
"Print a knob (N0=<v> N1=<v> ..., or <v> with --node).\n\n"
MEMCG_HELP NODE_HELP JSON_HELP,
};
