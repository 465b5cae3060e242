// SPDX-License-Identifier: GPL-2.0
/* wsr-host balance's Prometheus exporter: see metrics.h. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>
#include "libwsr.h"
#include "metrics.h"

/* one sample of @name for VM @v with no other label */
static void vm_sample(FILE *f, const char *name, const struct metrics_vm *v, double value)
{
	fprintf(f, "%s{vm=\"", name);
	wsr_prom_label_value(f, v->name);
	fprintf(f, "\"} %.17g\n", value);
}

static void bins(FILE *f, const struct metrics_vm *v)
{
	const struct ws_report *r = v->report;
	__u32 n, b;
	int t;

	for (n = 0; n < r->nr_nodes; n++)
		for (b = 0; b < r->nodes[n].hist.nr_bins; b++)
			for (t = 0; t < 2; t++) {
				const struct wsr_hist *h = &r->nodes[n].hist;

				wsr_prom_ws_sample(f, "vm", v->name, r->nodes[n].id, t,
						   h->bound_ms[b], t ? h->file[b] : h->anon[b]);
			}
}

/* a VM's latest report has the header of a QEMU with the 32-byte wire header */
static int has_ext(const struct metrics_vm *v)
{
	return v->report && v->report->ext.known;
}

/*
 * What the extended header says: the flags as 0/1 gauges, the guest's own
 * counts as counters (they reset when the guest does, and reclaim_seq
 * when it wraps).  No sample for a VM without a report, or whose QEMU
 * does not send them.
 */
static void ext_metrics(FILE *f, const struct metrics_vm *vms, unsigned int n)
{
	unsigned int i;

	wsr_prom_head(f, "wsr_report_incomplete", "gauge",
		      "1 if the latest report's bins are a lower bound (the guest cut its walk "
		      "of the memory cgroups short), else 0.");
	for (i = 0; i < n; i++)
		if (has_ext(&vms[i]))
			vm_sample(f, "wsr_report_incomplete", &vms[i], vms[i].report->ext.incomplete);
	wsr_prom_head(f, "wsr_report_anon_reclaimable", "gauge",
		      "0 if the guest could not swap when it made the latest report (its anon "
		      "bins are then 0), else 1.");
	for (i = 0; i < n; i++)
		if (has_ext(&vms[i]))
			vm_sample(f, "wsr_report_anon_reclaimable", &vms[i],
				  vms[i].report->ext.anon_reclaimable);
	wsr_prom_head(f, "wsr_guest_reclaim_reports_total", "counter",
		      "Reclaim reports the guest's balloon driver made since it was bound, as of "
		      "the latest report (its reclaim_seq, which wraps at 2^32); more than "
		      "wsr_reports_total{cause=\"reclaim\"} by those the host did not receive.");
	for (i = 0; i < n; i++)
		if (has_ext(&vms[i]))
			vm_sample(f, "wsr_guest_reclaim_reports_total", &vms[i],
				  vms[i].report->ext.reclaim_seq);
	wsr_prom_head(f, "wsr_guest_memory_some_seconds_total", "counter",
		      "The guest's memory pressure as of the latest report: seconds since it "
		      "booted during which some of its tasks were stalled on memory (PSI some).");
	for (i = 0; i < n; i++)
		if (has_ext(&vms[i]))
			vm_sample(f, "wsr_guest_memory_some_seconds_total", &vms[i],
				  vms[i].report->ext.mem_some_us / 1e6);
	wsr_prom_head(f, "wsr_guest_memory_full_seconds_total", "counter",
		      "The guest's memory pressure as of the latest report: seconds since it "
		      "booted during which all of its non-idle tasks were stalled on memory "
		      "(PSI full).");
	for (i = 0; i < n; i++)
		if (has_ext(&vms[i]))
			vm_sample(f, "wsr_guest_memory_full_seconds_total", &vms[i],
				  vms[i].report->ext.mem_full_us / 1e6);
}

/*
 * Why the policy does what it does: reclaims it learnt of from the
 * sequence number, working-set's T per VM and the promotion rate that
 * moves it (docs/policies.md).  T and the rate only under working-set,
 * the rate once a minute of stats has measured it.
 */
