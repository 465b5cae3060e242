// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wsr: working-set reporting for overcommitted Linux guests.
 *
 * One binary, two roles:
 *  - "wsr daemon" loads the BPF programs of wsr.bpf.c, pins their maps and
 *    links under one bpffs folder and keeps the memcg list fresh.  The
 *    programs keep running when it exits or dies; a new daemon adopts them.
 *  - the other commands are the CLI: they open the pins, set and show the
 *    knobs and print histograms in the seed's sysfs formats or as JSON.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "wsr.h"
#include "parse.h"
#include "wsr.skel.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define CGROUP_ROOT	"/sys/fs/cgroup"
#define LRU_GEN_DEBUGFS	"/sys/kernel/debug/lru_gen"

static const char *pin_dir = "/sys/fs/bpf/wsr";
static bool verbose;
static volatile sig_atomic_t exiting;

/* the maps the CLI works with, opened from their pins */
struct pins {
	int config, reports, live, reaccess, watchers;
};

static void err_msg(const char *fmt, ...)
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

static __u64 now_ns(void)
{
	struct timespec ts;

	/* the clock of bpf_ktime_get_now_ns() */
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void pin_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", pin_dir, name);
}

static int open_pin(const char *name)
{
	char path[PATH_MAX];
	int fd;

	pin_path(path, sizeof(path), name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		err_msg("cannot open %s: %s (is \"wsr daemon\" loaded?)", path, strerror(errno));
	return fd;
}

static int open_pins(struct pins *p)
{
	p->config = open_pin("config");
	p->reports = open_pin("reports");
	p->live = open_pin("live");
	p->reaccess = open_pin("reaccess");
	p->watchers = open_pin("watchers");
	if (p->config < 0 || p->reports < 0 || p->live < 0 || p->reaccess < 0 ||
	    p->watchers < 0)
		return -1;
	return 0;
}

/* number of possible NUMA nodes: the last id in .../node/possible, plus 1 */
static __u32 possible_nodes(void)
{
	char buf[64] = "";
	const char *last;
	FILE *f = fopen("/sys/devices/system/node/possible", "r");
	__u32 n;

	if (!f)
		return 1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	last = strrchr(buf, '-');
	last = last ? last + 1 : strrchr(buf, ',') ? strrchr(buf, ',') + 1 : buf;
	n = strtoul(last, NULL, 10) + 1;
	return n > WSR_MAX_NODES ? WSR_MAX_NODES : n;
}

/* ---- memcgs by cgroup v2 path --------------------------------------------- */

struct memcg {
	char rel[PATH_MAX];	/* path below the cgroup2 root: "/", "/a/b" */
	char abs[PATH_MAX];
	__u64 id;		/* cgroup id: the directory's inode number */
};

/* accept "/a/b", "a/b" or "/sys/fs/cgroup/a/b" */
static int resolve_memcg(const char *path, struct memcg *m)
{
	struct statfs sfs;
	struct stat st;
	const char *rel = path;
	size_t n;

	if (!strncmp(rel, CGROUP_ROOT, strlen(CGROUP_ROOT)))
		rel += strlen(CGROUP_ROOT);
	while (*rel == '/')
		rel++;
	snprintf(m->rel, sizeof(m->rel), "/%s", rel);
	n = strlen(m->rel);
	while (n > 1 && m->rel[n - 1] == '/')
		m->rel[--n] = 0;
	snprintf(m->abs, sizeof(m->abs), "%s%s", CGROUP_ROOT, m->rel);
	if (statfs(CGROUP_ROOT, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		err_msg("no cgroup v2 hierarchy mounted on %s", CGROUP_ROOT);
		return -1;
	}
	if (stat(m->abs, &st) || !S_ISDIR(st.st_mode)) {
		err_msg("memcg '%s' not found (no folder %s)", path, m->abs);
		return -1;
	}
	m->id = st.st_ino;
	return 0;
}

/* ---- MGLRU aging through debugfs -------------------------------------------- */

/* parser state for /sys/kernel/debug/lru_gen */
struct lru_gen_scan {
	const struct memcg *m;
	__u64 nodes;		/* bitmask of the nodes to age */
	unsigned long id;	/* current memcg (mem_cgroup_id) */
	bool in_subtree;
	int node;		/* current node, -1 before the first */
	unsigned long long max_seq;
	bool have_seq;
	int fd;			/* lru_gen opened for writing */
	int err;
};

/* age the lruvec whose generations were just read, if it is one of ours */
static void lru_gen_scan_flush(struct lru_gen_scan *s)
{
	char cmd[64];
	int n;

	if (s->in_subtree && s->have_seq && s->node >= 0 && s->node < 64 &&
	    (s->nodes >> s->node & 1)) {
		/* "+ memcg node max_seq can_swap force_scan" */
		n = snprintf(cmd, sizeof(cmd), "+ %lu %d %llu 1 1\n", s->id, s->node,
			     s->max_seq);
		/* a memcg removed, or aged by someone else, in between is fine */
		if (write(s->fd, cmd, n) < 0 && errno != ENOENT && errno != EINVAL &&
		    !s->err) {
			err_msg("aging failed: %.*s: %s", n - 1, cmd, strerror(errno));
			s->err = -1;
		}
	}
	s->have_seq = false;
}

static bool in_subtree(const char *path, const char *root)
{
	size_t n = strlen(root);

	return !strcmp(root, "/") ||
	       (!strncmp(path, root, n) && (path[n] == 0 || path[n] == '/'));
}

/*
 * Age the lruvecs of @m's subtree on the nodes in @nodes (a bitmask), as
 * the seed's wss_refresh() does before a report, through MGLRU's debugfs
 * interface: each lruvec's max_seq is read from the file, then aged.
 */
static int age_subtree(const struct memcg *m, __u64 nodes)
{
	struct lru_gen_scan s = { .m = m, .nodes = nodes, .node = -1 };
	char line[PATH_MAX + 64], path[PATH_MAX];
	unsigned long long seq;
	FILE *f;

	f = fopen(LRU_GEN_DEBUGFS, "r");
	s.fd = open(LRU_GEN_DEBUGFS, O_WRONLY);
	if (!f || s.fd < 0) {
		err_msg("cannot open %s: %s (needs debugfs and CONFIG_LRU_GEN)",
			LRU_GEN_DEBUGFS, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long id;
		int node;

		/* a memcg or node line ends the previous node's generations */
		if (sscanf(line, "memcg %lu %4095s", &id, path) == 2) {
			lru_gen_scan_flush(&s);
			s.id = id;
			s.node = -1;
			s.in_subtree = in_subtree(path, m->rel);
		} else if (sscanf(line, " node %d", &node) == 1) {
			lru_gen_scan_flush(&s);
			s.node = node;
		} else if (sscanf(line, " %llu", &seq) == 1) {
			s.max_seq = seq;	/* the last one listed is max_seq */
			s.have_seq = true;
		}
	}
	lru_gen_scan_flush(&s);
	fclose(f);
	close(s.fd);
	return s.err;
}

/* ---- histograms ---------------------------------------------------------------- */

/* run the pinned cgroup iterator program @pin over @m (and its subtree) */
static int run_iter(const char *pin, const struct memcg *m, bool subtree, FILE *out)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	union bpf_iter_link_info linfo = {};
	int prog, cg, link = -1, iter = -1, err = -1;
	char buf[4096];
	ssize_t n;

	prog = open_pin(pin);
	cg = open(m->abs, O_RDONLY | O_DIRECTORY);
	if (prog < 0 || cg < 0)
		goto out;
	linfo.cgroup.cgroup_fd = cg;
	linfo.cgroup.order = subtree ? BPF_CGROUP_ITER_DESCENDANTS_PRE : BPF_CGROUP_ITER_SELF_ONLY;
	opts.iter_info = &linfo;
	opts.iter_info_len = sizeof(linfo);
	link = bpf_link_create(prog, 0, BPF_TRACE_ITER, &opts);
	if (link < 0) {
		err_msg("cannot create the %s iterator: %s", pin, strerror(errno));
		goto out;
	}
	iter = bpf_iter_create(link);
	if (iter < 0)
		goto out;
	while ((n = read(iter, buf, sizeof(buf))) > 0)
		if (out)
			fwrite(buf, 1, n, out);
	err = n < 0 ? -1 : 0;
	if (err)
		err_msg("%s iterator failed: %s", pin, strerror(errno));
out:
	if (iter >= 0)
		close(iter);
	if (link >= 0)
		close(link);
	if (cg >= 0)
		close(cg);
	if (prog >= 0)
		close(prog);
	return err;
}

static void get_config(const struct pins *p, __u64 id, __u32 node, struct wsr_config *cfg)
{
	struct wsr_key key = { .cgroup_id = id, .node = node };

	if (bpf_map_lookup_elem(p->config, &key, cfg))
		memset(cfg, 0, sizeof(*cfg));
}

/* the report a reader gets: refreshed (aged first) when older than refresh_ms */
static int read_reports(const struct pins *p, const struct memcg *m, __u32 nr_nodes,
			bool refresh, struct wsr_report *reps)
{
	__u64 stale = 0, now = now_ns();
	struct wsr_config cfg;
	__u32 n;

	for (n = 0; n < nr_nodes; n++) {
		struct wsr_key key = { .cgroup_id = m->id, .node = n };

		get_config(p, m->id, n, &cfg);
		if (bpf_map_lookup_elem(p->reports, &key, &reps[n]))
			memset(&reps[n], 0, sizeof(reps[n]));
		/* a report made with other bins is stale too */
		if (!reps[n].time_ns || now - reps[n].time_ns >= cfg.refresh_ms * 1000000ULL ||
		    reps[n].hist.nr_bins != cfg.nr_intervals + 1)
			stale |= 1ULL << n;
	}
	if (!refresh)
		stale = 0;
	if (stale && age_subtree(m, stale))
		return -1;
	/* walk @m's subtree with the histogram iterator: fills "live" */
	if (run_iter("prog_histogram", m, true, NULL))
		return -1;
	for (n = 0; n < nr_nodes; n++) {
		struct wsr_key key = { .cgroup_id = m->id, .node = n };
		struct wsr_report live;

		if (refresh && !(stale >> n & 1))
			continue;
		if (bpf_map_lookup_elem(p->live, &key, &live))
			return -1;
		live.seq = reps[n].seq + 1;
		live.cause = WSR_CAUSE_READ;
		reps[n] = live;
		/* only a refreshed histogram is a report in the seed's sense */
		if (refresh)
			bpf_map_update_elem(p->reports, &key, &live, BPF_ANY);
	}
	return 0;
}

static const char *cause_name(__u32 cause)
{
	return cause == WSR_CAUSE_RECLAIM ? "reclaim" : cause == WSR_CAUSE_READ ? "read" :
	       cause == WSR_CAUSE_REQUEST ? "request" : "none";
}

static void print_report_json(FILE *f, const struct memcg *m, __u32 node,
			      const struct wsr_report *r)
{
	fputs("{\"memcg\":", f);
	wsr_print_json_string(f, m->rel);
	fprintf(f, ",\"seq\":%llu,\"time_ns\":%llu,\"cause\":\"%s\",\"histogram\":",
		(unsigned long long)r->seq, (unsigned long long)r->time_ns,
		cause_name(r->cause));
	wsr_print_hist_json(f, node, &r->hist);
	fputc('}', f);
}

/* memcg format ("N0" then bins, per node) or node format (one node, bins) */
static void print_hists(const struct memcg *m, const struct wsr_report *reps,
			__u32 nr_nodes, int only_node, bool json)
{
	bool first = true;
	__u32 n;

	if (json)
		fputc('[', stdout);
	for (n = 0; n < nr_nodes; n++) {
		if (only_node >= 0 && (int)n != only_node)
			continue;
		if (json) {
			fputs(first ? "" : ",", stdout);
			print_report_json(stdout, m, n, &reps[n]);
		} else {
			if (only_node < 0)
				printf("N%u\n", n);
			wsr_print_hist(stdout, &reps[n].hist);
		}
		first = false;
	}
	if (json)
		fputs("]\n", stdout);
}

/* ---- command-line plumbing ----------------------------------------------------- */

struct cli {
	const char *memcg;
	int node;		/* -1: all nodes */
	bool json, no_refresh;
	long count;
	__u64 interval_ms;
};

enum { OPT_NO_REFRESH = 256, OPT_INTERVAL };

static const struct option cli_options[] = {
	{ "memcg", required_argument, NULL, 'm' },
	{ "node", required_argument, NULL, 'n' },
	{ "json", no_argument, NULL, 'j' },
	{ "count", required_argument, NULL, 'c' },
	{ "no-refresh", no_argument, NULL, OPT_NO_REFRESH },
	{ "interval-ms", required_argument, NULL, OPT_INTERVAL },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static void usage(FILE *f)
{
	fputs(
"usage: wsr [--pin-dir DIR] COMMAND [OPTIONS] [ARGS]\n"
"\n"
"Working-set histograms of memory by idle age (anon and file apart), per\n"
"NUMA node and per memory cgroup, computed by BPF from MGLRU generations.\n"
"\n"
"commands:\n"
"  daemon                 load the BPF programs (or adopt pinned ones) and\n"
"                         keep the memcg list fresh; runs in the foreground,\n"
"                         logs to stderr, stops on SIGTERM; programs stay\n"
"                         attached after it exits\n"
"  show                   print the working-set histogram; ages first when\n"
"                         the last report is older than refresh_ms\n"
"  set KNOB VALUE         set a knob: intervals_ms, report_ms, refresh_ms,\n"
"                         reaccess_intervals_ms; VALUE is N<node>=<v> as in\n"
"                         the seed's memory.wss.* files, or <v> for --node or\n"
"                         for every node\n"
"  get KNOB               print a knob (N0=<v> N1=<v> ..., or <v> with --node)\n"
"  watch                  wait for reports made on reclaim and print each\n"
"  reaccess               print the reaccess histogram\n"
"  unload                 detach the programs and remove the pins\n"
"  balloon [show]         the virtio-balloon device's working-set config\n"
"                         (from its driver) and the last report wsr gave it\n"
"  balloon attach|detach  attach the programs that report to the balloon\n"
"                         (the daemon does at start if the driver is there),\n"
"                         or detach them: needed before rmmod virtio_balloon\n"
"\n"
"options:\n"
"  -m, --memcg PATH       cgroup v2 path of the memcg (default /: the node\n"
"                         level, covering every memcg)\n"
"  -n, --node N           one node only, printed in the seed's node format\n"
"  -j, --json             JSON output\n"
"      --no-refresh       show: never age, print the live histogram\n"
"  -c, --count N          watch: stop after N reports\n"
"      --interval-ms MS   daemon: how often to look for new memcgs (1000)\n"
"  -v, --verbose          libbpf debug output\n"
"      --pin-dir DIR      bpffs folder of the pins (default /sys/fs/bpf/wsr)\n"
"\n"
"examples:\n"
"  wsr daemon &\n"
"  wsr set intervals_ms 1000,2000,4000,8000      # every node, node level\n"
"  wsr set --memcg /job report_ms N1=500          # memcg /job, node 1\n"
"  wsr show --node 0                              # as nodeN/wss/histogram\n"
"  wsr show --memcg /job --json\n"
"  wsr watch --memcg /job --count 3\n"
"  cat /sys/fs/bpf/wsr/histogram                  # no wsr binary needed\n"
"  wsr balloon --json                             # what the host was sent\n"
"  bpftool map dump pinned /sys/fs/bpf/wsr/config\n", f);
}

static int parse_cli(int argc, char **argv, struct cli *c)
{
	struct wsr_err err;
	__u64 v;
	int opt;

	c->memcg = "/";
	c->node = -1;
	c->count = -1;
	c->interval_ms = 1000;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "m:n:jc:vh", cli_options, NULL)) != -1) {
		switch (opt) {
		case 'm':
			c->memcg = optarg;
			break;
		case 'n':
			if (wsr_parse_u64(optarg, &v, "--node", &err))
				goto bad;
			if (v >= possible_nodes()) {
				err_msg("--node %s: node does not exist (nodes 0-%u)", optarg,
					possible_nodes() - 1);
				return -1;
			}
			c->node = (int)v;
			break;
		case 'j':
			c->json = true;
			break;
		case 'c':
			if (wsr_parse_u64(optarg, &v, "--count", &err) || !v)
				goto bad_count;
			c->count = (long)v;
			break;
		case OPT_NO_REFRESH:
			c->no_refresh = true;
			break;
		case OPT_INTERVAL:
			if (wsr_parse_u64(optarg, &c->interval_ms, "--interval-ms", &err))
				goto bad;
			if (!c->interval_ms) {
				err_msg("--interval-ms must be at least 1");
				return -1;
			}
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
		}
	}
	return optind;
bad_count:
	if (!err.msg[0] || v == 0)
		snprintf(err.msg, sizeof(err.msg), "--count must be at least 1");
bad:
	err_msg("%s", err.msg);
	return -1;
}

