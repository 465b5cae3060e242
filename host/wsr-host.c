// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host: the host side of wsr's working-set reporting.  Talks QMP to a
 * QEMU whose virtio-balloon has working-set=on (qemu-patches/): configures
 * the guest's report stream, requests reports, prints the latest report
 * and waits for WORKING_SET_EVENTs.
 *
 * The messages are JSON, parsed by json-c in qmp.c; client.c has the
 * socket, this file the commands.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "libwsr.h"
#include "balance.h"
#include "client.h"
#include "qmp.h"
#include "request.h"
#include "virt.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* the options before the command, or after it (not after config and qmp) */
#define OPTIONS_HELP \
"options, before the command or after it:\n" \
"  --qmp SOCKET         QMP socket of the QEMU (-qmp unix:SOCKET,server=on,wait=off)\n" \
"  --connect URI --domain NAME\n" \
"                       or the running domain NAME of libvirt at URI (its QEMU's\n" \
"                       monitor through libvirt's API)\n" \
"  --device PATH        QOM path of the balloon (default /machine/peripheral/balloon0)\n" \
"  -h, --help           this help (wsr-host COMMAND --help: the command's)\n"

/* the options of request, show and watch */
struct opts {
	long count, batch, timeout_ms;	/* count -1: no --count */
	int json;
	int waits;	/* request: an option that only waiting uses was given */
};

/* --qmp (or --connect and --domain), --device, and the commands' options however placed */
static const char *sock, *uri, *domain, *device = "/machine/peripheral/balloon0";
static struct opts o = { .count = -1, .timeout_ms = 10000 };
static struct qmp q;
/* the command running, whose usage its --help prints */
static const struct wsr_cmd *cur;

/* "qmp -": the commands of stdin over one connection, each reply printed */
static int qmp_stdin(struct qmp *q)
{
	const struct qmp_msg *r;
	char *cmd = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0;

	while ((n = getline(&cmd, &cap, stdin)) > 0) {
		cmd[strcspn(cmd, "\n")] = 0;
		if (!cmd[0])
			continue;
		r = qmp_send(q, cmd) ? NULL : qmp_reply(q, -1);
		if (!r) {
			err_msg("QMP connection closed");
			err = 1;
			break;
		}
		fwrite(r->raw, 1, r->len, stdout);
		fflush(stdout);
	}
	free(cmd);
	return err;
}

/*
 * --json, --count, --batch, --timeout-ms: numbers by libwsr's rules and
 * messages (lib/parse.c), as "wsr watch --count" takes them; 0, or 2 with
 * the reason said.
 */
static int take_opt(int opt, const char *arg)
{
	struct wsr_err err;
	__u64 n;

	switch (opt) {
	case 'j':
		o.json = 1;
		o.waits = 1;
		return 0;
	case 'c':
		if (wsr_parse_range(arg, &n, 1, WSR_BIN_INF, "--count", &err))
			break;
		o.count = (long)n;
		return 0;
	case 'b':
	case 't':
		if (wsr_parse_range(arg, &n, 1, 1000000, opt == 'b' ? "--batch" : "--timeout-ms",
				    &err))
			break;
		*(opt == 'b' ? &o.batch : &o.timeout_ms) = (long)n;
		o.waits = 1;
		return 0;
	default:
		return 2;
	}
	err_msg("%s", err.msg);
	return 2;
}

static const struct option options[] = {
	{ "qmp", required_argument, NULL, 'q' },
	{ "device", required_argument, NULL, 'd' },
	{ "connect", required_argument, NULL, 'U' },
	{ "domain", required_argument, NULL, 'N' },
	{ "json", no_argument, NULL, 'j' },
	{ "count", required_argument, NULL, 'c' },
	{ "batch", required_argument, NULL, 'b' },
	{ "timeout-ms", required_argument, NULL, 't' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static void cmd_usage(const struct wsr_cmd *c, FILE *f)
{
	wsr_cmd_usage(f, "wsr-host", c, OPTIONS_HELP);
}

/*
 * The options after the command (request, show, watch): the one set every
 * command shares, --batch and --timeout-ms for request alone; -1 to go
 * on, else the exit status (0 after --help).
 */
static int cmd_options(int argc, char **argv)
{
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "q:d:jc:b:t:h", options, NULL)) != -1) {
		if ((opt == 'b' || opt == 't') && strcmp(argv[0], "request")) {
			err_msg("--batch and --timeout-ms are for request");
			return 2;
		}
		if (opt == 'h') {
			cmd_usage(cur, stdout);
			return 0;
		}
		if (opt == 'q' || opt == 'd' || opt == 'U' || opt == 'N') {
			*(opt == 'q' ? &sock : opt == 'd' ? &device : opt == 'U' ? &uri : &domain) =
				optarg;
			continue;
		}
		if (opt == '?') {
			err_msg("bad option for %s", argv[0]);
			return 2;
		}
		if (take_opt(opt, optarg))
			return 2;
	}
	if (optind < argc) {
		err_msg("%s: unexpected argument '%s'", argv[0], argv[optind]);
		return 2;
	}
	return -1;
}

