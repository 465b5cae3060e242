// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wsr fs: the reports that wake poll() on a histogram.  One thread reads
 * the reports of every memcg from a single watcher slot and ring
 * (wsr_watch_open_all(): the 8 slots are not one per memcg) and counts
 * them per (memcg, node) and per memcg.  An open histogram remembers the
 * count it last saw: poll() returns POLLPRI when the count moved, however
 * far, so that reports made before a reader looks are one wake-up, as
 * sysfs_notify's events are.  The pins are opened again when the daemon
 * loads new ones (or first loads), so that a daemon restarted under the
 * mount goes on waking it.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fs.h"

struct count {
	__u64 id;
	__u32 node;		/* or FS_ANY_NODE */
	__u64 n;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct count *counts;
static size_t nr_counts, cap_counts;
static struct fs_fh *opened;		/* open histograms */
static pthread_t thread;
static volatile int stopping;

/* the count of (@id, @node), made at 0 if @add; under the lock */
static struct count *count_of(__u64 id, __u32 node, bool add)
{
	struct count *c;
	size_t i;

	for (i = 0; i < nr_counts; i++)
		if (counts[i].id == id && counts[i].node == node)
			return &counts[i];
	if (!add)
		return NULL;
	if (nr_counts == cap_counts) {
		c = realloc(counts, (cap_counts ? cap_counts * 2 : 16) * sizeof(*c));
		if (!c)
			return NULL;
		counts = c;
		cap_counts = cap_counts ? cap_counts * 2 : 16;
	}
	counts[nr_counts] = (struct count){ .id = id, .node = node };
	return &counts[nr_counts++];
}

static __u64 count_now(const struct fs_fh *fh)
{
	struct count *c = count_of(fh->id, fh->ev_node, false);

	return c ? c->n : 0;
}

__u64 fs_events_seen(struct fs_fh *fh)
{
	pthread_mutex_lock(&lock);
	fh->seen = count_now(fh);
	pthread_mutex_unlock(&lock);
	return fh->seen;
}

void fs_events_add(struct fs_fh *fh)
{
	pthread_mutex_lock(&lock);
	fh->seen = count_now(fh);
	fh->prev = NULL;
	fh->next = opened;
	if (opened)
		opened->prev = fh;
	opened = fh;
	pthread_mutex_unlock(&lock);
}

void fs_events_remove(struct fs_fh *fh)
{
	pthread_mutex_lock(&lock);
	if (fh->prev)
		fh->prev->next = fh->next;
	else
		opened = fh->next;
	if (fh->next)
		fh->next->prev = fh->prev;
	if (fh->ph)
		fuse_pollhandle_destroy(fh->ph);
	fh->ph = NULL;
	pthread_mutex_unlock(&lock);
}

unsigned int fs_events_poll(struct fs_fh *fh, struct fuse_pollhandle *ph)
{
	unsigned int revents = 0;
	__u64 now;

	pthread_mutex_lock(&lock);
	now = count_now(fh);
	if (now != fh->seen) {
		/* taken, as the seed's cmpxchg takes its event */
		fh->seen = now;
		revents = POLLPRI;
		if (ph)
			fuse_pollhandle_destroy(ph);
	} else if (ph) {
		if (fh->ph)
			fuse_pollhandle_destroy(fh->ph);
		fh->ph = ph;
	}
	pthread_mutex_unlock(&lock);
	return revents;
}

/* a report: counted for its node and its memcg, and its pollers woken */
static int on_report(void *ctx, const struct wsr_key *key, const struct wsr_report *r)
{
	struct count *c;
	struct fs_fh *fh;

	(void)ctx, (void)r;
	pthread_mutex_lock(&lock);
	c = count_of(key->cgroup_id, key->node, true);
	if (c)
		c->n++;
	c = count_of(key->cgroup_id, FS_ANY_NODE, true);
	if (c)
		c->n++;
	for (fh = opened; fh; fh = fh->next) {
		if (fh->id != key->cgroup_id || !fh->ph ||
		    (fh->ev_node != FS_ANY_NODE && fh->ev_node != key->node))
			continue;
		fuse_notify_poll(fh->ph);
		fuse_pollhandle_destroy(fh->ph);
		fh->ph = NULL;
	}
	pthread_mutex_unlock(&lock);
	return 0;
}

static __u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/*
 * Watch while the pins are the ones opened: back when the daemon loaded
 * others (wsr unload, then a daemon), or on an error.
 */
static void watch_pins(struct wsr_pins *p, ino_t loaded)
{
	struct wsr_watch *w;
	struct wsr_err err;
	__u64 checked = now_ms();

	if (wsr_watch_open_all(p, on_report, NULL, &w, &err)) {
		err_msg("cannot watch for reports: %s", err.msg);
		return;
	}
	info_msg("watching for reports in %s", p->dir);
	while (!stopping) {
		if (wsr_watch_poll(w, 200, &err)) {
			err_msg("%s", err.msg);
			break;
		}
		if (now_ms() - checked >= 1000) {
			checked = now_ms();
			if (wsr_loaded_inode(p->dir) != loaded)
				break;
		}
	}
	wsr_watch_close(w);
}

static void *watch_thread(void *arg)
{
	struct wsr_pins p;
	struct wsr_err err;
	bool said = false;
	ino_t loaded;

	(void)arg;
	while (!stopping) {
		loaded = wsr_loaded_inode(pin_dir);
		if (!loaded || wsr_pins_open(&p, pin_dir, &sys, &err)) {
			if (!said)
				info_msg("no programs pinned in %s yet: poll() wakes once "
					 "\"wsr daemon\" has loaded them", pin_dir);
			said = true;
			usleep(500 * 1000);
			continue;
		}
		said = false;
		watch_pins(&p, loaded);
		wsr_pins_close(&p);
		if (!stopping)
			sleep(1);
	}
	return NULL;
}

int fs_events_start(void)
{
	return -pthread_create(&thread, NULL, watch_thread, NULL);
}

void fs_events_stop(void)
{
	stopping = 1;
	pthread_join(thread, NULL);
}
