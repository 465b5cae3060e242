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
	err |= wsr_json_add(o, "bins", bins);
	return built(o, err);
}

struct json_object *wsr_report_json(const char *memcg, __u32 node, const struct wsr_report *r)
{
	struct json_object *o = json_object_new_object();
	int err;

	err = wsr_json_add(o, "memcg", json_object_new_string(memcg)) |
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