static void policy_metrics(FILE *f, const struct metrics_vm *vms, unsigned int n)
{
	unsigned int i;

	wsr_prom_head(f, "wsr_balance_missed_reclaims_total", "counter",
		      "Reclaim reports that the report header's reclaim_seq showed before "
		      "balance received them (lost, or still paced in QEMU); each is decided on "
		      "as a reclaim.");
	for (i = 0; i < n; i++)
		vm_sample(f, "wsr_balance_missed_reclaims_total", &vms[i], vms[i].missed_reclaims);
	wsr_prom_head(f, "wsr_balance_idle_threshold_seconds", "gauge",
		      "working-set's idle threshold T for the VM now: memory idle for less is "
		      "kept; raised when its promotion rate passes the SLO.");
	for (i = 0; i < n; i++)
		if (vms[i].idle_s > 0)
			vm_sample(f, "wsr_balance_idle_threshold_seconds", &vms[i], vms[i].idle_s);
	wsr_prom_head(f, "wsr_balance_promotion_rate", "gauge",
		      "Pages swapped in plus major faults per minute, a fraction of the working "
		      "set (memory idle for less than 120 s), over the last minute of stats; "
		      "the SLO is 0.002.");
	for (i = 0; i < n; i++)
		if (vms[i].idle_s > 0 && vms[i].promotion_rate >= 0)
			vm_sample(f, "wsr_balance_promotion_rate", &vms[i], vms[i].promotion_rate);
}

