/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the wsr commands share (cli.c): the global options and the option
 * parsing each command runs over its own options; their messages are
 * libwsr's err_msg() and info_msg() (WSR_PROG "wsr").  Each
 * command's file exports its table entry, its help beside its work, as
 * bpftool's do; main.c holds the table.  The work itself is libwsr's
 * (include/libwsr.h).
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
extern bool verbose;
/* the machine's files libwsr reads: the real ones */
extern const struct wsr_sys sys;
/* set by SIGINT and SIGTERM, and by watch once --count reports came */
extern volatile sig_atomic_t exiting;
/* the command running, whose usage cmd_getopt() prints (main.c sets it) */
extern const struct wsr_cmd *cur_cmd;

/* the options every command takes, after its own in its help */
#define GLOBAL_HELP \
"global options, anywhere on the line:\n" \
"      --pin-dir DIR      bpffs folder of the pins (default /sys/fs/bpf/wsr)\n" \
"  -v, --verbose          libbpf debug output, with each BPF program's\n" \
"                         verifier cost (instructions processed)\n" \
"  -h, --help             this help (wsr COMMAND --help: the command's)\n"

/* the options several commands take, in their help */
#define MEMCG_HELP \
"  -m, --memcg PATH       cgroup v2 path of the memcg (default /: the node\n" \
"                         level, covering every memcg)\n"
#define NODE_HELP \
"  -n, --node N           one node only, printed in the seed's node format\n"
#define JSON_HELP \
"  -j, --json             JSON output\n"

/* @c's usage and the global options, on @f */
void cmd_usage(const struct wsr_cmd *c, FILE *f);

/*
 * The global options before the command (@usage prints wsr's own on -h);
 * -1 to go on with the command at argv[optind], else the exit status.
 */
int global_getopt(int argc, char **argv, void (*usage)(FILE *f));

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

/* capability @cap (CAP_*) is in our effective set (false if unknown) */
bool have_cap(int cap);

/* the commands, each in its file */
extern const struct wsr_cmd cmd_daemon;		/* daemon.c */
extern const struct wsr_cmd cmd_show, cmd_reaccess;	/* show.c */
extern const struct wsr_cmd cmd_metrics;	/* metrics.c */
extern const struct wsr_cmd cmd_set, cmd_get;	/* knobs.c */
extern const struct wsr_cmd cmd_watch;		/* watch.c */
extern const struct wsr_cmd cmd_unload;		/* load.c */
extern const struct wsr_cmd cmd_balloon;	/* balloon.c */
extern const struct wsr_cmd cmd_fs;		/* fs.c */

/*
 * load.c: load the estimator's programs and pin them in pin_dir, the pins
 * there checked first: 0, 1 if they were loaded already (adopt them), -1
 * on error (said; pins of another layout are one).  merge_hooks: attach
 * the hooks that keep merged generations' ages (not with --seed-aging)
 */
int load_and_pin(__u32 walk_steps, bool merge_hooks);
/* how long a daemon waits for another's load (slow under TCG) */
#define WSR_LOAD_LOCK_TIMEOUT_MS	120000

/*
 * load.c: give back what a load used and the daemon no longer needs (the
 * daemon calls it after a load or an attach, once it said so): the
 * pages of our code and read-only data (the BPF objects among them) and
 * the heap's free memory.  The daemon's memory is locked (mlockall), so
 * that whatever a load touched would stay, locked, for the daemon's life.
 */
void release_load_memory(void);
/* daemon.c: the daemon's memory is locked (mlockall() took) */
extern bool memory_locked;

/* balloon-attach.c: the balloon's programs, loaded apart */
bool balloon_kfuncs(void);
/* 0 attached (or already), 1 left detached (@automatic only), -1 error */
int balloon_attach(bool automatic);
int balloon_detach(void);

/* balloon.c: the balloon device, for the daemon */
int balloon_claim(__u64 request, __u64 until_ns);

struct balloon_watch {
	char dir[256];
	int fd[2];		/* requests, configs: poll()able */
	__u64 seen[2];		/* their values when last looked at */
};
/*
 * Wait up to @timeout_ms for the device's next request or configuration
 * (answering one made meanwhile first), with the signal mask @wait_mask:
 * the daemon keeps SIGTERM and SIGINT blocked but while it waits here,
 * so that a stop is never taken between its check and the wait.
 */
void balloon_serve(struct balloon_watch *w, int timeout_ms, const sigset_t *wait_mask);
void balloon_unwatch(struct balloon_watch *w);

/* balloon-show.c: "wsr balloon show [--json]"; -1 when out of memory */
int print_balloon(const char *dir, const struct wsr_balloon *b, bool json);

#endif /* __WSR_CLI_H */
