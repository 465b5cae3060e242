// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-workload: ground-truth workload for the working-set tests.  Touches
 * HOT+COLD MiB once, says "ready", then keeps touching only the HOT MiB,
 * so a working-set estimator watching it should report about HOT MiB.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/mempolicy.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE_STEP	4096UL		/* one access per base page */
#define MIB		(1UL << 20)
#define MAX_MIB		(1ULL << 30)	/* keeps HOT+COLD bytes far from overflow */
#define MAX_NODES	1024
#define NSEC_PER_MS	1000000ULL
#define UNSET		(-1LL)

struct opts {
	long long hot_mib, cold_mib, node, period_ms, reaccess_ms, random_touches;
	long long warm_mib, warm_period_ms, stats_s, move_s;
	int file, read_only, tlb_flush, cold_holes;
	const char *path, *cgroup, *ready;
};

/* Set before the file exists so that no exit path can leave it behind. */
static char default_path[64];
static volatile sig_atomic_t remove_default;

static void usage(void)
{
	printf("usage: wsr-workload --hot MIB --cold MIB [--type anon|file] [--node N]\n"
	       "         [--file PATH] [--period-ms MS] [--cgroup DIR] [--ready FILE]\n"
	       "         [--reaccess-after-ms MS] [--random-touches N]\n"
	       "         [--warm MIB --warm-period-ms MS] [--stats-s S] [--read]\n"
	       "         [--move-s S] [--tlb-flush] [--cold-holes]\n"
	       "Touches HOT+COLD MiB once, then only HOT MiB every MS ms (default 100).\n"
	       "--warm adds MIB between hot and cold, touched every --warm-period-ms.\n"
	       "--read: the hot passes read each page instead of writing it.\n"
	       "--move-s: every S s the hot set moves on to the next HOT MiB of cold\n"
	       "(wrapping round to the first), printing \"moved SLOT T_MS\", T_MS since ready.\n"
	       "--tlb-flush: each hot pass first drops the hot set's TLB entries\n"
	       "(mprotect read-only and back), so that it sets their accessed bits.\n"
	       "--stats-s prints \"touches_per_s R late N\" every S s: pages touched per\n"
	       "second of hot-pass time, and passes that overran the period.\n"
	       "--cold-holes: after the first touch, every second page of cold is freed:\n"
	       "the system gets it back as single pages, no two of them together.\n"
	       "--type file maps PATH (default /tmp/wsr-workload.<pid>) MAP_SHARED.\n"
	       "example: wsr-workload --hot 64 --cold 192 --node 1 --ready /tmp/w.ready\n");
}