char *metrics_text(const struct metrics_vm *vms, unsigned int n)
{
	/* what a VM sends, in the order the exposition shows them */
	static const enum wsr_report_cause causes[] = { WSR_CAUSE_REQUEST, WSR_CAUSE_RECLAIM };
	char *text = NULL;
	size_t len = 0;
	unsigned int i, c;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	wsr_prom_head(f, "wsr_up", "gauge",
		      "1 while wsr-host balance is connected to the VM's QMP socket.");
	for (i = 0; i < n; i++)
		vm_sample(f, "wsr_up", &vms[i], vms[i].up);
	wsr_prom_head(f, "wsr_working_set_bytes", "gauge",
		      "Bytes of the VM's memory idle for at most idle_le_ms (and more than the bin "
		      "before), per NUMA node and type, from its latest working-set report.");
	for (i = 0; i < n; i++)
		if (vms[i].report)
			bins(f, &vms[i]);
	wsr_prom_head(f, "wsr_report_age_seconds", "gauge",
		      "Seconds since the latest working-set report arrived.");
	for (i = 0; i < n; i++)
		if (vms[i].report)
			vm_sample(f, "wsr_report_age_seconds", &vms[i], vms[i].report_age_s);
	wsr_prom_head(f, "wsr_report_data_age_seconds", "gauge",
		      "The latest report's data age: how long before it was sent its data was collected.");
	for (i = 0; i < n; i++)
		if (vms[i].report)
			vm_sample(f, "wsr_report_data_age_seconds", &vms[i],
				  vms[i].report->data_age_ms / 1e3);
	ext_metrics(f, vms, n);
	wsr_prom_head(f, "wsr_reports_total", "counter",
		      "Working-set reports received, by cause: request (asked by the host) or "
		      "reclaim (sent by the guest under memory pressure).");
	for (i = 0; i < n; i++)
		for (c = 0; c < 2; c++) {
			fputs("wsr_reports_total{vm=\"", f);
			wsr_prom_label_value(f, vms[i].name);
			fprintf(f, "\",cause=\"%s\"} %llu\n", wsr_cause_name(causes[c]),
				vms[i].reports[causes[c]]);
		}
	wsr_prom_head(f, "wsr_balloon_target_bytes", "gauge",
		      "The guest memory size last set with QMP balloon (RAM minus the balloon).");
	for (i = 0; i < n; i++)
		if (vms[i].target)
			vm_sample(f, "wsr_balloon_target_bytes", &vms[i], vms[i].target);
	wsr_prom_head(f, "wsr_balloon_actual_bytes", "gauge",
		      "The guest memory size now, QMP query-balloon's actual (RAM minus the balloon).");
	for (i = 0; i < n; i++)
		if (vms[i].actual)
			vm_sample(f, "wsr_balloon_actual_bytes", &vms[i], vms[i].actual);
	wsr_prom_head(f, "wsr_guest_ram_bytes", "gauge",
		      "The VM's RAM (QMP query-memory-size-summary).");
	for (i = 0; i < n; i++)
		if (vms[i].ram)
			vm_sample(f, "wsr_guest_ram_bytes", &vms[i], vms[i].ram);
	wsr_prom_head(f, "wsr_balance_decisions_total", "counter",
		      "Balloon targets set by wsr-host balance's policy.");
	for (i = 0; i < n; i++)
		vm_sample(f, "wsr_balance_decisions_total", &vms[i], vms[i].decisions);
	policy_metrics(f, vms, n);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

struct metrics_server {
	struct MHD_Daemon *d;
	char *(*get)(void *arg);
	void *arg;
};

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_len, void **con_cls)
{
	static const char not_found[] = "wsr-host balance serves GET /metrics\n";
	struct metrics_server *m = cls;
	struct MHD_Response *resp;
	enum MHD_Result ret;
	unsigned int status = MHD_HTTP_OK;
	char *text = NULL;

	(void)version;
	(void)upload;
	(void)upload_len;
	(void)con_cls;
	if (!strcmp(method, "GET") && !strcmp(url, "/metrics"))
		text = m->get(m->arg);
	if (text) {
		resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
		MHD_add_response_header(resp, "Content-Type",
					"text/plain; version=0.0.4; charset=utf-8");
	} else {
		status = strcmp(url, "/metrics") ? MHD_HTTP_NOT_FOUND : MHD_HTTP_INTERNAL_SERVER_ERROR;
		resp = MHD_create_response_from_buffer(sizeof(not_found) - 1, (void *)not_found,
						       MHD_RESPMEM_PERSISTENT);
	}
	if (!resp)
		return MHD_NO;
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

int metrics_parse_addr(const char *addr, void *sa, unsigned int *len)
{
	const char *colon = strrchr(addr, ':');
	char host[64], *end;
	unsigned long port;
	size_t hl;

	if (!colon || !colon[1])
		return -1;
	port = strtoul(colon + 1, &end, 10);
	if (*end || port > 65535 || colon[1] < '0' || colon[1] > '9')
		return -1;
	hl = colon - addr;
	if (hl >= sizeof(host))
		return -1;
	memcpy(host, addr, hl);
	host[hl] = 0;
	if (hl > 2 && host[0] == '[' && host[hl - 1] == ']') {
		struct sockaddr_in6 *s6 = sa;

		host[hl - 1] = 0;
		memset(s6, 0, sizeof(*s6));
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*len = sizeof(*s6);
		return inet_pton(AF_INET6, host + 1, &s6->sin6_addr) == 1 ? 0 : -1;
	} else {
		struct sockaddr_in *s4 = sa;

		memset(s4, 0, sizeof(*s4));
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		*len = sizeof(*s4);
		return inet_pton(AF_INET, host, &s4->sin_addr) == 1 ? 0 : -1;
	}
}

struct metrics_server *metrics_start(const char *addr, const struct metrics_limits *lim,
				     char *(*get)(void *arg), void *arg)
{
	struct sockaddr_in6 sa;
	unsigned int len;
	struct metrics_server *m;

	if (metrics_parse_addr(addr, &sa, &len)) {
		err_msg("--metrics takes IPv4:PORT or [IPv6]:PORT, not '%s'", addr);
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->get = get;
	m->arg = arg;
	/* no thread: balance's loop polls the epoll fd and calls MHD_run() */
	m->d = MHD_start_daemon(MHD_USE_EPOLL | (sa.sin6_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				0, NULL, NULL, handle, m, MHD_OPTION_SOCK_ADDR, &sa,
				MHD_OPTION_CONNECTION_TIMEOUT, lim->idle_s,
				MHD_OPTION_CONNECTION_LIMIT, lim->connections,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, lim->per_ip,
				MHD_OPTION_LISTEN_BACKLOG_SIZE, lim->backlog, MHD_OPTION_END);
	if (!m->d) {
		err_msg("cannot serve metrics on %s (address in use?)", addr);
		free(m);
		return NULL;
	}
	return m;
}

int metrics_fd(struct metrics_server *m)
{
	const union MHD_DaemonInfo *i = MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_EPOLL_FD);

	return i ? i->epoll_fd : -1;
}

int metrics_timeout_ms(struct metrics_server *m)
{
	MHD_UNSIGNED_LONG_LONG t;

	if (MHD_get_timeout(m->d, &t) != MHD_YES)
		return -1;
	return t > 60000 ? 60000 : (int)t;
}

void metrics_run(struct metrics_server *m)
{
	MHD_run(m->d);
}

void metrics_stop(struct metrics_server *m)
{
	if (!m)
		return;
	MHD_stop_daemon(m->d);
	free(m);
}
