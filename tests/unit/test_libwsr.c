// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the libwsr functions that need no BPF: memcg paths
 * resolved below a fake cgroup tree, node lists, the balloon device and
 * swap read from fake sysfs and procfs folders, the lru_gen command
 * writer, and the bins check of a read.  Files live under
 * a mkdtemp folder, removed at exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "libwsr.h"
#include "unit.h"

static char base[] = "/tmp/wsr-test-libwsr.XXXXXX";

static int remove_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static void remove_base(void)
{
	nftw(base, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* @name under the test folder (made once per run) into @buf */
static const char *at(const char *name, char *buf, size_t len)
{
	static bool made;

	if (!made) {
		if (!mkdtemp(base))
			return NULL;
		atexit(remove_base);
		made = true;
	}
	snprintf(buf, len, "%s/%s", base, name);
	return buf;
}

/* a fake cgroup tree: cg/, cg/job/, cg/job/web/ and a file cg/job/memory.max */
static const char *fake_tree(void)
{
	static char root[PATH_MAX];
	char p[PATH_MAX];
	FILE *f;

	if (!at("cg", root, sizeof(root)))
		return NULL;
	if (!access(root, F_OK))
		return root;
	if (mkdir(root, 0755) || mkdir(at("cg/job", p, sizeof(p)), 0755) ||
	    mkdir(at("cg/job/web", p, sizeof(p)), 0755))
		return NULL;
	f = fopen(at("cg/job/memory.max", p, sizeof(p)), "w");
	if (!f)
		return NULL;
	fclose(f);
	return root;
}

static __u64 inode_of(const char *root, const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	return stat(p, &st) ? 0 : st.st_ino;
}

/* "/a/b", "a/b", "ROOT/a/b" and trailing slashes all name one memcg */
static const char *memcg_paths_are_made_canonical(void)
{
	static const char *const forms[] = { "/job/web", "job/web", "/job/web/", "//job/web//",
					     "job//web", "./job/./web/." };
	const char *root = fake_tree();
	struct wsr_memcg m;
	struct wsr_err err;
	char full[PATH_MAX];
	unsigned int i;

	ASSERT_OK_PTR(root, "the fake tree: %s", strerror(errno));
	snprintf(full, sizeof(full), "%s/job/web", root);
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		ASSERT_OK(wsr_memcg_lookup(root, forms[i], &m, &err), "'%s': %s", forms[i],
			  err.msg);
		ASSERT_STREQ(m.rel, "/job/web", "the path below the root of '%s'", forms[i]);
		ASSERT_STREQ(m.abs, full, "the folder of '%s'", forms[i]);
		ASSERT_EQ(m.id, inode_of(root, "/job/web"), "the id (its inode) of '%s'", forms[i]);
	}
	snprintf(full, sizeof(full), "%s/job", root);
	ASSERT_OK(wsr_memcg_lookup(root, full, &m, &err), "'%s': %s", full, err.msg);
	ASSERT_STREQ(m.rel, "/job", "the path below the root of '%s'", full);
	return NULL;
}

/* "/" and "" are the root: the node level */
static const char *memcg_root_is_slash(void)
{
	const char *root = fake_tree();
	struct wsr_memcg m;
	struct wsr_err err;

	ASSERT_OK_PTR(root, "the fake tree");
	ASSERT_OK(wsr_memcg_lookup(root, "/", &m, &err), "'/': %s", err.msg);
	ASSERT_STREQ(m.rel, "/", "the path below the root of '/'");
	ASSERT_EQ(m.id, inode_of(root, ""), "the id (the root's inode) of '/'");
	ASSERT_OK(wsr_memcg_lookup(root, "", &m, &err), "the empty path: %s", err.msg);
	ASSERT_STREQ(m.rel, "/", "the path below the root of the empty path");
	return NULL;
}

/* a missing folder, or a file, is no memcg: -ENOENT and a message naming it */
static const char *memcg_must_be_a_folder(void)
{
	static const char *const bad[] = { "/nope", "/job/memory.max", "/job/web/deeper" };
	const char *root = fake_tree();
	struct wsr_memcg m;
	struct wsr_err err;
	unsigned int i;

	ASSERT_OK_PTR(root, "the fake tree");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = 0;
		ASSERT_EQ(wsr_memcg_lookup(root, bad[i], &m, &err), -ENOENT, "'%s'", bad[i]);
		ASSERT_HAS_SUBSTR(err.msg, bad[i], "'%s': the message", bad[i]);
		ASSERT_HAS_SUBSTR(err.msg, "not found", "'%s': the message", bad[i]);
	}
	return NULL;
}

/*
 * ".." could name a folder outside the cgroup tree, whose inode is no
 * cgroup id: refused, whatever it resolves to
 */
