// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libwsr: the pins "wsr daemon" left in bpffs (libwsr.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "libwsr.h"

#define MAP(name)	{ name, WSR_PIN_MAP, false }
#define LINK(name)	{ name, WSR_PIN_LINK, false }
#define PROG(name)	{ name, WSR_PIN_PROG, false }
#define RING(slot)	MAP("watch" #slot)

const struct wsr_pin_name wsr_pin_names[] = {
	RING(0), RING(1), RING(2), RING(3), RING(4), RING(5), RING(6), RING(7),
	MAP(WSR_PIN_CONFIG), MAP(WSR_PIN_REPORTS), MAP(WSR_PIN_LIVE), MAP(WSR_PIN_REACCESS),
	MAP(WSR_PIN_STATS), MAP(WSR_PIN_WATCHERS), MAP(WSR_PIN_REFRESH_ARGS), MAP("scratch_map"),
	MAP("refresh_walks"), MAP("vgens"), MAP("aging_scratch"), MAP("node_reclaiming"),
	LINK(WSR_PIN_LINK_RECLAIM), LINK(WSR_PIN_LINK_REACCESS), LINK(WSR_PIN_LINK_OFFLINE),
	LINK(WSR_PIN_LINK_AGING_BEGIN), LINK(WSR_PIN_LINK_AGING_END), LINK(WSR_PIN_HISTOGRAM),
	LINK(WSR_PIN_LINK_NODE_RECLAIM_BEGIN), LINK(WSR_PIN_LINK_NODE_RECLAIM_END),
	PROG(WSR_PIN_PROG_HISTOGRAM), PROG(WSR_PIN_PROG_REFRESH),
	/* the balloon object's */
	{ WSR_PIN_BALLOON, WSR_PIN_MAP, true },
	{ WSR_PIN_BALLOON_CLAIM, WSR_PIN_MAP, true },
	{ "request_scratch", WSR_PIN_MAP, true },
	{ WSR_PIN_LINK_BALLOON_RECLAIM, WSR_PIN_LINK, true },
	{ WSR_PIN_PROG_BALLOON_REQUEST, WSR_PIN_PROG, true },
	{ WSR_PIN_LINK_BALLOON_REQUEST_HOOK, WSR_PIN_LINK, true },
};

const unsigned int wsr_nr_pin_names = sizeof(wsr_pin_names) / sizeof(wsr_pin_names[0]);

const struct wsr_pin_name *wsr_pin_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < wsr_nr_pin_names; i++)
		if (!strcmp(wsr_pin_names[i].name, name))
			return &wsr_pin_names[i];
	return NULL;
}

/* the balloon's programs and links: what keeps the virtio_balloon module */
static bool balloon_prog(const struct wsr_pin_name *n)
{
	return n->balloon && n->kind != WSR_PIN_MAP;
}

/* remove the pins of wsr_pin_names for which @which says so */
static void unpin_where(const char *dir, bool (*which)(const struct wsr_pin_name *))
{
	char path[PATH_MAX];
	unsigned int i;

	for (i = 0; i < wsr_nr_pin_names; i++) {
		if (!which(&wsr_pin_names[i]))
			continue;
		wsr_pin_path(dir, wsr_pin_names[i].name, path, sizeof(path));
		unlink(path);
	}
}

static bool not_balloon_prog(const struct wsr_pin_name *n)
{
	return !balloon_prog(n);
}

void wsr_unpin(const char *dir, bool balloon_progs)
{
	/* the balloon's programs first: an unload lets the module go as a detach does */
	unpin_where(dir, balloon_prog);
	if (!balloon_progs)
		unpin_where(dir, not_balloon_prog);
}

static bool estimator_prog(const struct wsr_pin_name *n)
{
	return !n->balloon && n->kind != WSR_PIN_MAP;
}

void wsr_unpin_estimator_progs(const char *dir)
{
	unpin_where(dir, estimator_prog);
}

int wsr_pin_link(const char *dir, struct bpf_link *link, const char *name,
		 struct wsr_err *err)
{
	char path[PATH_MAX];
	int ret = 0;

	wsr_pin_path(dir, name, path, sizeof(path));
	if (!link || bpf_link__pin(link, path)) {
		ret = -errno;
		snprintf(err->msg, sizeof(err->msg), "cannot attach or pin %s: %s", name,
			 strerror(errno));
	}
	/* the pin keeps the link: our fd must not, or unpinning leaves it */
	bpf_link__destroy(link);
	return ret;
}

