// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-compare-read: the other methods of the comparison bench, DAMON and
 * idle page tracking, binned as wsr bins.  Watches the anon pages of some
 * pids by one method and prints, every period, how many of them have been
 * idle for how long, in wsr's bins (docs/estimator.md: a page idle for t ms
 * counts in the first bin whose bound is >= t, else in the catch-all).
 *
 *   damon:     DAMON's virtual-address monitoring, set up through sysfs.
 *              6.1 gives a region's nr_accesses and age only to the
 *              damon:damon_aggregated tracepoint, read here from a tracefs
 *              instance of our own.  A page is idle for 0 ms in a region
 *              with accesses, else for age x the aggregation interval.
 *   page_idle: /sys/kernel/mm/page_idle/bitmap over the pids' pfns (from
 *              /proc/PID/pagemap), as Brendan Gregg's wss does: each period
 *              a page whose idle flag was cleared was used since the last
 *              period; its age is the time since it was last seen so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_PIDS	16
#define MAX_BINS	16
#define PAGE_SZ		4096UL
#define USER_TOP	(1UL << 47)	/* x86-64's user half: nothing above */
#define PM_PRESENT	(1ULL << 63)
#define PM_FILE		(1ULL << 61)	/* file or shared anon: not ours */
#define PM_PFN		((1ULL << 55) - 1)
#define DAMON_DIR	"/sys/kernel/mm/damon/admin/kdamonds"
#define IDLE_BITMAP	"/sys/kernel/mm/page_idle/bitmap"

enum method { DAMON, PAGE_IDLE };

struct opts {
	enum method method;
	int npids, nbins;
	int pids[MAX_PIDS];
	long long bins[MAX_BINS];	/* ms, the catch-all not included */
	long long period_ms, duration_s;
	long long sample_us, aggr_us, update_us, min_regions, max_regions;
};

/* One pid's resident anon pages, sorted by address. */
struct pages {
	unsigned long *addr;
	uint64_t *pfn;
	long long *young_ms;	/* page_idle: when last seen used */
	size_t n, cap;
};

/* One DAMON target's regions, in the order the tracepoint gives them. */
struct region {
	unsigned long start, end;
	long long idle_ms;
};

struct snapshot {
	struct region *r;
	size_t n, cap;
	double ts;		/* the trace's clock, seconds */
};

struct target {
	struct pages pages;
	struct snapshot cur, done;
	int have_done;
};

static struct opts o = { .method = -1, .period_ms = -1, .duration_s = -1,
			 .sample_us = 5000, .aggr_us = 100000, .update_us = 1000000,
			 .min_regions = 10, .max_regions = 1000 };
static struct target targets[MAX_PIDS];
static volatile sig_atomic_t stop;
static char instance[PATH_MAX];	/* our tracefs instance, once made */
static int trace_fd = -1;	/* its trace_pipe: open, it cannot be removed */
static int damon_on;
static long long max_regions_seen, partial_snapshots, aggregations;

static void usage(void)
{
	printf("usage: wsr-compare-read --method damon|page_idle --pid PID[,PID...]\n"
	       "         --intervals-ms MS,MS,... [--period-ms MS] [--duration-s S]\n"
	       "         [--sample-us US] [--aggr-us US] [--update-us US]\n"
	       "         [--min-regions N] [--max-regions N]   (damon only)\n"
	       "Prints \"bins_ms B1 ... inf\", then every --period-ms (default: the\n"
	       "smallest bin) \"hist T_MS N1 ... Ninf unmonitored=U\": the pids' resident\n"
	       "anon pages by idle age in wsr's bins, T_MS since the start, U pages\n"
	       "outside every DAMON region.  At the end (--duration-s, SIGINT, SIGTERM)\n"
	       "\"stats ...\": this reader's CPU and peak RSS, and for damon kdamond's CPU\n"
	       "and the most regions seen.  DAMON's defaults: 5 ms samples, 100 ms\n"
	       "aggregation, 1 s updates, 10 to 1000 regions.  One method at a time:\n"
	       "both clear the accessed bits that the other, and MGLRU, read.\n"
	       "example: wsr-compare-read --method damon --pid 123 --intervals-ms 1000,5000,30000\n");
}

static void cleanup(void);

