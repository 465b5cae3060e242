// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the wsr commands share: the global options, taken anywhere on the
 * line, and the option parsing each command runs over its own (cli.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include "cli.h"

const char *pin_dir = WSR_PIN_DIR;
bool verbose;
const struct wsr_sys sys = WSR_SYS_INIT;
volatile sig_atomic_t exiting;
const struct wsr_cmd *cur_cmd;

void cmd_usage(const struct wsr_cmd *c, FILE *f)
{
	wsr_cmd_usage(f, "wsr", c, GLOBAL_HELP);
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

int global_getopt(int argc, char **argv, void (*usage)(FILE *f))
{
	int opt;

	/* '+': stop at the command */
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
	return -1;
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
			cmd_usage(cur_cmd, stdout);
			exit(0);
		}
		if (opt != '?' && opt != ':')
			return opt;
		/*
		 * A long option is named by its word in argv; a short one by
		 * optopt (it may sit inside a cluster such as -jx).
		 */
		if (opt == ':' && !strncmp(argv[optind - 1], "--", 2))
			err_msg("%s: option %s needs a value", cur_cmd->name, argv[optind - 1]);
		else if (opt == ':')
			err_msg("%s: option -%c needs a value", cur_cmd->name, optopt);
		else if (optopt)
			err_msg("%s: unknown option -%c", cur_cmd->name, optopt);
		else
			err_msg("%s: unknown option %s", cur_cmd->name, argv[optind - 1]);
		fputc('\n', stderr);
		cmd_usage(cur_cmd, stderr);
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

bool have_cap(int cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap);
}