/* options only, no arguments: 0, or the exit status for bad usage */
static int parse_options_only(int argc, char **argv, struct cli *c)
{
	int i = parse_cli(argc, argv, c);

	if (i < 0)
		return 2;
	if (i != argc) {
		err_msg("unexpected argument '%s'", argv[i]);
		return 2;
	}
	return 0;
}

/* ---- commands -------------------------------------------------------------------- */

/* reaccess histograms; bins of the configuration while nothing is counted */
static void read_reaccess(const struct pins *p, const struct memcg *m, __u32 nr_nodes,
			  struct wsr_report *reps)
{
	struct wsr_config cfg;
	__u32 n, i;

	for (n = 0; n < nr_nodes; n++) {
		struct wsr_key key = { .cgroup_id = m->id, .node = n };

		if (!bpf_map_lookup_elem(p->reaccess, &key, &reps[n].hist))
			continue;
		get_config(p, m->id, n, &cfg);
		reps[n].hist.nr_bins = cfg.reaccess_nr_intervals + 1;
		for (i = 0; i < WSR_MAX_BINS; i++)
			reps[n].hist.bound_ms[i] = i < cfg.reaccess_nr_intervals ?
				cfg.reaccess_intervals_ms[i] : WSR_BIN_INF;
	}
}

static int cmd_show(int argc, char **argv, bool reaccess)
{
	struct wsr_report reps[WSR_MAX_NODES] = {};
	__u32 nr_nodes = possible_nodes();
	struct memcg m;
	struct pins p;
	struct cli c = {};
	int err = parse_options_only(argc, argv, &c);

	if (err)
		return err;
	if (resolve_memcg(c.memcg, &m) || open_pins(&p))
		return 1;
	if (reaccess)
		read_reaccess(&p, &m, nr_nodes, reps);
	else if (read_reports(&p, &m, nr_nodes, !c.no_refresh, reps))
		return 1;
	print_hists(&m, reps, nr_nodes, c.node, c.json);
	return 0;
}

