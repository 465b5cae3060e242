/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * wsr fs: the seed's files (nodeN/wss/ and memory.wss.*, memory.reaccess.*)
 * served from user space with FUSE, by a process of its own.  fs.c is the
 * command, fs-tree.c maps a path to what it names, fs-ops.c the FUSE
 * operations, fs-events.c the reports that wake poll().
 */
#ifndef __WSR_FS_H
#define __WSR_FS_H

#define FUSE_USE_VERSION 31
#include <fuse.h>
#include <pthread.h>
#include "cli.h"

/* what a path names */
enum fs_kind {
	FS_NONE,
	FS_DIR,
	FS_KNOB,		/* intervals_ms, refresh_ms, report_ms, reaccess's intervals */
	FS_HISTOGRAM,		/* wss's: refreshed on read, poll()able */
	FS_REACCESS,		/* the reaccess histogram */
};

/* the memcg id of the node level: nodeN/wss/ is the root's */
#define FS_ROOT_ID	WSR_ROOT_CGROUP
/* a memcg histogram's events: a report on any node wakes it */
#define FS_ANY_NODE	0xffffffffu

struct fs_path {
	enum fs_kind kind;
	int knob;		/* enum wsr_knob of an FS_KNOB */
	bool memcg;		/* a memcg's memory.* file, else nodeN/wss/'s */
	int node;		/* nodeN's N; -1 for a memcg's files */
	char cgroup[PATH_MAX];	/* the memcg below the cgroup2 mount, "/a/b" */
	mode_t mode;		/* with the type bits */
	uid_t uid;
	gid_t gid;
};

/* fs-tree.c: @path (below the mount) into @fp: 0 or -ENOENT */
int fs_resolve(const char *path, struct fs_path *fp);

/* fs-tree.c: the names in the folder @path (resolved as @fp), one @fill each */
int fs_list(const struct fs_path *fp, void *buf, fuse_fill_dir_t fill, const char *path);

/* fs-ops.c: the FUSE operations */
extern const struct fuse_operations fs_ops;

/* an open file of the mount */
struct fs_fh {
	struct fs_path fp;
	__u64 id;		/* memcg id, for the events */
	__u32 ev_node;		/* node of the events, or FS_ANY_NODE */
	__u64 seen;		/* the events counted when last read or polled */
	struct fuse_pollhandle *ph;	/* a poll() waiting, to wake */
	pthread_mutex_t lock;	/* over text: FUSE's threads may share a file */
	char *text;		/* what a read at offset 0 made */
	size_t len;
	struct fs_fh *prev, *next;	/* in the list of open histograms */
};

/* fs-events.c: reports counted per (memcg, node), and the poll()s to wake */
__u64 fs_events_seen(struct fs_fh *fh);		/* count now, taken as seen */
void fs_events_add(struct fs_fh *fh);		/* an open histogram */
void fs_events_remove(struct fs_fh *fh);
/*
 * poll(): POLLPRI once for any number of reports since the file was last
 * read or polled, as sysfs_notify's; else @ph kept, to wake at the next
 */
unsigned int fs_events_poll(struct fs_fh *fh, struct fuse_pollhandle *ph);
/* the thread that reads the report ring; 0 or -errno */
int fs_events_start(void);
void fs_events_stop(void);

#endif /* __WSR_FS_H */
