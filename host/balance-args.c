// SPDX-License-Identifier: GPL-2.0
/* wsr-host balance's command line: see balance-args.h. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "libwsr.h"
#include "balance-args.h"
#include "metrics.h"

#define MIB (1ULL << 20)

static void usage(FILE *f)
{
	fputs(
"usage: wsr-host balance --vm NAME=QMP_SOCKET[,min=MIB][,max=MIB] [--vm ...]\n"
"                        [--connect URI --domain NAME[,min=MIB][,max=MIB] ...]\n"
"                        [--policy POLICY] [KNOBS] [--metrics ADDR:PORT] [--json]\n"
"                        [--dry-run] [--on-exit keep|deflate]\n"
"\n"
"Size the balloons of several VMs from one process.  For each VM: configure\n"
"its working-set reporting, turn on balloon stats, ask for a report every\n"
"--request-ms, take every WORKING_SET_EVENT, and set a target with QMP\n"
"balloon.  One line per decision on stdout:\n"
"  decision time=<unix s> vm=NAME policy=P action=set|keep reason=WORD\n"
"           cause=request|reclaim|none actual=B target=B want=B hot=B other=B\n"
"           data_age_ms=MS [dry_run=1]\n"
"(bytes of guest memory, RAM minus the balloon; --json: one object per line).\n"
"A kept target is logged when its reason changes.\n"
"\n"
"No VM waits on another: every QMP command has --qmp-timeout-ms to be\n"
"answered, and a VM that misses it, closes its socket, or sends a message\n"
"of more than 1 MiB or what is not JSON is closed, said once on stderr,\n"
"and retried after --reconnect-ms, the wait doubling per failure up to a\n"
"minute; the others go on at once.\n"
"\n"
"VMs run by libvirt: --connect URI (qemu:///system) and one --domain NAME\n"
"per domain (NAME of letters, digits, '_', '.' and '-'), with min= and max=\n"
"as --vm's.  --connect alone: every running domain whose balloon has\n"
"working-set on, listed every second: a domain that starts is managed, one\n"
"that stops is let go, one without the device is skipped with its reason.\n"
"libvirt carries the commands (the balloon's target by\n"
"virDomainSetMemoryFlags, its stats by virDomainMemoryStats), each domain's\n"
"in a thread of its own under the same time-out; a domain that stops, or a\n"
"libvirt that restarts, is down until it answers again.  --vm and --domain\n"
"mix.\n"
"\n"
"operator controls:\n"
"  --vm NAME=SOCKET,min=MIB,max=MIB\n"
"                 this VM's target never below min= (instead of --floor-mib)\n"
"                 nor above max= (a VM found above it goes down to it at once)\n"
"  --dry-run      decide and log every decision (dry_run=1), send no balloon\n"
"                 command (reports are still configured and requested)\n"
"  --on-exit deflate|keep\n"
"                 on SIGTERM or SIGINT: deflate (the default) sets every VM\n"
"                 that balance set a target on back to its full size (its\n"
"                 max= when given), so that a stopped balance leaves no guest\n"
"                 squeezed, and exits 1 if one could not be (a second signal\n"
"                 stops at once); keep leaves every target as it is (another\n"
"                 balance takes over: a restart wants keep, or the new one\n"
"                 leaves alone a balloon still moving to the old one's exit)\n"
"  --foreign-hold-ms MS\n"
"                 a balloon that moves away from balance's target, or moves\n"
"                 while balance set none, has a target someone else set\n"
"                 (virsh setmem, another manager): balance logs it, sets no\n"
"                 target on that VM until the balloon has stayed put for MS\n"
"                 (decisions say reason=foreign-target), and leaves it as it\n"
"                 is on exit (300000; 0: never)\n"
"\n"
"policies:\n"
"  working-set   (default) keep the memory idle for less than T, plus\n"
"                --headroom-mib, plus what the histogram does not count\n"
"                (kernel, slab; free memory beyond the headroom, from the\n"
"                stats, is not kept).  A reclaim report is weighed against\n"
"                that plus --reclaim-margin-mib: a target that covers it\n"
"                stays and inflation goes on (reclaim-covered); a smaller\n"
"                one deflates at once to it and holds off inflation for\n"
"                --hold-ms.  Inflation: at most --step-mib per new report,\n"
"                never below --floor-mib, and none while the guest's memory\n"
"                stall (PSI some, from the report header) between two\n"
"                reports passes --pressure-us per 30 s.  T adapts per VM\n"
"                within --idle-min-ms..--idle-max-ms: doubled when the\n"
"                guest's swap-ins + major faults per minute pass --slo-ppm\n"
"                of its working set (memory idle < 120 s), halved after 5\n"
"                minutes below a quarter of it\n"
"  pressure      oomd's Senpai on the balloon: every --pressure-tick-ms,\n"
"                the guest's stall (PSI some from the report header, or\n"
"                else swap-ins + major faults from the stats, 1 ms each)\n"
"                since the last change: at --pressure-us or more, deflate\n"
"                at once; none for 6 ticks, inflate by up to 1%.  Never\n"
"                below --floor-mib, nor, on a guest that cannot swap, below\n"
"                what working-set would keep\n"
"  available     keep --available-pct of RAM available (MemAvailable from\n"
"                the balloon stats); no working set\n"
"  mom           oVirt MOM's balloon.rules: every 10 s, while the host's\n"
"                free memory (MemFree + Buffers + Cached, a mean of 10\n"
"                samples 5 s apart) is under 20% of its total, each guest\n"
"                shrinks by 5% of its size, not below what it uses (size\n"
"                less MemFree) plus a free share that falls with the\n"
"                host's; otherwise each ballooned guest grows by 5%\n"
"  proxmox       Proxmox VE's auto-ballooning: every 10 s, the host aims\n"
"                at --host-target-pct of its memory used, and the change\n"
"                (none within 10 MiB) is shared out among the guests by\n"
"                their room above --floor-mib, at most 100 MiB a guest;\n"
"                guests short of free memory grow first, those with free\n"
"                memory shrink first\n"
"  none          never set a target (reports and metrics only)\n"
"\n"
"knobs (default):\n"
"  --idle-ms T            memory idle for at most T, rounded up to a bin\n"
"                         bound, is in use (10000)\n"
"  --headroom-mib N       kept free on top of the working set (64)\n"
"  --reclaim-margin-mib N more on a reclaim report (64)\n"
"  --hold-ms MS           no inflation after a reclaim report (30000)\n"
"  --step-mib N           largest inflation per decision (64)\n"
"  --floor-mib N          smallest target (256)\n"
"  --max-age-ms MS        no inflation on older data (10000)\n"
"  --available-pct P      available: % of RAM kept available (20)\n"
"  --idle-min-ms MS       working-set: T never below (10000; --idle-ms if lower)\n"
"  --idle-max-ms MS       working-set: T never above (600000; --idle-ms if\n"
"                         higher; --idle-min-ms = --idle-max-ms fixes T)\n"
"  --slo-ppm N            working-set: promotions per minute, in millionths\n"
"                         of the working set, that raise T (2000: 0.2%)\n"
"  --pressure-us US       stall per 30 s that backs pressure off and holds\n"
"                         working-set's inflation (10000)\n"
"  --pressure-tick-ms MS  pressure: Senpai's tick (5000; 6 ticks an interval)\n"
"  --host-target-pct P    proxmox: % of the host's memory it aims to use (80)\n"
"  --host-budget-mib N    mom, proxmox: the host has N MiB for its guests,\n"
"                         not /proc/meminfo's total (a committed host)\n"
"  --host-used-file PATH  with --host-budget-mib: what is used of it, bytes,\n"
"                         the file's first word (the guests' cgroup's\n"
"                         memory.current); without: the guests' sizes\n"
"  --intervals LIST       the guest's bins, as wsr-host config (1000,5000,\n"
"                         10000,60000: working-set-bins=5; T should be one)\n"
"  --refresh-ms MS        the guest's refresh_ms: its data at most this old;\n"
"                         aging in the guest keeps it so (4000)\n"
"  --report-ms MS         the guest's report_ms: reclaim reports at most\n"
"                         this often (1000)\n"
"  --request-ms MS        a working-set-request this often (2000)\n"
"  --tick-ms MS           balloon size and stats read this often (1000)\n"
"  --stats-s S            guest-stats-polling-interval (2)\n"
"  --reconnect-ms MS      a lost VM's first retry; doubled per failure up to\n"
"                         60 s (5000)\n"
"  --qmp-timeout-ms MS    a VM that answers a command no sooner is down (2000)\n"
"  --device PATH          the balloon's QOM path (/machine/peripheral/balloon0)\n"
"  --metrics ADDR:PORT    serve Prometheus metrics at http://ADDR:PORT/metrics\n"
"                         (8 connections per client address, 256 in all or\n"
"                         fewer as RLIMIT_NOFILE asks, idle ones closed after\n"
"                         5 s; a scrape never waits on a VM)\n"
"\n"
"example: two VMs, each started with\n"
"  -device virtio-balloon-pci,id=balloon0,working-set=on,working-set-bins=5\n"
"  -qmp unix:/run/vm-a.qmp,server=on,wait=off\n"
"  wsr-host balance --vm a=/run/vm-a.qmp --vm b=/run/vm-b.qmp \\\n"
"      --policy working-set --idle-ms 10000 --metrics 127.0.0.1:9910\n"
"  curl -s http://127.0.0.1:9910/metrics | grep wsr_balloon\n", f);
}

static int bad(const char *what, const char *value, const char *rule)
{
	err_msg("balance: %s '%s': %s (try --help)", what, value, rule);
	return 2;
}

/*
 * A number of @what in [min, max], by libwsr's rules and messages
 * (lib/parse.c); MiB knobs come back in bytes.
 */
