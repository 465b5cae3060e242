/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Parsing and printing of wsr's knobs and histograms in the seed's text
 * formats (JSON is json.c's).  Pure functions of their arguments, shared
 * by the daemon, the CLI and wsr-host, and unit-tested on the host.
 */
#ifndef __WSR_PARSE_H
#define __WSR_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "wsr.h"

/*
 * A message for the user when a parser (or libwsr) refuses: room for a
 * path of PATH_MAX and the words around it.
 */
struct wsr_err {
	char msg[4096 + 512];
};

/* a strict decimal number in [0, LLONG_MAX]: no sign, space or suffix */
int wsr_parse_u64(const char *s, __u64 *out, const char *what, struct wsr_err *err);

/*
 * A strict decimal number in [min, max] (max WSR_BIN_INF: no bound but
 * LLONG_MAX), for options: "<what> must be at least <min>" or "<what> must
 * be <min> to <max>" when out of range.  The CLI and wsr-host say the same.
 */
int wsr_parse_range(const char *s, __u64 *out, __u64 min, __u64 max, const char *what,
		    struct wsr_err *err);

/*
 * A strict decimal number of milliseconds in [0, max] (at most WSR_MAX_MS
 * for anything that is turned into ns); @what names it in the message.
 */
int wsr_parse_ms(const char *s, __u64 *out, __u64 max, const char *what, struct wsr_err *err);

/*
 * "1000,2000,3000": 3 to 15 strictly increasing intervals of at least
 * 1 ms and at most @max_ms (WSR_MAX_MS in the guest, the wire's
 * VIRTIO_BALLOON_WS_MAX_MS for the device).  A final 9223372036854775807
 * (the catch-all bin, as printed) is accepted and dropped, so that printed
 * values can be written back.
 */
int wsr_parse_intervals(const char *s, __u64 max_ms, __u64 *ms, __u32 *nr,
			struct wsr_err *err);

/*
 * A node list as in /sys/devices/system/node/{possible,has_memory}:
 * "0-1,3" sets bits 0, 1 and 3 of *mask; "" and "\n" are the empty list.
 * One trailing newline is allowed, no other space.  Node ids of
 * WSR_MAX_NODES and above are refused (wsr's maps cover no more), as is
 * any malformed list; *mask is untouched on error.
 */
int wsr_parse_node_list(const char *s, __u64 *mask, struct wsr_err *err);

/*
 * A knob value for one node: "N<id>=<value>" as in the seed's memcg files,
 * or a bare "<value>" (then *node = -1: the caller decides which nodes).
 * *value points into s.  Rejects node ids >= nr_nodes.
 */
int wsr_parse_node_value(const char *s, __u32 nr_nodes, int *node,
			 const char **value, struct wsr_err *err);

/* knobs, by the names of the seed's files */
enum wsr_knob {
	WSR_KNOB_INTERVALS,
	WSR_KNOB_REPORT,
	WSR_KNOB_REFRESH,
	WSR_KNOB_REACCESS_INTERVALS,
	WSR_NR_KNOBS,
};

int wsr_knob_by_name(const char *name);

/* apply a parsed value of @knob to @cfg; @cfg is untouched on error */
int wsr_config_set(struct wsr_config *cfg, enum wsr_knob knob, const char *value,
		   struct wsr_err *err);

/* the value of @knob as the seed prints it for one node, no newline */
void wsr_print_knob(FILE *f, const struct wsr_config *cfg, enum wsr_knob knob);

/* "<ms> anon=<pages> file=<pages>" lines, as the seed's histogram files */
void wsr_print_hist(FILE *f, const struct wsr_hist *h);

/* one row and a bar of @width columns per bin, for a person */
void wsr_print_hist_bars(FILE *f, const struct wsr_hist *h, unsigned int width);

/*
 * A report's cause by name: "request", "reclaim" (QMP's names of the
 * wire's causes), "read" or "none"; the cause of a name, or -1.
 */
const char *wsr_cause_name(__u32 cause);
int wsr_cause_by_name(const char *name);

/* the balloon request iterator's output; -1 unless exactly well-formed */
int wsr_parse_answer(const char *out, unsigned int *answered, int *err);

#endif /* __WSR_PARSE_H */
