// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wsr fs: the FUSE operations.  A file's text is made as the seed's
 * kernel makes it, by libwsr's readers and printers (those of wsr get and
 * wsr show), at a read at offset 0, and kept for the reads after it, as a
 * seq_file's; a write is parsed by wsr set's parser and stored as wsr set
 * stores it, refused with the seed's errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fs.h"

/* the kernel's DEFAULT_POLLMASK, what the seed's poll returns besides POLLPRI */
#define FS_POLLMASK	(POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)

static time_t started;

static struct fs_fh *fh_of(struct fuse_file_info *fi)
{
	return (struct fs_fh *)(uintptr_t)fi->fh;
}

/* the memcg of @fp and the pins, both said in the log when missing */
static int open_pins(const char *path, const struct fs_path *fp, struct wsr_memcg *m,
		     struct wsr_pins *p)
{
	struct wsr_err err;
	int ret;

	ret = wsr_memcg_resolve(&sys, fp->memcg ? fp->cgroup : "/", m, &err);
	if (ret == -ENOENT)
		return ret;
	if (ret) {
		err_msg("%s: %s", path, err.msg);
		return -EIO;
	}
	if (wsr_pins_open(p, pin_dir, &sys, &err)) {
		err_msg("%s: %s (is \"wsr daemon\" loaded?)", path, err.msg);
		return -EIO;
	}
	return 0;
}

/* a knob as wsr get prints it: the node's value, or N0=<v> N1=<v> ... */
static int print_knob(FILE *f, const struct wsr_pins *p, __u64 id, const struct fs_path *fp)
{
	__u64 nodes = fp->memcg ? wsr_memory_nodes(&sys) : 1ULL << fp->node;
	struct wsr_config cfg;
	struct wsr_err err;
	bool first = true;
	int dir;
	__u32 n;

	/* no write seen half done (wsr_share_pin_dir()) */
	dir = wsr_share_pin_dir(p->dir, WSR_LOCK_TIMEOUT_MS, &err);
	if (dir < 0) {
		err_msg("%s", err.msg);
		return -EIO;
	}
	for (n = 0; n < WSR_MAX_NODES; n++) {
		if (!(nodes >> n & 1))
			continue;
		wsr_get_config(p, id, n, &cfg);
		if (fp->memcg)
			fprintf(f, "%sN%u=", first ? "" : " ", n);
		wsr_print_knob(f, &cfg, fp->knob);
		first = false;
	}
	fputc('\n', f);
	close(dir);
	return 0;
}

/* a histogram as wsr show prints it: the node's bins, or N<n> and bins a node */
static int print_hists(FILE *f, const struct wsr_pins *p, const struct wsr_memcg *m,
		       const struct fs_path *fp)
{
	__u64 nodes = fp->memcg ? wsr_memory_nodes(&sys) : 1ULL << fp->node;
	struct wsr_report reps[WSR_MAX_NODES] = {};
	struct wsr_err err;
	__u32 n;

	if (fp->kind == FS_REACCESS ? wsr_read_reaccess(p, m, nodes, true, reps, &err) :
				      wsr_read_hists(p, m, nodes, true, reps, &err)) {
		err_msg("%s", err.msg);
		return -EIO;
	}
	for (n = 0; n < WSR_MAX_NODES; n++) {
		if (!(nodes >> n & 1))
			continue;
		if (fp->memcg)
			fprintf(f, "N%u\n", n);
		wsr_print_hist(f, &reps[n].hist);
	}
	return 0;
}

static int make_text(const char *path, struct fs_fh *fh)
{
	struct wsr_memcg m;
	struct wsr_pins p;
	FILE *f;
	int ret = open_pins(path, &fh->fp, &m, &p);

	if (ret)
		return ret;
	free(fh->text);
	fh->text = NULL;
	f = open_memstream(&fh->text, &fh->len);
	if (!f) {
		wsr_pins_close(&p);
		return -ENOMEM;
	}
	if (fh->fp.kind == FS_KNOB)
		ret = print_knob(f, &p, m.id, &fh->fp);
	else
		ret = print_hists(f, &p, &m, &fh->fp);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	wsr_pins_close(&p);
	return ret;
}

/* the value without the newline echo adds (and, in a memcg's, spaces around) */
static void trim(char *s, bool both)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
	if (both)
		memmove(s, s + strspn(s, " \t\n"), strlen(s + strspn(s, " \t\n")) + 1);
}

/* "N<node>=<value>" of a memcg's file: its node and value, or -errno */
static int memcg_node(char *text, __u64 nodes, int *node, const char **value,
		      struct wsr_err *err)
{
	int ret = wsr_parse_node_value(text, wsr_possible_nodes(&sys), node, value, err);

	if (ret)
		return ret;
	if (*node < 0) {
		snprintf(err->msg, sizeof(err->msg), "'%s': expected N<node>=<value>", text);
		return -EINVAL;
	}
	if (!(nodes >> *node & 1)) {
		snprintf(err->msg, sizeof(err->msg), "node %d has no memory", *node);
		return -EINVAL;
	}
	return 0;
}

