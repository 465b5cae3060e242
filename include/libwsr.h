/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libwsr: what a program needs to use the BPF programs "wsr daemon"
 * pinned, without running a wsr command: open the pins, resolve a memcg,
 * read a histogram (aging what is due first, as the seed's reads do), get
 * and set the knobs, and consume the reports made on reclaim.  The wsr
 * CLI and daemon are built on it; so is a monitoring agent in a guest.
 *
 * Functions return 0 or a negative errno; where the cause needs words,
 * they also fill a struct wsr_err (parse.h) with a message for the user.
 * They never print and never exit: what to tell whom is the caller's.
 * The knob and histogram text formats (parse.h), the pin folder check
 * (pindir.h) and the Prometheus exposition's pieces (prom.h) are part of
 * the library.
 */
#ifndef __LIBWSR_H
#define __LIBWSR_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "wsr.h"
#include "parse.h"
#include "pindir.h"
#include "prom.h"

#define WSR_PIN_DIR		"/sys/fs/bpf/wsr"
#define WSR_CGROUP_ROOT		"/sys/fs/cgroup"
#define WSR_NODE_SYSFS		"/sys/devices/system/node"
#define WSR_LRU_GEN_DEBUGFS	"/sys/kernel/debug/lru_gen"

/* ---- pins (libwsr-pins.c) ---------------------------------------------- */

/* the maps the readers work with, opened from their pins under @dir */
struct wsr_pins {
	const char *dir;
	int config, reports, live, reaccess, watchers;
};

/*
 * Check the pin folder (wsr_check_pin_dir()) and open the maps; on error
 * every fd opened so far is closed again.
 */
int wsr_pins_open(struct wsr_pins *p, const char *dir, struct wsr_err *err);
void wsr_pins_close(struct wsr_pins *p);

/* "@dir/@name" into @buf */
void wsr_pin_path(const char *dir, const char *name, char *buf, size_t len);

/* an fd for the object pinned as @name, or -errno with a message */
int wsr_pin_open(const char *dir, const char *name, struct wsr_err *err);

/* are programs pinned in @dir (their reclaim link), and as which inode (0: none)? */
bool wsr_loaded(const char *dir);
ino_t wsr_loaded_inode(const char *dir);

/*
 * The memcg walk limit the pinned programs were loaded with, which the
 * loader stored in the "stats" map (WSR_MAX_WALK_STEPS if unknown).
 */
__u32 wsr_loaded_walk_steps(const char *dir);

/* ---- nodes and memcgs (libwsr-memcg.c) ------------------------------------- */

/*
 * The node list in file @path (sysfs's possible, has_memory) as a mask;
 * no such file is node 0 alone.  Node ids of WSR_MAX_NODES and above are
 * refused.
 */
int wsr_node_list(const char *path, __u64 *mask, struct wsr_err *err);

/* possible NUMA nodes (the highest id plus 1), and the nodes with memory */
__u32 wsr_possible_nodes(void);
__u64 wsr_memory_nodes(void);

/* a memcg by its cgroup v2 path */
struct wsr_memcg {
	char rel[PATH_MAX];	/* path below the cgroup2 root: "/", "/a/b" */
	char abs[PATH_MAX];	/* "" for a memcg known by its id alone */
	__u64 id;		/* cgroup id: the folder's inode number */
};

/*
 * @path ("/a/b", "a/b" or "@root/a/b") as a folder below @root: the path
 * is made canonical (one slash before each name, none after the last,
 * "." left out) and the folder's inode is its id.  ".." is refused
 * (-EINVAL), as is a path too long for PATH_MAX with @root before it
 * (-ENAMETOOLONG).  No file system check: wsr_memcg_resolve() does that.
 */
int wsr_memcg_lookup(const char *root, const char *path, struct wsr_memcg *m,
		     struct wsr_err *err);

/* wsr_memcg_lookup() below WSR_CGROUP_ROOT, which must be a cgroup2 mount */
int wsr_memcg_resolve(const char *path, struct wsr_memcg *m, struct wsr_err *err);

/*
 * The paths (below @root, "/" for @root itself; sorted, malloc()ed, free
 * them with wsr_free_paths()) of the memcgs in @root's tree whose id is
 * one of @ids (@nr of them, in any order).  Ids of memcgs that went are
 * left out.
 */
int wsr_memcg_paths(const char *root, const __u64 *ids, size_t nr, char ***paths,
		    size_t *nr_paths, struct wsr_err *err);
void wsr_free_paths(char **paths, size_t nr);

/* ---- refresh: aging through lru_gen (libwsr-refresh.c) ---------------------- */

/*
 * Write each whole line of @buf (@n bytes) to @fd, one write() per line,
 * as MGLRU's debugfs file takes its commands.  A line refused with EINVAL
 * or ENOENT (its memcg or lruvec went, or was aged meanwhile) is skipped.
 */
int wsr_age_lines(int fd, const char *buf, size_t n, struct wsr_err *err);

/* vm.swappiness and the free swap pages (what get_swappiness() looks at) */
void wsr_swap_state(struct wsr_refresh_args *a);

/*
 * Age the lruvecs of @m's subtree that are due under @a (bpf/refresh.h):
 * the pinned iterator prog_refresh prints lru_gen commands, which are
 * written to WSR_LRU_GEN_DEBUGFS.  @m with abs "" is found by its id;
 * then -ENOENT means it went meanwhile.
 */
int wsr_refresh_subtree(const char *dir, const struct wsr_memcg *m,
			struct wsr_refresh_args *a, struct wsr_err *err);

/*
 * Run the cgroup iterator program pinned as @pin over @m (and its subtree
 * with @subtree), its output to @out (NULL: thrown away).
 */
int wsr_run_iter(const char *dir, const char *pin, const struct wsr_memcg *m,
		 bool subtree, FILE *out, struct wsr_err *err);

/* ---- histograms and knobs (libwsr-hist.c) ---------------------------------- */

/* the configuration of (@id, @node); zeroes if there is none */
void wsr_get_config(const struct wsr_pins *p, __u64 id, __u32 node, struct wsr_config *cfg);

/* does @h have the bins of @cfg: their number and every bound? */
bool wsr_same_bins(const struct wsr_hist *h, const struct wsr_config *cfg);

/*
 * What a reader gets on each node of @nodes into reps[node], as the seed's
 * histogram read: the last report if it is younger than refresh_ms and
 * has the configured bins; else the due lruvecs are aged (never with
 * refresh_ms 0 or !@refresh) and the subtree is collected again.
 */
int wsr_read_hists(const struct wsr_pins *p, const struct wsr_memcg *m, __u64 nodes,
		   bool refresh, struct wsr_report *reps, struct wsr_err *err);

/* reaccess histograms; bins of the configuration while nothing is counted */
void wsr_read_reaccess(const struct wsr_pins *p, const struct wsr_memcg *m, __u64 nodes,
		       struct wsr_report *reps);

/*
 * Set @knob to @value on @node (-1: every node of @nodes).  The value is
 * checked on every node before any is stored: -EINVAL changes nothing.
 */
int wsr_set_knob(const struct wsr_pins *p, const struct wsr_memcg *m, __u64 nodes,
		 int node, enum wsr_knob knob, const char *value, struct wsr_err *err);

/*
 * The memcg ids that have a configuration on some node (each once,
 * sorted), malloc()ed into *@ids (free() it).
 */
int wsr_configured_ids(const struct wsr_pins *p, __u64 **ids, size_t *nr, struct wsr_err *err);

/* reports made on reclaim for (@id, @node) since the pins were made */
__u64 wsr_reclaim_reports(const struct wsr_pins *p, __u64 id, __u32 node);

/* ---- metrics: Prometheus' text format (libwsr-metrics.c) ------------------ */

/* what wsr_print_metrics() shows of one memcg on one node */
struct wsr_metrics_entry {
	const char *memcg;	/* the memcg label: its path below the cgroup2 root */
	__u32 node;
	__u64 reclaim_reports;	/* wsr_reclaim_reports() */
	struct wsr_report rep;	/* what a read got (wsr_read_hists()) */
};

/*
 * The exposition (text format 0.0.4) of @nr entries, each metric's
 * samples together as the format requires: wsr_working_set_bytes (pages
 * times @page_size, with the labels of wsr-host's: prom.h),
 * wsr_working_set_age_seconds (at @now_ns, boot clock),
 * wsr_working_set_incomplete and wsr_reports_total{cause="reclaim"}.
 * -EIO if @f reports an error.
 */
int wsr_print_metrics(FILE *f, const struct wsr_metrics_entry *e, size_t nr, __u64 page_size,
		      __u64 now_ns);

/* ---- watch: reports made on reclaim (libwsr-watch.c) --------------------- */

/* called with each report of the watched memcg (and node) */
typedef int (*wsr_report_fn)(void *ctx, __u32 node, const struct wsr_report *r);

struct wsr_watch;

/*
 * Take one of the WSR_MAX_WATCHERS slots (-EBUSY: all taken) and its
 * ring, for reports of @m made from now on, on @node (-1: any).
 */
int wsr_watch_open(const struct wsr_pins *p, const struct wsr_memcg *m, int node,
		   wsr_report_fn fn, void *ctx, struct wsr_watch **out, struct wsr_err *err);

/* wait up to @timeout_ms for reports and hand each to the callback */
int wsr_watch_poll(struct wsr_watch *w, int timeout_ms, struct wsr_err *err);

/* give the slot back */
void wsr_watch_close(struct wsr_watch *w);

#endif /* __LIBWSR_H */
