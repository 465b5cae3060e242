// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libwsr: parsing and printing of wsr's knobs and histograms (libwsr.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "libwsr.h"

#define LLONG_MAX_STR "9223372036854775807"

static const char *const knob_names[WSR_NR_KNOBS] = {
	[WSR_KNOB_INTERVALS] = "intervals_ms",
	[WSR_KNOB_REPORT] = "report_ms",
	[WSR_KNOB_REFRESH] = "refresh_ms",
	[WSR_KNOB_REACCESS_INTERVALS] = "reaccess_intervals_ms",
};

static int fail(struct wsr_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * fail() with -ERANGE: a number, or the count of intervals, out of
 * bounds, where the seed's kstrtouint() and interval parser say ERANGE
 * (wsr fs's writes give the seed's errno)
 */
static int fail_range(struct wsr_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -ERANGE;
}

/* a strict decimal number in [0, max]; "unit" follows max in the message */
static int parse_dec(const char *s, __u64 *out, __u64 max, const char *unit, const char *what,
		     struct wsr_err *err)
{
	unsigned long long v;
	char *end;

	/* strtoull accepts signs and spaces; the seed's kstrto* do not */
	if (!s || *s < '0' || *s > '9')
		return fail(err, "%s: '%s' is not a number", what, s ? s : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return fail(err, "%s: '%s' is not a number", what, s);
	if (errno == ERANGE || v > max)
		return fail_range(err, "%s: %s is too large (at most %llu%s)", what, s,
			    (unsigned long long)max, unit);
	*out = v;
	return 0;
}

int wsr_parse_u64(const char *s, __u64 *out, const char *what, struct wsr_err *err)
{
	return parse_dec(s, out, WSR_BIN_INF, "", what, err);
}

int wsr_parse_range(const char *s, __u64 *out, __u64 min, __u64 max, const char *what,
		    struct wsr_err *err)
{
	__u64 v;
	int ret = parse_dec(s, &v, WSR_BIN_INF, "", what, err);

	if (ret)
		return ret;
	if (v < min || v > max) {
		if (max == WSR_BIN_INF)
			return fail(err, "%s must be at least %llu", what, (unsigned long long)min);
		return fail(err, "%s must be %llu to %llu", what, (unsigned long long)min,
			    (unsigned long long)max);
	}
	*out = v;
	return 0;
}

int wsr_parse_ms(const char *s, __u64 *out, __u64 max, const char *what, struct wsr_err *err)
{
	return parse_dec(s, out, max, " ms", what, err);
}

int wsr_parse_intervals(const char *s, __u64 max_ms, __u64 *ms, __u32 *nr, struct wsr_err *err)
{
	__u64 v[WSR_MAX_INTERVALS + 1];
	char buf[512], *tok, *save = NULL;
	__u32 n = 0, i;
	int ret;

	if (strlen(s) >= sizeof(buf))
		return fail(err, "intervals: list too long");
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == WSR_MAX_INTERVALS + 1)
			return fail_range(err, "intervals: more than %d intervals",
					  WSR_MAX_INTERVALS);
		ret = wsr_parse_u64(tok, &v[n], "intervals", err);
		if (ret)
			return ret;
		/*
		 * The catch-all bound is not a time: it is only dropped below
		 * (anywhere but last, the next interval cannot exceed it).
		 */
		if (v[n] > max_ms && v[n] != WSR_BIN_INF)
			return fail_range(err, "intervals: %s is too large (at most %llu ms)", tok,
				    (unsigned long long)max_ms);
		if (v[n] == 0)
			return fail(err, "intervals: 0 ms is not an interval (minimum 1)");
		if (n && v[n] <= v[n - 1])
			return fail(err, "intervals: %llu after %llu is not increasing",
				    (unsigned long long)v[n], (unsigned long long)v[n - 1]);
		n++;
	}
	if (strstr(s, ",,") || *s == ',' || (*s && s[strlen(s) - 1] == ','))
		return fail(err, "intervals: empty item in '%s'", s);
	/* the catch-all bin, as printed, may be written back */
	if (n && v[n - 1] == WSR_BIN_INF)
		n--;
	if (n > WSR_MAX_INTERVALS)
		return fail_range(err, "intervals: more than %d intervals", WSR_MAX_INTERVALS);
	if (n < WSR_MIN_INTERVALS)
		return fail_range(err, "intervals: %u given, at least %d needed", n, WSR_MIN_INTERVALS);
	for (i = 0; i < WSR_MAX_INTERVALS; i++)
		ms[i] = i < n ? v[i] : 0;
	*nr = n;
	return 0;
}