static int write_knob(const char *path, const struct fs_path *fp, const char *buf, size_t size)
{
	__u64 nodes = wsr_memory_nodes(&sys);
	const char *value;
	char text[1024];
	struct wsr_err err;
	struct wsr_memcg m;
	struct wsr_pins p;
	int node = fp->node, ret;

	if (size >= sizeof(text))
		return -EINVAL;
	memcpy(text, buf, size);
	text[size] = 0;
	trim(text, fp->memcg);
	value = text;
	ret = fp->memcg ? memcg_node(text, nodes, &node, &value, &err) : 0;
	if (!ret) {
		ret = open_pins(path, fp, &m, &p);
		if (ret)
			return ret;
		ret = wsr_set_knob(&p, &m, nodes, node, fp->knob, value, &err);
		wsr_pins_close(&p);
	}
	/* the seed's node files say EINVAL of any number they refuse */
	if (ret == -ERANGE && !fp->memcg && fp->knob != WSR_KNOB_INTERVALS)
		ret = -EINVAL;
	if (ret)
		err_msg("%s: %s", path, err.msg);
	return ret ? ret : (int)size;
}

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	/* memcgs come and go: nothing of the tree is cached */
	cfg->entry_timeout = 0;
	cfg->attr_timeout = 0;
	cfg->negative_timeout = 0;
	cfg->direct_io = 1;
	started = time(NULL);
	return NULL;
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct fs_path fp;
	int ret = fs_resolve(path, &fp);

	(void)fi;
	if (ret)
		return ret;
	memset(st, 0, sizeof(*st));
	st->st_mode = fp.mode;
	st->st_nlink = fp.kind == FS_DIR ? 2 : 1;
	/* as sysfs's files: a page, whatever the text */
	st->st_size = fp.kind == FS_DIR ? 0 : 4096;
	st->st_uid = fp.uid;
	st->st_gid = fp.gid;
	st->st_atime = st->st_mtime = st->st_ctime = started;
	return 0;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct fs_path fp;
	int ret = fs_resolve(path, &fp);

	(void)off, (void)fi, (void)flags;
	if (ret)
		return ret;
	if (fp.kind != FS_DIR)
		return -ENOTDIR;
	return fs_list(&fp, buf, fill, path);
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
	struct wsr_memcg m;
	struct wsr_err err;
	struct fs_path fp;
	struct fs_fh *fh;
	int ret = fs_resolve(path, &fp);

	if (ret)
		return ret;
	/* kernfs refuses a write open of a file without a write op so */
	if ((fi->flags & O_ACCMODE) != O_RDONLY && fp.kind != FS_KNOB)
		return -EACCES;
	if (fp.kind == FS_HISTOGRAM &&
	    wsr_memcg_resolve(&sys, fp.memcg ? fp.cgroup : "/", &m, &err))
		return -ENOENT;
	fh = calloc(1, sizeof(*fh));
	if (!fh)
		return -ENOMEM;
	fh->fp = fp;
	pthread_mutex_init(&fh->lock, NULL);
	if (fp.kind == FS_HISTOGRAM) {
		fh->id = fp.memcg ? m.id : FS_ROOT_ID;
		fh->ev_node = fp.memcg ? FS_ANY_NODE : (__u32)fp.node;
		fs_events_add(fh);
	}
	fi->fh = (uintptr_t)fh;
	fi->direct_io = 1;
	return 0;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct fs_fh *fh = fh_of(fi);
	int ret = 0;

	pthread_mutex_lock(&fh->lock);
	if (!off || !fh->text) {
		/* a read takes the reports so far as seen, as sysfs's does */
		if (fh->fp.kind == FS_HISTOGRAM)
			fs_events_seen(fh);
		ret = make_text(path, fh);
	}
	if (!ret && (size_t)off < fh->len) {
		ret = size < fh->len - off ? (int)size : (int)(fh->len - off);
		memcpy(buf, fh->text + off, ret);
	}
	pthread_mutex_unlock(&fh->lock);
	return ret;
}

static int fs_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	(void)off;
	return write_knob(path, &fh_of(fi)->fp, buf, size);
}

/* echo's O_TRUNC: nothing to cut, as in sysfs */
static int fs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct fs_path fp;
	int ret = fs_resolve(path, &fp);

	(void)size, (void)fi;
	return ret ? ret : fp.kind == FS_KNOB ? 0 : -EACCES;
}

static int fs_poll(const char *path, struct fuse_file_info *fi, struct fuse_pollhandle *ph,
		   unsigned int *revents)
{
	struct fs_fh *fh = fh_of(fi);

	(void)path;
	*revents = FS_POLLMASK;
	if (fh->fp.kind == FS_HISTOGRAM)
		*revents |= fs_events_poll(fh, ph);
	else if (ph)
		fuse_pollhandle_destroy(ph);
	return 0;
}

static int fs_release(const char *path, struct fuse_file_info *fi)
{
	struct fs_fh *fh = fh_of(fi);

	(void)path;
	if (fh->fp.kind == FS_HISTOGRAM)
		fs_events_remove(fh);
	pthread_mutex_destroy(&fh->lock);
	free(fh->text);
	free(fh);
	return 0;
}

const struct fuse_operations fs_ops = {
	.init = fs_init,
	.getattr = fs_getattr,
	.readdir = fs_readdir,
	.open = fs_open,
	.read = fs_read,
	.write = fs_write,
	.truncate = fs_truncate,
	.poll = fs_poll,
	.release = fs_release,
};
