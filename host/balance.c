// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host balance: the loop.  One poll() over every VM's QMP socket and
 * the metrics server; per VM, a tick (every --tick-ms) reads the balloon's
 * size and stats, configures what is not configured yet and sends a
 * working-set-request every --request-ms; every WORKING_SET_EVENT is taken
 * as it arrives, and a reclaim report is decided on at once.  A VM whose
 * socket closes is logged and retried every --reconnect-ms; the others go
 * on.  The options are parsed in balance-args.c, the policy is policy.c.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include "libwsr.h"
#include "balance-args.h"
#include "client.h"
#include "metrics.h"

/* how long one QMP command may take before the VM counts as gone */
#define CMD_TIMEOUT_MS 5000

struct vm {
	const struct balance_vm *arg;
	struct qmp q;
	int up, configured, stats_on, pending;
	double next_connect, next_tick, next_request;
	char last_err[160], last_keep[32];
	__u64 ram, actual, target;
	struct ws_report report;
	int have_report, new_report;
	double report_ms;
	struct ws_stats stats;
	int have_stats, new_stats;
	__u64 stats_update;
	double stats_ms;
	struct policy_state st;
	unsigned long long reports[WSR_NR_CAUSES], decisions;
};

static const struct balance_cfg *cfg;
static struct vm *vms;
static volatile sig_atomic_t stop;

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void say(const struct vm *v, const char *fmt, const char *what)
{
	char line[256];

	snprintf(line, sizeof(line), fmt, what);
	info_msg("vm=%s %s", v->arg->name, line);
}

/* a message said once until it changes (a VM that stays away is not news) */
static void say_once(struct vm *v, const char *fmt, const char *what)
{
	char line[sizeof(v->last_err)];

	snprintf(line, sizeof(line), fmt, what);
	if (strcmp(line, v->last_err))
		say(v, "%s", line);
	snprintf(v->last_err, sizeof(v->last_err), "%s", line);
}

static void vm_down(struct vm *v, const char *why)
{
	say(v, "QMP connection lost (%s); reconnecting", why);
	qmp_close(&v->q);
	v->up = v->configured = v->stats_on = v->pending = 0;
	v->next_connect = now_ms() + cfg->reconnect_ms;
	v->last_err[0] = 0;
}

static void on_event(void *arg, const struct qmp_msg *m)
{
	struct vm *v = arg;
	const char *name = qmp_event_name(m->obj);
	struct json_object *data, *actual;

	if (!strcmp(name, "WORKING_SET_EVENT")) {
		if (qmp_report_parse(m->obj, &v->report)) {
			say(v, "%s", "a WORKING_SET_EVENT without a well-formed report, ignored");
			return;
		}
		v->have_report = v->new_report = v->pending = 1;
		v->report_ms = now_ms();
		v->reports[v->report.cause]++;
	} else if (!strcmp(name, "BALLOON_CHANGE") &&
		   json_object_object_get_ex(m->obj, "data", &data) &&
		   json_object_object_get_ex(data, "actual", &actual) &&
		   json_object_get_int64(actual) > 0) {
		v->actual = (__u64)json_object_get_int64(actual);
	}
}

/* one command: 0 with its reply, 1 refused (reply is the error), -1 VM gone */
static int vm_cmd(struct vm *v, char *cmd, const struct qmp_msg **reply)
{
	int r = qmp_call(&v->q, cmd, reply, now_ms() + CMD_TIMEOUT_MS, on_event, v);

	if (r < 0)
		vm_down(v, "closed, or no reply within 5 s");
	return r;
}

static const char *refusal(const struct qmp_msg *r)
{
	const char *d = qmp_error_desc(r->obj);

	return d ? d : "no reason given";
}

static void vm_connect(struct vm *v)
{
	char err[128];

	if (qmp_open(&v->q, v->arg->sock, now_ms() + 2000, err, sizeof(err))) {
		say_once(v, "cannot talk QMP: %s; retrying", err);
		v->next_connect = now_ms() + cfg->reconnect_ms;
		return;
	}
	say(v, "connected to %s", v->arg->sock);
	v->last_err[0] = 0;
	v->up = 1;
	v->next_tick = v->next_request = now_ms();
}