static const char *memcg_path_stays_below_the_root(void)
{
	static const char *const bad[] = { "..", "/job/../..", "job/..", "/job/../job/web", "../" };
	const char *root = fake_tree();
	struct wsr_memcg m;
	struct wsr_err err;
	unsigned int i;

	ASSERT_OK_PTR(root, "the fake tree");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = 0;
		ASSERT_EQ(wsr_memcg_lookup(root, bad[i], &m, &err), -EINVAL, "'%s'", bad[i]);
		ASSERT_HAS_SUBSTR(err.msg, bad[i], "'%s': the message", bad[i]);
		ASSERT_HAS_SUBSTR(err.msg, "'..'", "'%s': the message", bad[i]);
	}
	return NULL;
}

/* the root's own path is cut off only as a whole folder: "ROOTjob" is not "/job" */
static const char *memcg_root_prefix_is_a_whole_folder(void)
{
	const char *root = fake_tree();
	char path[PATH_MAX];
	struct wsr_memcg m;
	struct wsr_err err;

	ASSERT_OK_PTR(root, "the fake tree");
	snprintf(path, sizeof(path), "%sjob", root);
	err.msg[0] = 0;
	ASSERT_EQ(wsr_memcg_lookup(root, path, &m, &err), -ENOENT, "'%s'", path);
	ASSERT_OK(wsr_memcg_lookup(root, root, &m, &err), "the root's own path: %s", err.msg);
	ASSERT_STREQ(m.rel, "/", "the path below the root of the root's own path");
	return NULL;
}

/* a path longer than a path can be is refused as such, not cut short */
static const char *memcg_path_too_long_is_refused(void)
{
	static char path[PATH_MAX + 8];
	const char *root = fake_tree();
	struct wsr_memcg m;
	struct wsr_err err;

	ASSERT_OK_PTR(root, "the fake tree");
	memset(path, 'a', sizeof(path) - 1);
	memcpy(path, "job/", 4);
	err.msg[0] = 0;
	ASSERT_EQ(wsr_memcg_lookup(root, path, &m, &err), -ENAMETOOLONG, "a %zu-byte path",
		  strlen(path));
	ASSERT_HAS_SUBSTR(err.msg, "too long", "a %zu-byte path: the message", strlen(path));
	/* as long as the root leaves room for ("/job/x/x/.../x"): looked up */
	for (size_t i = 4; i < PATH_MAX - strlen(root) - 2; i++)
		path[i] = i % 2 ? '/' : 'x';
	path[PATH_MAX - strlen(root) - 2] = 0;
	err.msg[0] = 0;
	ASSERT_EQ(wsr_memcg_lookup(root, path, &m, &err), -ENOENT, "the longest path");
	ASSERT_HAS_SUBSTR(err.msg, "not found", "the longest path: the message");
	return NULL;
}

static const char *write_file(const char *name, const char *text, char *buf, size_t len)
{
	FILE *f = fopen(at(name, buf, len), "w");

	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	return buf;
}

/* sysfs's list "0-1,3", no file (node 0 alone), and a list wsr cannot cover */
static const char *node_list_files(void)
{
	char p[PATH_MAX];
	struct wsr_err err;
	__u64 mask = 0;

	ASSERT_OK_PTR(write_file("has_memory", "0-1,3\n", p, sizeof(p)), "write %s", p);
	ASSERT_OK(wsr_node_list(p, &mask, &err), "0-1,3: %s", err.msg);
	ASSERT_EQ(mask, 0xb, "the mask of 0-1,3");
	ASSERT_OK(wsr_node_list(at("no-such-file", p, sizeof(p)), &mask, &err), "no file");
	ASSERT_EQ(mask, 1, "the mask of no file");
	ASSERT_OK_PTR(write_file("possible", "0-16\n", p, sizeof(p)), "write %s", p);
	err.msg[0] = 0;
	ASSERT_EQ(wsr_node_list(p, &mask, &err), -EINVAL, "0-16");
	ASSERT_STRPREFIX(err.msg, p, "0-16: the message");
	ASSERT_HAS_SUBSTR(err.msg, "node 16", "0-16: the message");
	/* an empty file is the empty list, a malformed one is refused */
	ASSERT_OK_PTR(write_file("empty", "", p, sizeof(p)), "write %s", p);
	ASSERT_OK(wsr_node_list(p, &mask, &err), "an empty file: %s", err.msg);
	ASSERT_EQ(mask, 0, "the mask of an empty file");
	ASSERT_OK_PTR(write_file("malformed", "0-1,,3\n", p, sizeof(p)), "write %s", p);
	err.msg[0] = 0;
	mask = 7;
	ASSERT_EQ(wsr_node_list(p, &mask, &err), -EINVAL, "0-1,,3");
	ASSERT_STRPREFIX(err.msg, p, "0-1,,3: the message");
	ASSERT_HAS_SUBSTR(err.msg, "malformed", "0-1,,3: the message");
	return NULL;
}

