// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libwsr: the pinned cgroup iterators, and aging through MGLRU's debugfs
 * file (the seed's refresh, driven by prog_refresh): libwsr.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "libwsr.h"

/* the read end of a new session of the cgroup iterator @prog over @cg */
static int iter_open(int prog, int cg, __u64 id, bool subtree)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	union bpf_iter_link_info linfo = {};
	int link, iter;

	/* by its folder, or (@cg < 0) by its id */
	if (cg >= 0)
		linfo.cgroup.cgroup_fd = cg;
	else
		linfo.cgroup.cgroup_id = id;
	linfo.cgroup.order = subtree ? BPF_CGROUP_ITER_DESCENDANTS_PRE : BPF_CGROUP_ITER_SELF_ONLY;
	opts.iter_info = &linfo;
	opts.iter_info_len = sizeof(linfo);
	link = bpf_link_create(prog, 0, BPF_TRACE_ITER, &opts);
	if (link < 0)
		return -1;
	iter = bpf_iter_create(link);
	close(link);
	return iter;
}

int wsr_run_iter(const char *dir, const char *pin, const struct wsr_memcg *m,
		 bool subtree, FILE *out, struct wsr_err *err)
{
	int prog, cg = -1, iter = -1, ret;
	char buf[4096];
	ssize_t n;

	ret = prog = wsr_pin_open(dir, pin, err);
	if (prog < 0)
		goto out;
	cg = open(m->abs, O_RDONLY | O_DIRECTORY);
	if (cg < 0) {
		ret = -errno;
		snprintf(err->msg, sizeof(err->msg), "cannot open %s: %s",
			 m->abs, strerror(-ret));
		goto out;
	}
	iter = iter_open(prog, cg, 0, subtree);
	if (iter < 0) {
		ret = -errno;
		snprintf(err->msg, sizeof(err->msg), "cannot create the %s iterator: %s", pin,
			 strerror(-ret));
		goto out;
	}
	while ((n = read(iter, buf, sizeof(buf))) > 0)
		if (out)
			fwrite(buf, 1, n, out);
	ret = n < 0 ? -errno : 0;
	if (ret)
		snprintf(err->msg, sizeof(err->msg), "%s iterator failed: %s", pin,
			 strerror(-ret));
out:
	if (iter >= 0)
		close(iter);
	if (cg >= 0)
		close(cg);
	if (prog >= 0)
		close(prog);
	return ret;
}

void wsr_swap_state(const struct wsr_sys *sys, struct wsr_refresh_args *a)
{
	char line[128], path[PATH_MAX];
	unsigned long long kb;
	FILE *f;

	a->swappiness = 60;
	a->swap_free = 0;
	snprintf(path, sizeof(path), "%s/sys/vm/swappiness", sys->proc);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%u", &a->swappiness) != 1)
			a->swappiness = 60;
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/meminfo", sys->proc);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SwapFree: %llu kB", &kb) == 1)
			a->swap_free = kb / (sysconf(_SC_PAGESIZE) / 1024);
	fclose(f);
}

int wsr_age_lines(int fd, const char *buf, size_t n, struct wsr_err *err)
{
	const char *line = buf, *end;
	int e;

	while (line < buf + n && (end = memchr(line, '\n', buf + n - line))) {
		/* gone (EINVAL), or aged by someone else in between: fine */
		if (write(fd, line, end + 1 - line) < 0 && errno != EINVAL && errno != ENOENT) {
			e = errno;
			snprintf(err->msg, sizeof(err->msg), "aging failed: %.*s: %s",
				 (int)(end - line), line, strerror(e));
			errno = e;
			return -e;
		}
		line = end + 1;
	}
	return 0;
}

/* one read() of the refresh iterator: the commands of many lruvecs */
#define ITER_BUF	(64 * 1024)

/*
 * Run prog_refresh over @m's subtree (@cg: its folder, or -1: by id) and
 * write what it prints to lru_gen's @fd, through @buf of ITER_BUF, until a
 * run ends by itself: 0 or -errno, the message in @err (none for a memcg
 * found by id that went meanwhile: -ENOENT)
 */
static int refresh_runs(int prog, int cg, int fd, char *buf, const struct wsr_memcg *m,
			struct wsr_err *err)
{
	int iter, ret = -EAGAIN;
	bool said = false;
	__u32 run;
	ssize_t n;

	for (run = 0; run < 1000 && ret; run++) {
		iter = iter_open(prog, cg, m->id, true);
		if (iter < 0) {
			/* a memcg found by id may have gone since */
			ret = -errno;
			if (errno != ENOENT || m->abs[0]) {
				snprintf(err->msg, sizeof(err->msg), "cannot run prog_refresh: %s",
					 strerror(errno));
				said = true;
			}
			break;
		}
		while ((n = read(iter, buf, ITER_BUF)) > 0 &&
		       !(said = wsr_age_lines(fd, buf, n, err) < 0))
			;
		if (!n) {
			ret = 0;	/* the walk ended: nothing more is due */
		} else {
			ret = -errno;
			if (errno != EOPNOTSUPP)
				run = 1000;	/* a failure other than a full buffer */
		}
		close(iter);
	}
	if (ret && !said && (ret != -ENOENT || m->abs[0]))
		snprintf(err->msg, sizeof(err->msg), "refreshing %s failed: %s",
			 m->rel, strerror(-ret));
	return ret;
}

/*
 * Work grows with the subtree, not with the machine.  A cgroup iterator
 * stops when its read buffer is full: what it printed is aged, and it
 * runs again, until a run ends by itself.
 */
int wsr_refresh_subtree(const char *dir, const struct wsr_sys *sys, const struct wsr_memcg *m,
			struct wsr_refresh_args *a, struct wsr_err *err)
{
	int args = -1, prog = -1, cg = -1, fd = -1, ret;
	char *buf = NULL;
	__u32 tgid = getpid();

	ret = args = wsr_pin_open(dir, WSR_PIN_REFRESH_ARGS, err);
	if (args < 0)
		goto out;
	ret = prog = wsr_pin_open(dir, WSR_PIN_PROG_REFRESH, err);
	if (prog < 0)
		goto out;
	if (m->abs[0]) {
		cg = open(m->abs, O_RDONLY | O_DIRECTORY);
		if (cg < 0) {
			ret = -errno;
			snprintf(err->msg, sizeof(err->msg), "cannot open %s: %s",
				 m->abs, strerror(-ret));
			goto out;
		}
	}
	fd = open(sys->lru_gen, O_WRONLY);
	if (fd < 0) {
		ret = -errno;
		snprintf(err->msg, sizeof(err->msg),
			 "cannot open %.4000s: %s (needs debugfs and CONFIG_LRU_GEN)",
			 sys->lru_gen, strerror(-ret));
		goto out;
	}
	buf = malloc(ITER_BUF);
	if (!buf) {
		ret = -ENOMEM;
		snprintf(err->msg, sizeof(err->msg), "out of memory for the refresh's commands");
		goto out;
	}
	wsr_swap_state(sys, a);
	a->start_j = 0;
	if (bpf_map_update_elem(args, &tgid, a, BPF_ANY)) {
		ret = -errno;
		snprintf(err->msg, sizeof(err->msg), "cannot store the refresh's arguments: %s",
			 strerror(-ret));
		goto out;
	}
	ret = refresh_runs(prog, cg, fd, buf, m, err);
	bpf_map_delete_elem(args, &tgid);
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	if (cg >= 0)
		close(cg);
	if (prog >= 0)
		close(prog);
	if (args >= 0)
		close(args);
	return ret;
}
