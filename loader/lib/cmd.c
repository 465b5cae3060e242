// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libwsr: what wsr's programs share, their messages and command tables (libwsr.h). */
#include <stdarg.h>
#include <string.h>
#include "libwsr.h"

void wsr_msg(FILE *f, const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

const struct wsr_cmd *wsr_cmd_find(const struct wsr_cmd *const *cmds, size_t nr,
				   const char *name)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(cmds[i]->name, name))
			return cmds[i];
	return NULL;
}

/* "@prog NAME SYNOPSIS", no space after NAME when there is no synopsis */
static void synopsis(FILE *f, const char *prog, const struct wsr_cmd *c)
{
	fprintf(f, "%s %s%s%s\n", prog, c->name, *c->synopsis ? " " : "", c->synopsis);
}

void wsr_cmd_list(FILE *f, const char *prog, const struct wsr_cmd *const *cmds, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		fputs("  ", f);
		synopsis(f, prog, cmds[i]);
	}
}

void wsr_cmd_usage(FILE *f, const char *prog, const struct wsr_cmd *c, const char *options)
{
	fputs("usage: ", f);
	synopsis(f, prog, c);
	fprintf(f, "\n%s\n%s", c->help, options);
}

void wsr_cmd_help(FILE *f, const char *prog, const struct wsr_cmd *const *cmds, size_t nr,
		  const char *name, const char *options, void (*usage)(FILE *f))
{
	const struct wsr_cmd *c = name ? wsr_cmd_find(cmds, nr, name) : NULL;

	if (c)
		wsr_cmd_usage(f, prog, c, options);
	else
		usage(f);
}
