// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host balance's command line: see balance-args.h.  One table, knobs[],
 * holds every option: getopt's list, each number's range and unit, the
 * defaults, the field it sets and its --help line are all made from it,
 * and so is the table in docs/policies.md's "The knobs" (a unit test,
 * test_host_args, compares the two), so that none of them can drift.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libwsr.h"
#include "balance-args.h"
#include "metrics.h"

#define MIB (1ULL << 20)
/* MiB knobs up to 1 TiB, ms ones a week: the most the device takes */
#define TB_MIB (1ULL << 20)
#define WEEK VIRTIO_BALLOON_WS_MAX_MS

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


/* the options that are no number in a range: each sets its field itself */
static int set_connect(const char *s, struct balance_cfg *c)
{
	c->connect = s;
	return 0;
}

static int set_policy(const char *s, struct balance_cfg *c)
{
	if (policy_kind_parse(s, &c->k.kind))
		return bad("--policy", s, "none, available, working-set, pressure, mom or proxmox");
	return 0;
}

static int set_metrics(const char *s, struct balance_cfg *c)
{
	unsigned char addr[128];
	unsigned int alen;

	c->metrics = s;
	if (metrics_parse_addr(s, addr, &alen))
		return bad("--metrics", s, "IPv4:PORT or [IPv6]:PORT");
	return 0;
}

static int set_device(const char *s, struct balance_cfg *c)
{
	c->device = s;
	return 0;
}

static int set_intervals(const char *s, struct balance_cfg *c)
{
	struct wsr_err werr;

	if (wsr_parse_intervals(s, WEEK, c->intervals, &c->nr_intervals, &werr))
		return bad("--intervals", s, werr.msg);
	return 0;
}

static int set_on_exit(const char *s, struct balance_cfg *c)
{
	if (!strcmp(s, "deflate"))
		c->on_exit = ON_EXIT_DEFLATE;
	else if (!strcmp(s, "keep"))
		c->on_exit = ON_EXIT_KEEP;
	else
		return bad("--on-exit", s, "keep or deflate");
	return 0;
}

static int set_host_used_file(const char *s, struct balance_cfg *c)
{
	c->host_used_file = s;
	if (!*s)
		return bad("--host-used-file", s, "a file's path");
	return 0;
}

/* where --help lists an option: its two lists, or the synopsis and prose alone */
enum knob_section {
	SEC_KNOBS,		/* "knobs (default):" */
	SEC_OPERATOR,		/* "operator controls:" */
	SEC_PROSE,		/* the usage line and the text about VMs */
	SEC_HELP,		/* --help: in no list, nor in the docs' table */
};

struct knob {
	const char *name;	/* the option, without its "--" */
	const char *arg;	/* its argument's name in --help; NULL: it takes none */
	const char *unit;	/* the docs' unit ("" none) */
	/* a number: its range in its unit, times mult into the field (a __u64) */
	__u64 min, max, mult;
	size_t field;		/* offsetof(struct balance_cfg, ...): a number's or a flag's */
	int (*set)(const char *arg, struct balance_cfg *c);	/* else, this sets it */
	const char *range;	/* with set: what it takes, for the docs */
	const char *def;	/* the default, as the option takes it; NULL: none (off) */
	const char *def_note;	/* said after the default in --help */
	int def_said;		/* the help says the default itself: no "(DEFAULT)" */
	/* the --help text; "~" a space no line breaks at */
	const char *help;
	enum knob_section sec;
};

#define NUM(f, u, lo, hi, m) .field = offsetof(struct balance_cfg, f), .unit = u, \
	.min = lo, .max = hi, .mult = m
#define SET(fn, r) .set = fn, .range = r
#define FLAG(f) .field = offsetof(struct balance_cfg, f)

/*
 * Every option, in --help's order (and the docs'): the defaults given here
 * are set through the option's own parser, so a default out of its range
 * fails every run, and test_host_args holds the policy's against
 * policy_knobs_default().
 */
