/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus' own checker on an exposition text, for the unit tests of
 * both exporters (wsr-host's and "wsr metrics").  promtool comes from
 * vmtests/get-promtool.sh (Debian's prometheus package unpacked, never
 * installed), or $WSR_PROMTOOL.  Needs WSR_SRC_ROOT defined.
 */
#ifndef __WSR_UNIT_PROMTOOL_H
#define __WSR_UNIT_PROMTOOL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "unit.h"

/* "promtool check metrics" on @text: NULL if it passes, else why not */
static const char *promtool_check(const char *text)
{
	char cmd[4200], tool[4096] = "", out[4096];
	const char *env = getenv("WSR_PROMTOOL");
	size_t n;
	FILE *p;
	int st;

	if (env) {
		snprintf(tool, sizeof(tool), "%s", env);
	} else {
		p = popen(WSR_SRC_ROOT "/vmtests/get-promtool.sh", "r");
		if (p) {
			if (!fgets(tool, sizeof(tool), p))
				tool[0] = 0;
			tool[strcspn(tool, "\n")] = 0;
			pclose(p);
		}
	}
	/* vmtests/get-promtool.sh, or $WSR_PROMTOOL */
	ASSERT_NEQ(tool[0], 0, "promtool's path");
	snprintf(out, sizeof(out), "/tmp/wsr-metrics-test.%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "'%s' check metrics >%s 2>&1", tool, out);
	p = popen(cmd, "w");
	ASSERT_OK_PTR(p, "run %s", tool);
	fputs(text, p);
	st = pclose(p);
	p = fopen(out, "r");
	n = p ? fread(cmd, 1, sizeof(cmd) - 1, p) : 0;
	cmd[n] = 0;
	if (p)
		fclose(p);
	remove(out);
	ASSERT_EQ(st, 0, "promtool check metrics: %s", cmd);
	return NULL;
}

/* how many times @s occurs in the exposition @t */
static inline unsigned int count(const char *t, const char *s)
{
	unsigned int n = 0;

	while ((t = strstr(t, s)))
		t++, n++;
	return n;
}

#endif /* __WSR_UNIT_PROMTOOL_H */
