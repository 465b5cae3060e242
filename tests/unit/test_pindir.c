// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the pin folder check in loader/lib/pindir.c, on folders made
 * under a mkdtemp folder (removed at exit).  They chown, so they run as
 * root, as the host unit tests do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "libwsr.h"
#include "unit.h"

static char base[] = "/tmp/wsr-test-pindir.XXXXXX";
static char path[sizeof(base) + 32];

static int remove_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static void remove_base(void)
{
	nftw(base, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* a fresh path @name under the test folder, made once per run */
static const char *fresh(const char *name)
{
	static bool made;

	if (!made) {
		if (!mkdtemp(base))
			return NULL;
		atexit(remove_base);
		made = true;
	}
	snprintf(path, sizeof(path), "%s/%s", base, name);
	return path;
}

/* a folder @name with @mode (umask aside), owned by root */
static const char *make_dir(const char *name, mode_t mode)
{
	const char *p = fresh(name);

	if (!p || mkdir(p, 0700) || chmod(p, mode))
		return NULL;
	return p;
}

static const char *root_owned_private_dir_passes(void)
{
	struct wsr_err err = { "" };
	const char *p;

	/* it makes root-owned folders and chowns */
	ASSERT_EQ(geteuid(), 0, "the user");
	ASSERT_OK_PTR(p = make_dir("private", 0700), "mkdir: %s", strerror(errno));
	ASSERT_OK(wsr_check_pin_dir(p, &err), "mode 0700: %s", err.msg);
	return NULL;
}

/*
 * Any access for group or others fails: a writer could unpin, and a
 * reader (0755, which root's mkdir gives by default) could open the
 * folder and hold its lock for ever.
 */
static const char *group_or_other_access_fails(void)
{
	static const struct {
		const char *name;
		mode_t mode;
		const char *who;
	} bad[] = {
		{ "g", 0770, "its group" }, { "o", 0707, "others" }, { "go", 0777, "others" },
		/* what bpffs is unless mounted with a mode */
		{ "sticky", 01777, "others" },
		{ "readable", 0755, "others" }, { "group-read", 0750, "its group" },
		{ "other-search", 0701, "others" },
	};
	struct wsr_err err;
	const char *p;
	unsigned int i;
	int r;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_OK_PTR(p = make_dir(bad[i].name, bad[i].mode), "mkdir: %s", strerror(errno));
		err.msg[0] = 0;
		r = wsr_check_pin_dir(p, &err);
		ASSERT_EQ(r, -EPERM, "mode %04o", bad[i].mode);
		ASSERT_HAS_SUBSTR(err.msg, p, "mode %04o: the message", bad[i].mode);
		ASSERT_HAS_SUBSTR(err.msg, bad[i].who, "mode %04o: the message", bad[i].mode);
		ASSERT_HAS_SUBSTR(err.msg, "remove it", "mode %04o: the message", bad[i].mode);
	}
	return NULL;
}

static const char *other_owner_fails(void)
{
	struct wsr_err err = { "" };
	const char *p;
	char want[256];
	int r;

	ASSERT_OK_PTR(p = make_dir("nobody", 0700), "mkdir: %s", strerror(errno));
	ASSERT_OK(chown(p, 65534, 0), "chown: %s", strerror(errno));
	r = wsr_check_pin_dir(p, &err);
	ASSERT_EQ(r, -EPERM, "owner 65534");
	snprintf(want, sizeof(want), "%s is owned by uid 65534, not root: refusing it", p);
	ASSERT_STRPREFIX(err.msg, want, "owner 65534: the message");
	/* root's user with another group is still root's */
	ASSERT_OK_PTR(p = make_dir("group", 0700), "mkdir: %s", strerror(errno));
	ASSERT_OK(chown(p, 0, 65534), "chown: %s", strerror(errno));
	ASSERT_OK(wsr_check_pin_dir(p, &err), "root:65534 0700: %s", err.msg);
	return NULL;
}

/* lstat, not stat: a link to a good folder is not that folder */
static const char *symlink_to_good_dir_fails(void)
{
	struct wsr_err err = { "" };
	char target[sizeof(path)];
	const char *p;
	int r;

	ASSERT_OK_PTR(p = make_dir("target", 0700), "mkdir: %s", strerror(errno));
	strcpy(target, p);
	ASSERT_OK(wsr_check_pin_dir(target, &err), "the target: %s", err.msg);
	p = fresh("link");
	ASSERT_OK(symlink(target, p), "symlink: %s", strerror(errno));
	r = wsr_check_pin_dir(p, &err);
	ASSERT_EQ(r, -EPERM, "a symlink to the target");
	ASSERT_HAS_SUBSTR(err.msg, "symlink", "a symlink to the target: the message");
	return NULL;
}

static const char *regular_file_fails(void)
{
	struct wsr_err err = { "" };
	const char *p = fresh("file");
	FILE *f;
	int r;

	ASSERT_OK_PTR(p, "mkdtemp: %s", strerror(errno));
	ASSERT_OK_PTR(f = fopen(p, "w"), "create: %s", strerror(errno));
	fclose(f);
	ASSERT_OK(chmod(p, 0600), "chmod: %s", strerror(errno));
	r = wsr_check_pin_dir(p, &err);
	ASSERT_ERR(r, "a regular file");
	ASSERT_HAS_SUBSTR(err.msg, "not a folder", "a regular file: the message");
	return NULL;
}

/* the daemon creates a missing folder: the caller must tell this apart */
static const char *missing_path_is_enoent(void)
{
	struct wsr_err err = { "" };
	const char *p = fresh("missing");
	int r;

	ASSERT_OK_PTR(p, "mkdtemp: %s", strerror(errno));
	r = wsr_check_pin_dir(p, &err);
	ASSERT_EQ(r, -ENOENT, "a missing path");
	ASSERT_HAS_SUBSTR(err.msg, "does not exist", "a missing path: the message");
	return NULL;
}

/*
 * A lock held by another process (a local user could, on a folder it can
 * open) makes wsr_lock_dir() give up after its timeout, saying so, and
 * not wait for ever; once released, the lock is taken.
 */
static const char *lock_held_by_another_times_out(void)
{
	struct wsr_err err = { "" };
	struct timespec t0, t1;
	int fd, locked[2], release[2], r;
	const char *p;
	double ms;
	pid_t pid;
	char c;

	ASSERT_OK_PTR(p = make_dir("locked", 0700), "mkdir: %s", strerror(errno));
	ASSERT_OK(pipe(locked), "pipe");
	ASSERT_OK(pipe(release), "pipe");
	pid = fork();
	ASSERT_GE(pid, 0, "fork");
	if (!pid) {
		/* hold the lock until the parent closes its end of @release */
		close(locked[0]);
		close(release[1]);
		fd = open(p, O_RDONLY | O_DIRECTORY);
		if (fd < 0 || flock(fd, LOCK_EX) || write(locked[1], "l", 1) != 1)
			_exit(1);
		_exit(read(release[0], &c, 1) < 0);
	}
	close(locked[1]);
	close(release[0]);
	ASSERT_EQ(read(locked[0], &c, 1), 1, "the child's lock");
	close(locked[0]);
	fd = open(p, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(fd, 0, "open %s", p);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = wsr_lock_dir(fd, p, 300, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	ASSERT_EQ(r, -ETIMEDOUT, "the result with the lock held");
	ASSERT_HAS_SUBSTR(err.msg, "held its lock", "the message");
	ASSERT_HAS_SUBSTR(err.msg, p, "the message");
	ASSERT_GE(ms, 290, "the wait (ms)");
	ASSERT_LE(ms, 5000, "the wait (ms)");
	close(release[1]);
	waitpid(pid, NULL, 0);
	ASSERT_OK(wsr_lock_dir(fd, p, 300, &err), "the lock, released: %s", err.msg);
	close(fd);
	return NULL;
}

/*
 * Readers of the knobs share the lock, writers take it whole: a reader
 * waits out a writer (wsr get never sees a set half done), readers do not
 * wait on each other, and a writer waits out a reader.  flock() locks
 * belong to an open file, so one process can hold both ends.
 */
static const char *readers_share_the_lock_writers_exclude(void)
{
	struct wsr_err err = { "" };
	int held, fd;
	const char *p;

	ASSERT_OK_PTR(p = make_dir("shared", 0700), "mkdir: %s", strerror(errno));
	held = open(p, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(held, 0, "open %s", p);
	ASSERT_OK(flock(held, LOCK_EX), "flock");
	fd = wsr_share_pin_dir(p, 100, &err);
	ASSERT_EQ(fd, -ETIMEDOUT, "a reader while a writer holds the lock");
	ASSERT_HAS_SUBSTR(err.msg, "held its lock", "the message");
	ASSERT_OK(flock(held, LOCK_SH), "flock");
	fd = wsr_share_pin_dir(p, 100, &err);
	ASSERT_GE(fd, 0, "a reader beside another: %s", err.msg);
	close(fd);
	fd = wsr_lock_pin_dir(p, 100, &err);
	ASSERT_EQ(fd, -ETIMEDOUT, "a writer while a reader holds the lock");
	close(held);
	fd = wsr_lock_pin_dir(p, 100, &err);
	ASSERT_GE(fd, 0, "a writer, the reader gone: %s", err.msg);
	close(fd);
	return NULL;
}

static const struct unit_test tests[] = {
	{ "readers_share_the_lock_writers_exclude", readers_share_the_lock_writers_exclude },
	{ "root_owned_private_dir_passes", root_owned_private_dir_passes },
	{ "group_or_other_access_fails", group_or_other_access_fails },
	{ "lock_held_by_another_times_out", lock_held_by_another_times_out },
	{ "other_owner_fails", other_owner_fails },
	{ "symlink_to_good_dir_fails", symlink_to_good_dir_fails },
	{ "regular_file_fails", regular_file_fails },
	{ "missing_path_is_enoent", missing_path_is_enoent },
};

UNIT_MAIN(tests)