/* Status 2 is bad input (hint at --help), 1 a runtime failure (errno). */
static void __attribute__((format(printf, 2, 3), noreturn))
fail(int status, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fputs("wsr-compare-read: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (status == 2)
		fputs(" (try --help)\n", stderr);
	else if (err)
		fprintf(stderr, ": %s\n", strerror(err));
	else
		fputc('\n', stderr);
	exit(status);
}

/* Digits only: strtoll alone takes " 5", "-5" and "5x". */
static long long parse_num(const char *opt, const char *s, long long min, long long max)
{
	long long v;
	char *end;

	if (*s < '0' || *s > '9')
		fail(2, "--%s: '%s' is not a number", opt, s);
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end)
		fail(2, "--%s: trailing garbage in '%s'", opt, s);
	if (errno || v > max)
		fail(2, "--%s: '%s' is too large (max %lld)", opt, s, max);
	if (v < min)
		fail(2, "--%s: '%s' is too small (min %lld)", opt, s, min);
	return v;
}

/* "A,B,C" into at most max numbers; returns how many. */
static int parse_list(const char *opt, const char *s, long long *out, int max,
		      long long min, long long top)
{
	char buf[512], *tok, *save;
	int n = 0;

	if (strlen(s) >= sizeof(buf))
		fail(2, "--%s: list too long", opt);
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			fail(2, "--%s: more than %d values", opt, max);
		out[n++] = parse_num(opt, tok, min, top);
	}
	if (!n || s[strlen(s) - 1] == ',' || *s == ',' || strstr(s, ",,"))
		fail(2, "--%s: '%s' is not a comma-separated list", opt, s);
	return n;
}

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "method", required_argument, NULL, 'm' },
		{ "pid", required_argument, NULL, 'p' },
		{ "intervals-ms", required_argument, NULL, 'i' },
		{ "period-ms", required_argument, NULL, 'P' },
		{ "duration-s", required_argument, NULL, 'd' },
		{ "sample-us", required_argument, NULL, 's' },
		{ "aggr-us", required_argument, NULL, 'a' },
		{ "update-us", required_argument, NULL, 'u' },
		{ "min-regions", required_argument, NULL, 'n' },
		{ "max-regions", required_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	long long pids[MAX_PIDS];
	int c, i, damon_opt = 0;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "damon"))
				o.method = DAMON;
			else if (!strcmp(optarg, "page_idle"))
				o.method = PAGE_IDLE;
			else
				fail(2, "--method: unknown method '%s' (want damon or page_idle)",
				     optarg);
			break;
		case 'p':
			o.npids = parse_list("pid", optarg, pids, MAX_PIDS, 1, INT_MAX);
			for (i = 0; i < o.npids; i++)
				o.pids[i] = pids[i];
			break;
		case 'i':
			o.nbins = parse_list("intervals-ms", optarg, o.bins, MAX_BINS - 1, 1,
					     1000000000000LL);
			break;
		case 'P':
			o.period_ms = parse_num("period-ms", optarg, 10, 3600000);
			break;
		case 'd':
			o.duration_s = parse_num("duration-s", optarg, 1, 86400);
			break;
		case 's':
			o.sample_us = parse_num("sample-us", optarg, 1, 60000000);
			damon_opt = 1;
			break;
		case 'a':
			o.aggr_us = parse_num("aggr-us", optarg, 1, 600000000);
			damon_opt = 1;
			break;
		case 'u':
			o.update_us = parse_num("update-us", optarg, 1, 600000000);
			damon_opt = 1;
			break;
		case 'n':
			o.min_regions = parse_num("min-regions", optarg, 3, 1000000);
			damon_opt = 1;
			break;
		case 'N':
			o.max_regions = parse_num("max-regions", optarg, 3, 1000000);
			damon_opt = 1;
			break;
		case 'h':
			usage();
			exit(0);
		default:
			exit(2);	/* getopt_long has said why */
		}
	}
	if (optind < argc)
		fail(2, "unexpected argument '%s'", argv[optind]);
	if ((int)o.method < 0)
		fail(2, "missing --method damon|page_idle");
	if (!o.npids)
		fail(2, "missing --pid PID");
	if (!o.nbins)
		fail(2, "missing --intervals-ms");
	for (i = 1; i < o.nbins; i++)
		if (o.bins[i] <= o.bins[i - 1])
			fail(2, "--intervals-ms: %lld after %lld: bounds must increase",
			     o.bins[i], o.bins[i - 1]);
	if (damon_opt && o.method != DAMON)
		fail(2, "--sample-us, --aggr-us, --update-us and the region counts are damon's");
	if (o.sample_us > o.aggr_us)
		fail(2, "--sample-us %lld is above --aggr-us %lld", o.sample_us, o.aggr_us);
	if (o.min_regions > o.max_regions)
		fail(2, "--min-regions %lld is above --max-regions %lld",
		     o.min_regions, o.max_regions);
	if (o.period_ms < 0)
		o.period_ms = o.bins[0] < 10 ? 10 : o.bins[0];
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	*cap = need < 2 * *cap ? 2 * *cap : need;
	p = realloc(p, *cap * size);
	if (!p)
		fail(1, "out of memory");
	return p;
}