/* what prog_refresh prints goes to lru_gen one command per write() */
static const char *age_lines_writes_one_line_per_write(void)
{
	static const char out[] = "+ 12 0 5 1 1\n+ 13 1 7 1 1\n+ 14 0";
	char got[64];
	struct wsr_err err;
	int sv[2];
	ssize_t n;

	/* SOCK_SEQPACKET keeps write boundaries, as lru_gen sees them */
	ASSERT_OK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), "socketpair: %s", strerror(errno));
	ASSERT_OK(wsr_age_lines(sv[0], out, strlen(out), &err), "%s", err.msg);
	close(sv[0]);
	n = read(sv[1], got, sizeof(got));
	ASSERT_EQ(n, 13, "the first write's bytes");
	ASSERT_MEMEQ(got, "+ 12 0 5 1 1\n", 13, "the first write");
	n = read(sv[1], got, sizeof(got));
	ASSERT_EQ(n, 13, "the second write's bytes");
	ASSERT_MEMEQ(got, "+ 13 1 7 1 1\n", 13, "the second write");
	/* the unfinished line is not a command */
	n = read(sv[1], got, sizeof(got));
	ASSERT_EQ(n, 0, "a third write's bytes");
	close(sv[1]);
	return NULL;
}

/*
 * A memcg or lruvec gone meanwhile makes lru_gen refuse its line with
 * EINVAL: the other lines still go.  Other errors stop, and say which line.
 */
static const char *age_lines_skips_gone_lruvecs_only(void)
{
	/* an eventfd refuses any write but 8 bytes with EINVAL */
	int efd = eventfd(0, 0), fd;
	struct wsr_err err;
	char p[PATH_MAX];

	ASSERT_GE(efd, 0, "eventfd: %s", strerror(errno));
	ASSERT_OK(wsr_age_lines(efd, "+ 11 0 2\n+ 12 0 2\n", 18, &err),
		  "lines refused with EINVAL: %s", err.msg);
	close(efd);
	ASSERT_OK_PTR(write_file("ro", "", p, sizeof(p)), "write %s", p);
	fd = open(p, O_RDONLY);
	ASSERT_GE(fd, 0, "open %s: %s", p, strerror(errno));
	err.msg[0] = 0;
	ASSERT_EQ(wsr_age_lines(fd, "+ 1 0 2\n", 8, &err), -EBADF, "a line refused with EBADF");
	close(fd);
	ASSERT_HAS_SUBSTR(err.msg, "aging failed: + 1 0 2:",
			  "a line refused with EBADF: the message");
	return NULL;
}

/* a report with other bins than configured is stale (every bound counts) */
static const char *same_bins_compares_every_bound(void)
{
	struct wsr_config cfg = { .intervals_ms = { 10, 20, 30 }, .nr_intervals = 3 };
	struct wsr_hist h = { .bound_ms = { 10, 20, 30, WSR_BIN_INF }, .nr_bins = 4 };

	ASSERT_TRUE(wsr_same_bins(&h, &cfg), "the configured bins");
	h.bound_ms[2] = 31;
	ASSERT_FALSE(wsr_same_bins(&h, &cfg), "another last bound");
	h.bound_ms[2] = 30;
	h.nr_bins = 3;
	ASSERT_FALSE(wsr_same_bins(&h, &cfg), "one bin fewer");
	cfg.nr_intervals = 0;
	h.nr_bins = 1;
	ASSERT_TRUE(wsr_same_bins(&h, &cfg), "no intervals and the catch-all bin alone");
	return NULL;
}

