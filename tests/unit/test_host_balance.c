// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host balance's loop (host/balance.c) against two fake QEMUs: this
 * test serves QMP on two unix sockets, a forked child runs cmd_balance()
 * on both.  Each fake answers the commands balance sends (canned replies)
 * and a working-set-request with a report; the test closes one VM's
 * socket, checks that the other is still served and that the closed one
 * is reconnected, then sends an unsolicited reclaim report and checks the
 * deflation that follows within 150 ms (balance's tick is 1 s here).  No
 * QEMU, no guest.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "balance.h"
#include "client.h"
#include "unit.h"

#define MIB (1ULL << 20)
#define RAM (512 * MIB)

struct fake {
	char path[108];
	int lfd, fd;			/* listening, connected (-1: none) */
	char in[8192];
	size_t in_len;
	unsigned long long actual;
	unsigned int cmds, balloons, accepts, requests;
	unsigned long long last_balloon;
};

static char dir[64];
static struct fake vm[2];

static int listen_on(struct fake *f)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	strcpy(sa.sun_path, f->path);
	unlink(f->path);
	f->lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (f->lfd < 0 || bind(f->lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(f->lfd, 4))
		return -1;
	return 0;
}

static void say(struct fake *f, const char *s)
{
	if (f->fd >= 0 && (write(f->fd, s, strlen(s)) < 0 || write(f->fd, "\r\n", 2) < 0))
		f->fd = -1;
}

/* a report: 64 MiB idle <= 1 s, @cold MiB idle beyond 60 s, per node 0 */
static void report(struct fake *f, const char *cause, unsigned long long hot,
		   unsigned long long cold)
{
	char s[1024];

	snprintf(s, sizeof(s),
		 "{\"event\": \"WORKING_SET_EVENT\", \"data\": {\"cause\": \"%s\", "
		 "\"data-age-ms\": 100, \"nodes\": [{\"node-id\": 0, \"bins\": ["
		 "{\"idle-age-ms\": 1000, \"anon-bytes\": %llu, \"file-bytes\": 0}, "
		 "{\"idle-age-ms\": 10000, \"anon-bytes\": 0, \"file-bytes\": 0}, "
		 "{\"idle-age-ms\": 9223372036854775807, \"anon-bytes\": %llu, \"file-bytes\": 0}"
		 "]}]}, \"timestamp\": {\"seconds\": 1, \"microseconds\": 0}}",
		 cause, hot, cold);
	say(f, s);
}

static void answer(struct fake *f, const char *cmd)
{
	char s[256];
	const char *v;

	f->cmds++;
	if (strstr(cmd, "\"query-memory-size-summary\"")) {
		snprintf(s, sizeof(s), "{\"return\": {\"base-memory\": %llu}}", RAM);
		say(f, s);
	} else if (strstr(cmd, "\"query-balloon\"")) {
		snprintf(s, sizeof(s), "{\"return\": {\"actual\": %llu}}", f->actual);
		say(f, s);
	} else if (strstr(cmd, "\"qom-get\"")) {
		snprintf(s, sizeof(s), "{\"return\": {\"stats\": {\"stat-free-memory\": %llu, "
			 "\"stat-available-memory\": %llu}, \"last-update\": %u}}",
			 8 * MIB, 100 * MIB, f->cmds);
		say(f, s);
	} else if (strstr(cmd, "\"balloon\"") && (v = strstr(cmd, "\"value\":"))) {
		f->actual = f->last_balloon = strtoull(v + 8, NULL, 10);
		f->balloons++;
		say(f, "{\"return\": {}}");
	} else if (strstr(cmd, "\"working-set-request\"")) {
		f->requests++;
		say(f, "{\"return\": {}}");
		/* the balloon takes cold memory first */
		report(f, "request", 64 * MIB,
		       f->actual > RAM - 300 * MIB ? f->actual - (RAM - 300 * MIB) : 0);
	} else {
		say(f, "{\"return\": {}}");
	}
}

/* serve both fakes for @ms */
static void serve(int ms)
{
	struct timespec ts;
	double end, now;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6 + ms;
	for (;;) {
		struct pollfd p[4];
		int n = 0;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
		if (now >= end)
			return;
		for (i = 0; i < 2; i++) {
			p[n++] = (struct pollfd){ .fd = vm[i].fd >= 0 ? vm[i].fd : vm[i].lfd,
						  .events = POLLIN };
		}
		if (poll(p, n, (int)(end - now) + 1) <= 0)
			continue;
		for (i = 0; i < 2; i++) {
			struct fake *f = &vm[i];
			char *nl;
			ssize_t r;

			if (!p[i].revents || p[i].fd < 0)
				continue;
			if (f->fd < 0) {
				f->fd = accept(f->lfd, NULL, NULL);
				f->accepts++;
				f->in_len = 0;
				say(f, "{\"QMP\": {\"version\": {}, \"capabilities\": []}}");
				continue;
			}
			r = read(f->fd, f->in + f->in_len, sizeof(f->in) - 1 - f->in_len);
			if (r <= 0) {
				close(f->fd);
				f->fd = -1;
				continue;
			}
			f->in_len += r;
			f->in[f->in_len] = 0;
			while ((nl = strchr(f->in, '\n'))) {
				*nl = 0;
				answer(f, f->in);
				memmove(f->in, nl + 1, f->in_len - (nl + 1 - f->in) + 1);
				f->in_len -= nl + 1 - f->in;
			}
		}
	}
}

static int file_has(const char *name, const char *s)
{
	char path[128], buf[65536];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return strstr(buf, s) != NULL;
}

static pid_t start_balance(void)
{
	char a[160], b[160], out[128], err[128];
	pid_t pid;

	snprintf(a, sizeof(a), "a=%s", vm[0].path);
	snprintf(b, sizeof(b), "b=%s", vm[1].path);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(err, sizeof(err), "%s/err", dir);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "balance", "--vm", a, "--vm", b, "--tick-ms", "1000",
				 "--request-ms", "1000", "--reconnect-ms", "500",
				 "--floor-mib", "128", NULL };

		if (!freopen(out, "w", stdout) || !freopen(err, "w", stderr))
			_exit(99);
		setvbuf(stderr, NULL, _IONBF, 0);
		/* never outlive the test */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(cmd_balance(13, argv));
	}
	return pid;
}

