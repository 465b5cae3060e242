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

/*
 * The length of the valid UTF-8 sequence at @s (RFC 3629: no overlong
 * form, no surrogate, nothing above U+10FFFF), or 0 if there is none.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* the second byte's range rules out overlongs, surrogates, > U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void wsr_prom_label_value(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p) {
		n = utf8_len(p);
		if (!n) {
			fprintf(f, "\\\\x%02x", *p++);
			continue;
		}
		if (*p == '\\' || *p == '"')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else
			fwrite(p, 1, n, f);
		p += n;
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
