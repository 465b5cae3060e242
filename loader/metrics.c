// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wsr metrics: the guest's histograms in Prometheus' text format, once,
 * for node_exporter's textfile collector (libwsr's wsr_print_metrics()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"

/* the memcgs to show: "/" first, then --memcg's, then --all-memcgs' */
struct memcg_list {
	const char **paths;
	bool *optional;		/* --all-memcgs': one that went is left out */
	size_t nr, cap;
};

static int add_path(struct memcg_list *l, const char *path, bool optional)
{
	if (l->nr == l->cap) {
		size_t cap = l->cap * 2 + 8;
		const char **p = realloc(l->paths, cap * sizeof(*p));
		bool *o;

		if (!p)
			return -ENOMEM;
		l->paths = p;
		o = realloc(l->optional, cap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		l->optional = o;
		l->cap = cap;
	}
	l->paths[l->nr] = path;
	l->optional[l->nr++] = optional;
	return 0;
}

/*
 * Read each memcg of @l (each once, however many ways it was named) on
 * each node of @nodes into *@out.  1 on an error, said on stderr.
 */
static int read_all(const struct wsr_pins *p, const struct memcg_list *l, __u64 nodes,
		    bool refresh, struct wsr_metrics_entry **out, size_t *nr_out)
{
	struct wsr_report reps[WSR_MAX_NODES];
	struct wsr_metrics_entry *e;
	struct wsr_memcg m;
	struct wsr_err err;
	size_t i, j, nr = 0;
	__u64 *ids;
	__u32 n;
	int ret;

	e = calloc(l->nr * __builtin_popcountll(nodes), sizeof(*e));
	ids = calloc(l->nr, sizeof(*ids));
	if (!e || !ids) {
		free(e);
		free(ids);
		err_msg("out of memory for the histograms of %zu memcgs", l->nr);
		return 1;
	}
	for (i = 0; i < l->nr; i++) {
		ret = wsr_memcg_resolve(&sys, l->paths[i], &m, &err);
		if (!ret) {
			for (j = 0; j < i && ids[j] != m.id; j++)
				;
			if (j < i)
				continue;
			ids[i] = m.id;
			ret = wsr_read_hists(p, &m, nodes, refresh, reps, &err);
		}
		if (ret == -ENOENT && l->optional[i])
			continue;
		if (ret) {
			err_msg("%s", err.msg);
			goto fail;
		}
		for (n = 0; n < WSR_MAX_NODES; n++) {
			if (!(nodes >> n & 1))
				continue;
			/* the label: the path as wsr show --json names it */
			e[nr].memcg = strdup(m.rel);
			if (!e[nr].memcg) {
				err_msg("out of memory");
				goto fail;
			}
			e[nr].node = n;
			e[nr].reclaim_reports = wsr_reclaim_reports(p, m.id, n);
			e[nr++].rep = reps[n];
		}
	}
	free(ids);
	*out = e;
	*nr_out = nr;
	return 0;
fail:
	while (nr--)
		free((char *)e[nr].memcg);
	free(e);
	free(ids);
	return 1;
}

/*
 * Write @path as the textfile collector asks: a temporary file in the
 * same folder, renamed over @path once complete, so that a scrape never
 * reads half a file.  Its name does not end in ".prom": the collector
 * skips it.
 */
static int write_atomic(const char *path, const struct wsr_metrics_entry *e, size_t nr)
{
	const char *base = strrchr(path, '/');
	char tmp[PATH_MAX];
	int fd, ret = 0;
	FILE *f;

	base = base ? base + 1 : path;
	if (snprintf(tmp, sizeof(tmp), "%.*s.%s.XXXXXX", (int)(base - path), path, base) >=
	    (int)sizeof(tmp)) {
		err_msg("--output %s: path too long", path);
		return 1;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		err_msg("--output %s: cannot create a file in its folder: %s", path,
			strerror(errno));
		return 1;
	}
	/* node_exporter runs as another user: mkstemp() made it 0600 */
	f = fchmod(fd, 0644) ? NULL : fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
	} else {
		ret = wsr_print_metrics(f, e, nr, sysconf(_SC_PAGESIZE), wsr_now_ns());
		if (!ret && (fflush(f) || fsync(fileno(f))))
			ret = -errno;
		if (fclose(f) && !ret)
			ret = -errno;
	}
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		err_msg("--output %s: cannot write it: %s", path, strerror(-ret));
		return 1;
	}
	return 0;
}