static void vm_tick(struct vm *v)
{
	const struct qmp_msg *r;
	__u64 upd;
	int e;

	if (!v->ram && !(e = vm_cmd(v, qmp_cmd("query-memory-size-summary"), &r)))
		qmp_return_u64(r->obj, "base-memory", &v->ram);
	if (v->up && !v->stats_on) {
		e = vm_cmd(v, qmp_cmd_qom_set_int(cfg->device, "guest-stats-polling-interval",
						  cfg->stats_s), &r);
		if (e > 0)
			say_once(v, "guest-stats-polling-interval refused: %s", refusal(r));
		v->stats_on = !e;
	}
	if (v->up && !v->configured) {
		e = vm_cmd(v, qmp_cmd_config(cfg->intervals, cfg->nr_intervals, cfg->refresh_ms,
					     cfg->report_ms), &r);
		if (e > 0)
			say_once(v, "working-set-config refused (retrying): %s", refusal(r));
		if (!e)
			say(v, "%s", "working-set reporting configured");
		v->configured = !e;
	}
	if (v->up && !vm_cmd(v, qmp_cmd("query-balloon"), &r))
		qmp_return_u64(r->obj, "actual", &v->actual);
	if (v->up && v->stats_on &&
	    !vm_cmd(v, qmp_cmd_qom_get(cfg->device, "guest-stats"), &r) &&
	    !qmp_stats_parse(r->obj, &v->stats, &upd) && upd && upd != v->stats_update) {
		v->stats_update = upd;
		v->have_stats = v->new_stats = 1;
		v->stats_ms = now_ms();
	}
	/* refused while the guest has not posted its buffer again: next time */
	if (v->up && v->configured && now_ms() >= v->next_request) {
		vm_cmd(v, qmp_cmd("working-set-request"), &r);
		v->next_request = now_ms() + cfg->request_ms;
	}
	v->pending = v->up;
}

/* a decision as one line of JSON: the keys of the text line, in its order */
static void log_decision_json(const struct vm *v, const struct policy_decision *d, __u64 target,
			      const char *action, const char *cause, __u64 age)
{
	struct json_object *o = json_object_new_object();
	int err;

	err = wsr_json_add(o, "time", wsr_json_fixed(wall_s(), 3)) |
	      wsr_json_add(o, "vm", json_object_new_string(v->arg->name)) |
	      wsr_json_add(o, "policy", json_object_new_string(policy_kind_name(cfg->k.kind))) |
	      wsr_json_add(o, "action", json_object_new_string(action)) |
	      wsr_json_add(o, "reason", json_object_new_string(d->reason)) |
	      wsr_json_add(o, "cause", json_object_new_string(cause)) |
	      wsr_json_add(o, "actual", wsr_json_u64(v->actual)) |
	      wsr_json_add(o, "target", wsr_json_u64(target)) |
	      wsr_json_add(o, "want", wsr_json_u64(d->want)) |
	      wsr_json_add(o, "hot", wsr_json_u64(d->hot)) |
	      wsr_json_add(o, "other", wsr_json_u64(d->other)) |
	      wsr_json_add(o, "data_age_ms", wsr_json_u64(age));
	if (err) {
		json_object_put(o);
		o = NULL;
	}
	if (wsr_json_print(stdout, o, "\n"))
		err_msg("balance: out of memory");
}

static void log_decision(const struct vm *v, const struct policy_decision *d, __u64 target)
{
	const char *cause = wsr_cause_name(v->have_report ? v->report.cause : WSR_CAUSE_NONE);
	const char *action = d->action == POLICY_SET ? "set" : "keep";
	unsigned long long age = v->have_report ? v->report.data_age_ms : 0;

	if (cfg->json)
		log_decision_json(v, d, target, action, cause, age);
	else
		printf("decision time=%.3f vm=%s policy=%s action=%s reason=%s cause=%s "
		       "actual=%llu target=%llu want=%llu hot=%llu other=%llu data_age_ms=%llu\n",
		       wall_s(), v->arg->name, policy_kind_name(cfg->k.kind), action, d->reason,
		       cause, (unsigned long long)v->actual, (unsigned long long)target,
		       (unsigned long long)d->want, (unsigned long long)d->hot,
		       (unsigned long long)d->other, age);
}

/*
 * Decide and act.  A target set is logged, and so is a kept one when its
 * reason differs from the last kept one's (not every tick's "steady").
 */
static void vm_decide(struct vm *v)
{
	struct policy_input in = {
		.now_ms = now_ms(), .ram = v->ram, .actual = v->actual, .target = v->target,
		.report = v->have_report ? &v->report : NULL, .report_ms = v->report_ms,
		.new_report = cfg->k.kind == POLICY_AVAILABLE ? v->new_stats : v->new_report,
		.stats = v->have_stats ? &v->stats : NULL, .stats_ms = v->stats_ms,
	};
	struct policy_decision d;
	const struct qmp_msg *r;
	int e;

	v->pending = 0;
	if (!v->ram || !v->actual)
		return;
	policy_decide(&cfg->k, &v->st, &in, &d);
	v->new_report = v->new_stats = 0;
	if (d.action == POLICY_KEEP) {
		if (strcmp(d.reason, v->last_keep))
			log_decision(v, &d, v->target);
		snprintf(v->last_keep, sizeof(v->last_keep), "%s", d.reason);
		return;
	}
	v->last_keep[0] = 0;
	e = vm_cmd(v, qmp_cmd_balloon(d.target), &r);
	if (e > 0)
		say(v, "QMP balloon refused: %s", refusal(r));
	if (e)
		return;
	v->target = d.target;
	v->decisions++;
	log_decision(v, &d, d.target);
}