static const struct knob knobs[] = {
	{ "idle-ms", "T", NUM(k.idle_ms, "ms", 1, WSR_MAX_MS, 1), .def = "10000",
	  .help = "memory idle for at most T, rounded up to a bin bound, is in use" },
	{ "headroom-mib", "N", NUM(k.headroom, "MiB", 0, TB_MIB, MIB), .def = "64",
	  .help = "kept free on top of the working set" },
	{ "reclaim-margin-mib", "N", NUM(k.reclaim_margin, "MiB", 0, TB_MIB, MIB), .def = "64",
	  .help = "more on a reclaim report" },
	{ "hold-ms", "MS", NUM(k.hold_ms, "ms", 0, WEEK, 1), .def = "30000",
	  .help = "no inflation after a reclaim report" },
	{ "steady-ms", "MS", NUM(k.steady_ms, "ms", 0, WEEK, 1), .def = "30000",
	  .help = "working-set: no inflation until the working set has held (within 16 MiB "
	  "or 1/16) this long" },
	{ "step-mib", "N", NUM(k.step, "MiB", 1, TB_MIB, MIB), .def = "64",
	  .help = "largest inflation per decision" },
	{ "floor-mib", "N", NUM(k.floor, "MiB", 0, TB_MIB, MIB), .def = "256",
	  .help = "smallest target" },
	{ "max-age-ms", "MS", NUM(k.max_age_ms, "ms", 1, WEEK, 1), .def = "10000",
	  .help = "no inflation on older data" },
	{ "available-pct", "P", NUM(k.available_pct, "%", 0, 100, 1), .def = "20",
	  .help = "available: % of RAM kept available" },
	{ "idle-min-ms", "MS", NUM(k.idle_min_ms, "ms", 1, WSR_MAX_MS, 1), .def = "10000",
	  .def_note = "; --idle-ms if lower", .help = "working-set: T never below" },
	{ "idle-max-ms", "MS", NUM(k.idle_max_ms, "ms", 1, WSR_MAX_MS, 1), .def = "600000",
	  .def_note = "; --idle-ms if higher; --idle-min-ms = --idle-max-ms fixes T",
	  .help = "working-set: T never above" },
	{ "slo-ppm", "N", NUM(k.slo_ppm, "ppm", 1, 1000000, 1), .def = "2000",
	  .def_note = ": 0.2%", .help = "working-set: promotions per minute, in millionths "
	  "of the working set, that raise T" },
	{ "pressure-us", "US", NUM(k.pressure_us, "µs", 1, 60000000, 1), .def = "10000",
	  .help = "stall per 30 s that backs pressure off and holds working-set's inflation" },
	{ "pressure-tick-ms", "MS", NUM(k.pressure_tick_ms, "ms", 100, 3600000, 1), .def = "5000",
	  .def_note = "; 6 ticks an interval", .help = "pressure: Senpai's tick" },
	{ "host-target-pct", "P", NUM(k.host_target_pct, "%", 1, 100, 1), .def = "80",
	  .help = "proxmox: % of the host's memory it aims to use" },
	{ "host-budget-mib", "N", NUM(host_budget, "MiB", 1, TB_MIB, MIB),
	  .help = "mom, proxmox: the host has N MiB for its guests, not /proc/meminfo's "
	  "total (a committed host)" },
	{ "host-used-file", "PATH", SET(set_host_used_file, "a file's path"), .unit = "",
	  .help = "with --host-budget-mib: what is used of it, bytes, the file's first word "
	  "(the guests' cgroup's memory.current); without: the guests' sizes" },
	{ "intervals", "LIST", SET(set_intervals, "3 to 15 increasing bounds, each 1..604800000"),
	  .unit = "ms", .def = "1000,5000,10000,60000",
	  .def_note = ": working-set-bins=5; T should be one",
	  .help = "the guest's bins, as wsr-host config" },
	/*
	 * The guest's daemon ages every lruvec often enough to keep an
	 * answer's data this fresh: at 1000 ms, every 500 ms, and so aged,
	 * set 1's redis took 28,663 major faults in 300 s, against 187 at
	 * 4000 (docs/policies.md).  A page touched at least every 4 s still
	 * reads as idle for less than 8 s, under the shortest T (10 s).
	 */
	{ "refresh-ms", "MS", NUM(refresh_ms, "ms", 0, WEEK, 1), .def = "4000",
	  .help = "the guest's refresh_ms: its data at most this old; aging in the guest "
	  "keeps it so" },
	{ "report-ms", "MS", NUM(report_ms, "ms", 0, WEEK, 1), .def = "1000",
	  .help = "the guest's report_ms: reclaim reports at most this often" },
	{ "request-ms", "MS", NUM(request_ms, "ms", 100, WEEK, 1), .def = "2000",
	  .help = "a working-set-request this often" },
	{ "tick-ms", "MS", NUM(tick_ms, "ms", 100, 3600000, 1), .def = "1000",
	  .help = "balloon size and stats read this often" },
	{ "stats-s", "S", NUM(stats_s, "s", 1, 3600, 1), .def = "2",
	  .help = "guest-stats-polling-interval" },
	{ "reconnect-ms", "MS", NUM(reconnect_ms, "ms", 100, 3600000, 1), .def = "5000",
	  .help = "a lost VM's first retry; doubled per failure up to 60~s" },
	{ "qmp-timeout-ms", "MS", NUM(qmp_timeout_ms, "ms", 10, 600000, 1), .def = "2000",
	  .help = "a VM that answers a command no sooner is down" },
	{ "device", "PATH", SET(set_device, "a QOM path"), .unit = "",
	  .def = "/machine/peripheral/balloon0", .help = "the balloon's QOM path" },
	{ "metrics", "ADDR:PORT", SET(set_metrics, "IPv4:PORT or [IPv6]:PORT"), .unit = "",
	  .help = "serve Prometheus metrics at http://ADDR:PORT/metrics (8 connections per "
	  "client address, 256 in all or fewer as RLIMIT_NOFILE asks, idle ones closed "
	  "after 5~s; a scrape never waits on a VM)" },

	{ "vm", "NAME=SOCKET,min=MIB,max=MIB",
	  SET(parse_vm, "NAME=QMP_SOCKET[,min=MIB][,max=MIB], MIB 1..1048576"), .unit = "MiB",
	  .help = "this VM's target never below min= (instead of --floor-mib) nor above "
	  "max= (a VM found above it goes down to it at once)", .sec = SEC_OPERATOR },
	{ "dry-run", NULL, FLAG(dry_run), .unit = "",
	  .help = "decide and log every decision (dry_run=1), send no balloon command "
	  "(reports are still configured and requested)", .sec = SEC_OPERATOR },
	{ "on-exit", "deflate|keep", SET(set_on_exit, "keep or deflate"), .unit = "",
	  .def = "deflate",
	  .def_said = 1,
	  .help = "on SIGTERM or SIGINT: deflate (the default) sets every VM that balance set a target "
	  "on back to its full size (its max= when given), so that a stopped balance "
	  "leaves no guest squeezed, and exits 1 if one could not be (a second signal "
	  "stops at once); keep leaves every target as it is (another balance takes "
	  "over: a restart wants keep, or the new one leaves alone a balloon still "
	  "moving to the old one's exit)", .sec = SEC_OPERATOR },
	{ "foreign-hold-ms", "MS", NUM(foreign_hold_ms, "ms", 0, WEEK, 1), .def = "300000",
	  .def_note = "; 0: never",
	  .help = "a balloon that moves away from balance's target, or moves while balance "
	  "set none, has a target someone else set (virsh setmem, another manager): "
	  "balance logs it, sets no target on that VM until the balloon has stayed put "
	  "for MS (decisions say reason=foreign-target), and leaves it as it is on exit",
	  .sec = SEC_OPERATOR },

	{ "connect", "URI", SET(set_connect, "a libvirt URI"), .unit = "", .sec = SEC_PROSE },
	{ "domain", "NAME", SET(parse_domain, "NAME[,min=MIB][,max=MIB], MIB 1..1048576"),
	  .unit = "MiB", .sec = SEC_PROSE },
	{ "policy", "POLICY",
	  SET(set_policy, "none, available, working-set, pressure, mom or proxmox"),
	  .unit = "", .def = "working-set", .sec = SEC_PROSE },
	{ "json", NULL, FLAG(json), .unit = "", .sec = SEC_PROSE },
	{ "help", NULL, .sec = SEC_HELP },
};
#define NR_KNOBS (sizeof(knobs) / sizeof(knobs[0]))

