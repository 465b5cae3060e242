// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wsr: working-set reporting for overcommitted Linux guests.
 *
 * One binary, two roles:
 *  - "wsr daemon" loads the estimator's BPF programs (bpf/wsr.bpf.c), and
 *    the balloon's (bpf/balloon.bpf.c) where the virtio_balloon driver is,
 *    pins their maps and links under one bpffs folder and keeps the memcg
 *    list fresh.  The
 *    programs keep running when it exits or dies; a new daemon adopts them.
 *  - the other commands are the CLI: they open the pins, set and show the
 *    knobs and print histograms in the seed's sysfs formats or as JSON.
 *
 * This file has the global options and the command table; each command
 * group has its own file, as bpftool's, and parses only its own options.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "cli.h"

const char *pin_dir = WSR_PIN_DIR;
const struct wsr_sys sys = WSR_SYS_INIT;
bool verbose;
volatile sig_atomic_t exiting;

/* the command running, whose usage cmd_getopt() prints */
static const struct cmd *cur;

#define MEMCG_HELP \
"  -m, --memcg PATH       cgroup v2 path of the memcg (default /: the node\n" \
"                         level, covering every memcg)\n"
#define NODE_HELP \
"  -n, --node N           one node only, printed in the seed's node format\n"
#define JSON_HELP \
"  -j, --json             JSON output\n"

static const struct cmd cmds[] = {
	{ "daemon", cmd_daemon, "[--interval-ms MS] [--max-walk-steps N] [--seed-aging]",
"Load the BPF programs (or adopt pinned ones), answer the balloon device's\n"
"requests, attach to virtio_balloon when it is loaded; runs in the\n"
"foreground, logs to stderr, stops on SIGTERM; programs stay attached\n"
"after it exits.\n\n"
"      --interval-ms MS   how often to look at the balloon device when it\n"
"                         sends nothing (1000; 1 to 3600000)\n"
"      --max-walk-steps N when it loads the programs: steps a report's\n"
"                         memcg walk may take (one per memcg or level; 1 to\n"
"                         1048576, the default); a walk cut short makes an\n"
"                         incomplete report (\"incomplete\":true, a warning)\n"
"      --seed-aging       age only as the seed does, on reads and balloon\n"
"                         requests.  Without it the daemon also ages, at\n"
"                         each --interval-ms (at most every 500 ms) every\n"
"                         lruvec of 64 pages or more whose memcg (or\n"
"                         an ancestor) has refresh_ms and whose youngest\n"
"                         generation is older than that (not below\n"
"                         memory.min), and every lruvec at the balloon\n"
"                         device's refresh_ms: histograms stay right at both\n"
"                         ends (README: \"Aging and idle ages\")\n" },
	{ "show", cmd_show, "[--memcg PATH] [--node N] [--json | --bars] [--no-refresh]",
"Print the working-set histogram of each node with memory: the last report\n"
"if younger than refresh_ms, else collected again, after aging the lruvecs\n"
"with fewer than 4 generations whose youngest is older than refresh_ms and\n"
"whose memcg is not below memory.min (refresh_ms 0: no aging).\n\n"
MEMCG_HELP NODE_HELP JSON_HELP
"  -b, --bars             draw each bin's pages as a bar, anon and file\n"
"      --no-refresh       never age, print the live histogram\n" },
	{ "metrics", cmd_metrics, "[--memcg PATH]... [--all-memcgs] [--no-refresh] [--output FILE]",
"Print the histograms in Prometheus' text format, once, for node_exporter's\n"
"textfile collector: the node level (memcg \"/\") and the memcgs asked for,\n"
"each on every node with memory, read as \"wsr show\" reads them.  Metrics,\n"
"with the names and labels of \"wsr-host balance --metrics\" (memcg where\n"
"the host has vm):\n"
"  wsr_working_set_bytes{memcg,node,type=anon|file,idle_le_ms}  a bin's\n"
"      pages in bytes; idle_le_ms is its upper bound, \"+Inf\" the catch-all\n"
"  wsr_working_set_age_seconds{memcg,node}   since its data was collected\n"
"  wsr_working_set_incomplete{memcg,node}    1: its memcg walk ran out of steps\n"
"  wsr_reports_total{memcg,node,cause=\"reclaim\"}  reports made on reclaim\n\n"
"  -m, --memcg PATH       this memcg too (repeatable)\n"
"  -a, --all-memcgs       every memcg with a configuration (wsr set)\n"
"      --no-refresh       never age, read the live histograms\n"
"  -o, --output FILE      write FILE instead of stdout, atomically: a\n"
"                         temporary file in its folder, renamed over it\n\n"
"example, every minute from cron (node_exporter\n"
"--collector.textfile.directory=/var/lib/node_exporter):\n"
"  wsr metrics --all-memcgs -o /var/lib/node_exporter/wsr.prom\n" },
	{ "set", cmd_set, "[--memcg PATH] [--node N] KNOB VALUE",
"Set a knob: intervals_ms, report_ms, refresh_ms, reaccess_intervals_ms;\n"
"VALUE is N<node>=<v> as in the seed's memory.wss.* files, or <v> for\n"
"--node or for every node; times are ms, 0 to 1000000000000.\n\n"
MEMCG_HELP NODE_HELP },
	{ "get", cmd_get, "[--memcg PATH] [--node N] [--json] KNOB",
"Print a knob (N0=<v> N1=<v> ..., or <v> with --node).\n\n"
MEMCG_HELP NODE_HELP JSON_HELP },
	{ "watch", cmd_watch, "[--memcg PATH] [--node N] [--json] [--count N]",
"Wait for reports made on reclaim and print each: global reclaim reports\n"
"the node level (--memcg /), reclaim within a memcg's limit that memcg; at\n"
"most one per report_ms; 8 watchers at a time.\n\n"
MEMCG_HELP NODE_HELP JSON_HELP
"  -c, --count N          stop after N reports\n" },
	{ "reaccess", cmd_reaccess, "[--memcg PATH] [--node N] [--json]",
"Print the reaccess histogram.\n\n"
MEMCG_HELP NODE_HELP JSON_HELP },
	{ "unload", cmd_unload, "",
"Detach the programs and remove the pins.\n" },
	{ "balloon", cmd_balloon, "[show [--json] | attach | detach]",
"show (the default): the virtio-balloon device's working-set config (from\n"
"its driver) and the last report wsr gave it.  attach, detach: attach the\n"
"programs that report to the balloon (the daemon does at start if the\n"
"driver is there), or detach them: needed before rmmod virtio_balloon.\n\n"
JSON_HELP },
};