static char *scrape(void *arg)
{
	struct metrics_vm *m = calloc(cfg->nr_vms, sizeof(*m));
	double now = now_ms();
	unsigned int i;
	char *text;

	(void)arg;
	if (!m)
		return NULL;
	for (i = 0; i < cfg->nr_vms; i++) {
		struct vm *v = &vms[i];

		m[i] = (struct metrics_vm){
			.name = v->arg->name, .up = v->up,
			.report = v->have_report ? &v->report : NULL,
			.report_age_s = (now - v->report_ms) / 1e3,
			.ram = v->ram, .actual = v->actual, .target = v->target,
			.decisions = v->decisions,
		};
		memcpy(m[i].reports, v->reports, sizeof(m[i].reports));
	}
	text = metrics_text(m, cfg->nr_vms);
	free(m);
	return text;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int run(struct metrics_server *ms)
{
	struct pollfd *pfd = calloc(cfg->nr_vms + 1, sizeof(*pfd));
	unsigned int i, n;
	double now, next;
	int timeout;

	if (!pfd)
		return 1;
	while (!stop) {
		now = now_ms();
		next = now + 60000;
		for (i = 0; i < cfg->nr_vms; i++) {
			struct vm *v = &vms[i];

			if (!v->up && now >= v->next_connect)
				vm_connect(v);
			if (v->up && now_ms() >= v->next_tick) {
				vm_tick(v);
				v->next_tick = now_ms() + cfg->tick_ms;
			}
			/* what qmp_call() left buffered, which poll() cannot see */
			if (v->up && qmp_pump(&v->q, 0, on_event, v))
				vm_down(v, "QEMU sent what is not JSON");
			if (v->up && v->pending)
				vm_decide(v);
			if (v->up && v->next_tick < next)
				next = v->next_tick;
			if (!v->up && v->next_connect < next)
				next = v->next_connect;
		}
		for (n = 0, i = 0; i < cfg->nr_vms; i++)
			if (vms[i].up)
				pfd[n++] = (struct pollfd){ .fd = vms[i].q.fd, .events = POLLIN };
		if (ms)
			pfd[n++] = (struct pollfd){ .fd = metrics_fd(ms), .events = POLLIN };
		timeout = next > now_ms() ? (int)(next - now_ms()) + 1 : 0;
		if (ms && metrics_timeout_ms(ms) >= 0 && metrics_timeout_ms(ms) < timeout)
			timeout = metrics_timeout_ms(ms);
		if (poll(pfd, n, timeout) < 0 && errno != EINTR) {
			err_msg("poll: %s", strerror(errno));
			break;
		}
		for (i = 0; i < cfg->nr_vms; i++) {
			unsigned int j;

			for (j = 0; j < n; j++)
				if (vms[i].up && pfd[j].fd == vms[i].q.fd && pfd[j].revents &&
				    qmp_pump(&vms[i].q, 1, on_event, &vms[i]))
					vm_down(&vms[i], "QEMU closed the socket");
		}
		if (ms)
			metrics_run(ms);
	}
	free(pfd);
	return 0;
}

int cmd_balance(int argc, char **argv)
{
	static struct balance_cfg c;
	struct metrics_server *ms = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned int i;
	int err;

	err = balance_parse_args(argc, argv, &c);
	if (err >= 0)
		return err;
	cfg = &c;
	vms = calloc(c.nr_vms, sizeof(*vms));
	if (!vms)
		return 1;
	for (i = 0; i < c.nr_vms; i++) {
		vms[i].arg = &c.vms[i];
		vms[i].q.fd = -1;
	}
	if (c.metrics && !(ms = metrics_start(c.metrics, scrape, NULL)))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	info_msg("balancing %u VM(s), policy %s%s%s", c.nr_vms, policy_kind_name(c.k.kind),
		 c.metrics ? ", metrics on http://" : "", c.metrics ? c.metrics : "");
	err = run(ms);
	for (i = 0; i < c.nr_vms; i++)
		if (vms[i].up)
			qmp_close(&vms[i].q);
	metrics_stop(ms);
	free(vms);
	return err;
}
