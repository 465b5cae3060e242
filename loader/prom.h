/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Prometheus' text exposition format (version 0.0.4), the pieces that
 * wsr-host balance's exporter (host/metrics.c) and "wsr metrics" in the
 * guest (loader/lib/metrics.c) both write: HELP and TYPE lines, escaped
 * label values, and the working-set sample, so that the two expose one
 * histogram with the same name, units and labels.  Part of libwsr;
 * wsr-host compiles it on its own, as parse.c.
 */
#ifndef __WSR_PROM_H
#define __WSR_PROM_H

#include <stdbool.h>
#include <stdio.h>
#include "wsr.h"

/* "# HELP name help" (help escaped: \\ and \n) and "# TYPE name type" */
void wsr_prom_head(FILE *f, const char *name, const char *type, const char *help);

/* a label value with the format's escapes: \\, \" and \n */
void wsr_prom_label_value(FILE *f, const char *s);

/*
 * One sample of wsr_working_set_bytes: its first label @key="@value" (vm
 * on the host, memcg in the guest), then node, type (anon or file) and
 * idle_le_ms, the bin's upper bound; the catch-all bin (WSR_BIN_INF and
 * above) is "+Inf", as Prometheus writes "le".
 */
void wsr_prom_ws_sample(FILE *f, const char *key, const char *value, __u32 node, bool file,
			__u64 idle_le_ms, __u64 bytes);

#endif /* __WSR_PROM_H */