static int cmd_set(int argc, char **argv)
{
	struct wsr_config cfgs[WSR_MAX_NODES];
	__u32 nr_nodes = possible_nodes(), n;
	const char *value;
	struct wsr_err err;
	struct memcg m;
	struct pins p;
	struct cli c = {};
	int i = parse_cli(argc, argv, &c), knob, node;

	if (i < 0)
		return 2;
	if (argc - i != 2) {
		err_msg("set takes a knob and a value, e.g. \"wsr set report_ms N0=1000\"");
		return 2;
	}
	knob = wsr_knob_by_name(argv[i]);
	if (knob < 0) {
		err_msg("unknown knob '%s' (intervals_ms, report_ms, refresh_ms, "
			"reaccess_intervals_ms)", argv[i]);
		return 2;
	}
	if (wsr_parse_node_value(argv[i + 1], nr_nodes, &node, &value, &err)) {
		err_msg("%s", err.msg);
		return 2;
	}
	if (node >= 0 && c.node >= 0 && node != c.node) {
		err_msg("--node %d and N%d= disagree", c.node, node);
		return 2;
	}
	if (node < 0)
		node = c.node;
	if (resolve_memcg(c.memcg, &m) || open_pins(&p))
		return 1;
	/* validate for every node first: bad input changes nothing */
	for (n = 0; n < nr_nodes; n++) {
		get_config(&p, m.id, n, &cfgs[n]);
		if ((node < 0 || (int)n == node) &&
		    wsr_config_set(&cfgs[n], knob, value, &err)) {
			err_msg("%s", err.msg);
			return 2;
		}
	}
	for (n = 0; n < nr_nodes; n++) {
		struct wsr_key key = { .cgroup_id = m.id, .node = n };

		if (node >= 0 && (int)n != node)
			continue;
		if (bpf_map_update_elem(p.config, &key, &cfgs[n], BPF_ANY)) {
			err_msg("cannot store the configuration: %s", strerror(errno));
			return 1;
		}
		/* new reaccess bins start a new reaccess histogram */
		if (knob == WSR_KNOB_REACCESS_INTERVALS)
			bpf_map_delete_elem(p.reaccess, &key);
	}
	return 0;
}

