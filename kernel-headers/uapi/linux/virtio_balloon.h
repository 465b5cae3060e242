#ifndef _LINUX_VIRTIO_BALLOON_H
#define _LINUX_VIRTIO_BALLOON_H
/* This header is BSD licensed so anyone can use the definitions to implement
 * compatible drivers/servers.
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions
 * are met:
 * 1. Redistributions of source code must retain the above copyright
 *    notice, this list of conditions and the following disclaimer.
 * 2. Redistributions in binary form must reproduce the above copyright
 *    notice, this list of conditions and the following disclaimer in the
 *    documentation and/or other materials provided with the distribution.
 * 3. Neither the name of IBM nor the names of its contributors
 *    may be used to endorse or promote products derived from this software
 *    without specific prior written permission.
 * THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS ``AS IS'' AND
 * ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
 * IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE
 * ARE DISCLAIMED.  IN NO EVENT SHALL IBM OR CONTRIBUTORS BE LIABLE
 * FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
 * DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS
 * OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION)
 * HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT
 * LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY
 * OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF
 * SUCH DAMAGE. */
#include <linux/types.h>
#include <linux/virtio_types.h>
#include <linux/virtio_ids.h>
#include <linux/virtio_config.h>

/* The feature bitmap for virtio balloon */
#define VIRTIO_BALLOON_F_MUST_TELL_HOST	0 /* Tell before reclaiming pages */
#define VIRTIO_BALLOON_F_STATS_VQ	1 /* Memory Stats virtqueue */
#define VIRTIO_BALLOON_F_DEFLATE_ON_OOM	2 /* Deflate balloon on OOM */
#define VIRTIO_BALLOON_F_FREE_PAGE_HINT	3 /* VQ to report free pages */
#define VIRTIO_BALLOON_F_PAGE_POISON	4 /* Guest is using page poisoning */
#define VIRTIO_BALLOON_F_REPORTING	5 /* Page reporting virtqueue */
#define VIRTIO_BALLOON_F_WS_REPORTING	6 /* Working set reporting virtqueues */

/* Size of a PFN in the balloon interface. */
#define VIRTIO_BALLOON_PFN_SHIFT 12

#define VIRTIO_BALLOON_CMD_ID_STOP	0
#define VIRTIO_BALLOON_CMD_ID_DONE	1
struct virtio_balloon_config {
	/* Number of pages host wants Guest to give up. */
	__le32 num_pages;
	/* Number of pages we've actually got in balloon. */
	__le32 actual;
	/*
	 * Free page hint command id, readonly by guest.
	 * Was previously named free_page_report_cmd_id so we
	 * need to carry that name for legacy support.
	 */
	union {
		__le32 free_page_hint_cmd_id;
		__le32 free_page_report_cmd_id;	/* deprecated */
	};
	/* Stores PAGE_POISON if page poisoning is in use */
	__le32 poison_val;
	/* Number of working set bins, readonly by guest */
	__le32 ws_num_bins;
};

#define VIRTIO_BALLOON_S_SWAP_IN  0   /* Amount of memory swapped in */
#define VIRTIO_BALLOON_S_SWAP_OUT 1   /* Amount of memory swapped out */
#define VIRTIO_BALLOON_S_MAJFLT   2   /* Number of major faults */
#define VIRTIO_BALLOON_S_MINFLT   3   /* Number of minor faults */
#define VIRTIO_BALLOON_S_MEMFREE  4   /* Total amount of free memory */
#define VIRTIO_BALLOON_S_MEMTOT   5   /* Total amount of memory */
#define VIRTIO_BALLOON_S_AVAIL    6   /* Available memory as in /proc */
#define VIRTIO_BALLOON_S_CACHES   7   /* Disk caches */
#define VIRTIO_BALLOON_S_HTLB_PGALLOC  8  /* Hugetlb page allocations */
#define VIRTIO_BALLOON_S_HTLB_PGFAIL   9  /* Hugetlb page allocation failures */
#define VIRTIO_BALLOON_S_NR       10

