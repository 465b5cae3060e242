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
 * This file has the command table; each command group has its own file,
 * as bpftool's, with its table entry and help, and parses only its own
 * options (cli.c has the global ones).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "cli.h"

static const struct wsr_cmd *const cmds[] = {
	&cmd_daemon, &cmd_show, &cmd_metrics, &cmd_set, &cmd_get, &cmd_watch, &cmd_reaccess,
	&cmd_unload, &cmd_balloon, &cmd_fs,
};

static void usage(FILE *f)
{
	fputs("usage: wsr [--pin-dir DIR] COMMAND [OPTIONS] [ARGS]\n"
	      "\n"
	      "Working-set histograms of memory by idle age (anon and file apart), per\n"
	      "NUMA node and per memory cgroup, computed by BPF from MGLRU generations.\n"
	      "\n"
	      "commands (wsr COMMAND --help says more):\n", f);
	wsr_cmd_list(f, "wsr", cmds, ARRAY_SIZE(cmds));
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

/* -h or --help among the command's arguments (before a "--") */
static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	char possible[PATH_MAX], has_memory[PATH_MAX];
	struct wsr_err err;
	const char *name;
	__u64 mask;
	int ret;

	libbpf_set_print(libbpf_print_fn);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = global_getopt(argc, argv, usage);
	if (ret >= 0)
		return ret;
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	name = argv[optind];
	argc -= optind;
	argv += optind;
	/* "wsr help" and "wsr help COMMAND" */
	if (!strcmp(name, "help")) {
		wsr_cmd_help(stdout, "wsr", cmds, ARRAY_SIZE(cmds), argc > 1 ? argv[1] : NULL,
			     GLOBAL_HELP, usage);
		return 0;
	}
	/* a machine with nodes wsr cannot cover is refused, not half served */
	snprintf(possible, sizeof(possible), "%s/possible", sys.node);
	snprintf(has_memory, sizeof(has_memory), "%s/has_memory", sys.node);
	if (wsr_node_list(possible, &mask, &err) || wsr_node_list(has_memory, &mask, &err)) {
		err_msg("%s", err.msg);
		return 1;
	}
	cur_cmd = wsr_cmd_find(cmds, ARRAY_SIZE(cmds), name);
	if (!cur_cmd) {
		err_msg("unknown command '%s' (try \"wsr --help\")", name);
		return 2;
	}
	/*
	 * Every command refuses a pin folder that someone else could unpin
	 * or lock (the daemon checks it after making it); one that does not
	 * exist yet is each command's to report.  Help needs no folder.
	 */
	if (strcmp(name, "daemon") && !wants_help(argc, argv)) {
		ret = wsr_check_pin_dir(pin_dir, &err);
		if (ret && ret != -ENOENT) {
			err_msg("%s", err.msg);
			return 1;
		}
	}
	/* the command's options, from argv[1] on: 0 makes getopt start afresh */
	optind = 0;
	return cur_cmd->fn(argc, argv);
}