static int cmd_get(int argc, char **argv)
{
	__u32 nr_nodes = possible_nodes(), n;
	struct wsr_config cfg;
	struct memcg m;
	struct pins p;
	struct cli c = {};
	int i = parse_cli(argc, argv, &c), knob;

	if (i < 0)
		return 2;
	if (argc - i != 1 || (knob = wsr_knob_by_name(argv[i])) < 0) {
		err_msg("get takes one knob: intervals_ms, report_ms, refresh_ms, "
			"reaccess_intervals_ms");
		return 2;
	}
	if (resolve_memcg(c.memcg, &m) || open_pins(&p))
		return 1;
	if (c.json)
		fputc('{', stdout);
	for (n = 0; n < nr_nodes; n++) {
		if (c.node >= 0 && (int)n != c.node)
			continue;
		get_config(&p, m.id, n, &cfg);
		if (c.json)
			printf("%s\"%u\":\"", c.node >= 0 || !n ? "" : ",", n);
		else if (c.node < 0)
			printf("%sN%u=", n ? " " : "", n);
		wsr_print_knob(stdout, &cfg, knob);
		if (c.json)
			fputc('"', stdout);
	}
	puts(c.json ? "}" : "");
	return 0;
}

/* ---- watch ----------------------------------------------------------------------- */

struct watch_ctx {
	const struct pins *p;
	const struct memcg *m;
	const struct cli *c;
	__u64 since_ns;
	long seen;
};

static int on_event(void *ctx, void *data, size_t size)
{
	struct watch_ctx *w = ctx;
	const struct wsr_event *ev = data;
	struct wsr_report rep;

	if (size < sizeof(*ev) || ev->time_ns < w->since_ns || ev->key.cgroup_id != w->m->id ||
	    (w->c->node >= 0 && ev->key.node != (__u32)w->c->node))
		return 0;
	if (bpf_map_lookup_elem(w->p->reports, &ev->key, &rep))
		return 0;
	if (w->c->json) {
		print_report_json(stdout, w->m, ev->key.node, &rep);
		fputc('\n', stdout);
	} else {
		printf("N%u\n", ev->key.node);
		wsr_print_hist(stdout, &rep.hist);
	}
	fflush(stdout);
	if (w->c->count > 0 && ++w->seen >= w->c->count)
		exiting = 1;
	return 0;
}

/* take a free watcher slot, reclaiming those of dead watchers */
static int claim_watch_slot(const struct pins *p)
{
	__u32 slot, pid = getpid(), owner;

	for (slot = 0; slot < WSR_MAX_WATCHERS; slot++) {
		if (!bpf_map_update_elem(p->watchers, &slot, &pid, BPF_NOEXIST))
			return slot;
		if (!bpf_map_lookup_elem(p->watchers, &slot, &owner) &&
		    kill(owner, 0) && errno == ESRCH) {
			bpf_map_delete_elem(p->watchers, &slot);
			if (!bpf_map_update_elem(p->watchers, &slot, &pid, BPF_NOEXIST))
				return slot;
		}
	}
	return -1;
}

static int cmd_watch(int argc, char **argv)
{
	struct ring_buffer *rb = NULL;
	struct watch_ctx w = {};
	char name[16];
	struct memcg m;
	struct pins p;
	struct cli c = {};
	int slot, fd, err = parse_options_only(argc, argv, &c);

	if (err)
		return err;
	if (resolve_memcg(c.memcg, &m) || open_pins(&p))
		return 1;
	slot = claim_watch_slot(&p);
	if (slot < 0) {
		err_msg("all %d watcher slots are taken", WSR_MAX_WATCHERS);
		return 1;
	}
	snprintf(name, sizeof(name), "watch%d", slot);
	w = (struct watch_ctx){ .p = &p, .m = &m, .c = &c, .since_ns = now_ns() };
	fd = open_pin(name);
	if (fd >= 0)
		rb = ring_buffer__new(fd, on_event, &w, NULL);
	if (!rb) {
		err_msg("cannot open the report ring %s", name);
		err = 1;
		goto out;
	}
	while (!exiting) {
		err = ring_buffer__poll(rb, 200);
		if (err < 0 && err != -EINTR) {
			err_msg("polling for reports failed: %s", strerror(-err));
			err = 1;
			break;
		}
		err = 0;
	}
out:
	ring_buffer__free(rb);
	bpf_map_delete_elem(p.watchers, &(__u32){ slot });
	return err;
}

