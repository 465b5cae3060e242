// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libwsr: the Prometheus text format's shared pieces (libwsr.h). */
#include "libwsr.h"

void wsr_prom_head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s ", name);
	/* HELP escapes \ and newline only: a quote is itself there */
	for (; *help; help++) {
		if (*help == '\\')
			fputs("\\\\", f);
		else if (*help == '\n')
			fputs("\\n", f);
		else
			fputc(*help, f);
	}
	fprintf(f, "\n# TYPE %s %s\n", name, type);
}

void wsr_prom_label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

void wsr_prom_ws_sample(FILE *f, const char *key, const char *value, __u32 node, bool file,
			__u64 idle_le_ms, __u64 bytes)
{
	fprintf(f, "wsr_working_set_bytes{%s=\"", key);
	wsr_prom_label_value(f, value);
	fprintf(f, "\",node=\"%u\",type=\"%s\",idle_le_ms=\"", node, file ? "file" : "anon");
	if (idle_le_ms >= WSR_BIN_INF)
		fputs("+Inf", f);
	else
		fprintf(f, "%llu", (unsigned long long)idle_le_ms);
	fprintf(f, "\"} %llu\n", (unsigned long long)bytes);
}
