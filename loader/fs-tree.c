// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wsr fs: the tree.  DIR/devices/system/node/nodeN/wss/ holds the seed's
 * per-node files, for each node with memory; DIR/fs/cgroup/ mirrors the
 * cgroup2 tree's folders as they are at each look-up, and a memcg's
 * folder holds the seed's memory.wss.* and memory.reaccess.* files where
 * the kernel's memory.* files are: not on the root (the seed's
 * CFTYPE_NOT_ON_ROOT), and only where the memory controller is on.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fs.h"

struct fs_file {
	const char *name;
	enum fs_kind kind;
	int knob;
	mode_t mode;
};

/* the seed's __ATTR_RW and __ATTR_RO: 0644, 0444 */
static const struct fs_file node_files[] = {
	{ "histogram", FS_HISTOGRAM, -1, 0444 },
	{ "intervals_ms", FS_KNOB, WSR_KNOB_INTERVALS, 0644 },
	{ "refresh_ms", FS_KNOB, WSR_KNOB_REFRESH, 0644 },
	{ "report_ms", FS_KNOB, WSR_KNOB_REPORT, 0644 },
};

/* cgroup files with a write op are 0644, the others 0444 */
static const struct fs_file memcg_files[] = {
	{ "memory.reaccess.histogram", FS_REACCESS, -1, 0444 },
	{ "memory.reaccess.intervals_ms", FS_KNOB, WSR_KNOB_REACCESS_INTERVALS, 0644 },
	{ "memory.wss.histogram", FS_HISTOGRAM, -1, 0444 },
	{ "memory.wss.intervals_ms", FS_KNOB, WSR_KNOB_INTERVALS, 0644 },
	{ "memory.wss.refresh_ms", FS_KNOB, WSR_KNOB_REFRESH, 0644 },
	{ "memory.wss.report_ms", FS_KNOB, WSR_KNOB_REPORT, 0644 },
};

/* the fixed folders below devices/, each with its one child */
static const char *const node_dirs[] = { "system", "node" };

static const struct fs_file *find(const struct fs_file *files, size_t nr, const char *name)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(files[i].name, name))
			return &files[i];
	return NULL;
}

static int as_dir(struct fs_path *fp)
{
	fp->kind = FS_DIR;
	fp->mode = S_IFDIR | 0755;
	return 0;
}

static int as_file(struct fs_path *fp, const struct fs_file *f)
{
	fp->kind = f->kind;
	fp->knob = f->knob;
	fp->mode = S_IFREG | f->mode;
	return 0;
}

/* "node<N>" of a node with memory: N, else -1 */
static int node_of(const char *name)
{
	__u64 n, mask = wsr_memory_nodes(&sys);
	struct wsr_err err;

	if (strncmp(name, "node", 4) || wsr_parse_u64(name + 4, &n, "node", &err) ||
	    n >= WSR_MAX_NODES || !(mask >> n & 1))
		return -1;
	return (int)n;
}

/* comps[i] of the path below devices/, split at "/": system/node/nodeN/wss/FILE */
static int resolve_node(char **comps, int nr, struct fs_path *fp)
{
	const struct fs_file *f;
	int i;

	for (i = 0; i < nr && i < 2; i++)
		if (strcmp(comps[i], node_dirs[i]))
			return -ENOENT;
	if (nr <= 2)
		return as_dir(fp);
	fp->node = node_of(comps[2]);
	if (fp->node < 0 || nr > 5 || (nr > 3 && strcmp(comps[3], "wss")))
		return -ENOENT;
	if (nr <= 4)
		return as_dir(fp);
	f = find(node_files, ARRAY_SIZE(node_files), comps[4]);
	return f ? as_file(fp, f) : -ENOENT;
}

/* the memory controller is on in @abs, and it is not the root */
static bool has_memory_files(const char *abs)
{
	char p[PATH_MAX + PATH_MAX + 32];
	struct stat st;

	snprintf(p, sizeof(p), "%s/memory.current", abs);
	return !stat(p, &st);
}