/* Write a short string to a sysfs or tracefs file, failing with its path. */
static void __attribute__((format(printf, 2, 3)))
put(const char *path, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	int fd, len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, buf, len) != len || close(fd))
		fail(1, "writing '%s' to %s", buf, path);
}

/* a number from a sysfs file, or -1 */
static long long read_num(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	return n > 0 ? atoll(buf) : -1;
}

static long long get_num(const char *path)
{
	long long v = read_num(path);

	if (v < 0)
		fail(1, "reading %s", path);
	return v;
}

/* in cleanup, which must not exit: say what failed and go on */
static void put_quiet(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		fprintf(stderr, "wsr-compare-read: writing '%s' to %s: %s\n",
			val, path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/*
 * The pid's resident private anon pages, from its maps and pagemap,
 * carrying over page_idle's last-used times of pages seen before (a new
 * page, or the first scan, counts as used now: its idle flag is clear).
 */
static void scan_pages(int pid, struct pages *old, long long now)
{
	struct pages p = { 0 };
	unsigned long lo, hi, a;
	uint64_t ent[512];
	char path[64], line[512];
	size_t j = 0;
	FILE *maps;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = fopen(path, "r");
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY);
	if (!maps || fd < 0)
		fail(1, "pid %d: cannot open its maps and pagemap (gone?)", pid);
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2 || hi > USER_TOP)
			continue;
		for (a = lo; a < hi; a += PAGE_SZ * 512) {
			size_t k, n = (hi - a) / PAGE_SZ < 512 ? (hi - a) / PAGE_SZ : 512;
			ssize_t got = pread(fd, ent, n * 8, a / PAGE_SZ * 8);

			if (got < 0)
				fail(1, "pid %d: reading its pagemap", pid);
			for (k = 0; k < (size_t)got / 8; k++) {
				if (!(ent[k] & PM_PRESENT) || (ent[k] & PM_FILE))
					continue;
				if (p.n == p.cap) {
					size_t cap = p.cap;

					p.addr = grow(p.addr, &cap, p.n + 1, sizeof(*p.addr));
					cap = p.cap;
					p.pfn = grow(p.pfn, &cap, p.n + 1, sizeof(*p.pfn));
					p.young_ms = grow(p.young_ms, &p.cap, p.n + 1,
							  sizeof(*p.young_ms));
				}
				p.addr[p.n] = a + k * PAGE_SZ;
				p.pfn[p.n] = ent[k] & PM_PFN;
				/* both lists are sorted: walk the old one along */
				while (j < old->n && old->addr[j] < p.addr[p.n])
					j++;
				p.young_ms[p.n] = j < old->n && old->addr[j] == p.addr[p.n] &&
					old->pfn[j] == p.pfn[p.n] ? old->young_ms[j] : now;
				p.n++;
			}
		}
	}
	if (ferror(maps))
		fail(1, "pid %d: reading its maps", pid);
	fclose(maps);
	close(fd);
	free(old->addr);
	free(old->pfn);
	free(old->young_ms);
	*old = p;
}

static void add_to_bin(long long *hist, long long idle_ms)
{
	int b = 0;

	while (b < o.nbins && idle_ms > o.bins[b])
		b++;
	hist[b]++;
}

static void print_hist(long long t, const long long *hist, long long unmonitored)
{
	int b;

	printf("hist %lld", t);
	for (b = 0; b <= o.nbins; b++)
		printf(" %lld", hist[b]);
	printf(" unmonitored=%lld\n", unmonitored);
	fflush(stdout);
}

