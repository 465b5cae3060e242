// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the wsr CLI's option parsing (loader/main.c and each
 * command's file): the built binary (WSR_BIN) is run with options that
 * are refused or taken before anything needs BPF.  Exit status 2 is a
 * usage error; 1 means the options were taken and a later step (no
 * cgroup2, no pins on this host) failed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "unit.h"

#ifndef WSR_BIN
#error "WSR_BIN: the wsr binary to test"
#endif

static char out[8192], err[8192];

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	unlink(path);
}

/* run "wsr @args" (words without shell specials); its status, or -1 */
static int wsr(const char *args)
{
	char cmd[1024], o[] = "/tmp/wsr-test-cli.out.XXXXXX", e[] = "/tmp/wsr-test-cli.err.XXXXXX";
	int fo = mkstemp(o), fe = mkstemp(e), st;

	if (fo < 0 || fe < 0)
		return -1;
	close(fo);
	close(fe);
	/* a pin folder that is none, so that nothing real is touched */
	snprintf(cmd, sizeof(cmd), "%s %s >%s 2>%s", WSR_BIN, args, o, e);
	st = system(cmd);
	slurp(o, out, sizeof(out));
	slurp(e, err, sizeof(err));
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* each command refuses the options of the others, with its usage */
static const char *commands_refuse_other_commands_options(void)
{
	static const struct {
		const char *args, *option, *usage;
	} bad[] = {
		{ "set --count 3 report_ms 5", "--count", "usage: wsr set " },
		{ "set --json report_ms 5", "--json", "usage: wsr set " },
		{ "get --no-refresh report_ms", "--no-refresh", "usage: wsr get " },
		{ "show --count 1", "--count", "usage: wsr show " },
		{ "show --seed-aging", "--seed-aging", "usage: wsr show " },
		{ "reaccess --count 1", "--count", "usage: wsr reaccess " },
		{ "reaccess --bars", "--bars", "usage: wsr reaccess " },
		{ "watch --no-refresh", "--no-refresh", "usage: wsr watch " },
		{ "daemon --memcg /x", "--memcg", "usage: wsr daemon " },
		{ "daemon -j", "-j", "usage: wsr daemon " },
		{ "unload --node 0", "--node", "usage: wsr unload" },
		{ "balloon --count 1", "--count", "usage: wsr balloon " },
		{ "metrics --json", "--json", "usage: wsr metrics " },
		{ "metrics --node 0", "--node", "usage: wsr metrics " },
	};
	unsigned int i;
	int st;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		st = wsr(bad[i].args);
		ASSERT_EQ(st, 2, "wsr %s's exit status (stderr: %s)", bad[i].args, err);
		ASSERT_HAS_SUBSTR(err, "unknown option", "wsr %s's stderr", bad[i].args);
		ASSERT_HAS_SUBSTR(err, bad[i].option, "wsr %s's stderr", bad[i].args);
		ASSERT_HAS_SUBSTR(err, bad[i].usage, "wsr %s's stderr", bad[i].args);
		ASSERT_STREQ(out, "", "wsr %s's stdout", bad[i].args);
	}
	return NULL;
}

/* an option without its value is named as such */
static const char *options_need_their_values(void)
{
	int st = wsr("set report_ms 5 --memcg");

	ASSERT_EQ(st, 2, "wsr set report_ms 5 --memcg's exit status");
	ASSERT_HAS_SUBSTR(err, "option --memcg needs a value",
			  "wsr set report_ms 5 --memcg's stderr");
	st = wsr("watch -c");
	ASSERT_EQ(st, 2, "wsr watch -c's exit status");
	ASSERT_HAS_SUBSTR(err, "option -c needs a value", "wsr watch -c's stderr");
	return NULL;
}

/*
 * --pin-dir anywhere on the line: taken (a later step fails, status 1,
 * never a usage error), and the folder is the one used.
 */
static const char *pin_dir_is_taken_anywhere(void)
{
	static const char *const lines[] = {
		"--pin-dir /nonexistent/wsr show",
		"show --pin-dir /nonexistent/wsr",
		"show --node 0 --pin-dir=/nonexistent/wsr --json",
		"set --pin-dir /nonexistent/wsr report_ms 5",
		"set report_ms --pin-dir /nonexistent/wsr 5",
		"-v get report_ms --pin-dir /nonexistent/wsr",
		"balloon show --pin-dir /nonexistent/wsr",
		"metrics --all-memcgs --pin-dir /nonexistent/wsr",
	};
	unsigned int i;
	int st;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		st = wsr(lines[i]);
		ASSERT_EQ(st, 1, "wsr %s's exit status (stderr: %s)", lines[i], err);
		ASSERT_NO_SUBSTR(err, "usage", "wsr %s's stderr", lines[i]);
	}
	/* with cgroup2 the memcg is found first; without, nothing names the folder */
	st = wsr("balloon --pin-dir /nonexistent/wsr");
	ASSERT_EQ(st, 1, "wsr balloon --pin-dir /nonexistent/wsr's exit status");
	ASSERT_HAS_SUBSTR(err, "/nonexistent/wsr/balloon",
			  "wsr balloon --pin-dir /nonexistent/wsr's stderr");
	return NULL;
}

