// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of what balance reads of a VM through either transport
 * (host/transport.h): a VM's messages over QMP (host/transport.c) and
 * libvirt's answers (host/virt-said.c) give balance the same struct
 * vm_said, and what is malformed is refused alike, with why.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "qmp.h"
#include "transport.h"
#include "virt-bridge.h"
#include "unit.h"

/* the report's "data" as QEMU sends it (and libvirt passes it on, as text) */
#define DATA_OLD							\
	"{\"cause\": \"reclaim\", \"data-age-ms\": 10, \"nodes\": [{\"node-id\": 0, "	\
	"\"bins\": [{\"idle-age-ms\": 1000, \"anon-bytes\": 12288, \"file-bytes\": 20479}, " \
	"{\"idle-age-ms\": 9223372036854775807, \"anon-bytes\": 4096, \"file-bytes\": 8191}]}, " \
	"{\"node-id\": 3, \"bins\": [{\"idle-age-ms\": 1000, \"anon-bytes\": 40960, "	\
	"\"file-bytes\": 0}]}]}"
#define DATA_32								\
	"{\"cause\": \"request\", \"incomplete\": true, \"anon-reclaimable\": false, "	\
	"\"reclaim-seq\": 4294967295, \"data-age-ms\": 20, "			\
	"\"mem-some-us\": 18446744073709551615, \"mem-full-us\": 2500000, "	\
	"\"nodes\": [{\"node-id\": 0, \"bins\": [{\"idle-age-ms\": 5000, "		\
	"\"anon-bytes\": 0, \"file-bytes\": 8192}]}]}"
/* a report whose second node's bin has a string for a number */
#define DATA_BAD							\
	"{\"cause\": \"request\", \"data-age-ms\": 1, \"nodes\": [{\"node-id\": 0, "	\
	"\"bins\": []}, {\"node-id\": 1, \"bins\": [{\"idle-age-ms\": 1000, "		\
	"\"anon-bytes\": \"4096\", \"file-bytes\": 0}]}]}"

/* @name with @data as QEMU's QMP socket sends it */
static struct json_object *event(const char *name, const char *data)
{
	char text[4096];

	snprintf(text, sizeof(text), "{\"timestamp\": {\"seconds\": 1700000000, "
		 "\"microseconds\": 1}, \"event\": \"%s\", \"data\": %s}", name, data);
	return json_tokener_parse(text);
}

/* @name with @data through QMP and through libvirt: the same, into *qmp and *lv */
static const char *both_ways(const char *name, const char *data, struct vm_said *qmp,
			     struct vm_said *lv)
{
	struct json_object *m = event(name, data);

	ASSERT_OK_PTR(m, "%s as QMP parsed", name);
	memset(qmp, 0x5a, sizeof(*qmp));
	memset(lv, 0xa5, sizeof(*lv));
	said_from_qmp(m, NR_OPS, qmp);
	virt_said_from_event(name, data, lv);
	json_object_put(m);
	ASSERT_MEMEQ(lv, qmp, sizeof(*qmp), "%s through libvirt and over QMP", name);
	return NULL;
}

static const char *report_through_libvirt_is_the_report_through_qmp(void)
{
	struct vm_said qmp, lv;
	const char *err;

	err = both_ways("WORKING_SET_EVENT", DATA_OLD, &qmp, &lv);
	if (err)
		return err;
	ASSERT_EQ(lv.kind, SAID_REPORT, "an older QEMU's report");
	ASSERT_EQ(lv.report.nr_nodes, 2, "its nodes");
	ASSERT_EQ(lv.report.nodes[1].id, 3, "its second node's id");
	ASSERT_EQ(lv.report.nodes[0].hist.file[0], 20479, "node 0's bin 0's file bytes");
	ASSERT_EQ(lv.report.nodes[0].hist.bound_ms[1], 9223372036854775807ULL, "the catch-all");
	ASSERT_EQ(lv.report.ext.known, 0, "no 32-byte header");
	err = both_ways("WORKING_SET_EVENT", DATA_32, &qmp, &lv);
	if (err)
		return err;
	ASSERT_EQ(lv.kind, SAID_REPORT, "a 32-byte header's report");
	ASSERT_EQ(lv.report.ext.mem_some_us, 18446744073709551615ULL, "its mem-some-us");
	ASSERT_EQ(lv.report.ext.reclaim_seq, 4294967295U, "its reclaim-seq");
	return NULL;
}

