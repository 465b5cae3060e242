/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libwsr: what the wsr programs share, and what a program needs to use
 * the BPF programs "wsr daemon" pinned without running a wsr command.  The
 * wsr CLI and daemon are built on it, as wsr-host is (its text formats,
 * JSON and Prometheus pieces), and so is a monitoring agent in a guest:
 * open the pins, resolve a memcg, read a histogram (aging what is due
 * first, as the seed's reads do), get and set the knobs, and consume the
 * reports made on reclaim.
 *
 * Functions return 0 or a negative errno; where the cause needs words,
 * they also fill a struct wsr_err with a message for the user.  They never
 * exit, and print only to a FILE they are given: what to tell whom is the
 * caller's.  The JSON functions use json-c (libjson-c-dev); its objects are
 * opaque here, so that this header needs only the C library and wsr.h.
 */
#ifndef __LIBWSR_H
#define __LIBWSR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include "wsr.h"

struct json_object;

#define WSR_PIN_DIR		"/sys/fs/bpf/wsr"
#define WSR_CGROUP_ROOT		"/sys/fs/cgroup"
#define WSR_NODE_SYSFS		"/sys/devices/system/node"
#define WSR_LRU_GEN_DEBUGFS	"/sys/kernel/debug/lru_gen"
#define WSR_PROCFS		"/proc"
#define WSR_BALLOON_SYSFS	"/sys/bus/virtio/drivers/virtio_balloon"

/*
 * Where libwsr reads the machine.  Every file of /sys and /proc it reads
 * is below one of these, which the caller gives: WSR_SYS_INIT names the
 * machine's own, a test a fake tree.  libwsr keeps no state of its own.
 */
struct wsr_sys {
	const char *cgroup;	/* the cgroup2 mount */
	const char *node;	/* the NUMA nodes' sysfs folder */
	const char *lru_gen;	/* MGLRU's debugfs file */
	const char *proc;	/* procfs */
	const char *balloon;	/* the virtio_balloon driver's sysfs folder */
};

#define WSR_SYS_INIT							\
	{ .cgroup = WSR_CGROUP_ROOT, .node = WSR_NODE_SYSFS,		\
	  .lru_gen = WSR_LRU_GEN_DEBUGFS, .proc = WSR_PROCFS,		\
	  .balloon = WSR_BALLOON_SYSFS }

/*
 * A message for the user when a parser (or libwsr) refuses: room for a
 * path of PATH_MAX and the words around it.
 */
struct wsr_err {
	char msg[4096 + 512];
};

/*
 * ---- text formats: knobs, histograms, numbers (lib/parse.c) ------------
 * The seed's text formats, and one set of rules for numbers: the CLI,
 * wsr fs and wsr-host take and refuse the same with the same words.  Pure
 * functions of their arguments.  A refusal is -EINVAL, or -ERANGE where
 * the seed's parsers say ERANGE: a number too large, too many or too few
 * intervals.
 */

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

/*
 * ---- JSON, built and written by json-c (lib/json.c) ---------------------
 * The CLI's --json output and wsr-host's QMP commands.  Every builder
 * returns NULL when out of memory, and every adder takes its value even on
 * failure, so that a caller checks once, at the end.
 */

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
 * A string, every byte that starts no valid UTF-8 sequence replaced by
 * U+FFFD: a memcg's name is any bytes, JSON's text is UTF-8
 */
struct json_object *wsr_json_string(const char *s);

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

/*
 * ---- Prometheus' text exposition format 0.0.4 (lib/prom.c) -------------
 * The pieces that wsr-host balance's exporter and "wsr metrics" both
 * write, so that the two expose one histogram with the same name, units
 * and labels.
 */

/* "# HELP name help" (help escaped: \\ and \n) and "# TYPE name type" */
void wsr_prom_head(FILE *f, const char *name, const char *type, const char *help);

/*
 * a label value with the format's escapes: \\, \" and \n.  The format
 * takes UTF-8 alone, and a cgroup's (or a VM's) name may hold any byte:
 * each byte that does not begin a valid UTF-8 sequence is written as the
 * four characters \xHH (so "\\xHH" in the text), the convention of
 * systemd-escape, instead of making promtool and scrapers refuse the whole
 * file.  (A name that holds those four characters itself reads the same.)
 */
void wsr_prom_label_value(FILE *f, const char *s);

/*
 * One sample of wsr_working_set_bytes: its first label @key="@value" (vm
 * on the host, memcg in the guest), then node, type (anon or file) and
 * idle_le_ms, the bin's upper bound; the catch-all bin (WSR_BIN_INF and
 * above) is "+Inf", as Prometheus writes "le".
 */
void wsr_prom_ws_sample(FILE *f, const char *key, const char *value, __u32 node, bool file,
			__u64 idle_le_ms, __u64 bytes);

/*
 * ---- the pin folder's check (lib/pindir.c) ------------------------------
 * bpffs is mode 1777 unless mounted with a mode, so any user can create a
 * folder there: one created before the daemon would let its owner unpin
 * wsr's links.
 */

/*
 * 0 if @path is a folder (not a symlink to one) owned by root that
 * neither group nor others may open (0700: a reader could take the
 * folder's lock and hold it); -ENOENT if it does not exist (the daemon
 * may create it); otherwise -EPERM or another -errno.  err->msg says why
 * whenever the result is not 0.
 */
int wsr_check_pin_dir(const char *path, struct wsr_err *err);

/* how long wsr_lock_dir() waits for the pin folder's lock */
#define WSR_LOCK_TIMEOUT_MS	5000

/*
 * Take the exclusive lock (flock) of the folder @fd, opened from @path,
 * waiting at most @timeout_ms: 0, or -ETIMEDOUT (another process held it
 * all that time) or another -errno, with err->msg saying which.  Nothing
 * waits on it for ever, whoever holds it.
 */
int wsr_lock_dir(int fd, const char *path, unsigned int timeout_ms, struct wsr_err *err);

/*
 * Open the folder @path and take its lock (wsr_lock_dir(), @timeout_ms):
 * the fd, whose close() (or the process's death) lets the lock go, or a
 * -errno with err->msg saying why.
 */
int wsr_lock_pin_dir(const char *path, unsigned int timeout_ms, struct wsr_err *err);

/*
 * wsr_lock_pin_dir(), but the lock shared: for readers of what is only
 * written under the exclusive lock, the knobs (wsr_set_knob()), that
 * must not see a write half done.  A lookup in a BPF hash map copies its
 * value after finding it, from an element that an update of another key
 * may reuse meanwhile (the map's per-CPU spare): a "wsr get" of node 0
 * read node 1's knobs once while a set wrote both (the knobs test, its
 * 486th kill).
 */
int wsr_share_pin_dir(const char *path, unsigned int timeout_ms, struct wsr_err *err);

/* ---- pins (lib/pins.c) ------------------------------------------------- */

/*
 * The names "wsr daemon" pins in its folder: maps by their names in the
 * BPF objects, programs and links by these.  wsr_pin_names lists every
 * one once: what "wsr unload" removes, what the balloon's attach and
 * detach pin and unpin.  tests/unit/test_bpf_objects.c checks its maps
 * against the objects' (bpf/reclaim_reports.bpf.h's WATCH_RING()s too).
 */
/* the maps user space opens: the estimator's, then the balloon's */
#define WSR_PIN_CONFIG		"config"
#define WSR_PIN_REPORTS		"reports"
#define WSR_PIN_LIVE		"live"
#define WSR_PIN_REACCESS	"reaccess"
#define WSR_PIN_STATS		"stats"
#define WSR_PIN_WATCHERS	"watchers"
#define WSR_PIN_REFRESH_ARGS	"refresh_args"
#define WSR_PIN_BALLOON		"balloon"
#define WSR_PIN_BALLOON_CLAIM	"balloon_claim"
/* the estimator's links and programs (bpf/wsr.bpf.c) */
#define WSR_PIN_LINK_RECLAIM		"link_reclaim"
#define WSR_PIN_LINK_REACCESS		"link_reaccess"
#define WSR_PIN_LINK_OFFLINE		"link_offline"
#define WSR_PIN_LINK_AGING_BEGIN	"link_aging_begin"
#define WSR_PIN_LINK_AGING_END		"link_aging_end"
#define WSR_PIN_LINK_NODE_RECLAIM_BEGIN	"link_node_reclaim_begin"
#define WSR_PIN_LINK_NODE_RECLAIM_END	"link_node_reclaim_end"
#define WSR_PIN_HISTOGRAM		"histogram"	/* the iterator: cat it */
#define WSR_PIN_PROG_HISTOGRAM		"prog_histogram"
#define WSR_PIN_PROG_REFRESH		"prog_refresh"
/* the balloon's (bpf/balloon.bpf.c): they keep the virtio_balloon module loaded */
#define WSR_PIN_LINK_BALLOON_RECLAIM		"link_balloon_reclaim"
#define WSR_PIN_PROG_BALLOON_REQUEST		"prog_balloon_request"
#define WSR_PIN_LINK_BALLOON_REQUEST_HOOK	"link_balloon_request_hook"

enum wsr_pin_kind {
	WSR_PIN_MAP,
	WSR_PIN_PROG,
	WSR_PIN_LINK,
};

struct wsr_pin_name {
	const char *name;
	enum wsr_pin_kind kind;
	bool balloon;		/* the balloon object's, else the estimator's */
};

/*
 * Every pin: first the WSR_MAX_WATCHERS report rings, "watch0" and on,
 * slot by slot (wsr_pin_names[slot] is slot's ring), then the others.
 */
extern const struct wsr_pin_name wsr_pin_names[];
extern const unsigned int wsr_nr_pin_names;

/* the entry of wsr_pin_names named @name, or NULL */
const struct wsr_pin_name *wsr_pin_find(const char *name);

/*
 * Remove the pins of wsr_pin_names from @dir: all of them (unload), or
 * (@balloon_progs) the balloon's programs and links alone, which let the
 * virtio_balloon module go (its maps stay, with what was last sent)
 */
void wsr_unpin(const char *dir, bool balloon_progs);

/*
 * Remove the estimator's programs and links from @dir, its maps (the
 * knobs) kept: what a load killed before its last pin left, which would
 * stop the next load's pins (EEXIST)
 */
void wsr_unpin_estimator_progs(const char *dir);

struct bpf_link;

/*
 * Pin @link (attached, or NULL: its attach failed) as @name in @dir, and
 * drop the caller's reference either way: the pin keeps the link, and an
 * fd left open would keep it after an unpin.  0 or -errno with a message.
 */
int wsr_pin_link(const char *dir, struct bpf_link *link, const char *name,
		 struct wsr_err *err);

/*
 * The maps the readers work with, opened from their pins under @dir, and
 * the machine they are on (reads age through its lru_gen file).
 */
struct wsr_pins {
	const char *dir;
	const struct wsr_sys *sys;
	int config, reports, live, reaccess, watchers;
};

/* what a pinned map must be for this wsr to read it right */
struct wsr_map_layout {
	const char *name;
	__u32 type, key_size, value_size;
	__u32 max_entries;	/* 0: any */
	/*
	 * BPF_F_*: the daemon's load needs them as its object declares them
	 * (libbpf reuses no pin that differs); a reader reads the maps the
	 * same whatever they are
	 */
	__u32 map_flags;
	bool any_flags;
};

/*
 * 0 if the map @fd (pinned as @want->name in @dir) is as @want says;
 * -EPROTO if not (an older wsr's pins: err->msg says what was found and
 * what to do), or another -errno
 */
int wsr_check_map_layout(int fd, const char *dir, const struct wsr_map_layout *want,
			 struct wsr_err *err);

/*
 * Check the pin folder (wsr_check_pin_dir()) and open the maps, each
 * checked with wsr_check_map_layout(); on error every fd opened so far is
 * closed again.  @sys must outlive @p.
 */
int wsr_pins_open(struct wsr_pins *p, const char *dir, const struct wsr_sys *sys,
		  struct wsr_err *err);
void wsr_pins_close(struct wsr_pins *p);

/* "@dir/@name" into @buf */
void wsr_pin_path(const char *dir, const char *name, char *buf, size_t len);

/* an fd for the object pinned as @name, or -errno with a message */
int wsr_pin_open(const char *dir, const char *name, struct wsr_err *err);

/* is something pinned as @name in @dir? */
bool wsr_pinned(const char *dir, const char *name);

/*
 * are programs pinned in @dir (their reclaim link, which a load pins last:
 * then all are), and as which inode (0: none)?
 */
bool wsr_loaded(const char *dir);
ino_t wsr_loaded_inode(const char *dir);

/* are the balloon's programs pinned in @dir (its reclaim link)? */
bool wsr_balloon_attached(const char *dir);

/*
 * "wsr balloon detach" records in @dir the instance of the virtio_balloon
 * module it detached from (wsr_balloon_module()), as a folder: bpffs holds
 * no files.  The daemon attaches by itself only to an instance nobody
 * detached, so that an attach of its own that began before the detach
 * cannot undo it before the rmmod; an attach that pins removes the record.
 */
int wsr_balloon_mark_detached(const char *dir, ino_t module, struct wsr_err *err);
bool wsr_balloon_detached(const char *dir, ino_t module);
void wsr_balloon_clear_detached(const char *dir);

/*
 * The memcg walk limit the pinned programs were loaded with, which the
 * loader stored in the "stats" map (WSR_MAX_WALK_STEPS if unknown).
 */
__u32 wsr_loaded_walk_steps(const char *dir);

/* ---- nodes and memcgs (lib/memcg.c) ------------------------------------- */

/*
 * The node list in file @path (sysfs's possible, has_memory) as a mask;
 * no such file is node 0 alone.  Node ids of WSR_MAX_NODES and above are
 * refused.
 */
int wsr_node_list(const char *path, __u64 *mask, struct wsr_err *err);

/*
 * Possible NUMA nodes (the highest id plus 1), and the nodes with memory,
 * from @sys->node; a list that does not parse is node 0 alone
 */
__u32 wsr_possible_nodes(const struct wsr_sys *sys);
__u64 wsr_memory_nodes(const struct wsr_sys *sys);

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

/* wsr_memcg_lookup() below @sys->cgroup, which must be a cgroup2 mount */
int wsr_memcg_resolve(const struct wsr_sys *sys, const char *path, struct wsr_memcg *m,
		      struct wsr_err *err);

/*
 * The paths (below @root, "/" for @root itself; sorted, malloc()ed, free
 * them with wsr_free_paths()) of the memcgs in @root's tree whose id is
 * one of @ids (@nr of them, in any order).  Ids of memcgs that went are
 * left out.
 */
int wsr_memcg_paths(const char *root, const __u64 *ids, size_t nr, char ***paths,
		    size_t *nr_paths, struct wsr_err *err);
void wsr_free_paths(char **paths, size_t nr);

/* ---- refresh: aging through lru_gen (lib/refresh.c) ---------------------- */

/*
 * Write each whole line of @buf (@n bytes) to @fd, one write() per line,
 * as MGLRU's debugfs file takes its commands.  A line refused with EINVAL
 * or ENOENT (its memcg or lruvec went, or was aged meanwhile) is skipped.
 */
int wsr_age_lines(int fd, const char *buf, size_t n, struct wsr_err *err);

/*
 * vm.swappiness and the free swap pages (what get_swappiness() looks at),
 * from @sys->proc
 */
void wsr_swap_state(const struct wsr_sys *sys, struct wsr_refresh_args *a);

/*
 * Age the lruvecs of @m's subtree that are due under @a (bpf/refresh.h):
 * the iterator prog_refresh pinned in @dir prints lru_gen commands, which
 * are written to @sys->lru_gen.  @m with abs "" is found by its id; then
 * -ENOENT means it went meanwhile.
 */
int wsr_refresh_subtree(const char *dir, const struct wsr_sys *sys, const struct wsr_memcg *m,
			struct wsr_refresh_args *a, struct wsr_err *err);

/*
 * Run the cgroup iterator program pinned as @pin over @m (and its subtree
 * with @subtree), its output to @out (NULL: thrown away).
 */
int wsr_run_iter(const char *dir, const char *pin, const struct wsr_memcg *m,
		 bool subtree, FILE *out, struct wsr_err *err);

/* ---- histograms and knobs (lib/hist.c) ---------------------------------- */

/* now on the clock reports are stamped with (bpf_ktime_get_boot_ns()) */
__u64 wsr_now_ns(void);

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

/*
 * Reaccess histograms into reps[node].hist (the bins of the configuration
 * while nothing is counted).  With @refresh, first what wsr_read_hists()
 * does on the nodes of @nodes with intervals, as the seed's read: its
 * aging counts reaccesses.  reps[] has WSR_MAX_NODES entries.
 */
int wsr_read_reaccess(const struct wsr_pins *p, const struct wsr_memcg *m, __u64 nodes,
		      bool refresh, struct wsr_report *reps, struct wsr_err *err);

/*
 * Set @knob to @value on @node (-1: every node of @nodes).  The value is
 * checked on every node before any is stored: -EINVAL or -ERANGE (the
 * parser's) changes nothing.
 * Each node's entry is replaced whole, by one map update, under the pin
 * folder's lock, so that two sets at once do not lose one.
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

/* ---- metrics: the guest's exposition (lib/metrics.c) -------------------- */

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
 * times @page_size, with the labels of wsr-host's: lib/prom.c),
 * wsr_working_set_age_seconds (at @now_ns, boot clock),
 * wsr_working_set_incomplete and wsr_reports_total{cause="reclaim"}.
 * -EIO if @f reports an error.
 */
int wsr_print_metrics(FILE *f, const struct wsr_metrics_entry *e, size_t nr, __u64 page_size,
		      __u64 now_ns);

/* ---- watch: reports made on reclaim (lib/watch.c) ----------------------- */

/* called with each report of the watched memcg (and node) */
typedef int (*wsr_report_fn)(void *ctx, __u32 node, const struct wsr_report *r);

struct wsr_watch;

/*
 * Take one of the WSR_MAX_WATCHERS slots (-EBUSY: all taken) and its
 * ring, for reports of @m made from now on, on @node (-1: any).
 */
int wsr_watch_open(const struct wsr_pins *p, const struct wsr_memcg *m, int node,
		   wsr_report_fn fn, void *ctx, struct wsr_watch **out, struct wsr_err *err);

/* called with each report of any memcg: @key names its memcg and node */
typedef int (*wsr_any_report_fn)(void *ctx, const struct wsr_key *key,
				 const struct wsr_report *r);

/*
 * wsr_watch_open() for the reports of every memcg on every node, in one
 * slot: what a reader that serves many memcgs (wsr fs's poll()) takes,
 * instead of a slot for each of them.
 */
int wsr_watch_open_all(const struct wsr_pins *p, wsr_any_report_fn fn, void *ctx,
		       struct wsr_watch **out, struct wsr_err *err);

/* wait up to @timeout_ms for reports and hand each to the callback */
int wsr_watch_poll(struct wsr_watch *w, int timeout_ms, struct wsr_err *err);

/* give the slot back */
void wsr_watch_close(struct wsr_watch *w);

/* ---- the balloon device's sysfs files (lib/balloon.c) ------------------- */

/*
 * The working_set folder of the balloon device the kfuncs report through
 * (its "active" reads 1), below @sys->balloon, into @dir: 0, or -1 when
 * there is none
 */
int wsr_balloon_dir(const struct wsr_sys *sys, char *dir, size_t len);

/* the first line of @dir/@name into @buf, its newline dropped; 0 or -1 */
int wsr_balloon_read_text(const char *dir, const char *name, char *buf, size_t len);

/* the number in @dir/@name; 0 when it cannot be read */
__u64 wsr_balloon_read_u64(const char *dir, const char *name);

/*
 * Has the host sent the device in @dir a CONFIG?  Until it has, the
 * driver's settings are its defaults, which nobody asked for: wsr ages
 * nothing for the device (the seed's balloon kept no bins until then).
 */
bool wsr_balloon_configured(const char *dir);

/*
 * The loaded virtio_balloon module's instance: the inode of its BTF in
 * sysfs, new at each load; 0 when it is not loaded (or built in).
 */
#define WSR_BALLOON_BTF		"/sys/kernel/btf/virtio_balloon"
ino_t wsr_balloon_module(void);

/*
 * ---- wsr's programs: messages and command tables (lib/cmd.c) ------------
 * The CLI and wsr-host say things and find their commands alike, as
 * bpftool does: each command's entry beside its work, one table of them.
 */

/* "@prog: ", the message and a newline on @f */
void wsr_msg(FILE *f, const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * In wsr's programs, which their build names (-DWSR_PROG='"wsr"'): their
 * messages on stderr, errors and warnings apart from news, as bpftool's
 * p_err and p_info, so that each says which it is where it is said.
 */
#ifdef WSR_PROG
#define err_msg(...)	wsr_msg(stderr, WSR_PROG, __VA_ARGS__)
#define info_msg(...)	wsr_msg(stderr, WSR_PROG, __VA_ARGS__)
#endif

struct wsr_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] is the command's name */
	const char *synopsis;			/* after "PROG NAME" */
	const char *help;			/* what it does, then its options */
};

/* the command named @name among the @nr of @cmds, or NULL */
const struct wsr_cmd *wsr_cmd_find(const struct wsr_cmd *const *cmds, size_t nr,
				   const char *name);

/* "  @prog NAME SYNOPSIS", a line for each of the @nr commands of @cmds */
void wsr_cmd_list(FILE *f, const char *prog, const struct wsr_cmd *const *cmds, size_t nr);

/*
 * "usage: @prog NAME SYNOPSIS", an empty line, the command's help, an
 * empty line and @options, the options every command takes
 */
void wsr_cmd_usage(FILE *f, const char *prog, const struct wsr_cmd *c, const char *options);

/*
 * "@prog help [@name]": the usage of the command named @name, or @usage's
 * when there is none such
 */
void wsr_cmd_help(FILE *f, const char *prog, const struct wsr_cmd *const *cmds, size_t nr,
		  const char *name, const char *options, void (*usage)(FILE *f));

#endif /* __LIBWSR_H */
