// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Loading the balloon's BPF object (bpf/balloon.bpf.c) and pinning its
 * programs (wsr daemon, wsr balloon attach); wsr balloon detach.
 *
 * An object apart from the estimator's: its programs call the
 * virtio_balloon module's kfuncs, so it loads only when the driver is
 * there, and its pins keep the module loaded until detached.  It reuses the
 * estimator's pinned maps (stats, scratch_map, vgens) and makes its own
 * (balloon, balloon_claim, request_scratch) at its first load.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>
#include "cli.h"
#include "balloon.skel.h"

/*
 * Does the virtio_balloon driver have the working-set kfuncs?  A module
 * has them in its own BTF; a driver built in (CONFIG_VIRTIO_BALLOON=y), in
 * vmlinux's.
 */
bool balloon_kfuncs(void)
{
	static const char kfunc[] = "bpf_virtio_balloon_ws_report";
	struct btf *vmlinux = btf__load_vmlinux_btf(), *mod;
	bool found = false;

	if (!vmlinux)
		return false;
	mod = btf__parse_split(WSR_BALLOON_BTF, vmlinux);
	if (mod) {
		found = btf__find_by_name_kind(mod, kfunc, BTF_KIND_FUNC) > 0;
		btf__free(mod);
	} else {
		found = btf__find_by_name_kind(vmlinux, kfunc, BTF_KIND_FUNC) > 0;
	}
	btf__free(vmlinux);
	return found;
}

/* the maps this object makes (the pin-name table's); the others are the estimator's, reused */
static bool own_map(const struct bpf_map *map)
{
	const struct wsr_pin_name *n = wsr_pin_find(bpf_map__name(map));

	return n && n->balloon;
}

/*
 * The balloon object with its maps set to their pins: the estimator's must
 * be there (a balloon report bins with the estimator's kept parts, counts
 * in its stats), ours are made and pinned by the first load.
 */
static struct balloon_bpf *open_balloon_skel(void)
{
	struct bpf_program *prog;
	struct balloon_bpf *skel;
	struct bpf_map *map;
	struct wsr_err err;
	char path[PATH_MAX];
	int fd;

	skel = balloon_bpf__open();
	if (!skel) {
		err_msg("cannot open the balloon's BPF object");
		return NULL;
	}
	skel->rodata->nr_nodes = wsr_possible_nodes(&sys);
	skel->rodata->walk_steps = wsr_loaded_walk_steps(pin_dir);
	/* with -v, each program's verifier cost (BPF_LOG_STATS) */
	if (verbose)
		bpf_object__for_each_program(prog, skel->obj)
			bpf_program__set_log_level(prog, 4);
	bpf_object__for_each_map(map, skel->obj) {
		/* internal maps (.rodata, .bss) belong to this load only */
		if (strchr(bpf_map__name(map), '.'))
			continue;
		if (own_map(map)) {
			/* pinned: reused at load; else made, and pinned by hand */
			if (!wsr_pinned(pin_dir, bpf_map__name(map)))
				continue;
			wsr_pin_path(pin_dir, bpf_map__name(map), path, sizeof(path));
			if (!bpf_map__set_pin_path(map, path))
				continue;
			err_msg("cannot set the pin of map %s", bpf_map__name(map));
			goto fail;
		}
		fd = wsr_pin_open(pin_dir, bpf_map__name(map), &err);
		if (fd < 0) {
			err_msg("%s", err.msg);
			goto fail;
		}
		/* the estimator's map, not a copy: reuse_fd dups the fd */
		if (bpf_map__reuse_fd(map, fd)) {
			err_msg("cannot reuse the pinned map %s (made by another wsr version?): %s",
				bpf_map__name(map), strerror(errno));
			close(fd);
			goto fail;
		}
		close(fd);
	}
	return skel;
fail:
	balloon_bpf__destroy(skel);
	return NULL;
}

/*
 * Pin the maps this load made (none were pinned when it opened), under
 * the pin folder's lock.  1 when another load pinned them in the
 * meantime: this load's maps are not the ones the pins name.
 */