/* --- idle page tracking --------------------------------------------- */

/*
 * sysfs moves a bin file a page at a time: loop until all of it went.
 * The kernel counts only whole words: the last one, when max_pfn is not a
 * multiple of 64, moves 0 bytes each time.  Its pages then read as used
 * (zeroes) and are never marked: at most 63 pages, at the top of memory.
 */
static void bitmap_io(int fd, uint64_t *buf, size_t words, uint64_t first, int wr)
{
	size_t done = 0;

	while (done < words * 8) {
		ssize_t n = wr ? pwrite(fd, (char *)buf + done, words * 8 - done,
					first * 8 + done)
			       : pread(fd, (char *)buf + done, words * 8 - done,
				       first * 8 + done);
		if (n < 0)
			fail(1, "%s %s", wr ? "writing" : "reading", IDLE_BITMAP);
		if (!n && words * 8 - done == 8)
			break;		/* that last partial word */
		if (!n)
			fail(1, "%s %s: 0 bytes at word %llu", wr ? "writing" : "reading",
			     IDLE_BITMAP, (unsigned long long)(first + done / 8));
		done += n;
	}
	if (!wr && done < words * 8)
		memset((char *)buf + done, 0, words * 8 - done);
}

static void run_page_idle(long long t0)
{
	long long next = t0, end = o.duration_s < 0 ? LLONG_MAX : t0 + o.duration_s * 1000;
	uint64_t *words = NULL;
	size_t cap = 0;
	int fd = open(IDLE_BITMAP, O_RDWR);

	if (fd < 0)
		fail(1, "cannot open %s (CONFIG_IDLE_PAGE_TRACKING)", IDLE_BITMAP);
	while (!stop && now_ms() < end) {
		long long hist[MAX_BINS] = { 0 }, now = now_ms();
		uint64_t lo = UINT64_MAX, hi = 0;
		size_t i, nw;
		int t;

		for (t = 0; t < o.npids; t++) {
			struct pages *p = &targets[t].pages;

			scan_pages(o.pids[t], p, now);
			for (i = 0; i < p->n; i++) {
				lo = p->pfn[i] < lo ? p->pfn[i] : lo;
				hi = p->pfn[i] > hi ? p->pfn[i] : hi;
			}
		}
		if (lo <= hi) {
			lo /= 64;
			nw = hi / 64 - lo + 1;
			words = grow(words, &cap, nw, sizeof(*words));
			/* a page whose idle flag went is used since the last mark */
			bitmap_io(fd, words, nw, lo, 0);
			for (t = 0; t < o.npids; t++) {
				struct pages *p = &targets[t].pages;

				for (i = 0; i < p->n; i++)
					if (!(words[p->pfn[i] / 64 - lo] >> (p->pfn[i] % 64) & 1))
						p->young_ms[i] = now;
			}
			/* mark every page of ours idle again, and only those */
			memset(words, 0, nw * sizeof(*words));
			for (t = 0; t < o.npids; t++)
				for (i = 0; i < targets[t].pages.n; i++)
					words[targets[t].pages.pfn[i] / 64 - lo] |=
						1ULL << (targets[t].pages.pfn[i] % 64);
			bitmap_io(fd, words, nw, lo, 1);
		}
		for (t = 0; t < o.npids; t++)
			for (i = 0; i < targets[t].pages.n; i++)
				add_to_bin(hist, now - targets[t].pages.young_ms[i]);
		print_hist(now - t0, hist, 0);
		next += o.period_ms;
		if (next < now_ms())
			next = now_ms();	/* a scan longer than the period */
		while (!stop && now_ms() < next)
			usleep((next - now_ms()) * 1000);
	}
	close(fd);
	free(words);
}

/* --- DAMON ------------------------------------------------------------ */