/* Status 2 is bad input (hint at --help), 1 a runtime failure (errno). */
static void __attribute__((format(printf, 2, 3), noreturn))
fail(int status, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fputs("wsr-workload: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (status == 2)
		fputs(" (try --help)\n", stderr);
	else
		fprintf(stderr, ": %s\n", strerror(err));
	if (remove_default)
		unlink(default_path);
	exit(status);
}

/* strtoull alone accepts " 5", "-5" (wrapped) and "5x"; allow digits only. */
static long long parse_num(const char *opt, const char *s, unsigned long long max)
{
	unsigned long long v;
	char *end;

	if (*s == '-')
		fail(2, "--%s: negative value '%s'", opt, s);
	if (*s < '0' || *s > '9')
		fail(2, "--%s: '%s' is not a number", opt, s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		fail(2, "--%s: trailing garbage in '%s'", opt, s);
	if (errno || v > max)
		fail(2, "--%s: '%s' is too large (max %llu)", opt, s, max);
	return v;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "hot", required_argument, NULL, 'H' },
		{ "cold", required_argument, NULL, 'C' },
		{ "type", required_argument, NULL, 't' },
		{ "node", required_argument, NULL, 'n' },
		{ "file", required_argument, NULL, 'f' },
		{ "period-ms", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ "ready", required_argument, NULL, 'r' },
		{ "reaccess-after-ms", required_argument, NULL, 'a' },
		{ "random-touches", required_argument, NULL, 'R' },
		{ "warm", required_argument, NULL, 'W' },
		{ "warm-period-ms", required_argument, NULL, 'P' },
		{ "stats-s", required_argument, NULL, 's' },
		{ "read", no_argument, NULL, 'x' },
		{ "move-s", required_argument, NULL, 'M' },
		{ "tlb-flush", no_argument, NULL, 'F' },
		{ "cold-holes", no_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'H':
			o->hot_mib = parse_num("hot", optarg, MAX_MIB);
			break;
		case 'C':
			o->cold_mib = parse_num("cold", optarg, MAX_MIB);
			break;
		case 'n':
			o->node = parse_num("node", optarg, MAX_NODES - 1);
			break;
		case 'p':
			o->period_ms = parse_num("period-ms", optarg, UINT32_MAX);
			break;
		case 'a':
			o->reaccess_ms = parse_num("reaccess-after-ms", optarg, UINT32_MAX);
			break;
		case 'R':
			o->random_touches = parse_num("random-touches", optarg, 1ULL << 40);
			break;
		case 'W':
			o->warm_mib = parse_num("warm", optarg, MAX_MIB);
			break;
		case 'P':
			o->warm_period_ms = parse_num("warm-period-ms", optarg, UINT32_MAX);
			break;
		case 's':
			o->stats_s = parse_num("stats-s", optarg, 86400);
			break;
		case 'x':
			o->read_only = 1;
			break;
		case 'M':
			o->move_s = parse_num("move-s", optarg, 86400);
			break;
		case 'F':
			o->tlb_flush = 1;
			break;
		case 'O':
			o->cold_holes = 1;
			break;
		case 'f':
			o->path = optarg;
			break;
		case 'g':
			o->cgroup = optarg;
			break;
		case 'r':
			o->ready = optarg;
			break;
		case 't':
			if (strcmp(optarg, "anon") && strcmp(optarg, "file"))
				fail(2, "--type: unknown type '%s' (want anon or file)", optarg);
			o->file = !strcmp(optarg, "file");
			break;
		case 'h':
			usage();
			exit(0);
		default:
			exit(2);	/* getopt_long has already said why */
		}
	}
	if (optind < argc)
		fail(2, "unexpected argument '%s'", argv[optind]);
	if (o->hot_mib == UNSET || o->cold_mib == UNSET)
		fail(2, "missing --%s MIB", o->hot_mib == UNSET ? "hot" : "cold");
	if (!o->hot_mib && !o->cold_mib)
		fail(2, "--hot and --cold are both 0: nothing to allocate");
	if (!o->period_ms)
		fail(2, "--period-ms must be at least 1");
	if (!o->stats_s)
		fail(2, "--stats-s must be at least 1");
	if ((o->warm_mib > 0) != (o->warm_period_ms > 0))
		fail(2, "--warm and --warm-period-ms go together, both above 0");
	if (!o->move_s)
		fail(2, "--move-s must be at least 1");
	if (o->move_s != UNSET && (!o->hot_mib || o->cold_mib < o->hot_mib))
		fail(2, "--move-s needs a cold tier at least as large as a hot one above 0");
	if (o->cold_holes && (o->file || !o->cold_mib))
		fail(2, "--cold-holes needs an anon cold tier above 0");
	if (o->path && !o->file)
		fail(2, "--file needs --type file");
	if (o->ready && strlen(o->ready) > PATH_MAX - 32)
		fail(2, "--ready: path too long");
}

/* Joining first means every page faulted later is charged to that memcg. */
static void join_cgroup(const char *dir)
{
	char path[PATH_MAX], pid[32];
	int fd, len = snprintf(pid, sizeof(pid), "%d\n", getpid());

	if (snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >= (int)sizeof(path))
		fail(2, "--cgroup: path too long");
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, pid, len) != len || close(fd))
		fail(1, "cannot join cgroup: writing %s", path);
}

/* The backing file's pages live in page cache (tmpfs: shmem) */
static int open_backing(struct opts *o, size_t len)
{
	int fd;

	if (!o->path) {
		snprintf(default_path, sizeof(default_path), "/tmp/wsr-workload.%d", getpid());
		o->path = default_path;
		remove_default = 1;
	}
	fd = open(o->path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, len))
		fail(1, "cannot create %s", o->path);
	return fd;
}

