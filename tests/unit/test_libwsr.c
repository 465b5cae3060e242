// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the libwsr functions that need no BPF: memcg paths
 * resolved below a fake cgroup tree, node lists read from files, the
 * lru_gen command writer, and the bins check of a read.  Files live under
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

	CHECK(root, "cannot make the fake tree: %s", strerror(errno));
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		CHECK(!wsr_memcg_lookup(root, forms[i], &m, &err), "'%s': %s", forms[i], err.msg);
		CHECK(!strcmp(m.rel, "/job/web"), "'%s' gave rel '%s'", forms[i], m.rel);
		CHECK(!strcmp(m.abs + strlen(root), "/job/web") && !strncmp(m.abs, root, strlen(root)),
		      "'%s' gave abs '%s'", forms[i], m.abs);
		CHECK(m.id == inode_of(root, "/job/web"), "'%s': id %llu is not the folder's inode",
		      forms[i], (unsigned long long)m.id);
	}
	snprintf(full, sizeof(full), "%s/job", root);
	CHECK(!wsr_memcg_lookup(root, full, &m, &err), "'%s': %s", full, err.msg);
	CHECK(!strcmp(m.rel, "/job"), "'%s' gave rel '%s'", full, m.rel);
	return NULL;
}

/* "/" and "" are the root: the node level */
static const char *memcg_root_is_slash(void)
{
	const char *root = fake_tree();
	struct wsr_memcg m;
	struct wsr_err err;

	CHECK(root, "cannot make the fake tree");
	CHECK(!wsr_memcg_lookup(root, "/", &m, &err), "'/': %s", err.msg);
	CHECK(!strcmp(m.rel, "/") && m.id == inode_of(root, ""), "'/' gave rel '%s'", m.rel);
	CHECK(!wsr_memcg_lookup(root, "", &m, &err), "'': %s", err.msg);
	CHECK(!strcmp(m.rel, "/"), "'' gave rel '%s'", m.rel);
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

	CHECK(root, "cannot make the fake tree");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = 0;
		CHECK(wsr_memcg_lookup(root, bad[i], &m, &err) == -ENOENT, "accepted '%s'", bad[i]);
		CHECK(strstr(err.msg, bad[i]) && strstr(err.msg, "not found"),
		      "'%s': message '%s'", bad[i], err.msg);
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

	CHECK(root, "cannot make the fake tree");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = 0;
		CHECK(wsr_memcg_lookup(root, bad[i], &m, &err) == -EINVAL, "accepted '%s'", bad[i]);
		CHECK(strstr(err.msg, bad[i]) && strstr(err.msg, "'..'"), "'%s': message '%s'",
		      bad[i], err.msg);
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

	CHECK(root, "cannot make the fake tree");
	snprintf(path, sizeof(path), "%sjob", root);
	err.msg[0] = 0;
	CHECK(wsr_memcg_lookup(root, path, &m, &err) == -ENOENT, "'%s' gave '%s'", path, m.rel);
	CHECK(!wsr_memcg_lookup(root, root, &m, &err) && !strcmp(m.rel, "/"),
	      "the root's own path: '%s' %s", m.rel, err.msg);
	return NULL;
}

