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
#include <sys/file.h>
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
#include "pindir.h"
#include "wsr.skel.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define CGROUP_ROOT	"/sys/fs/cgroup"
#define LRU_GEN_DEBUGFS	"/sys/kernel/debug/lru_gen"
/* the daemon's --interval-ms goes to poll(), which takes an int of ms */
#define WSR_MAX_DAEMON_INTERVAL_MS	3600000ULL

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

/*
 * bpffs is mode 1777 unless mounted with a mode: a pin directory someone
 * else made or can write to could have our links unpinned or replaced.
 */
static int check_pin_dir(void)
{
	struct wsr_err err;

	if (!wsr_check_pin_dir(pin_dir, &err))
		return 0;
	err_msg("%s", err.msg);
	return -1;
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

/*
 * The memcg walk limit the pinned programs were loaded with, which the
 * loader stored in the "stats" map (WSR_MAX_WALK_STEPS if unknown).
 */
static __u32 loaded_walk_steps(void)
{
	struct wsr_stats st = {};
	char path[PATH_MAX];
	int fd;

	pin_path(path, sizeof(path), "stats");
	fd = bpf_obj_get(path);
	if (fd < 0)
		return WSR_MAX_WALK_STEPS;
	if (bpf_map_lookup_elem(fd, &(__u32){ 0 }, &st) || !st.walk_steps ||
	    st.walk_steps > WSR_MAX_WALK_STEPS)
		st.walk_steps = WSR_MAX_WALK_STEPS;
	close(fd);
	return st.walk_steps;
}

static int open_pins(struct pins *p)
{
	if (check_pin_dir())
		return -1;
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

/*
 * A node list of sysfs (possible, has_memory) as a mask; a machine without
 * the files has node 0.  Nodes beyond WSR_MAX_NODES are refused (main()
 * checks once, so the rest can trust these).
 */
static int node_list(const char *name, __u64 *mask)
{
	char path[128], buf[512] = "";
	struct wsr_err err;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/%s", name);
	f = fopen(path, "r");
	*mask = 1;
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	if (wsr_parse_node_list(buf, mask, &err)) {
		err_msg("%s: %s", path, err.msg);
		return -1;
	}
	return 0;
}

/* number of possible NUMA nodes: the highest id, plus 1 */
static __u32 possible_nodes(void)
{
	__u64 mask;
	__u32 n = 0;

	if (node_list("possible", &mask))
		return 1;
	while (n < WSR_MAX_NODES && mask >> n)
		n++;
	return n ? n : 1;
}

/* the nodes with memory: those a histogram covers (the seed's N_MEMORY) */
static __u64 memory_nodes(void)
{
	__u64 mask;

	return node_list("has_memory", &mask) ? 1 : mask;
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

/* ---- histograms ---------------------------------------------------------------- */

/* the read end of a new session of the pinned cgroup iterator @prog over @cg */
static int iter_open(int prog, int cg, __u64 id, bool subtree)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	union bpf_iter_link_info linfo = {};
	int link, iter;

	/* by its folder, or (@cg < 0) by its id */
	if (cg >= 0)
		linfo.cgroup.cgroup_fd = cg;
	else
		linfo.cgroup.cgroup_id = id;
	linfo.cgroup.order = subtree ? BPF_CGROUP_ITER_DESCENDANTS_PRE : BPF_CGROUP_ITER_SELF_ONLY;
	opts.iter_info = &linfo;
	opts.iter_info_len = sizeof(linfo);
	link = bpf_link_create(prog, 0, BPF_TRACE_ITER, &opts);
	if (link < 0)
		return -1;
	iter = bpf_iter_create(link);
	close(link);
	return iter;
}

/* run the pinned cgroup iterator program @pin over @m (and its subtree) */
static int run_iter(const char *pin, const struct memcg *m, bool subtree, FILE *out)
{
	int prog, cg, iter = -1, err = -1;
	char buf[4096];
	ssize_t n;

	prog = open_pin(pin);
	cg = open(m->abs, O_RDONLY | O_DIRECTORY);
	if (prog < 0 || cg < 0)
		goto out;
	iter = iter_open(prog, cg, 0, subtree);
	if (iter < 0) {
		err_msg("cannot create the %s iterator: %s", pin, strerror(errno));
		goto out;
	}
	while ((n = read(iter, buf, sizeof(buf))) > 0)
		if (out)
			fwrite(buf, 1, n, out);
	err = n < 0 ? -1 : 0;
	if (err)
		err_msg("%s iterator failed: %s", pin, strerror(errno));
out:
	if (iter >= 0)
		close(iter);
	if (cg >= 0)
		close(cg);
	if (prog >= 0)
		close(prog);
	return err;
}

/* vm.swappiness and the free swap pages: what get_swappiness() looks at */
static void swap_state(struct wsr_refresh_args *a)
{
	char line[128];
	FILE *f = fopen("/proc/sys/vm/swappiness", "r");
	unsigned long long kb;

	a->swappiness = 60;
	a->swap_free = 0;
	if (f) {
		if (fscanf(f, "%u", &a->swappiness) != 1)
			a->swappiness = 60;
		fclose(f);
	}
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SwapFree: %llu kB", &kb) == 1)
			a->swap_free = kb / (sysconf(_SC_PAGESIZE) / 1024);
	fclose(f);
}

/* write each line of @buf (@n bytes, whole lines) to lru_gen (@fd) */
static int age_lines(int fd, char *buf, ssize_t n)
{
	char *line = buf, *end;

	while (line < buf + n && (end = memchr(line, '\n', buf + n - line))) {
		/* gone (EINVAL), or aged by someone else in between: fine */
		if (write(fd, line, end + 1 - line) < 0 && errno != EINVAL && errno != ENOENT) {
			err_msg("aging failed: %.*s: %s", (int)(end - line), line, strerror(errno));
			return -1;
		}
		line = end + 1;
	}
	return 0;
}

/*
 * Age the lruvecs of @m's subtree that are due under @a (bpf/refresh.h),
 * through MGLRU's debugfs interface: the pinned iterator prog_refresh
 * prints the commands.  Work grows with the subtree, not with the machine.
 * A cgroup iterator stops when its read buffer is full: what it printed is
 * aged, and it runs again, until a run ends by itself.  @m without a
 * folder (abs "") is found by its id.
 */
static int refresh_subtree(const struct memcg *m, struct wsr_refresh_args *a)
{
	static char buf[64 * 1024];
	int args = open_pin("refresh_args"), prog = open_pin("prog_refresh");
	int cg = m->abs[0] ? open(m->abs, O_RDONLY | O_DIRECTORY) : -1;
	int fd = open(LRU_GEN_DEBUGFS, O_WRONLY);
	__u32 tgid = getpid(), run;
	int iter, err = -1;
	ssize_t n;

	if (fd < 0)
		err_msg("cannot open %s: %s (needs debugfs and CONFIG_LRU_GEN)",
			LRU_GEN_DEBUGFS, strerror(errno));
	if (args < 0 || prog < 0 || (cg < 0 && m->abs[0]) || fd < 0)
		goto out;
	swap_state(a);
	a->start_j = 0;
	if (bpf_map_update_elem(args, &tgid, a, BPF_ANY))
		goto out;
	for (run = 0; run < 1000 && err; run++) {
		iter = iter_open(prog, cg, m->id, true);
		if (iter < 0) {
			/* a memcg found by id may have gone since */
			if (errno != ENOENT || m->abs[0])
				err_msg("cannot run prog_refresh: %s", strerror(errno));
			break;
		}
		while ((n = read(iter, buf, sizeof(buf))) > 0 && !age_lines(fd, buf, n))
			;
		if (!n)
			err = 0;	/* the walk ended: nothing more is due */
		else if (errno != EOPNOTSUPP)
			run = 1000;	/* a failure other than a full buffer */
		close(iter);
	}
	if (err && (errno != ENOENT || m->abs[0]))
		err_msg("refreshing %s failed: %s", m->rel, strerror(errno));
	bpf_map_delete_elem(args, &tgid);
out:
	if (fd >= 0)
		close(fd);
	if (cg >= 0)
		close(cg);
	if (prog >= 0)
		close(prog);
	if (args >= 0)
		close(args);
	return err;
}

static void get_config(const struct pins *p, __u64 id, __u32 node, struct wsr_config *cfg)
{
	struct wsr_key key = { .cgroup_id = id, .node = node };

	if (bpf_map_lookup_elem(p->config, &key, cfg))
		memset(cfg, 0, sizeof(*cfg));
}

/* does @h have the bins of @cfg: their number and every bound? */
static bool same_bins(const struct wsr_hist *h, const struct wsr_config *cfg)
{
	__u32 i;

	if (h->nr_bins != cfg->nr_intervals + 1)
		return false;
	for (i = 0; i < cfg->nr_intervals && i < WSR_MAX_INTERVALS; i++)
		if (h->bound_ms[i] != cfg->intervals_ms[i])
			return false;
	return true;
}

/*
 * What a reader gets on each node of @nodes, as the seed's histogram read:
 * the last report if it is younger than refresh_ms and has the configured
 * bins; else a refresh: the lruvecs that are due are aged (never with
 * refresh_ms 0, never with !@refresh) and the subtree is collected again.
 * Reads leave the reports, and so the report clock, alone.
 */
static int read_reports(const struct pins *p, const struct memcg *m, __u64 nodes,
			bool refresh, struct wsr_report *reps)
{
	struct wsr_refresh_args args = {};
	__u64 stale = 0, now = now_ns();
	struct wsr_config cfg;
	__u32 n;

	for (n = 0; n < WSR_MAX_NODES; n++) {
		struct wsr_key key = { .cgroup_id = m->id, .node = n };

		if (!(nodes >> n & 1))
			continue;
		get_config(p, m->id, n, &cfg);
		if (bpf_map_lookup_elem(p->reports, &key, &reps[n]))
			memset(&reps[n], 0, sizeof(reps[n]));
		if (!refresh || !reps[n].time_ns ||
		    now - reps[n].time_ns >= cfg.refresh_ms * 1000000ULL ||
		    !same_bins(&reps[n].hist, &cfg))
			stale |= 1ULL << n;
		if (refresh && (stale >> n & 1) && cfg.refresh_ms) {
			args.refresh_ms[n] = cfg.refresh_ms;
			args.nodes |= 1ULL << n;
		}
	}
	if (args.nodes && refresh_subtree(m, &args))
		return -1;
	if (!stale)
		return 0;
	/* walk @m's subtree with the histogram iterator: fills "live" */
	if (run_iter("prog_histogram", m, true, NULL))
		return -1;
	for (n = 0; n < WSR_MAX_NODES; n++) {
		struct wsr_key key = { .cgroup_id = m->id, .node = n };

		if (!(stale >> n & 1))
			continue;
		if (bpf_map_lookup_elem(p->live, &key, &reps[n]))
			return -1;
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
	fprintf(f, ",\"seq\":%llu,\"time_ns\":%llu,\"cause\":\"%s\",\"incomplete\":%s,"
		"\"histogram\":", (unsigned long long)r->seq, (unsigned long long)r->time_ns,
		cause_name(r->cause), r->flags & WSR_REPORT_INCOMPLETE ? "true" : "false");
	wsr_print_hist_json(f, node, &r->hist);
	fputc('}', f);
}

/* memcg format ("N0" then bins, per node) or node format (one node, bins) */
static void print_hists(const struct memcg *m, const struct wsr_report *reps,
			__u64 nodes, int only_node, bool json)
{
	bool first = true;
	__u32 n;

	if (json)
		fputc('[', stdout);
	for (n = 0; n < WSR_MAX_NODES; n++) {
		if (!(nodes >> n & 1) || (only_node >= 0 && (int)n != only_node))
			continue;
		if (reps[n].flags & WSR_REPORT_INCOMPLETE)
			err_msg("warning: the N%u histogram is incomplete: its memcg walk "
				"ran out of its %u steps (wsr daemon --max-walk-steps)", n,
				loaded_walk_steps());
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
	__u64 walk_steps;
	bool seed_aging;
};

enum { OPT_NO_REFRESH = 256, OPT_INTERVAL, OPT_WALK_STEPS, OPT_SEED_AGING };

static const struct option cli_options[] = {
	{ "memcg", required_argument, NULL, 'm' },
	{ "node", required_argument, NULL, 'n' },
	{ "json", no_argument, NULL, 'j' },
	{ "count", required_argument, NULL, 'c' },
	{ "no-refresh", no_argument, NULL, OPT_NO_REFRESH },
	{ "interval-ms", required_argument, NULL, OPT_INTERVAL },
	{ "max-walk-steps", required_argument, NULL, OPT_WALK_STEPS },
	{ "seed-aging", no_argument, NULL, OPT_SEED_AGING },
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
"  daemon                 load the BPF programs (or adopt pinned ones),\n"
"                         answer the balloon device's requests, attach to\n"
"                         virtio_balloon when it is loaded; runs in the\n"
"                         foreground, logs to stderr, stops on SIGTERM;\n"
"                         programs stay attached after it exits\n"
"  show                   print the working-set histogram of each node with\n"
"                         memory: the last report if younger than\n"
"                         refresh_ms, else collected again, after aging the\n"
"                         lruvecs with fewer than 4 generations whose\n"
"                         youngest is older than refresh_ms and whose memcg\n"
"                         is not below memory.min (refresh_ms 0: no aging)\n"
"  set KNOB VALUE         set a knob: intervals_ms, report_ms, refresh_ms,\n"
"                         reaccess_intervals_ms; VALUE is N<node>=<v> as in\n"
"                         the seed's memory.wss.* files, or <v> for --node or\n"
"                         for every node; times are ms, 0 to 1000000000000\n"
"  get KNOB               print a knob (N0=<v> N1=<v> ..., or <v> with --node)\n"
"  watch                  wait for reports made on reclaim and print each:\n"
"                         global reclaim reports the node level (--memcg /),\n"
"                         reclaim within a memcg's limit that memcg; at most\n"
"                         one per report_ms; 8 watchers at a time\n"
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
"      --interval-ms MS   daemon: how often to look at the balloon device\n"
"                         when it sends nothing (1000; 1 to 3600000)\n"
"      --max-walk-steps N daemon, when it loads the programs: steps a report's\n"
"                         memcg walk may take (one per memcg or level; 1 to\n"
"                         1048576, the default); a walk cut short makes an\n"
"                         incomplete report (\"incomplete\":true, a warning)\n"
"      --seed-aging       daemon: age only as the seed does, on reads and\n"
"                         balloon requests.  Without it the daemon also ages,\n"
"                         at each --interval-ms (at most every 500 ms) every\n"
"                         lruvec of 64 pages or more whose memcg (or\n"
"                         an ancestor) has refresh_ms and whose youngest\n"
"                         generation is older than that (not below\n"
"                         memory.min), and every lruvec at the balloon\n"
"                         device's refresh_ms: histograms stay right at both\n"
"                         ends (README: \"Aging and idle ages\")\n"
"  -v, --verbose          libbpf debug output, with each BPF program's\n"
"                         verifier cost (instructions processed)\n"
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
	c->walk_steps = WSR_MAX_WALK_STEPS;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "m:n:jc:vh", cli_options, NULL)) != -1) {
		switch (opt) {
		case 'm':
			c->memcg = optarg;
			break;
		case 'n':
			if (wsr_parse_u64(optarg, &v, "--node", &err))
				goto bad;
			if (v >= WSR_MAX_NODES || !(memory_nodes() >> v & 1)) {
				err_msg("--node %s: no such node with memory "
					"(/sys/devices/system/node/has_memory)", optarg);
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
			/* poll() takes an int of ms */
			if (wsr_parse_ms(optarg, &c->interval_ms, WSR_MAX_DAEMON_INTERVAL_MS,
					 "--interval-ms", &err))
				goto bad;
			if (!c->interval_ms) {
				err_msg("--interval-ms must be at least 1");
				return -1;
			}
			break;
		case OPT_SEED_AGING:
			c->seed_aging = true;
			break;
		case OPT_WALK_STEPS:
			if (wsr_parse_u64(optarg, &c->walk_steps, "--max-walk-steps", &err))
				goto bad;
			if (!c->walk_steps || c->walk_steps > WSR_MAX_WALK_STEPS) {
				err_msg("--max-walk-steps must be 1 to %u", WSR_MAX_WALK_STEPS);
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
static void read_reaccess(const struct pins *p, const struct memcg *m, __u64 nodes,
			  struct wsr_report *reps)
{
	struct wsr_config cfg;
	__u32 n, i;

	for (n = 0; n < WSR_MAX_NODES; n++) {
		struct wsr_key key = { .cgroup_id = m->id, .node = n };

		if (!(nodes >> n & 1))
			continue;
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
	__u64 nodes = memory_nodes();
	struct memcg m;
	struct pins p;
	struct cli c = {};
	int err = parse_options_only(argc, argv, &c);

	if (err)
		return err;
	if (resolve_memcg(c.memcg, &m) || open_pins(&p))
		return 1;
	if (reaccess)
		read_reaccess(&p, &m, nodes, reps);
	else if (read_reports(&p, &m, nodes, !c.no_refresh, reps))
		return 1;
	print_hists(&m, reps, nodes, c.node, c.json);
	return 0;
}

static int cmd_set(int argc, char **argv)
{
	struct wsr_config cfgs[WSR_MAX_NODES];
	__u32 nr_nodes = possible_nodes(), n;
	__u64 nodes = memory_nodes();
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
	if (node >= 0 && !(nodes >> node & 1)) {
		err_msg("node %d has no memory (/sys/devices/system/node/has_memory)", node);
		return 2;
	}
	if (resolve_memcg(c.memcg, &m) || open_pins(&p))
		return 1;
	/* validate for every node first: bad input changes nothing */
	for (n = 0; n < nr_nodes; n++) {
		if (!(nodes >> n & 1))
			continue;
		get_config(&p, m.id, n, &cfgs[n]);
		if ((node < 0 || (int)n == node) &&
		    wsr_config_set(&cfgs[n], knob, value, &err)) {
			err_msg("%s", err.msg);
			return 2;
		}
	}
	for (n = 0; n < nr_nodes; n++) {
		struct wsr_key key = { .cgroup_id = m.id, .node = n };

		if (!(nodes >> n & 1) || (node >= 0 && (int)n != node))
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
	__u64 nodes = memory_nodes();
	struct wsr_config cfg;
	bool first = true;
	struct memcg m;
	struct pins p;
	struct cli c = {};
	int i = parse_cli(argc, argv, &c), knob;
	__u32 n;

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
	for (n = 0; n < WSR_MAX_NODES; n++) {
		if (!(nodes >> n & 1) || (c.node >= 0 && (int)n != c.node))
			continue;
		get_config(&p, m.id, n, &cfg);
		if (c.json)
			printf("%s\"%u\":\"", first ? "" : ",", n);
		else if (c.node < 0)
			printf("%sN%u=", first ? "" : " ", n);
		wsr_print_knob(stdout, &cfg, knob);
		if (c.json)
			fputc('"', stdout);
		first = false;
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

	/* one poll may bring more events than --count still wants */
	if (w->c->count > 0 && w->seen >= w->c->count)
		return 0;
	if (size < sizeof(*ev) || ev->time_ns < w->since_ns || ev->key.cgroup_id != w->m->id ||
	    (w->c->node >= 0 && ev->key.node != (__u32)w->c->node))
		return 0;
	/* gone, or replaced by a newer one, which has its own event */
	if (bpf_map_lookup_elem(w->p->reports, &ev->key, &rep) || rep.seq != ev->seq)
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

/*
 * Take a free watcher slot, reclaiming those of dead watchers.  Under a
 * lock on the pin folder: two watchers that both find a slot's owner dead
 * would otherwise both take it, and share (split) its ring.
 */
static int claim_watch_slot(const struct pins *p)
{
	__u32 slot, pid = getpid(), owner;
	int dir = open(pin_dir, O_RDONLY | O_DIRECTORY), ret = -1;

	if (dir < 0 || flock(dir, LOCK_EX)) {
		err_msg("cannot lock %s: %s", pin_dir, strerror(errno));
		ret = -2;
		goto out;
	}
	for (slot = 0; slot < WSR_MAX_WATCHERS; slot++) {
		if (!bpf_map_update_elem(p->watchers, &slot, &pid, BPF_NOEXIST)) {
			ret = slot;
			break;
		}
		if (!bpf_map_lookup_elem(p->watchers, &slot, &owner) &&
		    kill(owner, 0) && errno == ESRCH) {
			bpf_map_delete_elem(p->watchers, &slot);
			if (!bpf_map_update_elem(p->watchers, &slot, &pid, BPF_NOEXIST)) {
				ret = slot;
				break;
			}
		}
	}
out:
	if (dir >= 0)
		close(dir);	/* and the lock with it */
	return ret;
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
		if (slot == -1)
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

static const char *const link_pins[] = { "link_reclaim", "link_reaccess", "link_offline",
					 "link_aging_begin", "link_aging_end",
					 "histogram", "prog_histogram", "prog_refresh" };
/* the balloon programs' pins: they keep the virtio_balloon module loaded */
static const char *const balloon_pins[] = { "link_balloon_reclaim", "prog_balloon_request",
					    "link_balloon_request_hook" };

/* is every function we attach to in the kernel's BTF (not inlined away)? */
static int check_attach_targets(struct wsr_bpf *skel)
{
	static const char *const required[] = { "shrink_node", "mem_cgroup_css_offline" };
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
	/* without the aging hooks, merged generations take MGLRU's births */
	if (btf__find_by_name_kind(btf, "try_to_inc_max_seq", BTF_KIND_FUNC) < 0) {
		err_msg("attach target try_to_inc_max_seq not found: merged generations take "
			"MGLRU's births, and the daemon does not age on its own");
		bpf_program__set_autoload(skel->progs.wsr_aging_begin, false);
		bpf_program__set_autoload(skel->progs.wsr_aging_end, false);
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
static struct wsr_bpf *open_skel(bool balloon, __u32 walk_steps)
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
	skel->rodata->walk_steps = walk_steps;
	bpf_object__for_each_program(prog, skel->obj) {
		bool is_balloon = prog == skel->progs.wsr_balloon_reclaim ||
				  prog == skel->progs.wsr_balloon_request ||
				  prog == skel->progs.wsr_balloon_request_hook;

		bpf_program__set_autoload(prog, is_balloon == balloon);
		/* with -v, each program's verifier cost (BPF_LOG_STATS) */
		if (verbose)
			bpf_program__set_log_level(prog, 4);
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

static int load_and_pin(__u32 walk_steps)
{
	LIBBPF_OPTS(bpf_iter_attach_opts, iopts);
	union bpf_iter_link_info linfo = {};
	struct wsr_bpf *skel;
	char path[PATH_MAX];
	int err = -1, cg = -1;

	skel = open_skel(false, walk_steps);
	if (!skel)
		return -1;
	if (check_attach_targets(skel))
		goto out;
	if (wsr_bpf__load(skel)) {
		err_msg("cannot load the BPF programs (run with -v for the verifier log)");
		goto out;
	}
	/* for the balloon programs loaded later, and for the warnings */
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.stats), &(__u32){ 0 },
				&(struct wsr_stats){ .walk_steps = walk_steps }, BPF_ANY)) {
		err_msg("cannot store the walk limit: %s", strerror(errno));
		goto out;
	}
	cg = open(CGROUP_ROOT, O_RDONLY | O_DIRECTORY);
	linfo.cgroup.cgroup_fd = cg;
	linfo.cgroup.order = BPF_CGROUP_ITER_DESCENDANTS_PRE;
	iopts.link_info = &linfo;
	iopts.link_info_len = sizeof(linfo);
	pin_path(path, sizeof(path), "prog_histogram");
	if (pin_link(bpf_program__attach(skel->progs.wsr_reclaim), "link_reclaim") ||
	    pin_link(bpf_program__attach(skel->progs.wsr_offline), "link_offline") ||
	    pin_link(bpf_program__attach_iter(skel->progs.wsr_histogram, &iopts), "histogram") ||
	    bpf_program__pin(skel->progs.wsr_histogram, path))
		goto out;
	pin_path(path, sizeof(path), "prog_refresh");
	if (bpf_program__pin(skel->progs.wsr_refresh_list, path))
		goto out;
	if (bpf_program__autoload(skel->progs.wsr_reaccess) &&
	    pin_link(bpf_program__attach(skel->progs.wsr_reaccess), "link_reaccess"))
		goto out;
	if (bpf_program__autoload(skel->progs.wsr_aging_begin) &&
	    (pin_link(bpf_program__attach(skel->progs.wsr_aging_begin), "link_aging_begin") ||
	     pin_link(bpf_program__attach(skel->progs.wsr_aging_end), "link_aging_end")))
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

/*
 * Load and pin the balloon programs.  The daemon (on the driver's arrival)
 * and "wsr balloon attach" may race: a lock on the pin folder, held only
 * while pinning (the verifier's seconds are spent before it, so that
 * watchers claiming a slot under the same lock do not wait), makes the
 * second one find the first one's pins and drop its own load.
 */
static int balloon_attach(void)
{
	struct wsr_bpf *skel = NULL;
	char path[PATH_MAX];
	int err = -1, dir = -1;

	if (balloon_attached())
		return 0;
	if (!balloon_kfuncs()) {
		err_msg("the virtio_balloon driver is not loaded or has no working-set kfuncs");
		return -1;
	}
	skel = open_skel(true, loaded_walk_steps());
	if (!skel)
		return -1;
	if (wsr_bpf__load(skel)) {
		err_msg("cannot load the balloon programs (run with -v for the verifier log)");
		goto out;
	}
	dir = open(pin_dir, O_RDONLY | O_DIRECTORY);
	if (dir < 0 || flock(dir, LOCK_EX)) {
		err_msg("cannot lock %s: %s", pin_dir, strerror(errno));
		goto out;
	}
	if (balloon_attached()) {
		err = 0;
		goto out;
	}
	pin_path(path, sizeof(path), balloon_pins[1]);
	if (bpf_program__pin(skel->progs.wsr_balloon_request, path) ||
	    pin_link(bpf_program__attach(skel->progs.wsr_balloon_reclaim), balloon_pins[0]) ||
	    pin_link(bpf_program__attach(skel->progs.wsr_balloon_request_hook), balloon_pins[2])) {
		unpin_all(balloon_pins, ARRAY_SIZE(balloon_pins));
		goto out;
	}
	err = 0;
out:
	wsr_bpf__destroy(skel);
	if (dir >= 0)
		close(dir);	/* and the lock with it */
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
 * lruvec whose youngest generation is older than the device's refresh_ms
 * (with force_scan: the answer's data is at most refresh_ms old), then run
 * the request iterator, which answers each request once through the driver.
 */
static int balloon_answer(const char *dir, __u64 requests)
{
	struct wsr_refresh_args args = { .nodes = memory_nodes(), .merge = WSR_REFRESH_ALL };
	__u64 ms = read_u64(dir, "refresh_ms");
	unsigned int answered = 0, n;
	struct memcg root;
	char out[64] = "";
	int err, derr = 0;
	FILE *f;

	if (balloon_claim(requests, now_ns() + WSR_BALLOON_CLAIM_MS * 1000000ULL))
		err_msg("warning: cannot claim the balloon device's request: %s", strerror(errno));
	if (resolve_memcg("/", &root))
		return -1;
	for (n = 0; n < WSR_MAX_NODES; n++)
		args.refresh_ms[n] = ms;
	if (refresh_subtree(&root, &args))
		return -1;
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

/*
 * The daemon's own aging (not --seed-aging), each --interval-ms: the
 * subtree of every memcg configured with refresh_ms on a node, and with a
 * balloon device whose refresh_ms is not 0 every lruvec, are aged where
 * the youngest generation is older than that (bpf/refresh.h,
 * WSR_REFRESH_BACKGROUND).  The young end of a histogram is then never
 * older than refresh_ms plus the interval; what aging merges at the old
 * end, the aging hooks keep (bpf/vgen.h).
 */
static void age_in_background(void)
{
	static __u64 last_ns;
	static bool said;
	struct subtree {
		__u64 id;
		struct wsr_refresh_args a;
	} *v = NULL, *grown;
	struct wsr_key key, at;
	struct wsr_config cfg;
	bool first = true;
	size_t nr = 0, i;
	char path[PATH_MAX], dir[256];
	__u64 ms, now = now_ns();
	int fd;

	/*
	 * Not without the hooks that keep merged generations (an older load,
	 * or a kernel without try_to_inc_max_seq): aging would merge them
	 * away.  Not more often than WSR_BACKGROUND_MIN_MS.
	 */
	pin_path(path, sizeof(path), "link_aging_begin");
	if (access(path, F_OK)) {
		if (!said)
			err_msg("warning: no aging hooks pinned (an older load, or no "
				"try_to_inc_max_seq): the daemon does not age on its own");
		said = true;
		return;
	}
	if (now - last_ns < WSR_BACKGROUND_MIN_MS * 1000000ULL)
		return;
	last_ns = now;
	pin_path(path, sizeof(path), "config");
	fd = bpf_obj_get(path);
	if (fd < 0)
		return;
	/* a key can go between two calls: then the walk starts over, rarely */
	while (!bpf_map_get_next_key(fd, first ? NULL : &at, &key)) {
		first = false;
		at = key;
		if (bpf_map_lookup_elem(fd, &at, &cfg) || !cfg.refresh_ms ||
		    at.node >= WSR_MAX_NODES)
			continue;
		for (i = 0; i < nr && v[i].id != at.cgroup_id; i++)
			;
		if (i == nr) {
			grown = realloc(v, (nr + 1) * sizeof(*v));
			if (!grown)
				break;
			v = grown;
			v[nr++] = (struct subtree){ .id = at.cgroup_id,
						    .a.merge = WSR_REFRESH_BACKGROUND };
		}
		v[i].a.refresh_ms[at.node] = cfg.refresh_ms;
		v[i].a.nodes |= 1ULL << at.node;
	}
	close(fd);
	if (!balloon_dir(dir, sizeof(dir)) && (ms = read_u64(dir, "refresh_ms"))) {
		grown = realloc(v, (nr + 1) * sizeof(*v));
		if (grown) {
			v = grown;
			v[nr] = (struct subtree){ .id = WSR_ROOT_CGROUP,
						  .a.merge = WSR_REFRESH_BACKGROUND,
						  .a.nodes = memory_nodes() };
			for (i = 0; i < WSR_MAX_NODES; i++)
				v[nr].a.refresh_ms[i] = ms;
			nr++;
		}
	}
	for (i = 0; i < nr; i++) {
		struct memcg m = { .id = v[i].id };

		snprintf(m.rel, sizeof(m.rel), "cgroup id %llu", (unsigned long long)v[i].id);
		refresh_subtree(&m, &v[i].a);
	}
	free(v);
}

/* what the daemon knows of the balloon device between two polls */
struct balloon_watch {
	char dir[256];
	int fd[2];		/* requests, configs: poll()able */
	__u64 seen[2];		/* their values when last looked at */
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
		poll(NULL, 0, timeout_ms);
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
	if (v[0] > read_u64(w->dir, "answered") && balloon_answer(w->dir, v[0]))
		err_msg("warning: could not answer the balloon device's request; "
			"the request hook answers it");
	w->seen[0] = v[0];
	w->seen[1] = v[1];
	for (i = 0; i < 2; i++)
		pfd[i] = (struct pollfd){ .fd = w->fd[i], .events = POLLPRI };
	poll(pfd, 2, timeout_ms);
}

/* the inode of the pinned reclaim link: a new load pins a new one (0: none) */
static ino_t loaded_inode(void)
{
	char path[PATH_MAX];
	struct stat st;

	pin_path(path, sizeof(path), "link_reclaim");
	return stat(path, &st) ? 0 : st.st_ino;
}

static bool loaded(void)
{
	char path[PATH_MAX];

	pin_path(path, sizeof(path), "link_reclaim");
	return access(path, F_OK) == 0;
}

/* say once, for each limit, that one was reached (see struct wsr_stats) */
static void check_limits(struct wsr_stats *logged)
{
	struct wsr_stats st;
	char path[PATH_MAX];
	int fd;

	/* quietly: "wsr unload" may have removed it under a running daemon */
	pin_path(path, sizeof(path), "stats");
	fd = bpf_obj_get(path);
	if (fd < 0)
		return;
	if (!bpf_map_lookup_elem(fd, &(__u32){ 0 }, &st)) {
		if (st.walks_truncated && !logged->walks_truncated)
			err_msg("warning: a report's memcg walk ran out of its %llu steps; "
				"such reports are marked incomplete",
				(unsigned long long)st.walk_steps);
		if (st.ancestors_truncated && !logged->ancestors_truncated)
			err_msg("warning: a memcg is deeper than %d levels; reaccess counts skip "
				"its ancestors above that", WSR_MAX_ANCESTORS);
		if (st.maps_full && !logged->maps_full)
			err_msg("warning: the reports or reaccess map is full (%d keys); "
				"some reports were not made", WSR_MAX_KEYS);
		*logged = st;
	}
	close(fd);
}

/*
 * Has the virtio_balloon module been loaded since we last looked?  Its BTF
 * file is made anew at each load, with a new inode number, so that an
 * rmmod and insmod between two looks are seen too.
 */
static bool balloon_module_appeared(ino_t *seen)
{
	struct stat st;
	ino_t now = stat("/sys/kernel/btf/virtio_balloon", &st) ? 0 : st.st_ino, was = *seen;

	*seen = now;
	return now && now != was;
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
	struct wsr_stats logged = {};
	ino_t module = 0, pins;
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
	if (check_pin_dir())
		return 1;
	if (loaded()) {
		fprintf(stderr, "wsr: adopting the programs pinned in %s\n", pin_dir);
	} else {
		if (load_and_pin(c.walk_steps))
			return 1;
		fprintf(stderr, "wsr: loaded and pinned in %s\n", pin_dir);
	}
	pins = loaded_inode();
	check_nonleaf_young();
	balloon_module_appeared(&module);
	if (balloon_kfuncs() && !balloon_attached() && !balloon_attach())
		fprintf(stderr, "wsr: balloon programs attached\n");
	/* requests are ours for WSR_BALLOON_DAEMON_MS, then the request hook's */
	balloon_claim(0, 1);
	while (!exiting) {
		/*
		 * Unloaded, or loaded again by another daemon: these are not
		 * our programs any more, and two daemons would age twice.
		 */
		if (loaded_inode() != pins) {
			fprintf(stderr, "wsr: the programs in %s were unloaded or replaced: "
				"exiting\n", pin_dir);
			break;
		}
		/*
		 * virtio_balloon loaded after we started: attach to it.  Only
		 * then: "wsr balloon detach" must stay detached for an rmmod.
		 */
		if (balloon_module_appeared(&module) && balloon_kfuncs() && !balloon_attached()) {
			if (!balloon_attach())
				fprintf(stderr, "wsr: virtio_balloon loaded: balloon programs "
					"attached\n");
			else
				module = 0;	/* try again next time */
		}
		check_limits(&logged);
		if (!c.seed_aging)
			age_in_background();
		balloon_serve(&bw, c.interval_ms);
	}
	balloon_claim(0, 0);
	balloon_unwatch(&bw);
	fprintf(stderr, "wsr: exiting; the programs stay attached (\"wsr unload\" detaches)\n");
	return 0;
}

static int cmd_unload(int argc, char **argv)
{
	static const char *const maps[] = { "config", "reports", "live", "reaccess", "stats",
					    "watchers", "watch0", "watch1", "watch2", "watch3",
					    "watch4", "watch5", "watch6", "watch7", "scratch_map",
					    "walks", "refresh_walks", "refresh_args", "balloon",
					    "request_scratch", "vgens", "aging_scratch",
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
		printf("global reclaim passes %llu, configuration read on them %llu times%s\n",
		       (unsigned long long)b->reclaim_passes, (unsigned long long)b->config_reads,
		       b->flags & WSR_REPORT_INCOMPLETE ? "; last report incomplete" : "");
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
	printf(",\"reclaim_passes\":%llu,\"config_reads\":%llu,\"incomplete\":%s",
	       (unsigned long long)b->reclaim_passes, (unsigned long long)b->config_reads,
	       b->flags & WSR_REPORT_INCOMPLETE ? "true" : "false");
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
	/* a machine with nodes wsr cannot cover is refused, not half served */
	if (strcmp(cmd, "-h") && strcmp(cmd, "--help") && strcmp(cmd, "help")) {
		__u64 mask;

		if (node_list("possible", &mask) || node_list("has_memory", &mask))
			return 1;
	}
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