/* getopt_long's value for knobs[i]: above any character */
#define KNOB_OPT 256

static const char usage_head[] =
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
"mix.\n";

static const char usage_policies[] =
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
"  none          never set a target (reports and metrics only)\n";

static const char usage_example[] =
"example: two VMs, each started with\n"
"  -device virtio-balloon-pci,id=balloon0,working-set=on,working-set-bins=5\n"
"  -qmp unix:/run/vm-a.qmp,server=on,wait=off\n"
"  wsr-host balance --vm a=/run/vm-a.qmp --vm b=/run/vm-b.qmp \\\n"
"      --policy working-set --idle-ms 10000 --metrics 127.0.0.1:9910\n"
"  curl -s http://127.0.0.1:9910/metrics | grep wsr_balloon\n";

/* --help's lines are at most this long */
#define HELP_WIDTH 79

/*
 * One option of a --help list: "  --NAME ARG", its help from column @col
 * (on a line of its own when the name does not leave room), words
 * wrapped, and "(DEFAULT NOTE)" last.
 */
static void usage_knob(FILE *f, const struct knob *o, int col)
{
	char text[1024], *w, *save;
	int at;

	at = fprintf(f, "  --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	if (at + 1 > col) {
		fputc('\n', f);
		at = 0;
	}
	if (o->def && !o->def_said)
		snprintf(text, sizeof(text), "%s (%s%s)", o->help, o->def,
			 o->def_note ? o->def_note : "");
	else
		snprintf(text, sizeof(text), "%s", o->help);
	fprintf(f, "%*s", col - at, "");
	at = col;
	for (w = strtok_r(text, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		int len = (int)strlen(w);

		if (at > col && at + 1 + len > HELP_WIDTH) {
			fprintf(f, "\n%*s", col, "");
			at = col;
		}
		if (at > col)
			at += fprintf(f, " ");
		for (; *w; w++, at++)
			fputc(*w == '~' ? ' ' : *w, f);
	}
	fputc('\n', f);
}

static void usage_text(FILE *f)
{
	unsigned int i;

	fputs(usage_head, f);
	fputs("\noperator controls:\n", f);
	for (i = 0; i < NR_KNOBS; i++)
		if (knobs[i].sec == SEC_OPERATOR)
			usage_knob(f, &knobs[i], 17);
	fputc('\n', f);
	fputs(usage_policies, f);
	fputs("\nknobs (default):\n", f);
	for (i = 0; i < NR_KNOBS; i++)
		if (knobs[i].sec == SEC_KNOBS)
			usage_knob(f, &knobs[i], 25);
	fputc('\n', f);
	fputs(usage_example, f);
}

/*
 * --help, made whole first and written at once: stderr is unbuffered,
 * and a reader that takes the first lines (| head) sees them as one write
 */
static void usage(FILE *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m) {
		usage_text(f);
		return;
	}
	usage_text(m);
	if (!fclose(m))
		fwrite(text, 1, len, f);
	free(text);
}