int wsr_parse_node_value(const char *s, __u32 nr_nodes, int *node,
			 const char **value, struct wsr_err *err)
{
	const char *eq;
	char id[16];
	__u64 nid;
	int ret;

	if (s[0] != 'N') {
		*node = -1;
		*value = s;
		return 0;
	}
	eq = strchr(s, '=');
	if (!eq || eq == s + 1 || (size_t)(eq - s - 1) >= sizeof(id))
		return fail(err, "'%s': expected N<node>=<value>", s);
	memcpy(id, s + 1, eq - s - 1);
	id[eq - s - 1] = 0;
	ret = wsr_parse_u64(id, &nid, "node", err);
	if (ret)
		return ret;
	if (nid >= nr_nodes)
		return fail(err, "node %llu does not exist (nodes 0-%u)",
			    (unsigned long long)nid, nr_nodes - 1);
	*node = (int)nid;
	*value = eq + 1;
	return 0;
}

_Static_assert(WSR_MAX_NODES <= 64, "a node list is a __u64 mask");

/*
 * The digits at *p as a node id, *p moved past them.  Ids past the ones
 * wsr supports saturate at WSR_MAX_NODES: they are refused anyway.
 */
static int parse_node_id(const char **p, unsigned int *id)
{
	const char *q = *p;
	unsigned int v = 0;

	if (*q < '0' || *q > '9')
		return -1;
	for (; *q >= '0' && *q <= '9'; q++)
		v = v >= WSR_MAX_NODES ? WSR_MAX_NODES : v * 10 + (*q - '0');
	*p = q;
	*id = v;
	return 0;
}

int wsr_parse_node_list(const char *s, __u64 *mask, struct wsr_err *err)
{
	const char *p = s, *end, *item, *last;
	size_t len = strlen(s);
	unsigned int lo, hi, i;
	__u64 m = 0;

	/* sysfs ends the list with one newline; nothing else is trimmed */
	if (len && s[len - 1] == '\n')
		len--;
	end = s + len;
	while (p < end) {
		item = p;
		last = p;
		if (parse_node_id(&p, &lo))
			goto bad;
		hi = lo;
		if (*p == '-') {
			last = ++p;
			if (parse_node_id(&p, &hi))
				goto bad;
		}
		if (p != end && *p != ',')
			goto bad;
		if (lo > hi)
			return fail(err, "node list '%.*s': range %.*s goes down", (int)len, s,
				    (int)(p - item), item);
		/* the highest id as written (it may not fit any integer type) */
		if (hi >= WSR_MAX_NODES)
			return fail(err, "node %.*s: wsr supports nodes 0-%d", (int)(p - last),
				    last, WSR_MAX_NODES - 1);
		for (i = lo; i <= hi; i++)
			m |= 1ULL << i;
		/* a comma must be followed by another item */
		if (p != end && ++p == end)
			goto bad;
	}
	*mask = m;
	return 0;
bad:
	return fail(err, "node list '%.*s' is malformed (expected e.g. 0-1,3)", (int)len, s);
}