#define GLOBAL_HELP \
"global options, anywhere on the line:\n" \
"      --pin-dir DIR      bpffs folder of the pins (default /sys/fs/bpf/wsr)\n" \
"  -v, --verbose          libbpf debug output, with each BPF program's\n" \
"                         verifier cost (instructions processed)\n" \
"  -h, --help             this help (wsr COMMAND --help: the command's)\n"

static void usage(FILE *f)
{
	size_t i;

	fputs("usage: wsr [--pin-dir DIR] COMMAND [OPTIONS] [ARGS]\n"
	      "\n"
	      "Working-set histograms of memory by idle age (anon and file apart), per\n"
	      "NUMA node and per memory cgroup, computed by BPF from MGLRU generations.\n"
	      "\n"
	      "commands (wsr COMMAND --help says more):\n", f);
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(f, "  wsr %s%s%s\n", cmds[i].name, *cmds[i].synopsis ? " " : "",
			cmds[i].synopsis);
	fputs("\n" GLOBAL_HELP
	      "\n"
	      "examples:\n"
	      "  wsr daemon &\n"
	      "  wsr set intervals_ms 1000,2000,4000,8000      # every node, node level\n"
	      "  wsr set --memcg /job report_ms N1=500          # memcg /job, node 1\n"
	      "  wsr show --node 0                              # as nodeN/wss/histogram\n"
	      "  wsr show --memcg /job --json\n"
	      "  wsr metrics --all-memcgs -o /var/lib/node_exporter/wsr.prom  # Prometheus\n"
	      "  wsr watch --memcg /job --count 3\n"
	      "  cat /sys/fs/bpf/wsr/histogram                  # no wsr binary needed\n"
	      "  wsr balloon --json                             # what the host was sent\n"
	      "  bpftool map dump pinned /sys/fs/bpf/wsr/config\n", f);
}

static void cmd_usage(const struct cmd *c, FILE *f)
{
	fprintf(f, "usage: wsr %s%s%s\n\n%s\n" GLOBAL_HELP, c->name, *c->synopsis ? " " : "",
		c->synopsis, c->help);
}