/* a path longer than a path can be is refused as such, not cut short */
static const char *memcg_path_too_long_is_refused(void)
{
	static char path[PATH_MAX + 8];
	const char *root = fake_tree();
	struct wsr_memcg m;
	struct wsr_err err;

	CHECK(root, "cannot make the fake tree");
	memset(path, 'a', sizeof(path) - 1);
	memcpy(path, "job/", 4);
	err.msg[0] = 0;
	CHECK(wsr_memcg_lookup(root, path, &m, &err) == -ENAMETOOLONG, "a %zu-byte path accepted",
	      strlen(path));
	CHECK(strstr(err.msg, "too long"), "message '%.200s'", err.msg);
	/* as long as the root leaves room for ("/job/x/x/.../x"): looked up */
	for (size_t i = 4; i < PATH_MAX - strlen(root) - 2; i++)
		path[i] = i % 2 ? '/' : 'x';
	path[PATH_MAX - strlen(root) - 2] = 0;
	err.msg[0] = 0;
	CHECK(wsr_memcg_lookup(root, path, &m, &err) == -ENOENT && strstr(err.msg, "not found"),
	      "the longest path: '%.200s'", err.msg);
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

	CHECK(write_file("has_memory", "0-1,3\n", p, sizeof(p)), "cannot write %s", p);
	CHECK(!wsr_node_list(p, &mask, &err), "0-1,3: %s", err.msg);
	CHECK(mask == 0xb, "0-1,3 gave %#llx", (unsigned long long)mask);
	CHECK(!wsr_node_list(at("no-such-file", p, sizeof(p)), &mask, &err) && mask == 1,
	      "no file gave %#llx", (unsigned long long)mask);
	CHECK(write_file("possible", "0-16\n", p, sizeof(p)), "cannot write %s", p);
	err.msg[0] = 0;
	CHECK(wsr_node_list(p, &mask, &err) == -EINVAL, "0-16 accepted");
	CHECK(!strncmp(err.msg, p, strlen(p)) && strstr(err.msg, "node 16"),
	      "message '%s' names neither the file nor the node", err.msg);
	/* an empty file is the empty list, a malformed one is refused */
	CHECK(write_file("empty", "", p, sizeof(p)), "cannot write %s", p);
	CHECK(!wsr_node_list(p, &mask, &err) && mask == 0, "empty gave %#llx: %s",
	      (unsigned long long)mask, err.msg);
	CHECK(write_file("malformed", "0-1,,3\n", p, sizeof(p)), "cannot write %s", p);
	err.msg[0] = 0;
	mask = 7;
	CHECK(wsr_node_list(p, &mask, &err) == -EINVAL, "0-1,,3 accepted as %#llx",
	      (unsigned long long)mask);
	CHECK(!strncmp(err.msg, p, strlen(p)) && strstr(err.msg, "malformed"), "message '%s'",
	      err.msg);
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
	CHECK(!socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), "socketpair: %s", strerror(errno));
	CHECK(!wsr_age_lines(sv[0], out, strlen(out), &err), "%s", err.msg);
	close(sv[0]);
	n = read(sv[1], got, sizeof(got));
	CHECK(n == 13 && !memcmp(got, "+ 12 0 5 1 1\n", 13), "first write: '%.*s'", (int)n, got);
	n = read(sv[1], got, sizeof(got));
	CHECK(n == 13 && !memcmp(got, "+ 13 1 7 1 1\n", 13), "second write: '%.*s'", (int)n, got);
	/* the unfinished line is not a command */
	n = read(sv[1], got, sizeof(got));
	CHECK(n == 0, "a third write of %zd bytes: '%.*s'", n, (int)n, got);
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

	CHECK(efd >= 0, "eventfd: %s", strerror(errno));
	CHECK(!wsr_age_lines(efd, "+ 11 0 2\n+ 12 0 2\n", 18, &err), "EINVAL stopped it: %s",
	      err.msg);
	close(efd);
	CHECK(write_file("ro", "", p, sizeof(p)), "cannot write %s", p);
	fd = open(p, O_RDONLY);
	CHECK(fd >= 0, "open %s: %s", p, strerror(errno));
	err.msg[0] = 0;
	CHECK(wsr_age_lines(fd, "+ 1 0 2\n", 8, &err) == -EBADF, "EBADF was not an error");
	close(fd);
	CHECK(strstr(err.msg, "aging failed: + 1 0 2:"), "message '%s'", err.msg);
	return NULL;
}

/* a report with other bins than configured is stale (every bound counts) */
static const char *same_bins_compares_every_bound(void)
{
	struct wsr_config cfg = { .intervals_ms = { 10, 20, 30 }, .nr_intervals = 3 };
	struct wsr_hist h = { .bound_ms = { 10, 20, 30, WSR_BIN_INF }, .nr_bins = 4 };

	CHECK(wsr_same_bins(&h, &cfg), "the configured bins were not the same");
	h.bound_ms[2] = 31;
	CHECK(!wsr_same_bins(&h, &cfg), "a different last bound was the same");
	h.bound_ms[2] = 30;
	h.nr_bins = 3;
	CHECK(!wsr_same_bins(&h, &cfg), "one bin fewer was the same");
	cfg.nr_intervals = 0;
	h.nr_bins = 1;
	CHECK(wsr_same_bins(&h, &cfg), "no intervals and the catch-all bin differ");
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
};

UNIT_MAIN(tests)