/* the folders @name and those above it, under the test folder, into @buf */
static const char *make_dirs(const char *name, char *buf, size_t len)
{
	char *slash;

	if (!at(name, buf, len))
		return NULL;
	for (slash = strchr(buf + strlen(base) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		if (mkdir(buf, 0755) && errno != EEXIST)
			return NULL;
		*slash = '/';
	}
	return mkdir(buf, 0755) && errno != EEXIST ? NULL : buf;
}

/*
 * The balloon device the kfuncs report through is the one whose "active"
 * reads 1, below the driver's folder the caller gives: not merely the
 * first one bound
 */
static const char *balloon_dir_is_the_active_devices(void)
{
	struct wsr_sys sys = {};
	char drv[PATH_MAX], p[PATH_MAX], dir[PATH_MAX];

	ASSERT_OK_PTR(make_dirs("balloon/virtio1/working_set", p, sizeof(p)), "mkdir");
	ASSERT_OK_PTR(make_dirs("balloon/virtio2/working_set", p, sizeof(p)), "mkdir");
	ASSERT_OK_PTR(write_file("balloon/virtio1/working_set/active", "0\n", p, sizeof(p)),
		      "write %s", p);
	ASSERT_OK_PTR(write_file("balloon/virtio2/working_set/active", "1\n", p, sizeof(p)),
		      "write %s", p);
	ASSERT_OK_PTR(write_file("balloon/virtio2/working_set/refresh_ms", "1500\n", p, sizeof(p)),
		      "write %s", p);
	sys.balloon = at("balloon", drv, sizeof(drv));
	ASSERT_OK(wsr_balloon_dir(&sys, dir, sizeof(dir)), "the active device");
	ASSERT_STREQ(dir, at("balloon/virtio2/working_set", p, sizeof(p)), "the active device");
	ASSERT_EQ(wsr_balloon_read_u64(dir, "refresh_ms"), 1500, "its refresh_ms");
	ASSERT_EQ(wsr_balloon_read_u64(dir, "no-such-file"), 0, "a file it does not have");
	ASSERT_OK_PTR(write_file("balloon/virtio2/working_set/active", "0\n", p, sizeof(p)),
		      "write %s", p);
	ASSERT_ERR(wsr_balloon_dir(&sys, dir, sizeof(dir)), "no active device");
	return NULL;
}

/* the node lists of the sysfs folder the caller gives */
static const char *nodes_are_read_below_the_given_folder(void)
{
	struct wsr_sys sys = {};
	char p[PATH_MAX], dir[PATH_MAX];

	ASSERT_OK_PTR(make_dirs("nodes", dir, sizeof(dir)), "mkdir");
	ASSERT_OK_PTR(write_file("nodes/possible", "0-2\n", p, sizeof(p)), "write %s", p);
	ASSERT_OK_PTR(write_file("nodes/has_memory", "0,2\n", p, sizeof(p)), "write %s", p);
	sys.node = dir;
	ASSERT_EQ(wsr_possible_nodes(&sys), 3, "possible nodes of 0-2");
	ASSERT_EQ(wsr_memory_nodes(&sys), 0x5, "the nodes with memory of 0,2");
	/* lists that do not parse are node 0 alone */
	ASSERT_OK_PTR(write_file("nodes/has_memory", "0,,2\n", p, sizeof(p)), "write %s", p);
	ASSERT_EQ(wsr_memory_nodes(&sys), 0x1, "the nodes with memory of 0,,2");
	return NULL;
}

/* what a refresh passes on of swap comes from the procfs the caller gives */
static const char *swap_state_is_read_below_the_given_procfs(void)
{
	struct wsr_refresh_args a = {};
	struct wsr_sys sys = {};
	char p[PATH_MAX], dir[PATH_MAX];

	ASSERT_OK_PTR(make_dirs("proc/sys/vm", p, sizeof(p)), "mkdir");
	ASSERT_OK_PTR(write_file("proc/sys/vm/swappiness", "33\n", p, sizeof(p)), "write %s", p);
	ASSERT_OK_PTR(write_file("proc/meminfo", "MemFree:  100 kB\nSwapFree:  8192 kB\n", p,
				 sizeof(p)), "write %s", p);
	sys.proc = at("proc", dir, sizeof(dir));
	wsr_swap_state(&sys, &a);
	ASSERT_EQ(a.swappiness, 33, "vm.swappiness");
	ASSERT_EQ(a.swap_free, 8192 / (sysconf(_SC_PAGESIZE) / 1024), "free swap pages");
	return NULL;
}

static const struct unit_test tests[] = {
	{ "memcg_paths_are_made_canonical", memcg_paths_are_made_canonical },
	{ "memcg_root_is_slash", memcg_root_is_slash },
	{ "memcg_must_be_a_folder", memcg_must_be_a_folder },
	{ "memcg_path_stays_below_the_root", memcg_path_stays_below_the_root },
	{ "memcg_root_prefix_is_a_whole_folder", memcg_root_prefix_is_a_whole_folder },
	{ "memcg_path_too_long_is_refused", memcg_path_too_long_is_refused },
	{ "node_list_files", node_list_files },
	{ "age_lines_writes_one_line_per_write", age_lines_writes_one_line_per_write },
	{ "age_lines_skips_gone_lruvecs_only", age_lines_skips_gone_lruvecs_only },
	{ "same_bins_compares_every_bound", same_bins_compares_every_bound },
	{ "balloon_dir_is_the_active_devices", balloon_dir_is_the_active_devices },
	{ "nodes_are_read_below_the_given_folder", nodes_are_read_below_the_given_folder },
	{ "swap_state_is_read_below_the_given_procfs", swap_state_is_read_below_the_given_procfs },
};

UNIT_MAIN(tests)