/* "wsr-host COMMAND --help" for the commands whose arguments are not options */
static bool wants_help(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "--help") && strcmp(argv[1], "-h")))
		return false;
	cmd_usage(cur, stdout);
	return true;
}

/*
 * The connection to --qmp's QEMU, once everything given was checked: -1
 * to go on, else the exit status
 */
static int connect_qmp(void)
{
	char err[128], what[160];

	if (!sock == !(uri || domain) || (!sock && !(uri && domain))) {
		err_msg("%s needs --qmp SOCKET, or --connect URI and --domain NAME (try --help)",
			cur->name);
		return 2;
	}
	if (sock)
		return qmp_connect(&q, sock) ? 1 : -1;
	q.fd = virt_open(uri, domain, NULL, 0, err, sizeof(err));
	if (q.fd < 0) {
		err_msg("%s", err);
		return 1;
	}
	snprintf(what, sizeof(what), "domain %s at %s", domain, uri);
	return qmp_handshake(&q, what) ? 1 : -1;
}

/* the options after the command, then the connection: -1 to go on, else the exit status */
static int start(int argc, char **argv)
{
	int ret = cmd_options(argc, argv);

	return ret < 0 ? connect_qmp() : ret;
}

/*
 * The bins as the guest CLI takes them (3 to 15 strictly increasing ms; a
 * final catch-all bound, as printed, is dropped), the thresholds in ms,
 * each at most the wire's week (VIRTIO_BALLOON_WS_MAX_MS), which QEMU
 * and the driver refuse to exceed: checked before the connection.  QEMU
 * checks the count against its working-set-bins.
 */
static int do_config(int argc, char **argv)
{
	__u64 ivals[WSR_MAX_INTERVALS], refresh, report;
	struct wsr_err err;
	__u32 nr;
	int ret;

	if (wants_help(argc, argv))
		return 0;
	if (argc != 4) {
		err_msg("config takes INTERVALS REFRESH_MS REPORT_MS");
		return 2;
	}
	if (wsr_parse_intervals(argv[1], VIRTIO_BALLOON_WS_MAX_MS, ivals, &nr, &err)) {
		err_msg("%s; INTERVALS are %d to %d strictly increasing ms, comma-separated, "
			"each at most %llu (a week: the device's bound)", err.msg,
			WSR_MIN_INTERVALS, WSR_MAX_INTERVALS, VIRTIO_BALLOON_WS_MAX_MS);
		return 2;
	}
	if (wsr_parse_ms(argv[2], &refresh, VIRTIO_BALLOON_WS_MAX_MS, "refresh", &err) ||
	    wsr_parse_ms(argv[3], &report, VIRTIO_BALLOON_WS_MAX_MS, "report", &err)) {
		err_msg("%s", err.msg);
		return 2;
	}
	ret = connect_qmp();
	if (ret >= 0)
		return ret;
	return qmp_exec_built(&q, qmp_cmd_config(ivals, nr, refresh, report), NULL) ? 1 : 0;
}

static const struct wsr_cmd host_config = {
	.name = "config",
	.fn = do_config,
	.synopsis = "INTERVALS REFRESH_MS REPORT_MS",
	.help =
"Send the guest its bins and thresholds: INTERVALS are ms, comma-separated,\n"
"strictly increasing, working-set-bins - 1 of them, as wsr's intervals_ms\n"
"(a last 9223372036854775807 is dropped); every value is at most 604800000\n"
"(a week), the most the device takes.\n",
};

