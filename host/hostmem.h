/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's memory as the host-gated baselines (baselines.h) see it: its
 * total, and what is used.  From /proc/meminfo, as MOM's HostMemory
 * collector and Proxmox's read_meminfo() count them (free is MemFree +
 * Buffers + Cached), or, with balance's --host-budget-mib, a budget for
 * the guests: a bench gives MOM and Proxmox a committed host to act on
 * without committing the machine it runs on.
 */
#ifndef __WSR_HOST_HOSTMEM_H
#define __WSR_HOST_HOSTMEM_H

#include <stddef.h>
#include <linux/types.h>

struct host_mem {
	__u64 total, used;	/* bytes */
};

/*
 * /proc/meminfo's text: total MemTotal, used MemTotal - MemFree - Buffers
 * - Cached.  -1 when a field is missing or is no number.
 */
int hostmem_parse_meminfo(const char *text, struct host_mem *h);

/*
 * A file whose first word is a count of bytes (a cgroup's memory.current
 * or memory.usage_in_bytes): 0 and *@bytes, or -1 with @err filled.
 */
int hostmem_read_bytes(const char *path, __u64 *bytes, char *err, size_t errlen);

/*
 * A process's memory in the host's swap (/proc/PID/status's VmSwap, of
 * its private and shared anon): 0 and *@bytes, or -1 with @err filled.
 */
int hostmem_read_swapped(int pid, __u64 *bytes, char *err, size_t errlen);

/* /proc/meminfo read and parsed: 0, or -1 with @err filled */
int hostmem_read_meminfo(struct host_mem *h, char *err, size_t errlen);

#endif /* __WSR_HOST_HOSTMEM_H */
