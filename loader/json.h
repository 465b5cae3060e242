/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * wsr's JSON, built and written by json-c (libjson-c-dev): the CLI's
 * --json output and the host's QMP commands.  Every builder returns NULL
 * when out of memory, and every adder takes its value even on failure, so
 * that a caller checks once, at the end.
 */
#ifndef __WSR_JSON_H
#define __WSR_JSON_H

#include <stdio.h>
#include <json-c/json.h>
#include "wsr.h"

/*
 * Add @val (taken: put on failure) at @key of @obj, or at the end of the
 * array @arr; 0, or -1 when any of them is NULL or out of memory.
 */
int wsr_json_add(struct json_object *obj, const char *key, struct json_object *val);
int wsr_json_append(struct json_object *arr, struct json_object *val);
/* JSON's null at @key of @obj (json-c's null is a NULL object) */
int wsr_json_add_null(struct json_object *obj, const char *key);

/*
 * A 64-bit unsigned number.  json-c keeps it an integer, never a double:
 * the catch-all bound 9223372036854775807 is written as the seed prints
 * it (readers must take it as a 64-bit integer; jq and JavaScript round it).
 */
struct json_object *wsr_json_u64(__u64 v);

/*
 * @v with @decimals digits after the point, written as printf's "%.*f"
 * writes it (json-c's own doubles print up to 17 digits)
 */
struct json_object *wsr_json_fixed(double v, int decimals);

/* {"node":N,"bins":[{"ms":..,"anon":..,"file":..},...]} */
struct json_object *wsr_hist_json(__u32 node, const struct wsr_hist *h);

/*
 * {"memcg":..,"seq":..,"time_ns":..,"cause":..,"incomplete":..,
 *  "histogram":{...}}: one report of @memcg (the path as the user gave
 * it, below the cgroup2 mount) for @node
 */
struct json_object *wsr_report_json(const char *memcg, __u32 node, const struct wsr_report *r);

/*
 * The compact text of @obj ("/" not escaped), which is put; NULL when
 * out of memory or @obj is NULL.  free() the result.
 */
char *wsr_json_text(struct json_object *obj);

/* @obj's compact text and @end to @f, @obj put; 0, or -1 when out of memory */
int wsr_json_print(FILE *f, struct json_object *obj, const char *end);

#endif /* __WSR_JSON_H */