static int do_request(int argc, char **argv)
{
	int ret = start(argc, argv);

	if (ret >= 0)
		return ret;
	if (o.count > 0 || o.waits)
		return cmd_request_wait(&q, o.count > 0 ? o.count : 1, o.batch ? o.batch : 1,
					o.timeout_ms, o.json);
	return qmp_exec_built(&q, qmp_cmd("working-set-request"), NULL) ? 1 : 0;
}

static const struct wsr_cmd host_request = {
	.name = "request",
	.fn = do_request,
	.synopsis = "[--count N] [--batch B] [--timeout-ms MS] [--json]",
	.help =
"Ask the guest for a fresh report.  Without options, return once QEMU took\n"
"the request, before the answer (show may still print the previous\n"
"report).  With --count, --batch, --timeout-ms or --json, send N requests\n"
"B at a time over one connection and wait for each answer (a\n"
"WORKING_SET_EVENT of cause request): one line per answer,\n"
"\"answer <i> latency_ms=<ms> data_age_ms=<ms>\" (--json:\n"
"{\"answer\":i,\"latency_ms\":..,\"data_age_ms\":..}), then on stderr the\n"
"totals and latency p50/p99.  Fails if an answer is missing, or if more\n"
"come than asked.\n\n"
"  -c, --count N        requests to send (1)\n"
"  -b, --batch B        requests sent back to back (1)\n"
"  -t, --timeout-ms MS  the longest wait for a batch's answers (10000)\n"
"  -j, --json           one JSON object per answer\n",
};

/*
 * A report as show and watch print it, read by qmp_report_parse(): 0, or
 * -1 when it is malformed (said, nothing printed).  QEMU's property
 * before the first report prints nothing, or nulls with --json.
 */
static int print_report(const struct qmp_msg *m)
{
	struct ws_report r;
	struct wsr_err err;
	int ret = qmp_report_parse(m->obj, &r, &err);

	if (ret && ret != -ENOENT) {
		err_msg("QEMU sent a malformed report: %s", err.msg);
		return -1;
	}
	if (o.json)
		qmp_print_json(stdout, m, ret ? NULL : &r);
	else if (!ret)
		ws_report_print(stdout, &r);
	return 0;
}

/* the device's latest report: the reply to qom-get of guest-working-set */
static int do_show(int argc, char **argv)
{
	const struct qmp_msg *r;
	int ret = start(argc, argv);

	if (ret >= 0)
		return ret;
	if (qmp_exec_built(&q, qmp_cmd_qom_get(device, "guest-working-set"), &r))
		return 1;
	return print_report(r) ? 1 : 0;
}

static const struct wsr_cmd host_show = {
	.name = "show",
	.fn = do_show,
	.synopsis = "[--json]",
	.help =
"Print the latest report: \"cause=<request|reclaim> data_age_ms=<ms>\", then\n"
"\"incomplete=<0|1> anon_reclaimable=<0|1> reclaim_seq=<n> mem_some_us=<us>\n"
"mem_full_us=<us>\" (not from a QEMU that predates them), then per node in\n"
"the seed's format (\"N<node>\" then \"<ms> anon=<pages> file=<pages>\");\n"
"nothing before the first report.  A malformed report is said on stderr,\n"
"and show fails.\n\n"
"  -j, --json           QEMU's reply with \"cause\", \"data_age_ms\",\n"
"                       \"incomplete\", \"anon_reclaimable\", \"reclaim_seq\",\n"
"                       \"mem_some_us\" and \"mem_full_us\" first (null before\n"
"                       the first report; the last five null from an older\n"
"                       QEMU)\n",
};

static int do_watch(int argc, char **argv)
{
	const struct qmp_msg *e;
	int ret = start(argc, argv);
	long count = o.count;

	if (ret >= 0)
		return ret;
	while (count != 0 && (e = qmp_next(&q, -1))) {
		if (strcmp(qmp_event_name(e->obj), "WORKING_SET_EVENT") || print_report(e))
			continue;
		fflush(stdout);
		if (count > 0)
			count--;
	}
	return count > 0 ? 1 : 0;
}

static const struct wsr_cmd host_watch = {
	.name = "watch",
	.fn = do_watch,
	.synopsis = "[--json] [--count N]",
	.help =
"Print each report as it arrives (WORKING_SET_EVENT), as show does; a\n"
"malformed one is said on stderr, and not counted.\n\n"
"  -j, --json           as show --json\n"
"  -c, --count N        stop after N reports\n",
};

