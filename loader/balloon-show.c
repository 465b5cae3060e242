// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wsr balloon show: the device's configuration, the driver's counters and
 * the last report handed to the driver, as text or as JSON.
 */
#include <stdio.h>
#include <string.h>
#include "cli.h"

/* a report handed to the balloon driver, as one of our histograms */
static void balloon_hist(const struct wsr_balloon *b, __u32 n, struct wsr_hist *h)
{
	__u32 i, nr = b->config.num_bins;

	memset(h, 0, sizeof(*h));
	h->nr_bins = nr > WSR_MAX_BINS ? WSR_MAX_BINS : nr;
	for (i = 0; i < h->nr_bins; i++) {
		h->bound_ms[i] = i + 1 < h->nr_bins ? b->config.intervals_ms[i] : WSR_BIN_INF;
		h->anon[i] = b->nodes[n].anon_bytes[i] >> WSR_PAGE_SHIFT;
		h->file[i] = b->nodes[n].file_bytes[i] >> WSR_PAGE_SHIFT;
	}
}

static const char *const counters[] = { "requests", "answered", "configs", "rejected",
					"sent", "dropped" };

/*
 * The driver's intervals_ms ("1000 2000 ...") as numbers at "intervals_ms"
 * of @cfg, null when the file holds something else; -1 when out of memory.
 */
static int add_intervals(struct json_object *cfg, char *ivals)
{
	struct json_object *arr = json_object_new_array();
	char *tok, *save = NULL;
	struct wsr_err err;
	int ret = 0;
	__u64 v;

	for (tok = strtok_r(ivals, " \n", &save); tok && !ret; tok = strtok_r(NULL, " \n", &save)) {
		if (wsr_parse_u64(tok, &v, "intervals_ms", &err)) {
			json_object_put(arr);
			return wsr_json_add_null(cfg, "intervals_ms");
		}
		ret = wsr_json_append(arr, wsr_json_u64(v));
	}
	return ret | wsr_json_add(cfg, "intervals_ms", arr);
}

/* the device's configuration and the driver's counters, for --json */
static int device_json(struct json_object *o, const char *dir, char *ivals)
{
	struct json_object *cfg = json_object_new_object(), *drv = json_object_new_object();
	int err;
	__u32 i;

	err = add_intervals(cfg, ivals) |
	      wsr_json_add(cfg, "refresh_ms",
			   wsr_json_u64(wsr_balloon_read_u64(dir, "refresh_ms"))) |
	      wsr_json_add(cfg, "report_ms", wsr_json_u64(wsr_balloon_read_u64(dir, "report_ms")));
	for (i = 0; i < ARRAY_SIZE(counters); i++)
		err |= wsr_json_add(drv, counters[i],
				    wsr_json_u64(wsr_balloon_read_u64(dir, counters[i])));
	return err | wsr_json_add(o, "config", cfg) | wsr_json_add(o, "driver", drv);
}

/* "balloon show --json": one object, or NULL when out of memory */
static struct json_object *balloon_json(const char *dir, const struct wsr_balloon *b,
					char *ivals)
{
	struct json_object *o = json_object_new_object(), *last = json_object_new_object();
	struct json_object *hists = json_object_new_array();
	struct wsr_hist h;
	int err;
	__u32 n;

	err = (dir ? wsr_json_add(o, "device", json_object_new_string(dir)) :
		     wsr_json_add_null(o, "device")) |
	      wsr_json_add(o, "attached", json_object_new_boolean(wsr_balloon_attached(pin_dir)));
	if (dir)
		err |= device_json(o, dir, ivals);
	err |= wsr_json_add(o, "reclaim_passes", wsr_json_u64(b->reclaim_passes)) |
	       wsr_json_add(o, "config_reads", wsr_json_u64(b->config_reads)) |
	       wsr_json_add(o, "incomplete",
			    json_object_new_boolean(!!(b->flags & WSR_REPORT_INCOMPLETE)));
	err |= wsr_json_add(last, "sent", wsr_json_u64(b->sent)) |
	       wsr_json_add(last, "refused", wsr_json_u64(b->refused)) |
	       wsr_json_add(last, "hook_answers", wsr_json_u64(b->hook_answers)) |
	       wsr_json_add(last, "time_ns", wsr_json_u64(b->time_ns)) |
	       wsr_json_add(last, "cause", json_object_new_string(wsr_cause_name(b->cause))) |
	       wsr_json_add(last, "data_age_ms", wsr_json_u64(b->data_age_ms)) |
	       wsr_json_add(last, "err", json_object_new_int(b->err));
	for (n = 0; n < b->nr_nodes && n < WSR_MAX_NODES; n++) {
		balloon_hist(b, n, &h);
		err |= wsr_json_append(hists, wsr_hist_json(b->nodes[n].node_id, &h));
	}
	err |= wsr_json_add(last, "histograms", hists) | wsr_json_add(o, "last_report", last);
	if (err) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int print_balloon(const char *dir, const struct wsr_balloon *b, bool json)
{
	char ivals[512] = "";
	struct wsr_hist h;
	__u32 n, i;

	if (dir)
		wsr_balloon_read_text(dir, "intervals_ms", ivals, sizeof(ivals));
	if (json)
		return wsr_json_print(stdout, balloon_json(dir, b, ivals), "\n");
	printf("device: %s\nprograms: %s\n", dir ? dir : "none",
	       wsr_balloon_attached(pin_dir) ? "attached" : "detached");
	if (dir) {
		printf("config: intervals_ms %s refresh_ms %llu report_ms %llu\ndriver:",
		       ivals, (unsigned long long)wsr_balloon_read_u64(dir, "refresh_ms"),
		       (unsigned long long)wsr_balloon_read_u64(dir, "report_ms"));
		for (i = 0; i < ARRAY_SIZE(counters); i++)
			printf(" %s %llu", counters[i],
			       (unsigned long long)wsr_balloon_read_u64(dir, counters[i]));
		putchar('\n');
	}
	printf("last report: %s, %.1f s ago, data age %llu ms, driver answer %d "
	       "(sent %llu, refused %llu, answered by the request hook %llu)\n",
	       wsr_cause_name(b->cause), b->time_ns ? (wsr_now_ns() - b->time_ns) / 1e9 : 0.0,
	       (unsigned long long)b->data_age_ms, b->err, (unsigned long long)b->sent,
	       (unsigned long long)b->refused, (unsigned long long)b->hook_answers);
	printf("global reclaim passes %llu, configuration read on them %llu times%s\n",
	       (unsigned long long)b->reclaim_passes, (unsigned long long)b->config_reads,
	       b->flags & WSR_REPORT_INCOMPLETE ? "; last report incomplete" : "");
	for (n = 0; n < b->nr_nodes && n < WSR_MAX_NODES; n++) {
		balloon_hist(b, n, &h);
		printf("N%u\n", b->nodes[n].node_id);
		wsr_print_hist(stdout, &h);
	}
	return 0;
}

