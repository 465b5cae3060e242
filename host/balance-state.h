/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsr-host balance's state, shared by its files: one struct balance,
 * made by cmd_balance() (balance.c) and passed to every function, and a
 * struct vm per VM.  balance.c runs the loop, balance-vm.c is a VM's QMP
 * state machine, balance-decide.c what a VM's messages say and the
 * decisions on them, balance-list.c the domains libvirt lists
 * (--connect alone), balance-host.c the host's memory (mom, proxmox).
 */
#ifndef __WSR_HOST_BALANCE_STATE_H
#define __WSR_HOST_BALANCE_STATE_H

#include <signal.h>
#include "balance-args.h"
#include "baselines.h"
#include "client.h"
#include "policy.h"
#include "transport.h"

#define MIB (1ULL << 20)

enum vm_state {
	VM_DOWN,	/* no socket; connect at next_connect */
	VM_GREETING,	/* connected, QEMU's greeting (libvirt's domain) awaited */
	VM_CAPS,	/* qmp_capabilities sent, its reply awaited */
	VM_UP,		/* commands go */
};

struct vm {
	const struct balance_vm *arg;
	struct policy_knobs k;		/* the shared knobs with this VM's bounds */
	struct qmp q;
	enum vm_state state;
	double deadline;		/* of the greeting, the capabilities or the command in flight */
	int busy;			/* a command is in flight */
	enum op inflight;
	unsigned int queued;		/* bit per enum op */
	__u64 balloon_to;		/* the queued balloon's target */
	__u64 inflight_to;		/* the in-flight balloon's */
	struct policy_decision d;	/* the decision it carries */
	int exit_deflate;		/* the deflation on exit is queued or in flight */
	/*
	 * the balloon in flight is the exit's: a stop that comes while a
	 * decision's balloon is in flight queues the exit's behind it
	 */
	int exit_inflight;
	int exit_failed;		/* squeezed and not deflated on exit */

	unsigned int failures;		/* since the VM last answered a whole tick */
	double next_connect;
	int down_logged;		/* down said; nothing more until it changes or ends */
	int gone;			/* down because QEMU closed or is not there */
	char down_why[160];
	int in_tick;			/* a tick's commands are queued or in flight */

	int configured, stats_on, pending;
	double next_tick, next_request;
	char last_err[160], last_keep[32];
	/*
	 * ram: base and plugged memory, read every tick; 0 until read since
	 * the VM (re)connected.  target: the policy's last, 0 none.
	 */
	__u64 ram, actual, target;
	/*
	 * QEMU's pid, from the QMP socket (0: unknown, or through libvirt),
	 * for its memory in the host's swap; a failed read is said once
	 */
	int qemu_pid, swap_said;
	__u64 ram_said;			/* the RAM last logged */
	struct ws_report report;
	int have_report, new_report;
	double report_ms;
	struct ws_stats stats;
	int have_stats, new_stats;
	__u64 stats_update;
	double stats_ms;
	struct policy_state st;
	unsigned long long reports[WSR_NR_CAUSES], decisions;
	/*
	 * reclaim reports the policy has not decided on: replaced by a later
	 * report before a decision, or lost (reclaim_seq jumped)
	 */
	unsigned int unseen_reclaims;
	int have_seq;
	__u32 last_seq;			/* the latest report's reclaim_seq */
	unsigned long long missed;	/* reclaim reports never received */

	/* a target balance did not set */
	__u64 sent;			/* the last target QEMU took from balance, 0 none */
	int touched;			/* balance set a target on this VM */
	int ref_valid;
	__u64 ref;			/* closest to sent seen since, or where the balloon sat */
	double foreign_until;		/* hands off until then */

	/* balance --connect alone: a running domain found by the listing */
	int found;			/* found by the listing (not a --vm or --domain) */
	int listed;			/* in the listing being read */
	int removed;			/* let go: a free slot */

	__u64 plan;			/* proxmox: the host round's target, 0 none */
};

/* balance --connect alone: libvirt's running domains, as its thread lists them */
struct balance_list {
	int fd;				/* virt_list_domains()'s, -1 without */
	char buf[4096];			/* a line being read */
	size_t len;
	char err[256];			/* the last failure, said once */
};

/*
 * The host as mom and proxmox see it: its free memory's moving mean
 * (MOM's StatAvg, a sample every 5 s), its total, and the next sample
 * (proxmox: the next round); a read that failed is said once
 */
struct balance_host {
	struct mom_avg free;
	__u64 total;
	double next_sample;
	char err[160];
};

struct balance {
	const struct balance_cfg *cfg;
	/* the same, for the domains the listing adds to its VMs */
	struct balance_cfg *cfg_vms;
	struct vm *vms;			/* BALANCE_MAX_VMS, cfg->nr_vms of them used */
	int exiting;			/* stopping: the exit's deflations alone */
	sigset_t unblocked;		/* the signal mask while waiting */
	unsigned int exit_failed;	/* deflations on exit that did not happen */
	struct balance_list list;
	struct balance_host host;
};

/* balance-vm.c: a VM's connection, its commands and their replies */
void say(const struct vm *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void say_once(struct vm *v, const char *fmt, const char *what);
__u64 full_size(const struct vm *v);
void exit_not_deflated(struct balance *b, struct vm *v, const char *why);
void vm_gone(struct balance *b, struct vm *v, const char *why);
void vm_io(struct balance *b, struct vm *v, short revents);
void vm_step(struct balance *b, struct vm *v, double *next);

/* balance-decide.c: what a VM says (events, sizes) and the decisions on it */
void vm_actual(struct balance *b, struct vm *v, __u64 a);
void on_event(struct balance *b, struct vm *v, const struct vm_said *s);
void log_decision(struct balance *b, const struct vm *v, const struct policy_decision *d,
		  __u64 target);
void vm_memsize(struct vm *v, const struct vm_said *s);
void vm_decide(struct balance *b, struct vm *v);

/* balance-list.c: the listing thread (--connect alone) and what it wrote */
void list_io(struct balance *b);
int list_start(struct balance *b);

/* balance-host.c: the host's sample (mom) and round (proxmox) when due */
void host_step(struct balance *b, double *next);

#endif /* __WSR_HOST_BALANCE_STATE_H */
