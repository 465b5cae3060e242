// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libwsr: NUMA nodes from sysfs and memcgs by cgroup v2 path (libwsr.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include "libwsr.h"

int wsr_node_list(const char *path, __u64 *mask, struct wsr_err *err)
{
	char buf[512] = "";
	struct wsr_err perr;
	FILE *f;

	f = fopen(path, "r");
	*mask = 1;
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	if (wsr_parse_node_list(buf, mask, &perr)) {
		/* a parser says a line at most: the path keeps its room */
		snprintf(err->msg, sizeof(err->msg), "%s: %.512s", path, perr.msg);
		return -EINVAL;
	}
	return 0;
}

/* @sys's node list @name; node 0 alone if it does not parse */
static __u64 node_mask(const struct wsr_sys *sys, const char *name)
{
	char path[PATH_MAX];
	struct wsr_err err;
	__u64 mask;

	snprintf(path, sizeof(path), "%s/%s", sys->node, name);
	return wsr_node_list(path, &mask, &err) ? 1 : mask;
}

/*
 * The CLI refuses a machine whose lists do not parse before it runs a
 * command, so these two fall back quietly.
 */
__u32 wsr_possible_nodes(const struct wsr_sys *sys)
{
	__u64 mask = node_mask(sys, "possible");
	__u32 n = 0;

	while (n < WSR_MAX_NODES && mask >> n)
		n++;
	return n ? n : 1;
}

/* the nodes a histogram covers (the seed's N_MEMORY) */
__u64 wsr_memory_nodes(const struct wsr_sys *sys)
{
	return node_mask(sys, "has_memory");
}

int wsr_memcg_lookup(const char *root, const char *path, struct wsr_memcg *m,
		     struct wsr_err *err)
{
	size_t rlen = strlen(root), n = 0, len;
	const char *p = path, *end;
	struct stat st;

	/* "@root/a" and "@root" itself, but "@rootx" is no folder of @root */
	if (!strncmp(p, root, rlen) && (p[rlen] == '/' || !p[rlen]))
		p += rlen;
	/* one slash between names; "." and empty names add nothing */
	for (; *p; p = end) {
		while (*p == '/')
			p++;
		end = strchr(p, '/');
		if (!end)
			end = p + strlen(p);
		len = end - p;
		if (!len || (len == 1 && *p == '.'))
			continue;
		/* a folder outside the cgroup tree would give an id of no cgroup */
		if (len == 2 && !strncmp(p, "..", 2)) {
			snprintf(err->msg, sizeof(err->msg),
				 "memcg '%.4000s': '..' is not allowed (a path below the cgroup root)",
				 path);
			return -EINVAL;
		}
		if (n + 1 + len + rlen >= sizeof(m->abs)) {
			snprintf(err->msg, sizeof(err->msg), "memcg '%.200s...': path too long", path);
			return -ENAMETOOLONG;
		}
		m->rel[n++] = '/';
		memcpy(m->rel + n, p, len);
		n += len;
	}
	if (!n)
		m->rel[n++] = '/';
	m->rel[n] = 0;
	if (rlen + n >= sizeof(m->abs)) {
		snprintf(err->msg, sizeof(err->msg), "memcg '%.200s...': path too long", path);
		return -ENAMETOOLONG;
	}
	snprintf(m->abs, sizeof(m->abs), "%s%s", root, m->rel);
	if (stat(m->abs, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err->msg, sizeof(err->msg), "memcg '%s' not found (no folder %s)", path,
			 m->abs);
		return -ENOENT;
	}
	m->id = st.st_ino;
	return 0;
}

int wsr_memcg_resolve(const struct wsr_sys *sys, const char *path, struct wsr_memcg *m,
		      struct wsr_err *err)
{
	struct statfs sfs;

	if (statfs(sys->cgroup, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		snprintf(err->msg, sizeof(err->msg), "no cgroup v2 hierarchy mounted on %.4000s",
			 sys->cgroup);
		return -ENODEV;
	}
	return wsr_memcg_lookup(sys->cgroup, path, m, err);
}

/* what wsr_memcg_paths() has found so far */
struct found {
	const __u64 *ids;
	size_t nr_ids, root_len, nr, cap;
	char **paths;
};

static int cmp_id(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* @path (@len bytes long, in a PATH_MAX buffer) and the folders below it */
static int find_ids(char *path, size_t len, struct found *fd)
{
	const char *rel = path[fd->root_len] ? path + fd->root_len : "/";
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret = 0, n;

	/* a memcg that went meanwhile has no path to give */
	if (stat(path, &st))
		return 0;
	if (bsearch(&st.st_ino, fd->ids, fd->nr_ids, sizeof(*fd->ids), cmp_id)) {
		if (fd->nr == fd->cap) {
			char **p = realloc(fd->paths, (fd->cap * 2 + 16) * sizeof(*p));

			if (!p)
				return -ENOMEM;
			fd->paths = p;
			fd->cap = fd->cap * 2 + 16;
		}
		fd->paths[fd->nr] = strdup(rel);
		if (!fd->paths[fd->nr])
			return -ENOMEM;
		fd->nr++;
	}
	d = opendir(path);
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		/* a path longer than PATH_MAX cannot be a --memcg either */
		n = snprintf(path + len, PATH_MAX - len, "/%s", de->d_name);
		if (n > 0 && (size_t)n < PATH_MAX - len)
			ret = find_ids(path, len + n, fd);
		path[len] = 0;
	}
	closedir(d);
	return ret;
}

int wsr_memcg_paths(const char *root, const __u64 *ids, size_t nr, char ***paths,
		    size_t *nr_paths, struct wsr_err *err)
{
	struct found fd = { .nr_ids = nr, .root_len = strlen(root) };
	char path[PATH_MAX];
	__u64 *sorted;
	int ret;

	if (fd.root_len >= sizeof(path)) {
		snprintf(err->msg, sizeof(err->msg), "cgroup root path too long");
		return -ENAMETOOLONG;
	}
	sorted = malloc((nr ? nr : 1) * sizeof(*sorted));
	if (!sorted) {
		snprintf(err->msg, sizeof(err->msg), "out of memory for %zu memcg ids", nr);
		return -ENOMEM;
	}
	memcpy(sorted, ids, nr * sizeof(*ids));
	qsort(sorted, nr, sizeof(*sorted), cmp_id);
	fd.ids = sorted;
	strcpy(path, root);
	ret = find_ids(path, fd.root_len, &fd);
	free(sorted);
	if (ret) {
		wsr_free_paths(fd.paths, fd.nr);
		snprintf(err->msg, sizeof(err->msg), "out of memory listing the memcgs of %s",
			 root);
		return ret;
	}
	if (fd.nr)
		qsort(fd.paths, fd.nr, sizeof(*fd.paths), cmp_path);
	*paths = fd.paths;
	*nr_paths = fd.nr;
	return 0;
}

void wsr_free_paths(char **paths, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(paths[i]);
	free(paths);
}