void balance_knobs_markdown(FILE *f)
{
	unsigned int i;

	for (i = 0; i < NR_KNOBS; i++) {
		const struct knob *o = &knobs[i];

		if (o->sec == SEC_HELP)
			continue;
		fprintf(f, "| `--%s` |%s%s |", o->name, *o->unit ? " " : "", o->unit);
		if (o->set)
			fprintf(f, " %s |", o->range);
		else if (o->mult)
			fprintf(f, " %llu..%llu |", (unsigned long long)o->min,
				(unsigned long long)o->max);
		else
			fputs(" |", f);
		fprintf(f, " %s |\n", o->def ? o->def : o->arg ? "none" : "off");
	}
}

/* @arg for knobs[@i]: a flag on, a number in its range, or its own parser */
static int knob_set(unsigned int i, const char *arg, struct balance_cfg *c)
{
	const struct knob *o = &knobs[i];
	char what[64];

	if (o->set)
		return o->set(arg, c);
	if (!o->mult) {
		*(int *)((char *)c + o->field) = 1;
		return 0;
	}
	snprintf(what, sizeof(what), "--%s", o->name);
	return num(arg, what, o->min, o->max, o->mult, (__u64 *)((char *)c + o->field));
}

/* what the options say together, once each has been taken alone */
static int check_together(struct balance_cfg *c)
{
	struct policy_knobs *k = &c->k;
	unsigned int i;

	/* --connect alone: every running domain (balance-list.c lists them) */
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

int balance_parse_args(int argc, char **argv, struct balance_cfg *c)
{
	static struct option opts[NR_KNOBS + 1];
	unsigned int i;
	int opt, e = 0;

	memset(c, 0, sizeof(*c));
	/* what no option sets: the ceiling and the policy's other fields */
	policy_knobs_default(&c->k);
	for (i = 0; i < NR_KNOBS; i++) {
		opts[i] = (struct option){ knobs[i].name, knobs[i].arg ? required_argument :
					   no_argument, NULL, KNOB_OPT + (int)i };
		if (knobs[i].def && knob_set(i, knobs[i].def, c))
			return 2;
	}
	optind = 1;
	while (!e && (opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt < KNOB_OPT || opt >= KNOB_OPT + (int)NR_KNOBS) {
			usage(stderr);
			return 2;
		}
		if (knobs[opt - KNOB_OPT].sec == SEC_HELP) {
			usage(stdout);
			return 0;
		}
		e = knob_set(opt - KNOB_OPT, optarg, c);
	}
	if (e)
		return e;
	if (optind < argc)
		return bad("argument", argv[optind], "balance takes options only");
	return check_together(c);
}
