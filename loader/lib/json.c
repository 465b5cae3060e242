// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libwsr: wsr's JSON, built and written by json-c (libwsr.h). */
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "libwsr.h"

int wsr_json_add(struct json_object *obj, const char *key, struct json_object *val)
{
	/* json-c keeps @val's ownership with the caller when it fails */
	if (!obj || !val || json_object_object_add(obj, key, val)) {
		json_object_put(val);
		return -1;
	}
	return 0;
}

int wsr_json_add_null(struct json_object *obj, const char *key)
{
	return obj && !json_object_object_add(obj, key, NULL) ? 0 : -1;
}

int wsr_json_append(struct json_object *arr, struct json_object *val)
{
	if (!arr || !val || json_object_array_add(arr, val)) {
		json_object_put(val);
		return -1;
	}
	return 0;
}

struct json_object *wsr_json_u64(__u64 v)
{
	return json_object_new_uint64(v);
}

struct json_object *wsr_json_fixed(double v, int decimals)
{
	char text[64];

	snprintf(text, sizeof(text), "%.*f", decimals, v);
	return json_object_new_double_s(v, text);
}

/* @obj, or NULL (and @obj put) when an add failed */
static struct json_object *built(struct json_object *obj, int err)
{
	if (err) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

struct json_object *wsr_hist_json(__u32 node, const struct wsr_hist *h)
{
	struct json_object *o = json_object_new_object(), *bins = json_object_new_array(), *b;
	int err = 0;
	__u32 i;

	for (i = 0; i < h->nr_bins && i < WSR_MAX_BINS && !err; i++) {
		b = json_object_new_object();
		err = wsr_json_add(b, "ms", wsr_json_u64(h->bound_ms[i])) |
		      wsr_json_add(b, "anon", wsr_json_u64(h->anon[i])) |
		      wsr_json_add(b, "file", wsr_json_u64(h->file[i]));
		err |= wsr_json_append(bins, built(b, err));
	}
	/* keys in this order: scripts read "node" before "bins" */
	err |= wsr_json_add(o, "node", wsr_json_u64(node));
	/* false: none of its memory could swap, and its anon is not in the bins */
	err |= wsr_json_add(o, "anon_reclaimable",
			    json_object_new_boolean(wsr_hist_anon_reclaimable(h->flags)));
	err |= wsr_json_add(o, "bins", bins);
	return built(o, err);
}

/* the length of the valid UTF-8 sequence at @s (RFC 3629), 0 if none */
static size_t utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		/* no overlong forms (e0 below a0), no surrogates (ed above 9f) */
		if ((s[1] & 0xc0) != 0x80 || (s[0] == 0xe0 && s[1] < 0xa0) ||
		    (s[0] == 0xed && s[1] > 0x9f))
			return 0;
		return (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		/* no overlong forms (f0 below 90), nothing past U+10FFFF */
		if ((s[1] & 0xc0) != 0x80 || (s[0] == 0xf0 && s[1] < 0x90) ||
		    (s[0] == 0xf4 && s[1] > 0x8f))
			return 0;
		return (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

struct json_object *wsr_json_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n = 0, len = strlen(s), l;
	struct json_object *o;
	char *t;

	/*
	 * json-c writes the bytes it was given, and JSON is UTF-8: a byte
	 * that starts no valid sequence becomes U+FFFD (3 bytes), as
	 * decoders that replace do, so that a parser that checks takes it
	 */
	t = malloc(len * 3 + 1);
	if (!t)
		return NULL;
	while (i < len) {
		l = utf8_len(p + i);
		if (l) {
			memcpy(t + n, p + i, l);
			n += l;
			i += l;
		} else {
			memcpy(t + n, "\xef\xbf\xbd", 3);
			n += 3;
			i++;
		}
	}
	o = json_object_new_string_len(t, (int)n);
	free(t);
	return o;
}

struct json_object *wsr_report_json(const char *memcg, __u32 node, const struct wsr_report *r)
{
	struct json_object *o = json_object_new_object();
	int err;

	err = wsr_json_add(o, "memcg", wsr_json_string(memcg)) |
	      wsr_json_add(o, "seq", wsr_json_u64(r->seq)) |
	      wsr_json_add(o, "time_ns", wsr_json_u64(r->time_ns)) |
	      wsr_json_add(o, "cause", json_object_new_string(wsr_cause_name(r->cause))) |
	      wsr_json_add(o, "incomplete",
			   json_object_new_boolean(!!(r->flags & WSR_REPORT_INCOMPLETE))) |
	      wsr_json_add(o, "histogram", wsr_hist_json(node, &r->hist));
	return built(o, err);
}

char *wsr_json_text(struct json_object *obj)
{
	const char *t;
	char *s;

	if (!obj)
		return NULL;
	/* no "\/" for "/": both are JSON, people and grep read one */
	t = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	s = t ? strdup(t) : NULL;
	json_object_put(obj);
	return s;
}

int wsr_json_print(FILE *f, struct json_object *obj, const char *end)
{
	char *s = wsr_json_text(obj);

	if (!s)
		return -1;
	fputs(s, f);
	fputs(end, f);
	free(s);
	return 0;
}
