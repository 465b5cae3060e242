// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-nothp: run a command with transparent huge pages off for it and
 * its children (PR_SET_THP_DISABLE survives fork and execve).
 *
 * The balance bench measures the host memory that a balloon policy gives
 * back.  QEMU maps guest RAM with MADV_HUGEPAGE; the balloon discards
 * 4 KiB pages out of those huge pages, and the host frees what is left
 * of each only when it reclaims (deferred split), so a host with memory
 * to spare keeps it charged.  With THP off, a discarded page is freed at
 * once, as a host under memory pressure would end up with anyway.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: wsr-nothp COMMAND [ARG]...\n"
			"runs COMMAND with transparent huge pages off for it and its children\n");
		return argc < 2 ? 2 : (strcmp(argv[1], "--help") ? 2 : 0);
	}
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)) {
		fprintf(stderr, "wsr-nothp: PR_SET_THP_DISABLE: %s\n", strerror(errno));
		return 1;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "wsr-nothp: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