/* a malformed report is refused alike, why said; bad JSON from libvirt too */
static const char *bad_report_is_refused_with_why(void)
{
	struct vm_said qmp, lv;
	const char *err = both_ways("WORKING_SET_EVENT", DATA_BAD, &qmp, &lv);

	if (err)
		return err;
	ASSERT_EQ(lv.kind, SAID_BAD_REPORT, "a malformed report");
	ASSERT_STREQ(lv.desc, "node 1, bin 0: \"anon-bytes\" is not a non-negative integer",
		     "why it is refused");
	err = both_ways("WORKING_SET_EVENT", "{}", &qmp, &lv);
	if (err)
		return err;
	ASSERT_EQ(lv.kind, SAID_BAD_REPORT, "an event without a report");
	ASSERT_STREQ(lv.desc, "no report yet: neither \"cause\" nor \"data-age-ms\"",
		     "why it is refused");
	virt_said_from_event("WORKING_SET_EVENT", "{\"cause\": \"request\", \"nodes\": [", &lv);
	ASSERT_EQ(lv.kind, SAID_BAD_REPORT, "an event whose data is not JSON");
	ASSERT_STREQ(lv.desc, "libvirt: the event's data is not JSON", "why it is refused");
	virt_said_from_event("WORKING_SET_EVENT", NULL, &lv);
	ASSERT_EQ(lv.kind, SAID_BAD_REPORT, "an event without data");
	ASSERT_STREQ(lv.desc, "no report: the event's \"data\" is not an object",
		     "why it is refused");
	return NULL;
}

/* the balloon's size, a reset and the events balance does not read, alike */
static const char *other_events_alike(void)
{
	struct vm_said qmp, lv;
	const char *err = both_ways("BALLOON_CHANGE", "{\"actual\": 536870912}", &qmp, &lv);

	if (err)
		return err;
	ASSERT_EQ(lv.kind, SAID_ACTUAL, "BALLOON_CHANGE");
	ASSERT_EQ(lv.actual, 536870912, "its actual");
	err = both_ways("RESET", "{\"guest\": true, \"reason\": \"guest-reset\"}", &qmp, &lv);
	if (err)
		return err;
	ASSERT_EQ(lv.kind, SAID_RESET, "RESET");
	err = both_ways("BALLOON_CHANGE", "{\"actual\": 0}", &qmp, &lv);
	if (err)
		return err;
	ASSERT_EQ(lv.kind, SAID_NONE, "BALLOON_CHANGE to 0");
	err = both_ways("STOP", "{}", &qmp, &lv);
	if (err)
		return err;
	ASSERT_EQ(lv.kind, SAID_NONE, "STOP");
	return NULL;
}

/*
 * libvirt's virDomainMemoryStats (KiB) and QEMU's qom-get guest-stats
 * (bytes; -1 for what the guest did not give) of the same guest: one
 * struct ws_stats
 */
static const char *stats_through_libvirt_are_the_stats_through_qmp(void)
{
	static const virDomainMemoryStatStruct st[] = {
		{ VIR_DOMAIN_MEMORY_STAT_SWAP_IN, 3 },
		{ VIR_DOMAIN_MEMORY_STAT_SWAP_OUT, 5 },
		{ VIR_DOMAIN_MEMORY_STAT_MAJOR_FAULT, 7 },
		{ VIR_DOMAIN_MEMORY_STAT_UNUSED, 500 },
		{ VIR_DOMAIN_MEMORY_STAT_AVAILABLE, 2000 },
		{ VIR_DOMAIN_MEMORY_STAT_LAST_UPDATE, 17 },
	};
	struct json_object *m = json_tokener_parse(
		"{\"return\": {\"stats\": {\"stat-swap-in\": 3072, \"stat-swap-out\": 5120, "
		"\"stat-major-faults\": 7, \"stat-minor-faults\": -1, "
		"\"stat-free-memory\": 512000, \"stat-total-memory\": 2048000, "
		"\"stat-available-memory\": -1, \"stat-disk-caches\": -1}, "
		"\"last-update\": 17}}");
	struct vm_said qmp, lv;

	ASSERT_OK_PTR(m, "QEMU's reply parsed");
	memset(&qmp, 0x5a, sizeof(qmp));
	memset(&lv, 0xa5, sizeof(lv));
	said_from_qmp(m, OP_STATS, &qmp);
	virt_said_from_stats(st, sizeof(st) / sizeof(st[0]), &lv);
	json_object_put(m);
	ASSERT_MEMEQ(&lv, &qmp, sizeof(qmp), "the stats through libvirt and over QMP");
	ASSERT_EQ(lv.valid, 1, "the stats read");
	ASSERT_EQ(lv.stats.free, 512000, "the free memory, bytes");
	ASSERT_EQ(lv.stats.swap_in, 3072, "swapped in, bytes");
	ASSERT_EQ(lv.stats.major_faults, 7, "major faults");
	ASSERT_EQ(lv.stats.available, -1, "no available memory given");
	ASSERT_EQ(lv.stats_update, 17, "last-update");
	return NULL;
}

