// SPDX-License-Identifier: GPL-2.0
/* The host's memory for the host-gated baselines: see hostmem.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hostmem.h"

/* "Name:   123 kB" in @text: 0 and the bytes, or -1 */
static int field(const char *text, const char *name, __u64 *v)
{
	size_t len = strlen(name);
	const char *p = text;
	unsigned long long kb;
	char *end;

	while (p && *p) {
		if (!strncmp(p, name, len) && p[len] == ':') {
			errno = 0;
			kb = strtoull(p + len + 1, &end, 10);
			if (errno || end == p + len + 1 || strncmp(end, " kB", 3) ||
			    kb > (~0ULL >> 10))
				return -1;
			*v = kb << 10;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

int hostmem_parse_meminfo(const char *text, struct host_mem *h)
{
	__u64 total, mfree, buffers, cached, free;

	if (field(text, "MemTotal", &total) || field(text, "MemFree", &mfree) ||
	    field(text, "Buffers", &buffers) || field(text, "Cached", &cached))
		return -1;
	free = mfree + buffers + cached;
	h->total = total;
	h->used = total > free ? total - free : 0;
	return 0;
}

static int read_text(const char *path, char *buf, size_t size, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	n = fread(buf, 1, size - 1, f);
	buf[n] = 0;
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

int hostmem_read_bytes(const char *path, __u64 *bytes, char *err, size_t errlen)
{
	char buf[64], *end;
	unsigned long long v;

	if (read_text(path, buf, sizeof(buf), err, errlen))
		return -1;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || buf[0] == '-') {
		snprintf(err, errlen, "%s: '%.20s' is not a count of bytes", path, buf);
		return -1;
	}
	*bytes = v;
	return 0;
}

int hostmem_read_swapped(int pid, __u64 *bytes, char *err, size_t errlen)
{
	char path[64], buf[4096];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (read_text(path, buf, sizeof(buf), err, errlen))
		return -1;
	if (field(buf, "VmSwap", bytes)) {
		snprintf(err, errlen, "%s: no VmSwap", path);
		return -1;
	}
	return 0;
}

int hostmem_read_meminfo(struct host_mem *h, char *err, size_t errlen)
{
	char buf[8192];

	if (read_text("/proc/meminfo", buf, sizeof(buf), err, errlen))
		return -1;
	if (hostmem_parse_meminfo(buf, h)) {
		snprintf(err, errlen, "/proc/meminfo: no MemTotal, MemFree, Buffers or Cached");
		return -1;
	}
	return 0;
}