/* ---- daemon ----------------------------------------------------------------------- */

static const char *const link_pins[] = { "link_aging", "link_reaccess", "link_offline",
					 "histogram", "prog_histogram" };
/* the balloon programs' pins: they keep the virtio_balloon module loaded */
static const char *const balloon_pins[] = { "link_balloon_aging", "prog_balloon_request",
					    "link_balloon_request_hook" };

/* is every function we attach to in the kernel's BTF (not inlined away)? */
static int check_attach_targets(struct wsr_bpf *skel)
{
	static const char *const required[] = { "try_to_inc_max_seq", "mem_cgroup_css_offline" };
	struct btf *btf = btf__load_vmlinux_btf();
	unsigned int i;
	int err = 0;

	if (!btf) {
		err_msg("cannot load the kernel's BTF (/sys/kernel/btf/vmlinux): "
			"CONFIG_DEBUG_INFO_BTF is needed");
		return -1;
	}
	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		if (btf__find_by_name_kind(btf, required[i], BTF_KIND_FUNC) < 0) {
			err_msg("attach target %s not found in the kernel's BTF "
				"(needs CONFIG_LRU_GEN and CONFIG_MEMCG; inlined?)", required[i]);
			err = -1;
		}
	}
	if (btf__find_by_name_kind(btf, "bpf_iter__cgroup", BTF_KIND_STRUCT) < 0) {
		err_msg("kernel has no cgroup iterator (bpf_iter__cgroup): Linux 6.1+ needed");
		err = -1;
	}
	/* reaccess is optional: without it the rest still works */
	if (btf__find_by_name_kind(btf, "reset_batch_size", BTF_KIND_FUNC) < 0) {
		err_msg("attach target reset_batch_size not found: reaccess histograms disabled");
		bpf_program__set_autoload(skel->progs.wsr_reaccess, false);
	}
	btf__free(btf);
	return err;
}

static void unpin_all(const char *const *names, size_t nr)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < nr; i++) {
		pin_path(path, sizeof(path), names[i]);
		unlink(path);
	}
}

static int pin_link(struct bpf_link *link, const char *name)
{
	char path[PATH_MAX];
	int err = 0;

	pin_path(path, sizeof(path), name);
	if (!link || bpf_link__pin(link, path)) {
		err_msg("cannot attach or pin %s: %s", name, strerror(errno));
		err = -1;
	}
	/* the pin keeps the link: our fd must not, or unpinning leaves it */
	bpf_link__destroy(link);
	return err;
}

/*
 * Open the BPF object with its maps set to their pins, and with either the
 * balloon programs or the others to load: the balloon programs call the
 * virtio_balloon module's kfuncs, so they load apart, when it is there.
 */
static struct wsr_bpf *open_skel(bool balloon)
{
	struct bpf_program *prog;
	struct bpf_map *map;
	struct wsr_bpf *skel;
	char path[PATH_MAX];

	skel = wsr_bpf__open();
	if (!skel) {
		err_msg("cannot open the BPF object");
		return NULL;
	}
	skel->rodata->nr_nodes = possible_nodes();
	bpf_object__for_each_program(prog, skel->obj) {
		bool is_balloon = prog == skel->progs.wsr_balloon_aging ||
				  prog == skel->progs.wsr_balloon_request ||
				  prog == skel->progs.wsr_balloon_request_hook;

		bpf_program__set_autoload(prog, is_balloon == balloon);
	}
	/* pinned maps are reused: config and history survive a reload */
	bpf_object__for_each_map(map, skel->obj) {
		/* internal maps (.rodata, .bss) belong to this load only */
		if (strchr(bpf_map__name(map), '.'))
			continue;
		pin_path(path, sizeof(path), bpf_map__name(map));
		bpf_map__set_pin_path(map, path);
	}
	return skel;
}

static int load_and_pin(void)
{
	LIBBPF_OPTS(bpf_iter_attach_opts, iopts);
	union bpf_iter_link_info linfo = {};
	struct wsr_bpf *skel;
	char path[PATH_MAX];
	int err = -1, cg = -1;

	skel = open_skel(false);
	if (!skel)
		return -1;
	if (check_attach_targets(skel))
		goto out;
	if (wsr_bpf__load(skel)) {
		err_msg("cannot load the BPF programs (run with -v for the verifier log)");
		goto out;
	}
	cg = open(CGROUP_ROOT, O_RDONLY | O_DIRECTORY);
	linfo.cgroup.cgroup_fd = cg;
	linfo.cgroup.order = BPF_CGROUP_ITER_DESCENDANTS_PRE;
	iopts.link_info = &linfo;
	iopts.link_info_len = sizeof(linfo);
	pin_path(path, sizeof(path), "prog_histogram");
	if (pin_link(bpf_program__attach(skel->progs.wsr_aging), "link_aging") ||
	    pin_link(bpf_program__attach(skel->progs.wsr_offline), "link_offline") ||
	    pin_link(bpf_program__attach_iter(skel->progs.wsr_histogram, &iopts), "histogram") ||
	    bpf_program__pin(skel->progs.wsr_histogram, path))
		goto out;
	if (bpf_program__autoload(skel->progs.wsr_reaccess) &&
	    pin_link(bpf_program__attach(skel->progs.wsr_reaccess), "link_reaccess"))
		goto out;
	err = 0;
out:
	if (cg >= 0)
		close(cg);
	/* links and maps live on in bpffs; our references can go */
	wsr_bpf__destroy(skel);
	return err;
}

/* ---- virtio-balloon ------------------------------------------------------------ */

#define BALLOON_WS_GLOB	"/sys/bus/virtio/drivers/virtio_balloon/virtio*/working_set"