/* Policy must be in place before the first fault, or pages land anywhere. */
static void bind_node(void *addr, size_t len, unsigned int node)
{
	const unsigned int bits = 8 * sizeof(unsigned long);
	unsigned long mask[MAX_NODES / (8 * sizeof(unsigned long))] = { 0 };

	mask[node / bits] = 1UL << (node % bits);
	/* The kernel ignores the last bit of maxnode, hence the + 1. */
	if (syscall(SYS_mbind, addr, len, MPOL_BIND, mask, MAX_NODES + 1,
		    MPOL_MF_STRICT | MPOL_MF_MOVE))
		fail(1, "cannot bind memory to NUMA node %u", node);
	/*
	 * Page-cache pages of a shared file mapping follow the task's policy,
	 * not the mapping's: bind the task too.
	 */
	if (syscall(SYS_set_mempolicy, MPOL_BIND, mask, MAX_NODES + 1))
		fail(1, "cannot bind the task to NUMA node %u", node);
}

/* A write per page faults it in, then keeps it accessed (and dirty). */
static void touch(char *p, size_t len)
{
	volatile char *v = p;
	size_t off;

	for (off = 0; off < len; off += PAGE_STEP)
		v[off]++;
}

/*
 * --read: a read per page keeps it accessed but clean, as a file set that
 * is served rather than rewritten (a written shared page is written back
 * and faults again at the next write)
 */
static void read_pages(const char *p, size_t len)
{
	const volatile char *v = p;
	size_t off;

	for (off = 0; off < len; off += PAGE_STEP)
		(void)v[off];
}