/*
 * Every command but the daemon (which checks after making it) refuses a
 * pin folder open to others (0755: a reader could hold its lock), before
 * it touches anything there; its help still shows.
 */
static const char *every_command_refuses_a_pin_folder_open_to_others(void)
{
	static const char *const cmds[] = { "show", "get report_ms", "set report_ms 5",
		"watch", "reaccess", "unload", "balloon show", "balloon attach",
		"balloon detach", "metrics --all-memcgs", "fs /tmp" };
	char dir[] = "/tmp/wsr-test-cli-pins.XXXXXX", line[256];
	unsigned int i;
	int st;

	ASSERT_OK_PTR(mkdtemp(dir), "mkdtemp");
	ASSERT_OK(chmod(dir, 0755), "chmod");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(line, sizeof(line), "--pin-dir %s %s", dir, cmds[i]);
		st = wsr(line);
		ASSERT_EQ(st, 1, "wsr %s's exit status (stderr: %s)", line, err);
		ASSERT_HAS_SUBSTR(err, "has mode 0755, open to others: refusing it",
				  "wsr %s's stderr", line);
	}
	snprintf(line, sizeof(line), "--pin-dir %s show --help", dir);
	st = wsr(line);
	rmdir(dir);
	ASSERT_EQ(st, 0, "wsr %s's exit status (stderr: %s)", line, err);
	return NULL;
}

/* --help for each command: its own usage on stdout, status 0 */
static const char *each_command_has_help(void)
{
	static const char *const cmds[] = { "daemon", "show", "set", "get", "watch",
					    "reaccess", "unload", "balloon", "metrics", "fs" };
	char args[64], want[64];
	unsigned int i;
	int st;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(args, sizeof(args), "%s --help", cmds[i]);
		snprintf(want, sizeof(want), "usage: wsr %s", cmds[i]);
		st = wsr(args);
		ASSERT_EQ(st, 0, "wsr %s's exit status", args);
		ASSERT_STRPREFIX(out, want, "wsr %s's stdout", args);
		/* the global options */
		ASSERT_HAS_SUBSTR(out, "--pin-dir", "wsr %s's stdout", args);
	}
	st = wsr("--help");
	ASSERT_EQ(st, 0, "wsr --help's exit status");
	ASSERT_STRPREFIX(out, "usage: wsr ", "wsr --help's stdout");
	ASSERT_HAS_SUBSTR(out, "wsr watch ", "wsr --help's stdout");
	return NULL;
}

/* the checks of values that need no BPF, per command */
static const char *values_are_checked_before_anything_runs(void)
{
	static const struct {
		const char *args, *msg;
	} bad[] = {
		{ "watch --count 0", "--count must be at least 1" },
		{ "daemon --interval-ms 0", "--interval-ms must be at least 1" },
		{ "daemon --interval-ms 3600001", "at most 3600000" },
		{ "daemon --max-walk-steps 1048577", "--max-walk-steps must be 1 to 1048576" },
		{ "show --node 16", "no such node with memory" },
		{ "show --json --bars", "--json and --bars: one or the other" },
		{ "set report_ms", "set takes a knob and a value" },
		{ "set no_such_knob 5", "unknown knob 'no_such_knob'" },
		{ "get", "get takes one knob" },
		{ "show extra", "unexpected argument 'extra'" },
		{ "unload extra", "unload takes no arguments" },
		{ "balloon frob", "unknown balloon command 'frob'" },
		{ "metrics --output /tmp/", "--output '/tmp/': a file name, not a folder" },
		{ "metrics -o ''", "--output '': a file name, not a folder" },
		{ "metrics extra", "unexpected argument 'extra'" },
		{ "fs", "fs takes the folder to mount on" },
		{ "fs /no/such/folder", "/no/such/folder is not a folder" },
		{ "fs --debug /tmp extra", "fs takes the folder to mount on" },
		{ "frob", "unknown command 'frob'" },
	};
	unsigned int i;
	int st;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		st = wsr(bad[i].args);
		ASSERT_EQ(st, 2, "wsr %s's exit status (stderr: %s)", bad[i].args, err);
		ASSERT_HAS_SUBSTR(err, bad[i].msg, "wsr %s's stderr", bad[i].args);
	}
	return NULL;
}

static const struct unit_test tests[] = {
	{ "commands_refuse_other_commands_options", commands_refuse_other_commands_options },
	{ "options_need_their_values", options_need_their_values },
	{ "pin_dir_is_taken_anywhere", pin_dir_is_taken_anywhere },
	{ "each_command_has_help", each_command_has_help },
	{ "every_command_refuses_a_pin_folder_open_to_others",
	  every_command_refuses_a_pin_folder_open_to_others },
	{ "values_are_checked_before_anything_runs", values_are_checked_before_anything_runs },
};

UNIT_MAIN(tests)