/*
 * Does the virtio_balloon driver have the working-set kfuncs?  A module
 * has them in its own BTF; a driver built in (CONFIG_VIRTIO_BALLOON=y), in
 * vmlinux's.
 */
static bool balloon_kfuncs(void)
{
	static const char kfunc[] = "bpf_virtio_balloon_ws_report";
	struct btf *vmlinux = btf__load_vmlinux_btf(), *mod;
	bool found = false;

	if (!vmlinux)
		return false;
	mod = btf__parse_split("/sys/kernel/btf/virtio_balloon", vmlinux);
	if (mod) {
		found = btf__find_by_name_kind(mod, kfunc, BTF_KIND_FUNC) > 0;
		btf__free(mod);
	} else {
		found = btf__find_by_name_kind(vmlinux, kfunc, BTF_KIND_FUNC) > 0;
	}
	btf__free(vmlinux);
	return found;
}

static bool balloon_attached(void)
{
	char path[PATH_MAX];

	pin_path(path, sizeof(path), balloon_pins[0]);
	return access(path, F_OK) == 0;
}

static int balloon_attach(void)
{
	struct wsr_bpf *skel;
	char path[PATH_MAX];
	int err = -1;

	if (balloon_attached())
		return 0;
	if (!balloon_kfuncs()) {
		err_msg("the virtio_balloon driver is not loaded or has no working-set kfuncs");
		return -1;
	}
	skel = open_skel(true);
	if (!skel)
		return -1;
	if (wsr_bpf__load(skel)) {
		err_msg("cannot load the balloon programs (run with -v for the verifier log)");
		goto out;
	}
	pin_path(path, sizeof(path), balloon_pins[1]);
	if (bpf_program__pin(skel->progs.wsr_balloon_request, path) ||
	    pin_link(bpf_program__attach(skel->progs.wsr_balloon_aging), balloon_pins[0]) ||
	    pin_link(bpf_program__attach(skel->progs.wsr_balloon_request_hook), balloon_pins[2]))
		goto out;
	err = 0;
out:
	if (err)
		unpin_all(balloon_pins, ARRAY_SIZE(balloon_pins));
	wsr_bpf__destroy(skel);
	return err;
}

/*
 * Unpin the balloon programs and wait until the kernel has let go of the
 * module: programs are freed after an RCU grace period, and only then
 * does "rmmod virtio_balloon" work.
 */
static int balloon_detach(void)
{
	int i;

	unpin_all(balloon_pins, ARRAY_SIZE(balloon_pins));
	for (i = 0; i < 100; i++) {
		char buf[16] = "0";
		FILE *f = fopen("/sys/module/virtio_balloon/refcnt", "r");

		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = '0';
			fclose(f);
		}
		if (atoi(buf) == 0)
			return 0;
		usleep(50 * 1000);
	}
	err_msg("warning: virtio_balloon is still in use 5 s after detaching");
	return 0;
}

static int read_text(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/*
 * The working_set folder of the balloon device the kfuncs report
 * through ("active" reads 1), into @dir: after an unbind and bind, or
 * with several devices, not merely the first one bound.
 */
static int balloon_dir(char *dir, size_t len)
{
	char active[8];
	glob_t g;
	size_t i;
	int err = -1;

	if (glob(BALLOON_WS_GLOB, 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc && err; i++) {
			if (read_text(g.gl_pathv[i], "active", active, sizeof(active)) ||
			    strcmp(active, "1"))
				continue;
			snprintf(dir, len, "%s", g.gl_pathv[i]);
			err = 0;
		}
	}
	globfree(&g);
	return err;
}

static __u64 read_u64(const char *dir, const char *name)
{
	char buf[32];

	return read_text(dir, name, buf, sizeof(buf)) ? 0 : strtoull(buf, NULL, 10);
}

/* the daemon's claim on the device's requests (see struct wsr_balloon_claim) */
static int balloon_claim(__u64 request, __u64 until_ns)
{
	struct wsr_balloon_claim c = { .request = request, .until_ns = until_ns,
				       .daemon_pid = request || until_ns ? getpid() : 0 };
	int fd = open_pin("balloon_claim"), err;

	if (fd < 0)
		return -1;
	err = bpf_map_update_elem(fd, &(__u32){ 0 }, &c, BPF_ANY);
	close(fd);
	return err;
}

/*
 * Answer the device's unanswered requests: claim them, so that the
 * request hook leaves them to us for WSR_BALLOON_CLAIM_MS, age every
 * lruvec unless the last such aging is younger than the device's
 * refresh_ms, then run the request iterator, which answers each request
 * once through the driver.
 */
static int balloon_answer(const char *dir, __u64 requests, __u64 *aged_ns)
{
	struct memcg root;
	__u64 refresh_ms = read_u64(dir, "refresh_ms"), now = now_ns();
	unsigned int answered = 0;
	char out[64] = "";
	int err, derr = 0;
	FILE *f;

	if (balloon_claim(requests, now_ns() + WSR_BALLOON_CLAIM_MS * 1000000ULL))
		err_msg("warning: cannot claim the balloon device's request: %s", strerror(errno));
	if (resolve_memcg("/", &root))
		return -1;
	if (!*aged_ns || now - *aged_ns >= refresh_ms * 1000000ULL) {
		if (age_subtree(&root, ~0ULL))
			return -1;
		*aged_ns = now;
	}
	f = fmemopen(out, sizeof(out) - 1, "w");
	if (!f)
		return -1;
	err = run_iter(balloon_pins[1], &root, false, f);
	fclose(f);
	if (!err && wsr_parse_answer(out, &answered, &derr)) {
		err_msg("the balloon request program printed \"%.*s\"",
			(int)strcspn(out, "\n"), out);
		err = -1;
	} else if (!err && derr && derr != -EALREADY) {
		err_msg("the balloon driver refused the answer: %s", strerror(-derr));
		err = -1;
	}
	return err;
}

/* what the daemon knows of the balloon device between two polls */
struct balloon_watch {
	char dir[256];
	int fd[2];		/* requests, configs: poll()able */
	__u64 seen[2];		/* their values when last looked at */
	__u64 aged_ns;		/* when the daemon last aged every lruvec */
};

static const char *const watched[2] = { "requests", "configs" };

static void balloon_unwatch(struct balloon_watch *w)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (w->fd[i] >= 0)
			close(w->fd[i]);
		w->fd[i] = -1;
	}
}

