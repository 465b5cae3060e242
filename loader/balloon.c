// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The virtio-balloon side: the driver's sysfs folder, answering the
 * device's requests (for the daemon), and wsr balloon [show|attach|detach]
 * (the balloon object is loaded and pinned by balloon-attach.c; show
 * prints in balloon-show.c).
 */
#define _GNU_SOURCE	/* ppoll() */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cli.h"

/* the daemon's claim on the device's requests (see struct wsr_balloon_claim) */
int balloon_claim(__u64 request, __u64 until_ns)
{
	struct wsr_balloon_claim c = { .request = request, .until_ns = until_ns,
				       .daemon_pid = request || until_ns ? getpid() : 0 };
	struct wsr_err err;
	int fd = wsr_pin_open(pin_dir, WSR_PIN_BALLOON_CLAIM, &err), ret;

	if (fd < 0) {
		err_msg("%s", err.msg);
		return -1;
	}
	ret = bpf_map_update_elem(fd, &(__u32){ 0 }, &c, BPF_ANY);
	close(fd);
	return ret;
}

/*
 * Answer the device's unanswered requests: claim them, so that the
 * request hook leaves them to us for WSR_BALLOON_CLAIM_MS, age what the
 * seed's refresh would (bpf/refresh.h: fewer than four generations,
 * youngest older than the device's refresh_ms, not below memory.min;
 * nothing with refresh_ms 0, nor before the host's first CONFIG), then run
 * the request iterator, which answers each request once through the
 * driver.  The daemon's own aging keeps the rest no older than refresh_ms.
 */
static int balloon_answer(const char *dir, __u64 requests)
{
	struct wsr_refresh_args args = { .nodes = wsr_memory_nodes(&sys),
					 .merge = WSR_REFRESH_SEED };
	__u64 ms = wsr_balloon_read_u64(dir, "refresh_ms");
	unsigned int answered = 0, n;
	struct wsr_memcg root;
	struct wsr_err err;
	char out[64] = "";
	int ret, derr = 0;
	FILE *f;

	if (balloon_claim(requests, wsr_now_ns() + WSR_BALLOON_CLAIM_MS * 1000000ULL))
		err_msg("warning: cannot claim the balloon device's request: %s", strerror(errno));
	if (wsr_memcg_resolve(&sys, "/", &root, &err)) {
		err_msg("%s", err.msg);
		return -1;
	}
	for (n = 0; n < WSR_MAX_NODES; n++)
		args.refresh_ms[n] = ms;
	if (ms && wsr_balloon_configured(dir) &&
	    wsr_refresh_subtree(pin_dir, &sys, &root, &args, &err)) {
		err_msg("%s", err.msg);
		return -1;
	}
	f = fmemopen(out, sizeof(out) - 1, "w");
	if (!f)
		return -1;
	ret = wsr_run_iter(pin_dir, WSR_PIN_PROG_BALLOON_REQUEST, &root, false, f, &err);
	fclose(f);
	if (ret)
		err_msg("%s", err.msg);
	if (!ret && wsr_parse_answer(out, &answered, &derr)) {
		err_msg("the balloon request program printed \"%.*s\"",
			(int)strcspn(out, "\n"), out);
		ret = -1;
	} else if (!ret && derr && derr != -EALREADY) {
		err_msg("the balloon driver refused the answer: %s", strerror(-derr));
		ret = -1;
	}
	return ret;
}

static const char *const watched[2] = { "requests", "configs" };

void balloon_unwatch(struct balloon_watch *w)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (w->fd[i] >= 0)
			close(w->fd[i]);
		w->fd[i] = -1;
	}
}

static int balloon_rewatch(struct balloon_watch *w)
{
	char path[PATH_MAX];
	int i;

	if (wsr_balloon_dir(&sys, w->dir, sizeof(w->dir)))
		return -1;
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", w->dir, watched[i]);
		w->fd[i] = open(path, O_RDONLY);
		w->seen[i] = 0;
	}
	if (w->fd[0] < 0 || w->fd[1] < 0) {
		balloon_unwatch(w);
		return -1;
	}
	info_msg("serving the balloon device's requests (%s)", w->dir);
	return 0;
}

/* a sysfs file's value, read again from its start, which re-arms poll() */
static int reread_u64(int fd, __u64 *v)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = 0;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

