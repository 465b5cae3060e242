// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libwsr: reports made on reclaim, as they come (libwsr.h).  Each watcher
 * has a slot of its own in the "watchers" map, and the ring "watch<slot>"
 * that BPF writes an event to for every report.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "libwsr.h"

struct wsr_watch {
	const struct wsr_pins *p;
	__u64 id;
	int node;
	wsr_report_fn fn;
	wsr_any_report_fn any_fn;	/* every memcg's: wsr_watch_open_all() */
	void *ctx;
	__u64 since_ns;
	struct ring_buffer *rb;
	int fd;			/* the ring's pin, which rb polls */
	__u32 slot;
};

static int on_event(void *ctx, void *data, size_t size)
{
	struct wsr_watch *w = ctx;
	const struct wsr_event *ev = data;
	struct wsr_report rep;

	if (size < sizeof(*ev) || ev->time_ns < w->since_ns ||
	    (!w->any_fn && ev->key.cgroup_id != w->id) ||
	    (w->node >= 0 && ev->key.node != (__u32)w->node))
		return 0;
	/* gone, or replaced by a newer one, which has its own event */
	if (bpf_map_lookup_elem(w->p->reports, &ev->key, &rep) || rep.seq != ev->seq)
		return 0;
	if (w->any_fn)
		return w->any_fn(w->ctx, &ev->key, &rep);
	return w->fn(w->ctx, ev->key.node, &rep);
}

/*
 * A free watcher slot, reclaiming those of dead watchers.  Under a lock
 * on the pin folder: two watchers that both find a slot's owner dead
 * would otherwise both take it, and share (split) its ring.
 */
static int claim_slot(const struct wsr_pins *p, struct wsr_err *err)
{
	__u32 slot, pid = getpid(), owner;
	int dir = wsr_lock_pin_dir(p->dir, WSR_LOCK_TIMEOUT_MS, err), ret = -EBUSY;

	if (dir < 0)
		return dir;
	for (slot = 0; slot < WSR_MAX_WATCHERS; slot++) {
		if (!bpf_map_update_elem(p->watchers, &slot, &pid, BPF_NOEXIST)) {
			ret = slot;
			break;
		}
		if (!bpf_map_lookup_elem(p->watchers, &slot, &owner) &&
		    kill(owner, 0) && errno == ESRCH) {
			bpf_map_delete_elem(p->watchers, &slot);
			if (!bpf_map_update_elem(p->watchers, &slot, &pid, BPF_NOEXIST)) {
				ret = slot;
				break;
			}
		}
	}
	if (ret == -EBUSY)
		snprintf(err->msg, sizeof(err->msg), "all %d watcher slots are taken",
			 WSR_MAX_WATCHERS);
	close(dir);	/* and the lock with it */
	return ret;
}

static int watch_open(const struct wsr_pins *p, const struct wsr_memcg *m, int node,
		      wsr_report_fn fn, wsr_any_report_fn any_fn, void *ctx,
		      struct wsr_watch **out, struct wsr_err *err)
{
	struct wsr_watch *w;
	const char *name;
	int slot, fd, ret;

	w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return -ENOMEM;
	}
	slot = claim_slot(p, err);
	if (slot < 0) {
		free(w);
		return slot;
	}
	/* reports made from now on */
	*w = (struct wsr_watch){ .p = p, .id = m ? m->id : 0, .node = node, .fn = fn,
				 .any_fn = any_fn, .ctx = ctx,
				 .since_ns = wsr_now_ns(),
				 .slot = slot, .fd = -1 };
	/* the table lists the rings first, slot by slot */
	name = wsr_pin_names[slot].name;
	fd = wsr_pin_open(p->dir, name, err);
	if (fd >= 0) {
		w->fd = fd;
		w->rb = ring_buffer__new(fd, on_event, w, NULL);
	}
	if (!w->rb) {
		ret = fd < 0 ? fd : -errno;
		snprintf(err->msg, sizeof(err->msg), "cannot open the report ring %s", name);
		wsr_watch_close(w);
		return ret;
	}
	*out = w;
	return 0;
}

int wsr_watch_open(const struct wsr_pins *p, const struct wsr_memcg *m, int node,
		   wsr_report_fn fn, void *ctx, struct wsr_watch **out, struct wsr_err *err)
{
	return watch_open(p, m, node, fn, NULL, ctx, out, err);
}

int wsr_watch_open_all(const struct wsr_pins *p, wsr_any_report_fn fn, void *ctx,
		       struct wsr_watch **out, struct wsr_err *err)
{
	return watch_open(p, NULL, -1, NULL, fn, ctx, out, err);
}

int wsr_watch_poll(struct wsr_watch *w, int timeout_ms, struct wsr_err *err)
{
	int ret = ring_buffer__poll(w->rb, timeout_ms);

	if (ret < 0 && ret != -EINTR) {
		snprintf(err->msg, sizeof(err->msg), "polling for reports failed: %s",
			 strerror(-ret));
		return ret;
	}
	return 0;
}

void wsr_watch_close(struct wsr_watch *w)
{
	if (!w)
		return;
	ring_buffer__free(w->rb);
	if (w->fd >= 0)
		close(w->fd);
	bpf_map_delete_elem(w->p->watchers, &w->slot);
	free(w);
}
