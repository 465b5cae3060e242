// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-cpu: the CPU time (user + system, getrusage of each child) of N runs
 * of a command, its output thrown away: the median, lowest and highest in
 * ms.  What a read costs (BENCHMARKS.md, "What a read costs"), where the
 * wall time under TCG varies with the other guests on the host.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 0, i, status;
	struct rusage ru;
	double *ms;
	pid_t pid;

	if (n < 1 || n > 100000) {
		fprintf(stderr, "usage: wsr-cpu N COMMAND [ARG]...\n"
			"runs COMMAND N times (1 to 100000), its output to /dev/null, and prints\n"
			"the median, lowest and highest CPU time of a run (user + system, ms)\n");
		return 2;
	}
	ms = calloc(n, sizeof(*ms));
	if (!ms)
		return 1;
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0) {
			fprintf(stderr, "wsr-cpu: fork: %s\n", strerror(errno));
			return 1;
		}
		if (!pid) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			execvp(argv[2], argv + 2);
			fprintf(stderr, "wsr-cpu: cannot run %s: %s\n", argv[2], strerror(errno));
			_exit(127);
		}
		if (wait4(pid, &status, 0, &ru) != pid) {
			fprintf(stderr, "wsr-cpu: wait4: %s\n", strerror(errno));
			return 1;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "wsr-cpu: run %d of %s failed (status %#x)\n", i + 1, argv[2],
				status);
			return 1;
		}
		ms[i] = ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 +
			ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
	}
	qsort(ms, n, sizeof(*ms), cmp);
	printf("cpu_ms median %.2f min %.2f max %.2f runs %d\n", ms[n / 2], ms[0], ms[n - 1], n);
	free(ms);
	return 0;
}