static void log_balloon_config(const char *dir)
{
	char ivals[512] = "?";

	wsr_balloon_read_text(dir, "intervals_ms", ivals, sizeof(ivals));
	info_msg("balloon config: intervals_ms %s refresh_ms %llu report_ms %llu",
		ivals, (unsigned long long)wsr_balloon_read_u64(dir, "refresh_ms"),
		(unsigned long long)wsr_balloon_read_u64(dir, "report_ms"));
}

void balloon_serve(struct balloon_watch *w, int timeout_ms, const sigset_t *wait_mask)
{
	struct timespec ts = { .tv_sec = timeout_ms / 1000,
			       .tv_nsec = timeout_ms % 1000 * 1000000L };
	struct pollfd pfd[2];
	__u64 v[2];
	int i;

	/* detached ("wsr balloon detach"): requests wait for an attach */
	if (!wsr_balloon_attached(pin_dir) || (w->fd[0] < 0 && balloon_rewatch(w))) {
		balloon_unwatch(w);
		ppoll(NULL, 0, &ts, wait_mask);
		return;
	}
	for (i = 0; i < 2; i++) {
		if (reread_u64(w->fd[i], &v[i])) {
			/* unbound or unloaded: look for it again next time */
			balloon_unwatch(w);
			return;
		}
	}
	if (v[1] != w->seen[1])
		log_balloon_config(w->dir);
	/* also those made before we came, or left when an answer failed */
	if (v[0] > wsr_balloon_read_u64(w->dir, "answered") && balloon_answer(w->dir, v[0]))
		err_msg("warning: could not answer the balloon device's request; "
			"the request hook answers it");
	w->seen[0] = v[0];
	w->seen[1] = v[1];
	for (i = 0; i < 2; i++)
		pfd[i] = (struct pollfd){ .fd = w->fd[i], .events = POLLPRI };
	ppoll(pfd, 2, &ts, wait_mask);
}

static int do_balloon(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ 0 },
	};
	const char *sub = "show";
	struct wsr_balloon b = {};
	struct wsr_err err;
	bool json = false;
	char dir[256];
	int fd, opt;

	while ((opt = cmd_getopt(argc, argv, "j", opts)) != -1) {
		if (opt != 'j')
			return 2;
		json = true;
	}
	if (optind < argc)
		sub = argv[optind++];
	if (!cmd_args(argc, argv, 0, NULL))
		return 2;
	if (strcmp(sub, "show") && strcmp(sub, "attach") && strcmp(sub, "detach")) {
		err_msg("unknown balloon command '%s' (show, attach, detach)", sub);
		return 2;
	}
	if (strcmp(sub, "show") && json) {
		err_msg("balloon %s: --json is for show", sub);
		return 2;
	}
	if (!strcmp(sub, "attach")) {
		if (!wsr_loaded(pin_dir)) {
			err_msg("nothing loaded in %s: start \"wsr daemon\" first", pin_dir);
			return 1;
		}
		return balloon_attach(false) ? 1 : 0;
	}
	if (!strcmp(sub, "detach"))
		return balloon_detach();
	/* made by the balloon object's first attach: none before is nothing sent */
	fd = wsr_pin_open(pin_dir, WSR_PIN_BALLOON, &err);
	if (fd < 0 && (fd != -ENOENT || !wsr_loaded(pin_dir))) {
		err_msg("%s", err.msg);
		return 1;
	}
	if (fd >= 0 && bpf_map_lookup_elem(fd, &(__u32){ 0 }, &b)) {
		err_msg("cannot read the pinned map balloon: %s", strerror(errno));
		close(fd);
		return 1;
	}
	if (fd >= 0)
		close(fd);
	if (print_balloon(wsr_balloon_dir(&sys, dir, sizeof(dir)) ? NULL : dir, &b, json)) {
		err_msg("out of memory");
		return 1;
	}
	return 0;
}

const struct wsr_cmd cmd_balloon = {
	.name = "balloon",
	.fn = do_balloon,
	.synopsis = "[show [--json] | attach | detach]",
	.help =
"show (the default): the virtio-balloon device's working-set config (from\n"
"its driver) and the last report wsr gave it.  attach, detach: attach the\n"
"programs that report to the balloon (the daemon does at its start and\n"
"when the driver is loaded), or detach them: needed before rmmod\n"
"virtio_balloon.  The daemon never attaches again to a driver you detached:\n"
"only a new load of the module, or attach, does.\n\n"
JSON_HELP,
};