/* fs/cgroup/<memcg path>[/FILE] */
static int resolve_cgroup(char **comps, int nr, struct fs_path *fp)
{
	char abs[PATH_MAX + PATH_MAX];
	const struct fs_file *f;
	struct stat st;
	size_t len = 0;
	int i;

	if (nr < 1 || strcmp(comps[0], "cgroup"))
		return -ENOENT;
	fp->cgroup[0] = 0;
	for (i = 1; i < nr; i++) {
		if (!strcmp(comps[i], ".") || !strcmp(comps[i], ".."))
			return -ENOENT;
		len += snprintf(fp->cgroup + len, sizeof(fp->cgroup) - len, "/%s", comps[i]);
		if (len >= sizeof(fp->cgroup))
			return -ENAMETOOLONG;
	}
	snprintf(abs, sizeof(abs), "%s%s", sys.cgroup, fp->cgroup);
	if (!lstat(abs, &st) && S_ISDIR(st.st_mode)) {
		fp->uid = st.st_uid;
		fp->gid = st.st_gid;
		return as_dir(fp);
	}
	/* a file: its folder is the memcg, and not the root */
	f = nr > 2 ? find(memcg_files, ARRAY_SIZE(memcg_files), comps[nr - 1]) : NULL;
	if (!f)
		return -ENOENT;
	*strrchr(fp->cgroup, '/') = 0;
	snprintf(abs, sizeof(abs), "%s%s", sys.cgroup, fp->cgroup);
	if (lstat(abs, &st) || !S_ISDIR(st.st_mode) || !has_memory_files(abs))
		return -ENOENT;
	/* a delegated memcg's files are its owner's, as the kernel's are */
	fp->uid = st.st_uid;
	fp->gid = st.st_gid;
	fp->memcg = true;
	return as_file(fp, f);
}

int fs_resolve(const char *path, struct fs_path *fp)
{
	char copy[PATH_MAX], *comps[PATH_MAX / 2], *save = NULL, *c;
	int nr = 0;

	memset(fp, 0, sizeof(*fp));
	fp->node = -1;
	fp->knob = -1;
	if (strlen(path) >= sizeof(copy))
		return -ENAMETOOLONG;
	strcpy(copy, path);
	for (c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save))
		comps[nr++] = c;
	if (!nr)
		return as_dir(fp);
	if (!strcmp(comps[0], "devices"))
		return resolve_node(comps + 1, nr - 1, fp);
	if (!strcmp(comps[0], "fs"))
		return nr == 1 ? as_dir(fp) : resolve_cgroup(comps + 1, nr - 1, fp);
	return -ENOENT;
}

static void fill_files(const struct fs_file *files, size_t nr, void *buf, fuse_fill_dir_t fill)
{
	size_t i;

	for (i = 0; i < nr; i++)
		fill(buf, files[i].name, NULL, 0, 0);
}

/* a memcg folder: its child memcgs, then its files */
static int list_cgroup(const struct fs_path *fp, void *buf, fuse_fill_dir_t fill)
{
	char abs[PATH_MAX + PATH_MAX];
	struct dirent *d;
	DIR *dir;

	snprintf(abs, sizeof(abs), "%s%s", sys.cgroup, fp->cgroup);
	dir = opendir(abs);
	if (!dir)
		return -errno;
	while ((d = readdir(dir)))
		if (d->d_type == DT_DIR && strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			fill(buf, d->d_name, NULL, 0, 0);
	closedir(dir);
	if (fp->cgroup[0] && has_memory_files(abs))
		fill_files(memcg_files, ARRAY_SIZE(memcg_files), buf, fill);
	return 0;
}

int fs_list(const struct fs_path *fp, void *buf, fuse_fill_dir_t fill, const char *path)
{
	__u64 mask = wsr_memory_nodes(&sys);
	char name[32];
	__u32 n;

	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	if (!strcmp(path, "/")) {
		fill(buf, "devices", NULL, 0, 0);
		fill(buf, "fs", NULL, 0, 0);
	} else if (!strcmp(path, "/devices")) {
		fill(buf, "system", NULL, 0, 0);
	} else if (!strcmp(path, "/devices/system")) {
		fill(buf, "node", NULL, 0, 0);
	} else if (!strcmp(path, "/devices/system/node")) {
		for (n = 0; n < WSR_MAX_NODES; n++) {
			if (!(mask >> n & 1))
				continue;
			snprintf(name, sizeof(name), "node%u", n);
			fill(buf, name, NULL, 0, 0);
		}
	} else if (fp->node >= 0 && !strchr(path + strlen("/devices/system/node/"), '/')) {
		fill(buf, "wss", NULL, 0, 0);
	} else if (fp->node >= 0) {
		fill_files(node_files, ARRAY_SIZE(node_files), buf, fill);
	} else if (!strcmp(path, "/fs")) {
		fill(buf, "cgroup", NULL, 0, 0);
	} else {
		return list_cgroup(fp, buf, fill);
	}
	return 0;
}