/* the index of @name among the @nr of @names, or -1 */
static int index_of(const char *name, const char *const *names, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

int wsr_knob_by_name(const char *name)
{
	return index_of(name, knob_names, WSR_NR_KNOBS);
}

int wsr_config_set(struct wsr_config *cfg, enum wsr_knob knob, const char *value,
		   struct wsr_err *err)
{
	struct wsr_config c = *cfg;
	int ret;

	switch (knob) {
	case WSR_KNOB_INTERVALS:
		ret = wsr_parse_intervals(value, WSR_MAX_MS, c.intervals_ms, &c.nr_intervals, err);
		break;
	case WSR_KNOB_REACCESS_INTERVALS:
		ret = wsr_parse_intervals(value, WSR_MAX_MS, c.reaccess_intervals_ms,
					  &c.reaccess_nr_intervals, err);
		break;
	case WSR_KNOB_REPORT:
		ret = wsr_parse_ms(value, &c.report_ms, WSR_MAX_MS, "report_ms", err);
		break;
	case WSR_KNOB_REFRESH:
		ret = wsr_parse_ms(value, &c.refresh_ms, WSR_MAX_MS, "refresh_ms", err);
		break;
	default:
		return fail(err, "unknown knob");
	}
	if (!ret)
		*cfg = c;
	return ret;
}

static void print_intervals(FILE *f, const __u64 *ms, __u32 nr)
{
	__u32 i;

	for (i = 0; i < nr && i < WSR_MAX_INTERVALS; i++)
		fprintf(f, "%llu,", (unsigned long long)ms[i]);
	fputs(LLONG_MAX_STR, f);
}

void wsr_print_knob(FILE *f, const struct wsr_config *cfg, enum wsr_knob knob)
{
	switch (knob) {
	case WSR_KNOB_INTERVALS:
		print_intervals(f, cfg->intervals_ms, cfg->nr_intervals);
		break;
	case WSR_KNOB_REACCESS_INTERVALS:
		print_intervals(f, cfg->reaccess_intervals_ms, cfg->reaccess_nr_intervals);
		break;
	case WSR_KNOB_REPORT:
		fprintf(f, "%llu", (unsigned long long)cfg->report_ms);
		break;
	case WSR_KNOB_REFRESH:
		fprintf(f, "%llu", (unsigned long long)cfg->refresh_ms);
		break;
	default:
		break;
	}
}

void wsr_print_hist(FILE *f, const struct wsr_hist *h)
{
	__u32 i;

	for (i = 0; i < h->nr_bins && i < WSR_MAX_BINS; i++)
		fprintf(f, "%llu anon=%llu file=%llu\n", (unsigned long long)h->bound_ms[i],
			(unsigned long long)h->anon[i], (unsigned long long)h->file[i]);
}

/*
 * Like libbpf-tools' print_log2_hist(): one row per bin, with a bar of
 * @width columns scaled to the fullest bin, '*' for anon then '+' for
 * file, so that the shape shows at a glance.
 */
void wsr_print_hist_bars(FILE *f, const struct wsr_hist *h, unsigned int width)
{
	unsigned long long max = 0, sum;
	unsigned int a, t, c;
	__u32 i, nr = h->nr_bins < WSR_MAX_BINS ? h->nr_bins : WSR_MAX_BINS;

	for (i = 0; i < nr; i++) {
		sum = h->anon[i] + h->file[i];
		max = sum > max ? sum : max;
	}
	fprintf(f, "%15s : %-10s %-10s distribution (* anon, + file)\n", "idle < ms",
		"anon", "file");
	for (i = 0; i < nr; i++) {
		sum = h->anon[i] + h->file[i];
		/* in long double: pages * width could overflow 64 bits */
		t = max ? (unsigned int)((long double)sum * width / max) : 0;
		a = sum ? (unsigned int)((long double)h->anon[i] * t / sum) : 0;
		if (h->bound_ms[i] == WSR_BIN_INF)
			fprintf(f, "%15s", "inf");
		else
			fprintf(f, "%15llu", (unsigned long long)h->bound_ms[i]);
		fprintf(f, " : %-10llu %-10llu |", (unsigned long long)h->anon[i],
			(unsigned long long)h->file[i]);
		for (c = 0; c < width; c++)
			fputc(c < a ? '*' : c < t ? '+' : ' ', f);
		fputs("|\n", f);
	}
}

/* the wire's causes by their QMP names ("cause" of WORKING_SET_EVENT) */
static const char *const cause_names[WSR_NR_CAUSES] = {
	[WSR_CAUSE_NONE] = "none",
	[WSR_CAUSE_REQUEST] = "request",
	[WSR_CAUSE_RECLAIM] = "reclaim",
	[WSR_CAUSE_READ] = "read",
};

const char *wsr_cause_name(__u32 cause)
{
	return cause < WSR_NR_CAUSES ? cause_names[cause] : "none";
}

int wsr_cause_by_name(const char *name)
{
	return index_of(name, cause_names, WSR_NR_CAUSES);
}

/*
 * Parse the request iterator's "answered N err E\n".  Anything else is an
 * error, never a success: E is 0 or the driver's -errno (-EALREADY: no
 * request was left, the request hook answered it first).
 */
int wsr_parse_answer(const char *out, unsigned int *answered, int *err)
{
	unsigned long n;
	char *end;
	long e;

	if (strncmp(out, "answered ", 9) || !isdigit((unsigned char)out[9]))
		return -1;
	errno = 0;
	n = strtoul(out + 9, &end, 10);
	if (errno || n > UINT_MAX || strncmp(end, " err ", 5))
		return -1;
	out = end + 5;
	if (*out != '0' && !(*out == '-' && isdigit((unsigned char)out[1])))
		return -1;
	e = strtol(out, &end, 10);
	if (errno || strcmp(end, "\n") || e > 0 || e < -4095)
		return -1;
	*answered = n;
	*err = e;
	return 0;
}