static int do_qmp(int argc, char **argv)
{
	const struct qmp_msg *r;
	int ret;

	if (wants_help(argc, argv))
		return 0;
	if (argc != 2) {
		err_msg("qmp takes one JSON command, or - for stdin");
		return 2;
	}
	ret = connect_qmp();
	if (ret >= 0)
		return ret;
	if (!strcmp(argv[1], "-"))
		return qmp_stdin(&q);
	/* the user's command goes as written, its reply as QEMU sent it */
	ret = qmp_exec(&q, argv[1], &r);
	if (!ret)
		fwrite(r->raw, 1, r->len, stdout);
	return ret ? 1 : 0;
}

static const struct wsr_cmd host_qmp = {
	.name = "qmp",
	.fn = do_qmp,
	.synopsis = "JSON | -",
	.help =
"qmp JSON: send one raw QMP command, print the reply.  qmp -: send the QMP\n"
"commands of stdin, one per line, over one connection; print each reply\n"
"line as QEMU sent it, errors too (events are skipped).\n",
};

/* its options and help are balance's own (balance-args.c): no --qmp */
static const struct wsr_cmd host_balance = {
	.name = "balance",
	.fn = cmd_balance,
	.synopsis = "--vm NAME=SOCKET [--vm ...] [OPTIONS]",
	.help =
"Size the balloons of several VMs from their working sets, each --vm\n"
"naming its QMP socket (no --qmp); balance --help says how.\n",
};

static const struct wsr_cmd *const cmds[] = {
	&host_config, &host_request, &host_show, &host_watch, &host_qmp, &host_balance,
};

static void usage(FILE *f)
{
	fputs("usage: wsr-host --qmp SOCKET COMMAND [ARGS]\n"
	      "       wsr-host --connect URI --domain NAME COMMAND [ARGS]\n"
	      "       wsr-host balance --vm NAME=SOCKET [--vm ...] [OPTIONS] (see balance --help)\n"
	      "\n"
	      "Drive a guest's working-set reporting over QMP.\n"
	      "\n"
	      "commands (wsr-host COMMAND --help says more):\n", f);
	wsr_cmd_list(f, "wsr-host", cmds, ARRAY_SIZE(cmds));
	fputs("\n" OPTIONS_HELP
	      "\n"
	      "examples (a device with working-set-bins=5: one bound fewer than bins):\n"
	      "  wsr-host --qmp /tmp/vm.qmp config 1000,2000,4000,8000 500 1000\n"
	      "  wsr-host --qmp /tmp/vm.qmp request --count 1 && wsr-host --qmp /tmp/vm.qmp show\n"
	      "  wsr-host --qmp /tmp/vm.qmp watch --json --count 10\n"
	      "  wsr-host --connect qemu:///system --domain vm1 show\n", f);
}

int main(int argc, char **argv)
{
	int opt;

	/* balance's options are its own: each --vm names its socket */
	if (argc > 1 && !strcmp(argv[1], host_balance.name))
		return host_balance.fn(argc - 1, argv + 1);
	while ((opt = getopt_long(argc, argv, "+q:d:jc:b:t:h", options, NULL)) != -1) {
		switch (opt) {
		case 'q':
			sock = optarg;
			break;
		case 'd':
			device = optarg;
			break;
		case 'U':
			uri = optarg;
			break;
		case 'N':
			domain = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case '?':
			usage(stderr);
			return 2;
		default:
			if (take_opt(opt, optarg))
				return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	argc -= optind;
	argv += optind;
	/* "wsr-host help" and "wsr-host help COMMAND" */
	if (!strcmp(argv[0], "help")) {
		wsr_cmd_help(stdout, "wsr-host", cmds, ARRAY_SIZE(cmds), argc > 1 ? argv[1] : NULL,
			     OPTIONS_HELP, usage);
		return 0;
	}
	cur = wsr_cmd_find(cmds, ARRAY_SIZE(cmds), argv[0]);
	if (!cur) {
		err_msg("unknown command '%s' (try --help)", argv[0]);
		return 2;
	}
	if (cur == &host_balance) {
		err_msg("balance takes no --qmp: each --vm names its socket (try balance --help)");
		return 2;
	}
	return cur->fn(argc, argv);
}