/* Temporary name plus rename: a reader never sees a partial line. */
static void announce(const char *ready, const char *suffix, const char *word)
{
	char final[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;

	if (ready) {
		snprintf(final, sizeof(final), "%s%s", ready, suffix);
		snprintf(tmp, sizeof(tmp), "%s.tmp", final);
		f = fopen(tmp, "w");
		if (!f || fprintf(f, "%s %d\n", word, getpid()) < 0 || fclose(f))
			fail(1, "cannot write %s", tmp);
		if (rename(tmp, final))
			fail(1, "cannot rename %s to %s", tmp, final);
	}
	printf("%s\n", word);
	fflush(stdout);
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_until(unsigned long long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ULL, .tv_nsec = ns % 1000000000ULL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/*
 * The benchmark mode: N writes to random pages of the HOT+COLD MiB, as
 * fast as they go, then "touches_per_s <rate>" and exit.  A fixed seed, so
 * that runs with and without wsr attached touch the same pages.
 */
static void random_touches(char *base, size_t len, long long n)
{
	unsigned long long x = 88172645463325252ULL, t0 = now_ns(), dt;
	size_t pages = len / PAGE_STEP;
	volatile char *v = base;
	long long i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;	/* xorshift64 */
		x ^= x >> 7;
		x ^= x << 17;
		v[(x % pages) * PAGE_STEP]++;
	}
	dt = now_ns() - t0;
	printf("touches_per_s %.0f\n", n * 1e9 / (dt ? dt : 1));
}

/*
 * --stats-s: the hot passes' speed, pages per second of time spent in
 * them rather than of wall time, so that a pass slowed by major faults
 * shows and the sleeps between passes do not
 */
struct pass_stats {
	unsigned long long pages, busy_ns, late, next;
};

static void print_stats(struct pass_stats *st)
{
	printf("touches_per_s %.0f late %llu\n",
	       st->busy_ns ? st->pages * 1e9 / st->busy_ns : 0.0, st->late);
	fflush(stdout);
	st->pages = st->busy_ns = st->late = 0;
}

/* unlink() and _exit() are async-signal-safe, so finish right here. */
static void on_signal(int sig)
{
	(void)sig;
	if (remove_default)
		unlink(default_path);
	_exit(0);
}

/* every second page of [@p, @p + @len) back to the system, one by one */
static void free_holes(char *p, size_t len)
{
	size_t off;

	for (off = PAGE_STEP; off < len; off += 2 * PAGE_STEP)
		if (madvise(p + off, PAGE_STEP, MADV_DONTNEED))
			fail(1, "cannot free the page at offset %zu", off);
}

int main(int argc, char **argv)
{
	struct opts o = { .hot_mib = UNSET, .cold_mib = UNSET, .node = UNSET,
			  .period_ms = 100, .reaccess_ms = UNSET, .random_touches = UNSET,
			  .warm_mib = 0, .warm_period_ms = 0, .stats_s = UNSET,
			  .move_s = UNSET };
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long long period, next, reaccess_at = ULLONG_MAX, warm_next = ULLONG_MAX;
	unsigned long long ready_ns, move_next = ULLONG_MAX;
	size_t hot_off = 0, slot = 0;
	struct pass_stats st = { .next = ULLONG_MAX };
	size_t hot, warm, len;
	int fd = -1;
	char *base;

	parse_args(argc, argv, &o);
	hot = o.hot_mib * MIB;
	warm = o.warm_mib * MIB;
	len = hot + warm + o.cold_mib * MIB;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (o.cgroup)
		join_cgroup(o.cgroup);
	if (o.file)
		fd = open_backing(&o, len);
	/* One mapping: hot is the first HOT MiB, then warm, cold the rest. */
	base = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    o.file ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS, fd, 0);
	if (base == MAP_FAILED)
		fail(1, "cannot map %zu bytes", len);
	/*
	 * A huge page across the hot/cold boundary would make cold 4K pages
	 * look hot.  Failure only means THP is not built in.
	 */
	madvise(base, len, MADV_NOHUGEPAGE);
	if (o.node != UNSET)
		bind_node(base, len, o.node);
	touch(base, len);
	if (o.cold_holes)
		free_holes(base + hot + warm, o.cold_mib * MIB);
	announce(o.ready, "", "ready");
	if (o.random_touches != UNSET) {
		random_touches(base, len, o.random_touches);
		if (remove_default)
			unlink(default_path);
		return 0;
	}

	period = o.period_ms * NSEC_PER_MS;
	ready_ns = now_ns();
	next = ready_ns + period;
	if (o.move_s != UNSET)
		move_next = ready_ns + o.move_s * 1000 * NSEC_PER_MS;
	if (o.reaccess_ms != UNSET)
		reaccess_at = now_ns() + o.reaccess_ms * NSEC_PER_MS;
	if (warm)
		warm_next = now_ns() + o.warm_period_ms * NSEC_PER_MS;
	if (o.stats_s != UNSET)
		st.next = now_ns() + o.stats_s * 1000 * NSEC_PER_MS;
	for (;;) {
		unsigned long long wake = next < reaccess_at ? next : reaccess_at;

		wake = wake < move_next ? wake : move_next;
		sleep_until(wake < warm_next ? wake : warm_next);
		/*
		 * Slot 0 is the first HOT MiB, slot k the k-th HOT MiB of
		 * cold: the cold tier's pages, touched once at the start,
		 * become hot, and the last hot set goes idle from now.
		 */
		if (now_ns() >= move_next) {
			slot = (slot + 1) % (1 + (len - hot - warm) / hot);
			hot_off = slot ? hot + warm + (slot - 1) * hot : 0;
			printf("moved %zu %llu\n", slot, (now_ns() - ready_ns) / NSEC_PER_MS);
			fflush(stdout);
			move_next += o.move_s * 1000 * NSEC_PER_MS;
		}
		if (now_ns() >= warm_next) {
			touch(base + hot, warm);
			warm_next += o.warm_period_ms * NSEC_PER_MS;
		}
		if (now_ns() >= reaccess_at) {
			touch(base + hot + warm, len - hot - warm);
			announce(o.ready, ".reaccess", "reaccessed");
			reaccess_at = ULLONG_MAX;
		}
		if (now_ns() >= next) {
			unsigned long long t0 = now_ns();

			/*
			 * A CPU sets a PTE's accessed bit when it fills its TLB
			 * from it, and QEMU's TCG keeps translations until a CR3
			 * write: without a flush, a hot page whose bit DAMON or
			 * page_idle cleared (no flush either) stays old.
			 * mprotect flushes the range, as a real TLB's evictions
			 * and context switches would.
			 */
			if (o.tlb_flush && (mprotect(base + hot_off, hot, PROT_READ) ||
					    mprotect(base + hot_off, hot, PROT_READ | PROT_WRITE)))
				fail(1, "mprotect of the hot set");
			if (o.read_only)
				read_pages(base + hot_off, hot);
			else
				touch(base + hot_off, hot);
			st.pages += hot / PAGE_STEP;
			st.busy_ns += now_ns() - t0;
			next += period;
			/* After a pass slower than the period, restart the beat. */
			if (next < now_ns()) {
				next = now_ns() + period;
				st.late++;
			}
		}
		if (now_ns() >= st.next) {
			print_stats(&st);
			st.next += o.stats_s * 1000 * NSEC_PER_MS;
		}
	}
}