static char *pathf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *pathf(const char *fmt, ...)
{
	static char buf[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return buf;
}

/* tracefs where it is mounted, or mounted where 6.1 expects it */
static const char *tracefs(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (!access(pathf("%s/instances", dirs[i]), F_OK))
			return dirs[i];
	if (mount("tracefs", dirs[0], "tracefs", 0, NULL))
		fail(1, "no tracefs, and cannot mount it on %s", dirs[0]);
	return dirs[0];
}

/* Our own trace instance: nobody else's events, and no one else's reads. */
static int open_trace(void)
{
	const char *tr = tracefs();

	snprintf(instance, sizeof(instance), "%s/instances/wsr-compare-%d", tr, getpid());
	if (mkdir(instance, 0700))
		fail(1, "cannot make trace instance %s", instance);
	if (access(pathf("%s/events/damon/damon_aggregated/enable", instance), F_OK))
		fail(1, "no damon:damon_aggregated tracepoint (CONFIG_DAMON)");
	/* a whole aggregation of 1000 regions, with room to spare */
	put(pathf("%s/buffer_size_kb", instance), "1024");
	put(pathf("%s/events/damon/damon_aggregated/enable", instance), "1");
	trace_fd = open(pathf("%s/trace_pipe", instance), O_RDONLY | O_NONBLOCK);
	if (trace_fd < 0)
		fail(1, "cannot open %s/trace_pipe", instance);
	return trace_fd;
}

static void damon_start(void)
{
	const char *ctx = DAMON_DIR "/0/contexts/0";
	int t;

	if (access(DAMON_DIR "/nr_kdamonds", F_OK))
		fail(1, "no DAMON sysfs at %s (CONFIG_DAMON_SYSFS)", DAMON_DIR);
	errno = 0;
	if (get_num(DAMON_DIR "/nr_kdamonds"))
		fail(1, "DAMON is in use here (%s/nr_kdamonds is not 0): not touching it",
		     DAMON_DIR);
	damon_on = 1;	/* from here on, cleanup() undoes it */
	put(DAMON_DIR "/nr_kdamonds", "1");
	put(DAMON_DIR "/0/contexts/nr_contexts", "1");
	put(pathf("%s/operations", ctx), "vaddr");
	put(pathf("%s/monitoring_attrs/intervals/sample_us", ctx), "%lld", o.sample_us);
	put(pathf("%s/monitoring_attrs/intervals/aggr_us", ctx), "%lld", o.aggr_us);
	put(pathf("%s/monitoring_attrs/intervals/update_us", ctx), "%lld", o.update_us);
	put(pathf("%s/monitoring_attrs/nr_regions/max", ctx), "%lld", o.max_regions);
	put(pathf("%s/monitoring_attrs/nr_regions/min", ctx), "%lld", o.min_regions);
	put(pathf("%s/targets/nr_targets", ctx), "%d", o.npids);
	for (t = 0; t < o.npids; t++)
		put(pathf("%s/targets/%d/pid_target", ctx, t), "%d", o.pids[t]);
	put(DAMON_DIR "/0/state", "on");
}

/* kdamond's CPU time in ms, utime + stime of /proc/PID/stat */
static long long kdamond_cpu_ms(void)
{
	unsigned long long ut, st;
	char buf[1024], *p;
	ssize_t n;
	int fd;

	fd = open(pathf("/proc/%lld/stat", get_num(DAMON_DIR "/0/pid")), O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* fields after the comm's closing parenthesis: state is field 3 */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -1;
	return (ut + st) * 1000 / sysconf(_SC_CLK_TCK);
}

/*
 * One line of trace_pipe:
 *   kdamond.0-123 [001] ..... 4567.890123: damon_aggregated: target_id=0
 *   nr_regions=12 140737488281600-140737488347136: 0 5
 * Regions come target by target, all of an aggregation at one time: a
 * snapshot is complete at its nr_regions-th line, and a gap in time
 * (lines lost to an overrun) starts it over.
 */
static void trace_line(char *line)
{
	char *ev = strstr(line, ": damon_aggregated: "), *ts;
	unsigned long tid, start, end;
	unsigned int nr, acc, age;
	struct snapshot *s;
	double when;

	if (!ev)
		return;
	*ev = 0;
	ts = strrchr(line, ' ');
	when = atof(ts ? ts + 1 : line);
	if (sscanf(ev + 20, "target_id=%lu nr_regions=%u %lu-%lu: %u %u",
		   &tid, &nr, &start, &end, &acc, &age) != 6 || tid >= (unsigned long)o.npids)
		return;
	s = &targets[tid].cur;
	if (s->n && (when - s->ts) * 1e6 > o.aggr_us / 2) {
		partial_snapshots++;
		s->n = 0;
	}
	s->r = grow(s->r, &s->cap, s->n + 1, sizeof(*s->r));
	s->r[s->n].start = start;
	s->r[s->n].end = end;
	s->r[s->n].idle_ms = acc ? 0 : (long long)age * o.aggr_us / 1000;
	s->n++;
	s->ts = when;
	if (s->n >= nr) {
		struct snapshot done = targets[tid].done;

		targets[tid].done = *s;
		targets[tid].have_done = 1;
		*s = done;
		s->n = 0;
		if (!tid)
			aggregations++;
		if (nr > max_regions_seen)
			max_regions_seen = nr;
	}
}

static void damon_report(long long t)
{
	long long hist[MAX_BINS] = { 0 }, unmonitored = 0;
	int i;

	for (i = 0; i < o.npids; i++)
		if (!targets[i].have_done)
			return;		/* not every target aggregated once yet */
	for (i = 0; i < o.npids; i++) {
		struct snapshot *s = &targets[i].done;
		struct pages *p = &targets[i].pages;
		size_t k, r = 0;

		scan_pages(o.pids[i], p, 0);
		/* both sorted by address: walk the regions along the pages */
		for (k = 0; k < p->n; k++) {
			while (r < s->n && s->r[r].end <= p->addr[k])
				r++;
			if (r < s->n && s->r[r].start <= p->addr[k])
				add_to_bin(hist, s->r[r].idle_ms);
			else
				unmonitored++;
		}
	}
	print_hist(t, hist, unmonitored);
}

static void run_damon(long long t0)
{
	long long next = t0 + o.period_ms;
	long long end = o.duration_s < 0 ? LLONG_MAX : t0 + o.duration_s * 1000;
	static char buf[1 << 16];
	size_t have = 0;
	int fd = open_trace();

	damon_start();
	while (!stop && now_ms() < end) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long wait = next - now_ms();
		char *line, *nl;
		ssize_t n;

		if (wait > 0 && poll(&pfd, 1, wait > 100 ? 100 : wait) < 0 && errno != EINTR)
			fail(1, "poll on trace_pipe");
		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			fail(1, "reading trace_pipe");
		have += n > 0 ? n : 0;
		buf[have] = 0;
		for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = 0;
			trace_line(line);
		}
		have -= line - buf;
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0;	/* no line is this long: drop it */
		if (now_ms() >= next) {
			damon_report(now_ms() - t0);
			next += o.period_ms;
		}
	}
}