static int num(const char *s, const char *what, __u64 min, __u64 max, __u64 mult, __u64 *v)
{
	struct wsr_err err;
	__u64 n;

	if (wsr_parse_range(s, &n, min, max, what, &err)) {
		err_msg("balance: %s (try --help)", err.msg);
		return 2;
	}
	*v = n * mult;
	return 0;
}

/*
 * NAME=SOCKET[,min=MIB][,max=MIB]: the socket runs to the first comma (a
 * path holding one cannot be given: QEMU's -qmp takes it only doubled).
 */
static int parse_vm(const char *s, struct balance_cfg *c)
{
	const char *eq = strchr(s, '='), *opt;
	size_t len = eq ? (size_t)(eq - s) : 0, i, slen;
	struct balance_vm *v;
	char what[96];
	int e;

	if (!eq || !len || !eq[1])
		return bad("--vm", s, "NAME=QMP_SOCKET[,min=MIB][,max=MIB]");
	if (len >= sizeof(c->vms[0].name))
		return bad("--vm", s, "a NAME of at most 63 characters");
	for (i = 0; i < len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", s[i]))
			return bad("--vm", s, "NAME takes letters, digits, '_', '.' and '-'");
	if (c->nr_vms == BALANCE_MAX_VMS)
		return bad("--vm", s, "at most 64 VMs");
	for (i = 0; i < c->nr_vms; i++)
		if (strlen(c->vms[i].name) == len && !strncmp(c->vms[i].name, s, len))
			return bad("--vm", s, "NAME given twice");
	v = &c->vms[c->nr_vms];
	memset(v, 0, sizeof(*v));
	memcpy(v->name, s, len);
	opt = strchr(eq + 1, ',');
	slen = opt ? (size_t)(opt - eq - 1) : strlen(eq + 1);
	if (!slen)
		return bad("--vm", s, "NAME=QMP_SOCKET[,min=MIB][,max=MIB]");
	if (slen >= sizeof(v->sock))
		return bad("--vm", s, "a socket path of at most 107 bytes");
	memcpy(v->sock, eq + 1, slen);
	while (opt) {
		const char *val = opt + 5, *end = strchr(opt + 1, ',');
		__u64 *dst = !strncmp(opt, ",min=", 5) ? &v->min :
			     !strncmp(opt, ",max=", 5) ? &v->max : NULL;
		size_t vl = end ? (size_t)(end - val) : strlen(val);
		char num_s[32];

		if (!dst)
			return bad("--vm", s, "after the socket (which holds no comma), only "
				   "min=MIB and max=MIB");
		if (*dst)
			return bad("--vm", s, "min= or max= given twice");
		if (vl >= sizeof(num_s))
			return bad("--vm", s, "min= and max= take a number of MiB");
		memcpy(num_s, val, vl);
		num_s[vl] = 0;
		snprintf(what, sizeof(what), "--vm %s's %.3s=", v->name, opt + 1);
		e = num(num_s, what, 1, 1ULL << 20, MIB, dst);
		if (e)
			return e;
		opt = end;
	}
	if (v->min && v->max && v->min > v->max)
		return bad("--vm", s, "min= above max=");
	c->nr_vms++;
	return 0;
}

/* NAME[,min=MIB][,max=MIB]: --vm's NAME=NAME,..., its socket the domain's name */
static int parse_domain(const char *s, struct balance_cfg *c)
{
	size_t len = strcspn(s, ",=");
	char vm[256];
	int e;

	if (s[len] == '=' || snprintf(vm, sizeof(vm), "%.*s=%s", (int)len, s, s) >= (int)sizeof(vm))
		return bad("--domain", s, "NAME[,min=MIB][,max=MIB]");
	e = parse_vm(vm, c);
	if (!e)
		c->vms[c->nr_vms - 1].libvirt = 1;
	return e;
}

int balance_parse_args(int argc, char **argv, struct balance_cfg *c)
{
	enum { O_IDLE = 256, O_HEAD, O_MARGIN, O_HOLD, O_STEP, O_FLOOR, O_AGE, O_PCT,
	       O_IVALS, O_REFRESH, O_REPORT, O_REQ, O_TICK, O_STATS, O_RECON, O_DRY, O_EXIT,
	       O_QMPTO, O_FOREIGN, O_IDLE_MIN, O_IDLE_MAX, O_SLO, O_PRESS, O_PTICK,
	       O_HTARGET, O_HBUDGET, O_HUSED };
	static const struct option opts[] = {
		{ "vm", required_argument, NULL, 'v' },
		{ "connect", required_argument, NULL, 'C' },
		{ "domain", required_argument, NULL, 'D' },
		{ "policy", required_argument, NULL, 'p' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "idle-ms", required_argument, NULL, O_IDLE },
		{ "headroom-mib", required_argument, NULL, O_HEAD },
		{ "reclaim-margin-mib", required_argument, NULL, O_MARGIN },
		{ "hold-ms", required_argument, NULL, O_HOLD },
		{ "step-mib", required_argument, NULL, O_STEP },
		{ "floor-mib", required_argument, NULL, O_FLOOR },
		{ "max-age-ms", required_argument, NULL, O_AGE },
		{ "available-pct", required_argument, NULL, O_PCT },
		{ "intervals", required_argument, NULL, O_IVALS },
		{ "refresh-ms", required_argument, NULL, O_REFRESH },
		{ "report-ms", required_argument, NULL, O_REPORT },
		{ "request-ms", required_argument, NULL, O_REQ },
		{ "tick-ms", required_argument, NULL, O_TICK },
		{ "stats-s", required_argument, NULL, O_STATS },
		{ "reconnect-ms", required_argument, NULL, O_RECON },
		{ "dry-run", no_argument, NULL, O_DRY },
		{ "on-exit", required_argument, NULL, O_EXIT },
		{ "qmp-timeout-ms", required_argument, NULL, O_QMPTO },
		{ "foreign-hold-ms", required_argument, NULL, O_FOREIGN },
		{ "idle-min-ms", required_argument, NULL, O_IDLE_MIN },
		{ "idle-max-ms", required_argument, NULL, O_IDLE_MAX },
		{ "slo-ppm", required_argument, NULL, O_SLO },
		{ "pressure-us", required_argument, NULL, O_PRESS },
		{ "pressure-tick-ms", required_argument, NULL, O_PTICK },
		{ "host-target-pct", required_argument, NULL, O_HTARGET },
		{ "host-budget-mib", required_argument, NULL, O_HBUDGET },
		{ "host-used-file", required_argument, NULL, O_HUSED },
		{ 0 },
	};
	/* MiB knobs up to 1 TiB, ms ones a week: the most the device takes */
	const __u64 tb = 1ULL << 20, week = VIRTIO_BALLOON_WS_MAX_MS;
	struct policy_knobs *k = &c->k;
	struct wsr_err werr;
	unsigned char addr[128];
	unsigned int alen, i;
	int opt, e = 0;

	memset(c, 0, sizeof(*c));
	policy_knobs_default(k);
	c->report_ms = c->tick_ms = 1000;
	/*
	 * The guest's daemon ages every lruvec often enough to keep an
	 * answer's data this fresh: at 1000 ms, every 500 ms, and so aged,
	 * set 1's redis took 28,663 major faults in 300 s, against 187 at
	 * 4000 (docs/policies.md).  A page touched at least every 4 s still
	 * reads as idle for less than 8 s, under the shortest T (10 s).
	 */
	c->refresh_ms = 4000;
	c->request_ms = 2000;
	c->reconnect_ms = 5000;
	c->qmp_timeout_ms = 2000;
	c->foreign_hold_ms = 300000;
	c->stats_s = 2;
	c->device = "/machine/peripheral/balloon0";
	wsr_parse_intervals("1000,5000,10000,60000", week, c->intervals, &c->nr_intervals, &werr);
	optind = 1;
	while (!e && (opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'v': e = parse_vm(optarg, c); break;
		case 'C': c->connect = optarg; break;
		case 'D': e = parse_domain(optarg, c); break;
		case 'p':
			if (policy_kind_parse(optarg, &k->kind))
				e = bad("--policy", optarg,
					"none, available, working-set, pressure, mom or proxmox");
			break;
		case 'm':
			if (metrics_parse_addr(optarg, addr, &alen))
				e = bad("--metrics", optarg, "IPv4:PORT or [IPv6]:PORT");
			c->metrics = optarg;
			break;
		case 'd': c->device = optarg; break;
		case 'j': c->json = 1; break;
		case 'h': usage(stdout); return 0;
		case O_IDLE: e = num(optarg, "--idle-ms", 1, WSR_MAX_MS, 1, &k->idle_ms); break;
		case O_HEAD: e = num(optarg, "--headroom-mib", 0, tb, MIB, &k->headroom); break;
		case O_MARGIN: e = num(optarg, "--reclaim-margin-mib", 0, tb, MIB, &k->reclaim_margin); break;
		case O_HOLD: e = num(optarg, "--hold-ms", 0, week, 1, &k->hold_ms); break;
		case O_STEP: e = num(optarg, "--step-mib", 1, tb, MIB, &k->step); break;
		case O_FLOOR: e = num(optarg, "--floor-mib", 0, tb, MIB, &k->floor); break;
		case O_AGE: e = num(optarg, "--max-age-ms", 1, week, 1, &k->max_age_ms); break;
		case O_PCT: e = num(optarg, "--available-pct", 0, 100, 1, &k->available_pct); break;
		case O_IVALS:
			if (wsr_parse_intervals(optarg, week, c->intervals, &c->nr_intervals,
						&werr))
				e = bad("--intervals", optarg, werr.msg);
			break;
		case O_REFRESH: e = num(optarg, "--refresh-ms", 0, week, 1, &c->refresh_ms); break;
		case O_REPORT: e = num(optarg, "--report-ms", 0, week, 1, &c->report_ms); break;
		case O_REQ: e = num(optarg, "--request-ms", 100, week, 1, &c->request_ms); break;
		case O_TICK: e = num(optarg, "--tick-ms", 100, 3600000, 1, &c->tick_ms); break;
		case O_STATS: e = num(optarg, "--stats-s", 1, 3600, 1, &c->stats_s); break;
		case O_RECON: e = num(optarg, "--reconnect-ms", 100, 3600000, 1, &c->reconnect_ms); break;
		case O_DRY: c->dry_run = 1; break;
		case O_EXIT:
			if (!strcmp(optarg, "deflate"))
				c->on_exit = ON_EXIT_DEFLATE;
			else if (!strcmp(optarg, "keep"))
				c->on_exit = ON_EXIT_KEEP;
			else
				e = bad("--on-exit", optarg, "keep or deflate");
			break;
		case O_QMPTO: e = num(optarg, "--qmp-timeout-ms", 10, 600000, 1, &c->qmp_timeout_ms); break;
		case O_FOREIGN: e = num(optarg, "--foreign-hold-ms", 0, week, 1, &c->foreign_hold_ms); break;
		case O_IDLE_MIN: e = num(optarg, "--idle-min-ms", 1, WSR_MAX_MS, 1, &k->idle_min_ms); break;
		case O_IDLE_MAX: e = num(optarg, "--idle-max-ms", 1, WSR_MAX_MS, 1, &k->idle_max_ms); break;
		case O_SLO: e = num(optarg, "--slo-ppm", 1, 1000000, 1, &k->slo_ppm); break;
		case O_PRESS: e = num(optarg, "--pressure-us", 1, 60000000, 1, &k->pressure_us); break;
		case O_PTICK: e = num(optarg, "--pressure-tick-ms", 100, 3600000, 1, &k->pressure_tick_ms); break;
		case O_HTARGET: e = num(optarg, "--host-target-pct", 1, 100, 1, &k->host_target_pct); break;
		case O_HBUDGET: e = num(optarg, "--host-budget-mib", 1, tb, MIB, &c->host_budget); break;
		case O_HUSED:
			if (!*optarg)
				e = bad("--host-used-file", optarg, "a file's path");
			c->host_used_file = optarg;
			break;
		default: usage(stderr); return 2;
		}
	}
	if (e)
		return e;
	if (optind < argc)
		return bad("argument", argv[optind], "balance takes options only");
	/* --connect alone: every running domain (balance.c lists them) */
	if (!c->nr_vms && !c->connect) {
		err_msg("balance: no --vm NAME=QMP_SOCKET, --domain NAME nor --connect URI given "
			"(try --help)");
		return 2;
	}
	for (i = 0; i < c->nr_vms; i++)
		if (c->vms[i].libvirt && !c->connect) {
			err_msg("balance: --domain %s needs --connect URI (try --help)",
				c->vms[i].name);
			return 2;
		}
	if (c->host_used_file && !c->host_budget) {
		err_msg("balance: --host-used-file needs --host-budget-mib (try --help)");
		return 2;
	}
	if (k->idle_min_ms > k->idle_max_ms) {
		err_msg("balance: --idle-min-ms %llu is above --idle-max-ms %llu (try --help)",
			(unsigned long long)k->idle_min_ms, (unsigned long long)k->idle_max_ms);
		return 2;
	}
	if (k->kind == POLICY_WORKING_SET &&
	    k->idle_ms > c->intervals[c->nr_intervals - 1])
		err_msg("balance: warning: --idle-ms %llu is beyond the last bin bound: all the "
			"memory counts as in use", (unsigned long long)k->idle_ms);
	return -1;
}