#define VIRTIO_BALLOON_S_NAMES_WITH_PREFIX(VIRTIO_BALLOON_S_NAMES_prefix) { \
	VIRTIO_BALLOON_S_NAMES_prefix "swap-in", \
	VIRTIO_BALLOON_S_NAMES_prefix "swap-out", \
	VIRTIO_BALLOON_S_NAMES_prefix "major-faults", \
	VIRTIO_BALLOON_S_NAMES_prefix "minor-faults", \
	VIRTIO_BALLOON_S_NAMES_prefix "free-memory", \
	VIRTIO_BALLOON_S_NAMES_prefix "total-memory", \
	VIRTIO_BALLOON_S_NAMES_prefix "available-memory", \
	VIRTIO_BALLOON_S_NAMES_prefix "disk-caches", \
	VIRTIO_BALLOON_S_NAMES_prefix "hugetlb-allocations", \
	VIRTIO_BALLOON_S_NAMES_prefix "hugetlb-failures" \
}

#define VIRTIO_BALLOON_S_NAMES VIRTIO_BALLOON_S_NAMES_WITH_PREFIX("")

/*
 * Memory statistics structure.
 * Driver fills an array of these structures and passes to device.
 *
 * NOTE: fields are laid out in a way that would make compiler add padding
 * between and after fields, so we have to use compiler-specific attributes to
 * pack it, to disable this padding. This also often causes compiler to
 * generate suboptimal code.
 *
 * We maintain this statistics structure format for backwards compatibility,
 * but don't follow this example.
 *
 * If implementing a similar structure, do something like the below instead:
 *     struct virtio_balloon_stat {
 *         __virtio16 tag;
 *         __u8 reserved[6];
 *         __virtio64 val;
 *     };
 *
 * In other words, add explicit reserved fields to align field and
 * structure boundaries at field size, avoiding compiler padding
 * without the packed attribute.
 */
struct virtio_balloon_stat {
	__virtio16 tag;
	__virtio64 val;
} __attribute__((packed));

/*
 * Working set reporting (VIRTIO_BALLOON_F_WS_REPORTING)
 *
 * The driver reports how much of the guest's memory has been idle for how
 * long, per NUMA node, so that the device can size the balloon to what the
 * guest really uses.  All fields are little-endian, whatever the transport.
 *
 * With the feature negotiated the device has two more virtqueues, numbered
 * after the queues of the other negotiated features:
 *
 *   ws      driver to device: reports, one buffer each;
 *   notify  device to driver: the driver posts a buffer of
 *           sizeof(struct virtio_balloon_ws_notify) bytes that the device
 *           fills with one notification.
 *
 * Config space field ws_num_bins gives the number of bins of a report,
 * from VIRTIO_BALLOON_WS_MIN_NUM_BINS to VIRTIO_BALLOON_WS_MAX_NUM_BINS:
 * one per configured interval plus a catch-all bin.  A driver that reads
 * another value does not use the working set virtqueues.
 *
 * A report is a struct virtio_balloon_ws_header followed by an array of
 * struct virtio_balloon_ws: ws_num_bins records per NUMA node, the records
 * of one node adjacent, nodes in increasing node_id order, each node at
 * most once.  Within a node the bins go from the youngest to the oldest: a
 * bin counts the memory whose idle age is above the previous bin's
 * idle_age_ms and at most its own.  The last bin's idle_age_ms is
 * VIRTIO_BALLOON_WS_LAST_BIN_AGE.
 *
 * The header says why the report was sent: the driver answers each
 * VIRTIO_BALLOON_WS_REQUEST with exactly one report of cause
 * VIRTIO_BALLOON_WS_CAUSE_REQUEST, and sends reports of cause
 * VIRTIO_BALLOON_WS_CAUSE_RECLAIM, at most once per report_ms, when the
 * guest reclaims memory.  data_age_ms says how old the report's data is:
 * idle ages are known only up to the guest's last look at the accessed
 * bits, so memory touched in the last data_age_ms may still count as idle.
 *
 * flags qualify the bins.  Two bits are defined, and the others are zero:
 *
 *   VIRTIO_BALLOON_WS_F_INCOMPLETE          the guest stopped counting
 *                                           before it had seen all of its
 *                                           memory: the bins are a lower
 *                                           bound;
 *   VIRTIO_BALLOON_WS_F_ANON_UNRECLAIMABLE  the guest cannot swap (no swap,
 *                                           a full one, or swappiness 0):
 *                                           its anon memory cannot be
 *                                           reclaimed whatever its age, and
 *                                           the anon bins are 0.
 *
 * reclaim_seq counts the reports of cause VIRTIO_BALLOON_WS_CAUSE_RECLAIM
 * that the driver has made since it was bound, this one included: a device
 * that sees it grow by more than one missed the reports between.  It wraps
 * at 2^32.
 *
 * mem_some_us and mem_full_us are the guest's memory pressure when the
 * report was made: the total time, in microseconds since boot, during
 * which some (respectively all) non-idle tasks were stalled on memory, as
 * the "total=" fields of the guest's /proc/pressure/memory.  Both are 0 if
 * the guest does not track pressure.
 */