/* --- both -------------------------------------------------------------- */

/* Undo what we set up, whichever way we leave: DAMON off, our instance gone. */
static void cleanup(void)
{
	if (damon_on) {
		damon_on = 0;
		/* off fails if kdamond stopped itself (its targets exited) */
		if (read_num(DAMON_DIR "/0/pid") > 0)
			put_quiet(DAMON_DIR "/0/state", "off");
		put_quiet(DAMON_DIR "/nr_kdamonds", "0");
	}
	if (trace_fd >= 0)
		close(trace_fd);
	trace_fd = -1;
	if (*instance) {
		put_quiet(pathf("%s/events/damon/damon_aggregated/enable", instance), "0");
		if (rmdir(instance))
			perror("wsr-compare-read: removing the trace instance");
		*instance = 0;
	}
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	struct rusage ru;
	long long t0, kd = -1;
	int b;

	parse_args(argc, argv);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	atexit(cleanup);
	printf("bins_ms");
	for (b = 0; b < o.nbins; b++)
		printf(" %lld", o.bins[b]);
	printf(" inf\n");
	fflush(stdout);
	t0 = now_ms();
	if (o.method == DAMON) {
		run_damon(t0);
		kd = kdamond_cpu_ms();
	} else {
		run_page_idle(t0);
	}
	cleanup();
	getrusage(RUSAGE_SELF, &ru);
	printf("stats method=%s seconds=%.1f cpu_ms=%ld maxrss_kb=%ld",
	       o.method == DAMON ? "damon" : "page_idle", (now_ms() - t0) / 1000.0,
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000, ru.ru_maxrss);
	if (o.method == DAMON)
		printf(" kdamond_cpu_ms=%lld max_regions=%lld aggregations=%lld partial=%lld",
		       kd, max_regions_seen, aggregations, partial_snapshots);
	printf("\n");
	return 0;
}