void wsr_pin_path(const char *dir, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

int wsr_pin_open(const char *dir, const char *name, struct wsr_err *err)
{
	char path[PATH_MAX];
	int fd, e;

	wsr_pin_path(dir, name, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd >= 0)
		return fd;
	e = errno;
	snprintf(err->msg, sizeof(err->msg), "cannot open %s: %s (is \"wsr daemon\" loaded?)",
		 path, strerror(e));
	return -e;
}

void wsr_pins_close(struct wsr_pins *p)
{
	int *fds[] = { &p->config, &p->reports, &p->live, &p->reaccess, &p->watchers };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

int wsr_check_map_layout(int fd, const char *dir, const struct wsr_map_layout *want,
			 struct wsr_err *err)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int e;

	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		e = errno;
		snprintf(err->msg, sizeof(err->msg), "cannot read what %s/%s is: %s", dir,
			 want->name, strerror(e));
		return -e;
	}
	if (info.type == want->type && info.key_size == want->key_size &&
	    info.value_size == want->value_size &&
	    (!want->max_entries || info.max_entries == want->max_entries) &&
	    (want->any_flags || info.map_flags == want->map_flags))
		return 0;
	snprintf(err->msg, sizeof(err->msg),
		 "%s/%s is a map of another layout (type %u, key %u bytes, value %u bytes, "
		 "%u entries, flags %#x; this wsr's: type %u, %u, %u, %u, %#x): pins of an "
		 "older or newer wsr, which this one would misread or cannot reuse.  \"wsr "
		 "unload\" removes them and the knobs they hold; then start \"wsr daemon\" "
		 "again, and set the knobs again",
		 dir, want->name, info.type, info.key_size, info.value_size, info.max_entries,
		 info.map_flags, want->type, want->key_size, want->value_size,
		 want->max_entries ? want->max_entries : info.max_entries,
		 want->any_flags ? info.map_flags : want->map_flags);
	return -EPROTO;
}

int wsr_pins_open(struct wsr_pins *p, const char *dir, const struct wsr_sys *sys,
		  struct wsr_err *err)
{
	/* as bpf/ declares them; max_entries and flags are the daemon's to check */
#define LAYOUT(name, type, key, value) \
	{ name, BPF_MAP_TYPE_##type, sizeof(key), sizeof(value), 0, 0, true }
	static const struct wsr_map_layout maps[] = {
		LAYOUT(WSR_PIN_CONFIG, HASH, struct wsr_key, struct wsr_config),
		LAYOUT(WSR_PIN_REPORTS, HASH, struct wsr_key, struct wsr_report),
		LAYOUT(WSR_PIN_LIVE, HASH, struct wsr_key, struct wsr_report),
		LAYOUT(WSR_PIN_REACCESS, HASH, struct wsr_key, struct wsr_hist),
		LAYOUT(WSR_PIN_WATCHERS, HASH, __u32, __u32),
	};
#undef LAYOUT
	int *fds[] = { &p->config, &p->reports, &p->live, &p->reaccess, &p->watchers };
	size_t i;
	int ret;

	p->dir = dir;
	p->sys = sys;
	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		*fds[i] = -1;
	/*
	 * bpffs is mode 1777 unless mounted with a mode: a pin folder someone
	 * else made or can write to could have our links unpinned or replaced.
	 */
	ret = wsr_check_pin_dir(dir, err);
	if (ret)
		return ret;
	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		ret = wsr_pin_open(dir, maps[i].name, err);
		if (ret >= 0) {
			*fds[i] = ret;
			ret = wsr_check_map_layout(ret, dir, &maps[i], err);
		}
		if (ret < 0) {
			wsr_pins_close(p);
			return ret;
		}
	}
	return 0;
}

bool wsr_pinned(const char *dir, const char *name)
{
	char path[PATH_MAX];

	wsr_pin_path(dir, name, path, sizeof(path));
	return access(path, F_OK) == 0;
}

bool wsr_loaded(const char *dir)
{
	return wsr_pinned(dir, WSR_PIN_LINK_RECLAIM);
}

bool wsr_balloon_attached(const char *dir)
{
	return wsr_pinned(dir, WSR_PIN_LINK_BALLOON_RECLAIM);
}

#define DETACHED	"balloon-detached-"

static void detached_path(const char *dir, ino_t module, char *buf, size_t len)
{
	snprintf(buf, len, "%s/" DETACHED "%llu", dir, (unsigned long long)module);
}

bool wsr_balloon_detached(const char *dir, ino_t module)
{
	char path[PATH_MAX];

	detached_path(dir, module, path, sizeof(path));
	return access(path, F_OK) == 0;
}

void wsr_balloon_clear_detached(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, DETACHED, strlen(DETACHED)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		rmdir(path);
	}
	closedir(d);
}

int wsr_balloon_mark_detached(const char *dir, ino_t module, struct wsr_err *err)
{
	char path[PATH_MAX];
	int e;

	/* one record: those of instances unloaded since mean nothing */
	wsr_balloon_clear_detached(dir);
	detached_path(dir, module, path, sizeof(path));
	if (!mkdir(path, 0700) || errno == EEXIST)
		return 0;
	e = errno;
	snprintf(err->msg, sizeof(err->msg), "cannot record the detach as %s: %s", path,
		 strerror(e));
	return -e;
}

/* a new load pins a new reclaim link, with a new inode */
ino_t wsr_loaded_inode(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	wsr_pin_path(dir, WSR_PIN_LINK_RECLAIM, path, sizeof(path));
	return stat(path, &st) ? 0 : st.st_ino;
}

__u32 wsr_loaded_walk_steps(const char *dir)
{
	struct wsr_stats st = {};
	char path[PATH_MAX];
	int fd;

	wsr_pin_path(dir, WSR_PIN_STATS, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return WSR_MAX_WALK_STEPS;
	if (bpf_map_lookup_elem(fd, &(__u32){ 0 }, &st) || !st.walk_steps ||
	    st.walk_steps > WSR_MAX_WALK_STEPS)
		st.walk_steps = WSR_MAX_WALK_STEPS;
	close(fd);
	return st.walk_steps;
}