#define VIRTIO_BALLOON_WS_MIN_NUM_BINS	4
#define VIRTIO_BALLOON_WS_MAX_NUM_BINS	16
#define VIRTIO_BALLOON_WS_LAST_BIN_AGE	0x7fffffffffffffffULL

/* virtio_balloon_ws.tag */
#define VIRTIO_BALLOON_WS_RECLAIMABLE	0

/* Index of virtio_balloon_ws.memory_size_bytes[] */
#define VIRTIO_BALLOON_WS_ANON		0
#define VIRTIO_BALLOON_WS_FILE		1
#define VIRTIO_BALLOON_WS_NR_TYPES	2

/* virtio_balloon_ws_header.cause */
#define VIRTIO_BALLOON_WS_CAUSE_REQUEST	1
#define VIRTIO_BALLOON_WS_CAUSE_RECLAIM	2

/* virtio_balloon_ws_header.flags */
#define VIRTIO_BALLOON_WS_F_INCOMPLETE		(1 << 0)
#define VIRTIO_BALLOON_WS_F_ANON_UNRECLAIMABLE	(1 << 1)
#define VIRTIO_BALLOON_WS_F_ALL			0x3

struct virtio_balloon_ws_header {
	/* VIRTIO_BALLOON_WS_CAUSE_REQUEST or VIRTIO_BALLOON_WS_CAUSE_RECLAIM */
	__le16 cause;
	/* VIRTIO_BALLOON_WS_F_* */
	__le16 flags;
	/* reclaim reports made so far, this one included */
	__le32 reclaim_seq;
	/* time since the data of the least recently scanned memory was taken */
	__le64 data_age_ms;
	/* memory pressure: stall time totals since boot, in microseconds */
	__le64 mem_some_us;
	__le64 mem_full_us;
};

struct virtio_balloon_ws {
	/* VIRTIO_BALLOON_WS_RECLAIMABLE */
	__le16 tag;
	/* NUMA node of the memory counted */
	__le16 node_id;
	__u8 reserved[4];
	/* upper bound of the bin's idle age, in milliseconds */
	__le64 idle_age_ms;
	/* bytes of anon and file memory in the bin */
	__le64 memory_size_bytes[VIRTIO_BALLOON_WS_NR_TYPES];
};

/*
 * A notification from the device.  The driver rejects, with a rate-limited
 * warning and keeping its previous configuration, a notification shorter
 * than this structure, with an unknown op, or a CONFIG whose fields are
 * out of bounds:
 *
 * VIRTIO_BALLOON_WS_REQUEST  send one report of cause
 *                            VIRTIO_BALLOON_WS_CAUSE_REQUEST, whose data is
 *                            no older than refresh_ms of the current
 *                            configuration if the guest can refresh it in
 *                            time; the other fields are ignored.
 * VIRTIO_BALLOON_WS_CONFIG   replace the configuration:
 *   refresh_ms    how old the data of a requested report may be; 0: as
 *                 fresh as possible;
 *   report_ms     minimum time between two reports sent on reclaim; 0: no
 *                 such reports;
 *   intervals_ms  the bins' upper bounds: intervals_ms[0 .. ws_num_bins - 2]
 *                 strictly increasing, the first above 0, the entries after
 *                 them 0.
 *   No value may exceed VIRTIO_BALLOON_WS_MAX_MS.
 *
 * Until the first CONFIG the driver uses intervals of 1, 2, 4, ... seconds,
 * refresh_ms 1000 and report_ms 0.
 */
#define VIRTIO_BALLOON_WS_REQUEST	1
#define VIRTIO_BALLOON_WS_CONFIG	2

/* One week: the largest interval, refresh_ms or report_ms accepted */
#define VIRTIO_BALLOON_WS_MAX_MS	604800000ULL

struct virtio_balloon_ws_notify {
	/* VIRTIO_BALLOON_WS_REQUEST or VIRTIO_BALLOON_WS_CONFIG */
	__le16 op;
	__le16 reserved[3];
	__le64 refresh_ms;
	__le64 report_ms;
	__le64 intervals_ms[VIRTIO_BALLOON_WS_MAX_NUM_BINS - 1];
};

#endif /* _LINUX_VIRTIO_BALLOON_H */