static int balloon_rewatch(struct balloon_watch *w)
{
	char path[PATH_MAX];
	int i;

	if (balloon_dir(w->dir, sizeof(w->dir)))
		return -1;
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", w->dir, watched[i]);
		w->fd[i] = open(path, O_RDONLY);
		w->seen[i] = 0;
	}
	if (w->fd[0] < 0 || w->fd[1] < 0) {
		balloon_unwatch(w);
		return -1;
	}
	fprintf(stderr, "wsr: serving the balloon device's requests (%s)\n", w->dir);
	return 0;
}

/* a sysfs file's value, read again from its start, which re-arms poll() */
static int reread_u64(int fd, __u64 *v)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = 0;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

static void log_balloon_config(const char *dir)
{
	char ivals[512] = "?";

	read_text(dir, "intervals_ms", ivals, sizeof(ivals));
	fprintf(stderr, "wsr: balloon config: intervals_ms %s refresh_ms %llu report_ms %llu\n",
		ivals, (unsigned long long)read_u64(dir, "refresh_ms"),
		(unsigned long long)read_u64(dir, "report_ms"));
}

/* wait up to @timeout_ms for the device's requests and answer them */
static void balloon_serve(struct balloon_watch *w, int timeout_ms)
{
	struct pollfd pfd[2];
	__u64 v[2];
	int i;

	/* detached ("wsr balloon detach"): requests wait for an attach */
	if (!balloon_attached() || (w->fd[0] < 0 && balloon_rewatch(w))) {
		balloon_unwatch(w);
		usleep(timeout_ms * 1000);
		return;
	}
	for (i = 0; i < 2; i++) {
		if (reread_u64(w->fd[i], &v[i])) {
			/* unbound or unloaded: look for it again next time */
			balloon_unwatch(w);
			return;
		}
	}
	if (v[1] != w->seen[1])
		log_balloon_config(w->dir);
	/* also those made before we came, or left when an answer failed */
	if (v[0] > read_u64(w->dir, "answered") && balloon_answer(w->dir, v[0], &w->aged_ns))
		err_msg("warning: could not answer the balloon device's request; "
			"the request hook answers it");
	w->seen[0] = v[0];
	w->seen[1] = v[1];
	for (i = 0; i < 2; i++)
		pfd[i] = (struct pollfd){ .fd = w->fd[i], .events = POLLPRI };
	poll(pfd, 2, timeout_ms);
}

static bool loaded(void)
{
	char path[PATH_MAX];

	pin_path(path, sizeof(path), "link_aging");
	return access(path, F_OK) == 0;
}

/* read the pinned root walk: tracks every memcg's lruvecs */
static int discover(void)
{
	char path[PATH_MAX], buf[4096];
	int fd;

	pin_path(path, sizeof(path), "histogram");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}

/*
 * With MGLRU's non-leaf young capability, the first node's page-table walk
 * clears PMD accessed bits that the walks of other nodes need, so a memcg
 * aged on several nodes back to back sees its hot pages as idle.  We only
 * advise: the capability is the administrator's to change.
 */
static void check_nonleaf_young(void)
{
	unsigned int caps = 0;
	FILE *f = fopen("/sys/kernel/mm/lru_gen/enabled", "r");

	if (!f)
		return;
	if (fscanf(f, "%x", &caps) == 1 && (caps & 0x4) && possible_nodes() > 1)
		err_msg("warning: MGLRU non-leaf young (0x0004) is on with several NUMA nodes: "
			"hot pages can read as idle when nodes age back to back; "
			"\"echo 0x0003 > /sys/kernel/mm/lru_gen/enabled\" avoids it");
	fclose(f);
}

static int cmd_daemon(int argc, char **argv)
{
	struct balloon_watch bw = { .fd = { -1, -1 } };
	struct cli c = {};
	int err = parse_options_only(argc, argv, &c);

	if (err)
		return err;
	/* reclaim must not page us out while we watch memory pressure */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		err_msg("warning: mlockall failed: %s", strerror(errno));
	if (mkdir(pin_dir, 0700) && errno != EEXIST) {
		err_msg("cannot create %s: %s (is bpffs mounted on /sys/fs/bpf?)", pin_dir,
			strerror(errno));
		return 1;
	}
	if (loaded()) {
		fprintf(stderr, "wsr: adopting the programs pinned in %s\n", pin_dir);
	} else {
		if (load_and_pin())
			return 1;
		fprintf(stderr, "wsr: loaded and pinned in %s\n", pin_dir);
	}
	check_nonleaf_young();
	if (balloon_kfuncs() && !balloon_attached() && !balloon_attach())
		fprintf(stderr, "wsr: balloon programs attached\n");
	/* requests are ours for WSR_BALLOON_DAEMON_MS, then the request hook's */
	balloon_claim(0, 1);
	while (!exiting) {
		if (discover())
			err_msg("warning: memcg discovery failed: %s", strerror(errno));
		balloon_serve(&bw, c.interval_ms);
	}
	balloon_claim(0, 0);
	balloon_unwatch(&bw);
	fprintf(stderr, "wsr: exiting; the programs stay attached (\"wsr unload\" detaches)\n");
	return 0;
}

static int cmd_unload(int argc, char **argv)
{
	static const char *const maps[] = { "config", "reports", "live", "reaccess", "lruvecs",
					    "watchers", "watch0", "watch1", "watch2", "watch3",
					    "scratch_map", "walks", "balloon", "request_scratch",
					    "balloon_claim" };

	(void)argv;
	if (argc > 1) {
		err_msg("unload takes no arguments");
		return 2;
	}
	unpin_all(balloon_pins, ARRAY_SIZE(balloon_pins));
	unpin_all(link_pins, ARRAY_SIZE(link_pins));
	unpin_all(maps, ARRAY_SIZE(maps));
	if (rmdir(pin_dir) && errno != ENOENT) {
		err_msg("cannot remove %s: %s", pin_dir, strerror(errno));
		return 1;
	}
	return 0;
}