/* the @nr entries of @e to @output (NULL: stdout), then freed: the exit status */
static int emit(const char *output, struct wsr_metrics_entry *e, size_t nr)
{
	size_t i;
	int ret;

	if (output) {
		ret = write_atomic(output, e, nr);
	} else {
		ret = wsr_print_metrics(stdout, e, nr, sysconf(_SC_PAGESIZE), wsr_now_ns());
		if (ret || fflush(stdout)) {
			err_msg("cannot write the metrics: %s", strerror(ret ? -ret : errno));
			ret = 1;
		}
	}
	for (i = 0; i < nr; i++)
		free((char *)e[i].memcg);
	free(e);
	return ret;
}

enum { OPT_NO_REFRESH = 256 };

static int do_metrics(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "memcg", required_argument, NULL, 'm' },
		{ "all-memcgs", no_argument, NULL, 'a' },
		{ "output", required_argument, NULL, 'o' },
		{ "no-refresh", no_argument, NULL, OPT_NO_REFRESH },
		{ 0 },
	};
	struct memcg_list l = {};
	struct wsr_metrics_entry *e = NULL;
	const char *output = NULL;
	bool all = false, refresh = true;
	char **found = NULL;
	size_t nr = 0, nr_ids = 0, nr_found = 0, i;
	__u64 *ids = NULL;
	struct wsr_pins p;
	struct wsr_err err;
	int opt, ret = 2;

	if (add_path(&l, "/", false))
		goto oom;
	while ((opt = cmd_getopt(argc, argv, "m:ao:", opts)) != -1) {
		switch (opt) {
		case 'm':
			if (add_path(&l, optarg, false))
				goto oom;
			break;
		case 'a':
			all = true;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_NO_REFRESH:
			refresh = false;
			break;
		default:
			goto out;
		}
	}
	if (!cmd_args(argc, argv, 0, NULL))
		goto out;
	if (output && (!*output || output[strlen(output) - 1] == '/')) {
		err_msg("--output '%s': a file name, not a folder", output);
		goto out;
	}
	ret = 1;
	if (wsr_pins_open(&p, pin_dir, &sys, &err)) {
		err_msg("%s", err.msg);
		goto out;
	}
	if (all && (wsr_configured_ids(&p, &ids, &nr_ids, &err) ||
		    wsr_memcg_paths(sys.cgroup, ids, nr_ids, &found, &nr_found, &err))) {
		err_msg("%s", err.msg);
		goto close;
	}
	for (i = 0; i < nr_found; i++)
		if (add_path(&l, found[i], true))
			goto oom_close;
	if (read_all(&p, &l, wsr_memory_nodes(&sys), refresh, &e, &nr))
		goto close;
	ret = emit(output, e, nr);
	goto close;
oom_close:
	err_msg("out of memory");
close:
	wsr_pins_close(&p);
	goto out;
oom:
	err_msg("out of memory");
	ret = 1;
out:
	wsr_free_paths(found, nr_found);
	free(ids);
	free(l.paths);
	free(l.optional);
	return ret;
}

const struct wsr_cmd cmd_metrics = {
	.name = "metrics",
	.fn = do_metrics,
	.synopsis = "[--memcg PATH]... [--all-memcgs] [--no-refresh] [--output FILE]",
	.help =
"Print the histograms in Prometheus' text format, once, for node_exporter's\n"
"textfile collector: the node level (memcg \"/\") and the memcgs asked for,\n"
"each on every node with memory, read as \"wsr show\" reads them.  Metrics,\n"
"with the names and labels of \"wsr-host balance --metrics\" (memcg where\n"
"the host has vm):\n"
"  wsr_working_set_bytes{memcg,node,type=anon|file,idle_le_ms}  a bin's\n"
"      pages in bytes; idle_le_ms is its upper bound, \"+Inf\" the catch-all\n"
"  wsr_working_set_age_seconds{memcg,node}   since its data was collected\n"
"  wsr_working_set_incomplete{memcg,node}    1: its memcg walk ran out of steps\n"
"  wsr_working_set_anon_reclaimable{memcg,node}  0: none of its memory can\n"
"      swap, and its anon is not in the bins\n"
"  wsr_reports_total{memcg,node,cause=\"reclaim\"}  reports made on reclaim\n\n"
"  -m, --memcg PATH       this memcg too (repeatable)\n"
"  -a, --all-memcgs       every memcg with a configuration (wsr set)\n"
"      --no-refresh       never age, read the live histograms\n"
"  -o, --output FILE      write FILE instead of stdout, atomically: a\n"
"                         temporary file in its folder, renamed over it\n\n"
"example, every minute from cron (node_exporter\n"
"--collector.textfile.directory=/var/lib/node_exporter):\n"
"  wsr metrics --all-memcgs -o /var/lib/node_exporter/wsr.prom\n",
};