/* the replies balance reads a value of, by the command in flight */
static const char *replies_read_by_the_command(void)
{
	static const struct { const char *text; enum op op; int ok, valid; } cases[] = {
		{ "{\"return\": {\"actual\": 536870912}}", OP_QUERY, 1, 1 },
		{ "{\"return\": {\"actual\": -1}}", OP_QUERY, 1, 0 },
		{ "{\"return\": {\"base-memory\": 1073741824, \"plugged-memory\": 268435456}}",
		  OP_MEMSIZE, 1, 1 },
		{ "{\"return\": {\"base-memory\": 1073741824}}", OP_MEMSIZE, 1, 1 },
		{ "{\"return\": {\"base-memory\": 0}}", OP_MEMSIZE, 1, 0 },
		{ "{\"return\": {\"base-memory\": 1, \"plugged-memory\": \"1\"}}", OP_MEMSIZE, 1, 0 },
		{ "{\"return\": {\"base-memory\": 2, \"plugged-memory\": 18446744073709551615}}",
		  OP_MEMSIZE, 1, 0 },
		{ "{\"return\": {\"stats\": {}}}", OP_STATS, 1, 0 },
		{ "{\"return\": {}}", OP_CONFIG, 1, 1 },
		{ "{\"error\": {\"class\": \"GenericError\", \"desc\": \"try again later\"}}",
		  OP_REQUEST, 0, 0 },
	};
	struct json_object *m;
	struct vm_said s;
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		m = json_tokener_parse(cases[i].text);
		ASSERT_OK_PTR(m, "%s parsed", cases[i].text);
		said_from_qmp(m, cases[i].op, &s);
		json_object_put(m);
		ASSERT_EQ(s.kind, SAID_REPLY, "%s's kind", cases[i].text);
		ASSERT_EQ(s.ok, cases[i].ok, "%s done", cases[i].text);
		ASSERT_EQ(s.valid, cases[i].valid, "%s's value read", cases[i].text);
	}
	m = json_tokener_parse(cases[2].text);
	said_from_qmp(m, OP_MEMSIZE, &s);
	json_object_put(m);
	ASSERT_EQ(s.base + s.plugged, 1342177280, "the RAM, base and plugged");
	m = json_tokener_parse(cases[sizeof(cases) / sizeof(cases[0]) - 1].text);
	said_from_qmp(m, OP_REQUEST, &s);
	json_object_put(m);
	ASSERT_STREQ(s.desc, "try again later", "the refusal's desc");
	return NULL;
}

static const struct unit_test tests[] = {
	{ "host_transport_report_through_libvirt_is_the_report_through_qmp",
	  report_through_libvirt_is_the_report_through_qmp },
	{ "host_transport_bad_report_is_refused_with_why", bad_report_is_refused_with_why },
	{ "host_transport_other_events_alike", other_events_alike },
	{ "host_transport_stats_through_libvirt_are_the_stats_through_qmp",
	  stats_through_libvirt_are_the_stats_through_qmp },
	{ "host_transport_replies_read_by_the_command", replies_read_by_the_command },
};

UNIT_MAIN(tests)
