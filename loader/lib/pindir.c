// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libwsr: checks of wsr's pin folder (libwsr.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "libwsr.h"

/* what to do about a folder wsr refuses, appended to each message */
#define REMOVE_IT "remove it and start wsr daemon again"

int wsr_check_pin_dir(const char *path, struct wsr_err *err)
{
	struct stat st;
	int e;

	/* lstat: a symlink could point the pins into a folder someone else owns */
	if (lstat(path, &st)) {
		e = errno;
		if (e == ENOENT)
			snprintf(err->msg, sizeof(err->msg),
				 "%s does not exist (wsr daemon creates it)", path);
		else
			snprintf(err->msg, sizeof(err->msg), "cannot check %s: %s", path,
				 strerror(e));
		return -e;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(err->msg, sizeof(err->msg),
			 "%s is a symlink, not a folder: refusing it (it could lead "
			 "wsr's pins where someone else can unpin them); " REMOVE_IT, path);
		return -EPERM;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err->msg, sizeof(err->msg), "%s is not a folder: " REMOVE_IT, path);
		return -ENOTDIR;
	}
	if (st.st_uid != 0) {
		snprintf(err->msg, sizeof(err->msg),
			 "%s is owned by uid %u, not root: refusing it (someone else could "
			 "unpin wsr's programs); " REMOVE_IT, path, (unsigned int)st.st_uid);
		return -EPERM;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(err->msg, sizeof(err->msg),
			 "%s has mode %04o, open to %s: refusing it (they could unpin "
			 "wsr's programs, or hold its lock and stall the daemon and every "
			 "watcher); " REMOVE_IT, path, (unsigned int)(st.st_mode & 07777),
			 st.st_mode & S_IRWXO ? "others" : "its group");
		return -EPERM;
	}
	return 0;
}

/* flock(@op) of the folder @fd, as wsr_lock_dir() says */
static int lock_dir(int fd, const char *path, int op, unsigned int timeout_ms,
		    struct wsr_err *err)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	unsigned int waited = 0;

	while (flock(fd, op | LOCK_NB)) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			int e = errno;

			snprintf(err->msg, sizeof(err->msg), "cannot lock %s: %s", path,
				 strerror(e));
			return -e;
		}
		if (waited >= timeout_ms) {
			snprintf(err->msg, sizeof(err->msg),
				 "cannot lock %s: another process held its lock for %u ms "
				 "(\"fuser -v %s\" names it)", path, waited, path);
			return -ETIMEDOUT;
		}
		nanosleep(&tick, NULL);
		waited += 10;
	}
	return 0;
}

int wsr_lock_dir(int fd, const char *path, unsigned int timeout_ms, struct wsr_err *err)
{
	return lock_dir(fd, path, LOCK_EX, timeout_ms, err);
}

static int lock_pin_dir(const char *path, int op, unsigned int timeout_ms, struct wsr_err *err)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY), ret;

	if (fd < 0) {
		ret = -errno;
		snprintf(err->msg, sizeof(err->msg), "cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	ret = lock_dir(fd, path, op, timeout_ms, err);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int wsr_lock_pin_dir(const char *path, unsigned int timeout_ms, struct wsr_err *err)
{
	return lock_pin_dir(path, LOCK_EX, timeout_ms, err);
}

int wsr_share_pin_dir(const char *path, unsigned int timeout_ms, struct wsr_err *err)
{
	return lock_pin_dir(path, LOCK_SH, timeout_ms, err);
}