static const char *two_vms_one_closes(pid_t pid);

static const char *test_two_vms_one_closes(void)
{
	const char *err;
	pid_t pid;
	int i;

	strcpy(dir, "/tmp/wsr-balance-test.XXXXXX");
	ASSERT_OK_PTR(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	for (i = 0; i < 2; i++) {
		memset(&vm[i], 0, sizeof(vm[i]));
		snprintf(vm[i].path, sizeof(vm[i].path), "%s/%c.qmp", dir, 'a' + i);
		vm[i].fd = -1;
		vm[i].actual = RAM;
		ASSERT_OK(listen_on(&vm[i]), "listen: %s", strerror(errno));
	}
	pid = start_balance();
	ASSERT_GT(pid, 0, "fork");
	err = two_vms_one_closes(pid);
	if (err)
		kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (i = 0; i < 2; i++) {
		close(vm[i].fd);
		close(vm[i].lfd);
	}
	if (!err) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			err = "cannot remove the test's folder";
	}
	return err;
}

static const char *two_vms_one_closes(pid_t pid)
{
	unsigned int cmds, i;
	int st;

	serve(3000);
	ASSERT_GT(vm[0].balloons, 0, "a's targets set in 3 s");
	ASSERT_GT(vm[1].balloons, 0, "b's targets set in 3 s");
	ASSERT_LT(vm[0].actual, RAM, "a's size");
	ASSERT_GE(vm[0].actual, 128 * MIB, "a's size");
	ASSERT_TRUE(file_has("out", "decision time="), "a decision line");
	ASSERT_TRUE(file_has("out", "vm=b policy=working-set action=set"), "b's decision line");

	/* b's QEMU goes away: its socket closes and nobody listens */
	close(vm[1].fd);
	close(vm[1].lfd);
	vm[1].fd = -1;
	unlink(vm[1].path);
	vm[1].lfd = -1;
	cmds = vm[0].cmds;
	serve(1500);
	ASSERT_GT(vm[0].cmds, cmds + 2, "a's commands after b closed");
	ASSERT_TRUE(file_has("err", "vm=b QMP connection lost"), "b's loss logged");
	ASSERT_OK(kill(pid, 0), "balance still running");

	/* b is back: reconnected within --reconnect-ms */
	ASSERT_OK(listen_on(&vm[1]), "listen again: %s", strerror(errno));
	i = vm[1].accepts;
	serve(1500);
	ASSERT_GT(vm[1].accepts, i, "b's connections");
	ASSERT_GE(vm[1].fd, 0, "b's connection");

	/* a reclaim report on a: deflated at once, not at the next tick */
	vm[0].last_balloon = 0;
	report(&vm[0], "reclaim", vm[0].actual, 0);
	serve(150);
	ASSERT_GT(vm[0].last_balloon, 0, "a's target within 150 ms of a reclaim report");
	ASSERT_TRUE(file_has("out", "vm=a policy=working-set action=set reason=deflate-reclaim"),
		    "a's deflate-reclaim decision logged");

	kill(pid, SIGTERM);
	serve(300);
	ASSERT_EQ(waitpid(pid, &st, WNOHANG), pid, "balance's exit within 300 ms of SIGTERM");
	ASSERT_EQ(st, 0, "balance's exit status after SIGTERM");
	return NULL;
}

static const char *test_bad_input_refused(void)
{
	static const char *const bad[][4] = {
		{ "balance", NULL },
		{ "balance", "--vm", "noequals", NULL },
		{ "balance", "--vm", "a=/x", "--policy" },
		{ "balance", "--vm", "a/b=/x", NULL },
		{ "balance", "--vm", "a=/x", "--step-mib" },
		{ "balance", "--vm", "a=/x", "--metrics" },
	};
	static const char *const val[] = { NULL, NULL, "workingset", NULL, "0", "host:80" };
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[6] = { (char *)bad[i][0], (char *)bad[i][1], (char *)bad[i][2],
				  (char *)bad[i][3], (char *)val[i], NULL };
		int argc = 0, st;
		pid_t pid;

		while (argv[argc])
			argc++;
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			if (!freopen("/dev/null", "w", stderr))
				_exit(99);
			_exit(cmd_balance(argc, argv));
		}
		ASSERT_EQ(waitpid(pid, &st, 0), pid, "case %u: waitpid", i);
		ASSERT_TRUE(WIFEXITED(st), "case %u (%s %s) exited", i, argv[argc - 2],
			    argv[argc - 1]);
		ASSERT_EQ(WEXITSTATUS(st), 2, "case %u (%s %s)'s exit status", i, argv[argc - 2],
			  argv[argc - 1]);
	}
	return NULL;
}

static const struct unit_test tests[] = {
	{ "balance_bad_input_is_refused", test_bad_input_refused },
	{ "balance_keeps_serving_when_a_vm_closes_and_reconnects",
	  test_two_vms_one_closes },
};

UNIT_MAIN(tests)
