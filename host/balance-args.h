/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsr-host balance's command line: every value checked before anything is
 * sent to a VM.  Pure but for the messages on stderr and --help on stdout.
 */
#ifndef __WSR_HOST_BALANCE_ARGS_H
#define __WSR_HOST_BALANCE_ARGS_H

#include <stdio.h>
#include "policy.h"
#include "wsr.h"

#define BALANCE_MAX_VMS 64

struct balance_vm {
	char name[64];		/* [A-Za-z0-9_.-]: a log word and a metrics label */
	char sock[108];		/* a unix socket's path (sun_path's size), or the domain's name */
	int libvirt;		/* --domain: sock names a domain of --connect's libvirt */
	__u64 min, max;		/* bytes, the target's bounds (0: --floor-mib, the RAM) */
};

/* what balance does to the guests when it stops (--on-exit) */
enum balance_on_exit {
	ON_EXIT_DEFLATE,	/* every target balance set goes back to full size */
	ON_EXIT_KEEP,		/* the targets stay as they are */
};

struct balance_cfg {
	struct policy_knobs k;
	__u64 intervals[WSR_MAX_INTERVALS];
	__u32 nr_intervals;
	__u64 refresh_ms, report_ms;	/* the guest's, as "wsr-host config" */
	__u64 request_ms;		/* a working-set-request this often */
	__u64 tick_ms;			/* balloon size and stats read this often */
	__u64 reconnect_ms;		/* a lost VM's first retry; doubled up to a minute */
	__u64 qmp_timeout_ms;		/* a VM that answers no later is down */
	__u64 foreign_hold_ms;		/* a target set elsewhere: hands off this long */
	__u64 stats_s;			/* guest-stats-polling-interval */
	const char *device;		/* the balloon's QOM path */
	const char *metrics;		/* ADDR:PORT, or NULL */
	const char *connect;		/* libvirt's URI for the --domain VMs, or NULL */
	/* mom and proxmox: the host's memory for its guests, 0: /proc/meminfo's */
	__u64 host_budget;
	const char *host_used_file;	/* what is used of it, or NULL: the guests' sizes */
	int json;
	int dry_run;			/* decide and log, send no balloon command */
	enum balance_on_exit on_exit;
	struct balance_vm vms[BALANCE_MAX_VMS];
	unsigned int nr_vms;
};

/*
 * Parse "balance ARGS" (@argv[0] is "balance") into @c: -1 when the
 * command is to run, else the exit status (0 after --help, 2 on bad input,
 * with the reason on stderr).
 */
int balance_parse_args(int argc, char **argv, struct balance_cfg *c);

/*
 * The options as the rows of docs/policies.md's table of knobs: each
 * "| `--NAME` | UNIT | RANGE | DEFAULT |", the docs adding a last column,
 * why (test_host_args compares them).
 */
void balance_knobs_markdown(FILE *f);

#endif /* __WSR_HOST_BALANCE_ARGS_H */