static int pin_own_maps(struct balloon_bpf *skel)
{
	struct bpf_map *map;
	char path[PATH_MAX];

	bpf_object__for_each_map(map, skel->obj) {
		if (!own_map(map) || bpf_map__pin_path(map))
			continue;
		if (wsr_pinned(pin_dir, bpf_map__name(map)))
			return 1;
	}
	bpf_object__for_each_map(map, skel->obj) {
		if (!own_map(map) || bpf_map__pin_path(map))
			continue;
		wsr_pin_path(pin_dir, bpf_map__name(map), path, sizeof(path));
		if (bpf_map__pin(map, path)) {
			err_msg("cannot pin map %s at %s: %s", bpf_map__name(map), path,
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * Load and pin the balloon programs.  The daemon (on the driver's arrival)
 * and "wsr balloon attach" may race: a lock on the pin folder, held only
 * while pinning (the verifier's seconds are spent before it, so that
 * watchers claiming a slot under the same lock do not wait: a watcher
 * started with the daemon would miss the first reclaim report), makes the
 * second one find the first one's pins and drop its own load.  The first
 * load ever also pins the object's own maps, under the same lock; a load
 * that finds them pinned by another meanwhile loads once more, reusing
 * them.  An automatic attach (the daemon's) leaves a module instance
 * that "wsr balloon detach" detached alone, and says so: 1.
 */
static int left_detached(void)
{
	info_msg("virtio_balloon was detached by \"wsr balloon detach\": left detached "
		 "until it is loaded again or \"wsr balloon attach\"");
	return 1;
}

/* why the balloon's object did not load, as far as can be told */
static void say_load_failed(void)
{
	__u32 id;

	/*
	 * libbpf finds kfuncs in a module by going through the kernel's BTF
	 * objects by id, which CAP_SYS_ADMIN alone may (and then says only
	 * that they are not found)
	 */
	if (!access(WSR_BALLOON_BTF, F_OK) && bpf_btf_get_next_id(0, &id) && errno == EPERM &&
	    !have_cap(CAP_SYS_ADMIN))
		err_msg("cannot load the balloon programs: their kfuncs are in the "
			"virtio_balloon module, whose BTF libbpf looks up by id, which "
			"needs CAP_SYS_ADMIN");
	else
		err_msg("cannot load the balloon programs (run with -v for the verifier log)");
}

/* the request program and the two links pinned: 0, or -1 (said, none left pinned) */
static int pin_progs(struct balloon_bpf *skel)
{
	struct wsr_err werr = { "" };
	char path[PATH_MAX];

	wsr_pin_path(pin_dir, WSR_PIN_PROG_BALLOON_REQUEST, path, sizeof(path));
	if (bpf_program__pin(skel->progs.wsr_balloon_request, path) ||
	    wsr_pin_link(pin_dir, bpf_program__attach(skel->progs.wsr_balloon_reclaim),
			 WSR_PIN_LINK_BALLOON_RECLAIM, &werr) ||
	    wsr_pin_link(pin_dir, bpf_program__attach(skel->progs.wsr_balloon_request_hook),
			 WSR_PIN_LINK_BALLOON_REQUEST_HOOK, &werr)) {
		if (werr.msg[0])
			err_msg("%s", werr.msg);
		else
			err_msg("cannot pin the balloon request program: %s", strerror(errno));
		wsr_unpin(pin_dir, true);
		return -1;
	}
	return 0;
}

int balloon_attach(bool automatic)
{
	struct balloon_bpf *skel = NULL;
	struct wsr_err werr = { "" };
	int err = -1, dir, tries = 0, raced;

	if (wsr_balloon_attached(pin_dir))
		return 0;
	/* before the load too: its programs would hold the module meanwhile */
	if (automatic && wsr_balloon_detached(pin_dir, wsr_balloon_module()))
		return left_detached();
	if (!balloon_kfuncs()) {
		err_msg("the virtio_balloon driver is not loaded or has no working-set kfuncs");
		return -1;
	}
	dir = open(pin_dir, O_RDONLY | O_DIRECTORY);
	if (dir < 0) {
		err_msg("cannot open %s: %s", pin_dir, strerror(errno));
		return -1;
	}
again:
	skel = open_balloon_skel();
	if (!skel)
		goto out;
	if (balloon_bpf__load(skel)) {
		say_load_failed();
		goto out;
	}
	if (wsr_lock_dir(dir, pin_dir, WSR_LOCK_TIMEOUT_MS, &werr)) {
		err_msg("%s", werr.msg);
		goto out;
	}
	if (wsr_balloon_attached(pin_dir)) {
		err = 0;
		goto out;
	}
	if (automatic && wsr_balloon_detached(pin_dir, wsr_balloon_module())) {
		err = left_detached();
		goto out;
	}
	raced = pin_own_maps(skel);
	if (raced < 0)
		goto out;
	if (raced && !tries++) {
		balloon_bpf__destroy(skel);
		flock(dir, LOCK_UN);
		goto again;
	}
	if (raced) {
		err_msg("the balloon's maps were pinned by another load twice in a row");
		goto out;
	}
	if (pin_progs(skel))
		goto out;
	wsr_balloon_clear_detached(pin_dir);
	err = 0;
out:
	balloon_bpf__destroy(skel);
	close(dir);	/* and the lock with it */
	return err;
}

/*
 * Unpin the balloon programs, under the pin folder's lock, and record the
 * detach for the daemon (whose own attach may have begun before it); then
 * wait until the kernel has let go of the module: programs are freed after
 * an RCU grace period (the trampolines of fentry programs after an
 * RCU-tasks one, seconds on a busy machine: 5 s was seen too short under
 * load), and only then does "rmmod virtio_balloon" work.  The balloon's
 * maps stay, with what was last sent, for "wsr balloon show" and the next
 * attach.
 */
int balloon_detach(void)
{
	struct wsr_err werr = { "" };
	int i, dir;

	/* as long as a daemon's first load may hold it: a detach must not give up */
	dir = wsr_lock_pin_dir(pin_dir, WSR_LOAD_LOCK_TIMEOUT_MS, &werr);
	if (dir == -ENOENT)
		return 0;	/* nothing loaded, nothing attached */
	if (dir < 0) {
		err_msg("%s", werr.msg);
		return 1;
	}
	wsr_unpin(pin_dir, true);
	if (wsr_balloon_mark_detached(pin_dir, wsr_balloon_module(), &werr))
		err_msg("warning: %s; the daemon may attach again", werr.msg);
	close(dir);	/* and the lock with it */
	for (i = 0; i < 600; i++) {
		char buf[16] = "0";
		FILE *f = fopen("/sys/module/virtio_balloon/refcnt", "r");

		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = '0';
			fclose(f);
		}
		if (atoi(buf) == 0)
			return 0;
		usleep(50 * 1000);
	}
	err_msg("warning: virtio_balloon is still in use 30 s after detaching");
	return 0;
}