/* a report handed to the balloon driver, as one of our histograms */
static void balloon_hist(const struct wsr_balloon *b, __u32 n, struct wsr_hist *h)
{
	__u32 i, nr = b->config.num_bins;

	memset(h, 0, sizeof(*h));
	h->nr_bins = nr > WSR_MAX_BINS ? WSR_MAX_BINS : nr;
	for (i = 0; i < h->nr_bins; i++) {
		h->bound_ms[i] = i + 1 < h->nr_bins ? b->config.intervals_ms[i] : WSR_BIN_INF;
		h->anon[i] = b->nodes[n].anon_bytes[i] >> 12;
		h->file[i] = b->nodes[n].file_bytes[i] >> 12;
	}
}

static void print_balloon(const char *dir, const struct wsr_balloon *b, bool json)
{
	static const char *const counters[] = { "requests", "answered", "configs", "rejected",
						"sent", "dropped" };
	char ivals[512] = "";
	struct wsr_hist h;
	__u32 n, i;

	if (dir)
		read_text(dir, "intervals_ms", ivals, sizeof(ivals));
	if (!json) {
		printf("device: %s\nprograms: %s\n", dir ? dir : "none",
		       balloon_attached() ? "attached" : "detached");
		if (dir) {
			printf("config: intervals_ms %s refresh_ms %llu report_ms %llu\ndriver:",
			       ivals, (unsigned long long)read_u64(dir, "refresh_ms"),
			       (unsigned long long)read_u64(dir, "report_ms"));
			for (i = 0; i < ARRAY_SIZE(counters); i++)
				printf(" %s %llu", counters[i],
				       (unsigned long long)read_u64(dir, counters[i]));
			putchar('\n');
		}
		printf("last report: %s, %.1f s ago, data age %llu ms, driver answer %d "
		       "(sent %llu, refused %llu, answered by the request hook %llu)\n",
		       cause_name(b->cause), b->time_ns ? (now_ns() - b->time_ns) / 1e9 : 0.0,
		       (unsigned long long)b->data_age_ms, b->err, (unsigned long long)b->sent,
		       (unsigned long long)b->refused, (unsigned long long)b->hook_answers);
		printf("reclaim-time agings %llu, configuration read on them %llu times\n",
		       (unsigned long long)b->reclaim_agings, (unsigned long long)b->config_reads);
		for (n = 0; n < b->nr_nodes && n < WSR_MAX_NODES; n++) {
			balloon_hist(b, n, &h);
			printf("N%u\n", b->nodes[n].node_id);
			wsr_print_hist(stdout, &h);
		}
		return;
	}
	fputs("{\"device\":", stdout);
	if (dir)
		wsr_print_json_string(stdout, dir);
	else
		fputs("null", stdout);
	printf(",\"attached\":%s", balloon_attached() ? "true" : "false");
	if (dir) {
		for (i = 0; ivals[i]; i++)
			ivals[i] = ivals[i] == ' ' ? ',' : ivals[i];
		printf(",\"config\":{\"intervals_ms\":[%s],\"refresh_ms\":%llu,\"report_ms\":%llu}",
		       ivals, (unsigned long long)read_u64(dir, "refresh_ms"),
		       (unsigned long long)read_u64(dir, "report_ms"));
		fputs(",\"driver\":{", stdout);
		for (i = 0; i < ARRAY_SIZE(counters); i++)
			printf("%s\"%s\":%llu", i ? "," : "", counters[i],
			       (unsigned long long)read_u64(dir, counters[i]));
		fputc('}', stdout);
	}
	printf(",\"reclaim_agings\":%llu,\"config_reads\":%llu",
	       (unsigned long long)b->reclaim_agings, (unsigned long long)b->config_reads);
	printf(",\"last_report\":{\"sent\":%llu,\"refused\":%llu,\"hook_answers\":%llu,"
	       "\"time_ns\":%llu,\"cause\":\"%s\",\"data_age_ms\":%llu,\"err\":%d,"
	       "\"histograms\":[",
	       (unsigned long long)b->sent, (unsigned long long)b->refused,
	       (unsigned long long)b->hook_answers, (unsigned long long)b->time_ns,
	       cause_name(b->cause), (unsigned long long)b->data_age_ms, b->err);
	for (n = 0; n < b->nr_nodes && n < WSR_MAX_NODES; n++) {
		balloon_hist(b, n, &h);
		fputs(n ? "," : "", stdout);
		wsr_print_hist_json(stdout, b->nodes[n].node_id, &h);
	}
	fputs("]}}\n", stdout);
}

static int cmd_balloon(int argc, char **argv)
{
	const char *sub = argc > 1 && argv[1][0] != '-' ? argv[1] : "show";
	struct wsr_balloon b = {};
	char dir[256];
	struct cli c = {};
	int fd, err;

	if (argc > 1 && argv[1][0] != '-') {
		argc--;
		argv++;
	}
	err = parse_options_only(argc, argv, &c);
	if (err)
		return err;
	if (!strcmp(sub, "attach")) {
		if (!loaded()) {
			err_msg("nothing loaded in %s: start \"wsr daemon\" first", pin_dir);
			return 1;
		}
		return balloon_attach() ? 1 : 0;
	}
	if (!strcmp(sub, "detach"))
		return balloon_detach();
	if (strcmp(sub, "show")) {
		err_msg("unknown balloon command '%s' (show, attach, detach)", sub);
		return 2;
	}
	fd = open_pin("balloon");
	if (fd < 0 || bpf_map_lookup_elem(fd, &(__u32){ 0 }, &b))
		return 1;
	print_balloon(balloon_dir(dir, sizeof(dir)) ? NULL : dir, &b, c.json);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd;

	libbpf_set_print(libbpf_print_fn);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (argc > 2 && !strcmp(argv[1], "--pin-dir")) {
		pin_dir = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	argc--;
	argv++;
	if (!strcmp(cmd, "daemon"))
		return cmd_daemon(argc, argv);
	if (!strcmp(cmd, "show"))
		return cmd_show(argc, argv, false);
	if (!strcmp(cmd, "reaccess"))
		return cmd_show(argc, argv, true);
	if (!strcmp(cmd, "set"))
		return cmd_set(argc, argv);
	if (!strcmp(cmd, "get"))
		return cmd_get(argc, argv);
	if (!strcmp(cmd, "watch"))
		return cmd_watch(argc, argv);
	if (!strcmp(cmd, "unload"))
		return cmd_unload(argc, argv);
	if (!strcmp(cmd, "balloon"))
		return cmd_balloon(argc, argv);
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	err_msg("unknown command '%s' (try \"wsr --help\")", cmd);
	return 2;
}
