/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the wsr commands share: the global options, the command table's
 * entry, and the option parsing each command runs over its own options
 * (main.c).  The work itself is libwsr's (include/libwsr.h).
 */
#ifndef __WSR_CLI_H
#define __WSR_CLI_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <json-c/json.h>
#include "libwsr.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* --pin-dir, -v: global options, taken anywhere on the line */
extern const char *pin_dir;
/* the machine's files libwsr reads: the real ones */
extern const struct wsr_sys sys;
extern bool verbose;
/* set by SIGINT and SIGTERM, and by watch once --count reports came */
extern volatile sig_atomic_t exiting;

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] is the command's name */
	const char *synopsis;			/* after "wsr NAME" */
	const char *help;			/* what it does, then its options */
};

/* "wsr: " and the message, on stderr */
void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * getopt_long() over the running command's options @opts (short ones in
 * @shorts) and the global ones, which it handles itself: --pin-dir, -v,
 * and -h (the command's help, then exit 0).  Any other option, or one
 * without its value, is refused with a message and the command's usage
 * on stderr: then it returns '?' and the command exits 2.
 */
int cmd_getopt(int argc, char **argv, const char *shorts, const struct option *opts);

/*
 * After the options: exactly @nr arguments; else @what, or (NULL) the
 * first one too many, as the message, and false.
 */
bool cmd_args(int argc, char **argv, int nr, const char *what);

/* --node's value: a node with memory; a message and -1 otherwise */
int parse_node_opt(const char *arg, int *node);

/* the commands (one file per group) */
int cmd_show(int argc, char **argv);
int cmd_reaccess(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_get(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_daemon(int argc, char **argv);
int cmd_unload(int argc, char **argv);
int cmd_balloon(int argc, char **argv);

/* load.c: load the estimator's programs and pin them in pin_dir */
int load_and_pin(__u32 walk_steps);

/* balloon-attach.c: the balloon's programs, loaded apart */
bool balloon_kfuncs(void);
int balloon_attach(void);
int balloon_detach(void);

/* balloon.c: the balloon device, for the daemon */
int balloon_claim(__u64 request, __u64 until_ns);

struct balloon_watch {
	char dir[256];
	int fd[2];		/* requests, configs: poll()able */
	__u64 seen[2];		/* their values when last looked at */
};
/* balloon-show.c: "wsr balloon show [--json]"; -1 when out of memory */
int print_balloon(const char *dir, const struct wsr_balloon *b, bool json);
void balloon_serve(struct balloon_watch *w, int timeout_ms);
void balloon_unwatch(struct balloon_watch *w);


#endif /* __WSR_CLI_H */