void err_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("wsr: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

enum { OPT_PIN_DIR = 1000 };

/* what every command takes, and main() before the command */
static const struct option global_options[] = {
	{ "pin-dir", required_argument, NULL, OPT_PIN_DIR },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};
#define NR_GLOBAL_OPTIONS	(ARRAY_SIZE(global_options) - 1)

/* one global option; false if @opt is none */
static bool global_option(int opt)
{
	switch (opt) {
	case OPT_PIN_DIR:
		pin_dir = optarg;
		return true;
	case 'v':
		verbose = true;
		return true;
	}
	return false;
}

int cmd_getopt(int argc, char **argv, const char *shorts, const struct option *opts)
{
	/* the command's options, then the global ones and the end mark */
	static struct option all[32];
	char sh[32];
	size_t n = 0, i;
	int opt;

	for (; opts && opts[n].name && n < ARRAY_SIZE(all) - NR_GLOBAL_OPTIONS - 1; n++)
		all[n] = opts[n];
	for (i = 0; i <= NR_GLOBAL_OPTIONS; i++)
		all[n++] = global_options[i];
	/* ':' first: a missing value is told apart from an unknown option */
	snprintf(sh, sizeof(sh), ":%svh", shorts);
	opterr = 0;
	for (;;) {
		opt = getopt_long(argc, argv, sh, all, NULL);
		if (global_option(opt))
			continue;
		if (opt == 'h') {
			cmd_usage(cur, stdout);
			exit(0);
		}
		if (opt != '?' && opt != ':')
			return opt;
		/*
		 * A long option is named by its word in argv; a short one by
		 * optopt (it may sit inside a cluster such as -jx).
		 */
		if (opt == ':' && !strncmp(argv[optind - 1], "--", 2))
			err_msg("%s: option %s needs a value", cur->name, argv[optind - 1]);
		else if (opt == ':')
			err_msg("%s: option -%c needs a value", cur->name, optopt);
		else if (optopt)
			err_msg("%s: unknown option -%c", cur->name, optopt);
		else
			err_msg("%s: unknown option %s", cur->name, argv[optind - 1]);
		fputc('\n', stderr);
		cmd_usage(cur, stderr);
		return '?';
	}
}

bool cmd_args(int argc, char **argv, int nr, const char *what)
{
	if (argc - optind == nr)
		return true;
	if (what)
		err_msg("%s", what);
	else
		err_msg("unexpected argument '%s'", argv[optind + nr]);
	return false;
}

int parse_node_opt(const char *arg, int *node)
{
	struct wsr_err err;
	__u64 v;

	if (wsr_parse_u64(arg, &v, "--node", &err)) {
		err_msg("%s", err.msg);
		return -1;
	}
	if (v >= WSR_MAX_NODES || !(wsr_memory_nodes(&sys) >> v & 1)) {
		err_msg("--node %s: no such node with memory (%s/has_memory)", arg, sys.node);
		return -1;
	}
	*node = (int)v;
	return 0;
}

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

int main(int argc, char **argv)
{
	char possible[PATH_MAX], has_memory[PATH_MAX];
	struct wsr_err err;
	const char *name;
	__u64 mask;
	int opt;

	libbpf_set_print(libbpf_print_fn);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* the global options before the command ('+': stop at it) */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:vh", global_options, NULL)) != -1) {
		if (global_option(opt))
			continue;
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		err_msg(opt == ':' ? "option %s needs a value" : "unknown option %s",
			argv[optind - 1]);
		usage(stderr);
		return 2;
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	name = argv[optind];
	argc -= optind;
	argv += optind;
	/* "wsr help" and "wsr help COMMAND" */
	if (!strcmp(name, "help")) {
		cur = argc > 1 ? find_cmd(argv[1]) : NULL;
		if (cur)
			cmd_usage(cur, stdout);
		else
			usage(stdout);
		return 0;
	}
	/* a machine with nodes wsr cannot cover is refused, not half served */
	snprintf(possible, sizeof(possible), "%s/possible", sys.node);
	snprintf(has_memory, sizeof(has_memory), "%s/has_memory", sys.node);
	if (wsr_node_list(possible, &mask, &err) || wsr_node_list(has_memory, &mask, &err)) {
		err_msg("%s", err.msg);
		return 1;
	}
	cur = find_cmd(name);
	if (!cur) {
		err_msg("unknown command '%s' (try \"wsr --help\")", name);
		return 2;
	}
	/* the command's options, from argv[1] on: 0 makes getopt start afresh */
	optind = 0;
	return cur->fn(argc, argv);
}
