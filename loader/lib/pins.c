// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libwsr: the pins "wsr daemon" left in bpffs (libwsr.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "libwsr.h"

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

int wsr_pins_open(struct wsr_pins *p, const char *dir, struct wsr_err *err)
{
	static const char *const names[] = { "config", "reports", "live", "reaccess",
					     "watchers" };
	int *fds[] = { &p->config, &p->reports, &p->live, &p->reaccess, &p->watchers };
	size_t i;
	int ret;

	p->dir = dir;
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
		ret = wsr_pin_open(dir, names[i], err);
		if (ret < 0) {
			wsr_pins_close(p);
			return ret;
		}
		*fds[i] = ret;
	}
	return 0;
}

bool wsr_loaded(const char *dir)
{
	char path[PATH_MAX];

	wsr_pin_path(dir, "link_reclaim", path, sizeof(path));
	return access(path, F_OK) == 0;
}

/* a new load pins a new reclaim link, with a new inode */
ino_t wsr_loaded_inode(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	wsr_pin_path(dir, "link_reclaim", path, sizeof(path));
	return stat(path, &st) ? 0 : st.st_ino;
}

__u32 wsr_loaded_walk_steps(const char *dir)
{
	struct wsr_stats st = {};
	char path[PATH_MAX];
	int fd;

	wsr_pin_path(dir, "stats", path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return WSR_MAX_WALK_STEPS;
	if (bpf_map_lookup_elem(fd, &(__u32){ 0 }, &st) || !st.walk_steps ||
	    st.walk_steps > WSR_MAX_WALK_STEPS)
		st.walk_steps = WSR_MAX_WALK_STEPS;
	close(fd);
	return st.walk_steps;
}
