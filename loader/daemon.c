// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wsr daemon: load the programs (or adopt their pins), age in the
 * background, serve the balloon device's requests, say when a limit was
 * reached.  The programs keep working without it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include "cli.h"

/* the daemon's --interval-ms goes to poll(), which takes an int of ms */
#define WSR_MAX_DAEMON_INTERVAL_MS	3600000ULL

/* a subtree the daemon ages, and on which nodes */
struct subtree {
	__u64 id;
	struct wsr_refresh_args a;
};

/*
 * The memcgs of the "config" map @fd configured with refresh_ms on some
 * node, into *@v (malloc()ed): how many (those found before memory ran
 * out)
 */
static size_t configured_subtrees(int fd, struct subtree **v)
{
	struct subtree *grown;
	struct wsr_key key, at;
	struct wsr_config cfg;
	bool first = true;
	size_t nr = 0, i;

	/* a key can go between two calls: then the walk starts over, rarely */
	while (!bpf_map_get_next_key(fd, first ? NULL : &at, &key)) {
		first = false;
		at = key;
		if (bpf_map_lookup_elem(fd, &at, &cfg) || !cfg.refresh_ms ||
		    at.node >= WSR_MAX_NODES)
			continue;
		for (i = 0; i < nr && (*v)[i].id != at.cgroup_id; i++)
			;
		if (i == nr) {
			grown = realloc(*v, (nr + 1) * sizeof(**v));
			if (!grown)
				break;
			*v = grown;
			(*v)[nr++] = (struct subtree){ .id = at.cgroup_id,
						       .a.merge = WSR_REFRESH_BACKGROUND };
		}
		(*v)[i].a.refresh_ms[at.node] = cfg.refresh_ms;
		(*v)[i].a.nodes |= 1ULL << at.node;
	}
	return nr;
}

/*
 * The daemon's own aging (not --seed-aging), each --interval-ms: the
 * subtree of every memcg configured with refresh_ms on a node is aged
 * where the youngest generation is older than that (bpf/refresh.h,
 * WSR_REFRESH_BACKGROUND), and, once the host has configured the balloon
 * device with a refresh_ms that is not 0, every lruvec with pages whose
 * youngest generation is older than that less @period_ms, the longest
 * time until we age again (WSR_REFRESH_BALLOON): an answer's data is then
 * never older than the device's refresh_ms.  The young end of a histogram
 * is never older than refresh_ms plus the period; what aging merges at
 * the old end, the aging hooks keep (bpf/vgen.h).  Returns the device's
 * refresh_ms it last aged for (0: none), which shortens the period.
 */
static __u64 age_in_background(__u64 period_ms)
{
	static __u64 last_ns, balloon_ms;
	static bool said;
	struct subtree *v = NULL, *grown;
	struct wsr_err err;
	size_t nr = 0, i;
	char path[PATH_MAX], dir[256];
	__u64 ms, now = wsr_now_ns();
	int fd;

	/*
	 * Not without the hooks that keep merged generations (an older load,
	 * or a kernel without try_to_inc_max_seq): aging would merge them
	 * away.  Not more often than WSR_BACKGROUND_MIN_MS.
	 */
	if (!wsr_pinned(pin_dir, WSR_PIN_LINK_AGING_BEGIN)) {
		if (!said)
			err_msg("warning: no aging hooks pinned (loaded by a --seed-aging daemon, "
				"or no try_to_inc_max_seq): the daemon does not age on its own");
		said = true;
		return 0;
	}
	if (now - last_ns < WSR_BACKGROUND_MIN_MS * 1000000ULL)
		return balloon_ms;
	last_ns = now;
	wsr_pin_path(pin_dir, WSR_PIN_CONFIG, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return balloon_ms;
	nr = configured_subtrees(fd, &v);
	close(fd);
	balloon_ms = 0;
	if (!wsr_balloon_dir(&sys, dir, sizeof(dir)) && wsr_balloon_configured(dir) &&
	    (ms = wsr_balloon_read_u64(dir, "refresh_ms"))) {
		balloon_ms = ms;
		grown = realloc(v, (nr + 1) * sizeof(*v));
		if (grown) {
			v = grown;
			v[nr] = (struct subtree){ .id = WSR_ROOT_CGROUP,
						  .a.merge = WSR_REFRESH_BALLOON,
						  .a.nodes = wsr_memory_nodes(&sys) };
			for (i = 0; i < WSR_MAX_NODES; i++)
				v[nr].a.refresh_ms[i] = ms > period_ms ? ms - period_ms : 0;
			nr++;
		}
	}
	for (i = 0; i < nr; i++) {
		/* by id: no folder; a memcg gone meanwhile (-ENOENT) is no news */
		struct wsr_memcg m = { .id = v[i].id };

		err.msg[0] = 0;
		snprintf(m.rel, sizeof(m.rel), "cgroup id %llu", (unsigned long long)v[i].id);
		if (wsr_refresh_subtree(pin_dir, &sys, &m, &v[i].a, &err) && err.msg[0])
			err_msg("%s", err.msg);
	}
	free(v);
	return balloon_ms;
}

/* say once, for each limit, that one was reached (see struct wsr_stats) */
static void check_limits(struct wsr_stats *logged)
{
	struct wsr_stats st;
	char path[PATH_MAX];
	int fd;

	/* quietly: "wsr unload" may have removed it under a running daemon */
	wsr_pin_path(pin_dir, WSR_PIN_STATS, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return;
	if (!bpf_map_lookup_elem(fd, &(__u32){ 0 }, &st)) {
		if (st.walks_truncated && !logged->walks_truncated)
			err_msg("warning: a report's memcg walk ran out of its %llu steps; "
				"such reports are marked incomplete",
				(unsigned long long)st.walk_steps);
		if (st.ancestors_truncated && !logged->ancestors_truncated)
			err_msg("warning: a memcg is deeper than %d levels; reaccess counts skip "
				"its ancestors above that", WSR_MAX_ANCESTORS);
		if (st.maps_full && !logged->maps_full)
			err_msg("warning: an entry of the reports, live, reaccess or vgens map "
				"could not be made (full at %d keys, %d for vgens, or no memory): "
				"some reports, reads or counts were lost", WSR_MAX_KEYS,
				WSR_MAX_VGENS);
		*logged = st;
	}
	close(fd);
}

/*
 * Has the virtio_balloon module been loaded since we last looked?  Its BTF
 * file is made anew at each load, with a new inode number, so that an
 * rmmod and insmod between two looks are seen too.
 */
static bool balloon_module_appeared(ino_t *seen)
{
	ino_t now = wsr_balloon_module(), was = *seen;

	*seen = now;
	return now && now != was;
}

/*
 * With MGLRU's non-leaf young capability, the first node's page-table walk
 * clears PMD accessed bits that the walks of other nodes need, so a memcg
 * aged on several nodes back to back sees its hot pages as idle.  We only
 * advise: the capability is the administrator's to change.
 */
static void check_nonleaf_young(void)
{
	unsigned int caps = 0;
	FILE *f = fopen("/sys/kernel/mm/lru_gen/enabled", "r");

	if (!f)
		return;
	if (fscanf(f, "%x", &caps) == 1 && (caps & 0x4) && wsr_possible_nodes(&sys) > 1)
		err_msg("warning: MGLRU non-leaf young (0x0004) is on with several NUMA nodes: "
			"hot pages can read as idle when nodes age back to back; "
			"\"echo 0x0003 > /sys/kernel/mm/lru_gen/enabled\" avoids it");
	fclose(f);
}

enum { OPT_INTERVAL = 256, OPT_WALK_STEPS, OPT_SEED_AGING };

/* the daemon's options; 2 on bad usage */
static int daemon_options(int argc, char **argv, __u64 *interval_ms, __u64 *walk_steps,
			  bool *seed_aging)
{
	static const struct option opts[] = {
		{ "interval-ms", required_argument, NULL, OPT_INTERVAL },
		{ "max-walk-steps", required_argument, NULL, OPT_WALK_STEPS },
		{ "seed-aging", no_argument, NULL, OPT_SEED_AGING },
		{ 0 },
	};
	struct wsr_err err;
	int opt;

	while ((opt = cmd_getopt(argc, argv, "", opts)) != -1) {
		switch (opt) {
		case OPT_INTERVAL:
			/* poll() takes an int of ms */
			if (wsr_parse_ms(optarg, interval_ms, WSR_MAX_DAEMON_INTERVAL_MS,
					 "--interval-ms", &err)) {
				err_msg("%s", err.msg);
				return 2;
			}
			if (!*interval_ms) {
				err_msg("--interval-ms must be at least 1");
				return 2;
			}
			break;
		case OPT_WALK_STEPS:
			if (wsr_parse_range(optarg, walk_steps, 1, WSR_MAX_WALK_STEPS,
					    "--max-walk-steps", &err)) {
				err_msg("%s", err.msg);
				return 2;
			}
			break;
		case OPT_SEED_AGING:
			*seed_aging = true;
			break;
		default:
			return 2;
		}
	}
	return cmd_args(argc, argv, 0, NULL) ? 0 : 2;
}

/*
 * Reclaim must not page us out while we watch memory pressure: all our
 * memory locked, now and to come.  Only where no limit applies (with
 * CAP_IPC_LOCK, or RLIMIT_MEMLOCK unlimited): under a limit, MCL_FUTURE
 * makes every allocation past it fail, the kernel's BTF (megabytes)
 * first, and libbpf then says it found no BTF.  There we run unlocked,
 * and say so.
 */
bool memory_locked;

static void lock_in_memory(void)
{
	struct rlimit rl;

	if (!have_cap(CAP_IPC_LOCK) &&
	    (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur != RLIM_INFINITY)) {
		err_msg("warning: not locked in memory (reclaim may page the daemon out): "
			"locking needs CAP_IPC_LOCK (wsr.service grants it) or an unlimited "
			"RLIMIT_MEMLOCK");
		return;
	}
	/*
	 * On fault: what the daemon touches, not the whole of a static
	 * binary (most of it a load's, run once: release_load_memory())
	 */
	if (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT))
		err_msg("warning: mlockall failed: %s", strerror(errno));
	else
		memory_locked = true;
}

/*
 * Locked in memory, the pin folder checked, the programs loaded and
 * pinned or adopted: 0, or -1 (said)
 */
static int daemon_setup(__u64 walk_steps, bool seed_aging)
{
	struct wsr_err err;
	int ret;

	lock_in_memory();
	if (mkdir(pin_dir, 0700) && errno != EEXIST) {
		err_msg("cannot create %s: %s (is bpffs mounted on /sys/fs/bpf?)", pin_dir,
			strerror(errno));
		return -1;
	}
	/*
	 * bpffs is mode 1777 unless mounted with a mode: a pin folder someone
	 * else made or can write to could have our links unpinned or replaced.
	 */
	if (wsr_check_pin_dir(pin_dir, &err)) {
		err_msg("%s", err.msg);
		return -1;
	}
	ret = load_and_pin(walk_steps, !seed_aging);
	if (ret < 0)
		return -1;
	if (ret) {
		/* the seed has no hooks that keep merged generations' ages */
		if (seed_aging && wsr_pinned(pin_dir, WSR_PIN_LINK_AGING_BEGIN)) {
			err_msg("the programs pinned in %s keep merged generations' ages, which "
				"the seed does not: \"wsr unload\" them before --seed-aging",
				pin_dir);
			return -1;
		}
		info_msg("adopting the programs pinned in %s", pin_dir);
	} else {
		info_msg("loaded and pinned in %s", pin_dir);
	}
	return 0;
}

/*
 * virtio_balloon loaded after we started: attach to it.  Only then, and
 * not if it was detached meanwhile: "wsr balloon detach" must stay
 * detached for an rmmod.
 */
static void balloon_attach_late(ino_t *module)
{
	int ret;

	if (!balloon_module_appeared(module) || !balloon_kfuncs() ||
	    wsr_balloon_attached(pin_dir))
		return;
	ret = balloon_attach(true);
	if (!ret)
		info_msg("virtio_balloon loaded: balloon programs attached");
	else if (ret < 0)
		*module = 0;	/* try again next time */
	/* after the message, which tests and users wait for */
	release_load_memory();
}

static int do_daemon(int argc, char **argv)
{
	struct balloon_watch bw = { .fd = { -1, -1 } };
	__u64 interval_ms = 1000, walk_steps = WSR_MAX_WALK_STEPS, period_ms, balloon_ms;
	sigset_t stops, old_mask, wait_mask;
	struct wsr_stats logged = {};
	bool seed_aging = false, claimed = false;
	ino_t module = 0, pins;
	int ret = daemon_options(argc, argv, &interval_ms, &walk_steps, &seed_aging);

	if (ret)
		return ret;
	if (daemon_setup(walk_steps, seed_aging))
		return 1;
	pins = wsr_loaded_inode(pin_dir);
	check_nonleaf_young();
	balloon_module_appeared(&module);
	if (balloon_kfuncs() && !wsr_balloon_attached(pin_dir) && !balloon_attach(true))
		info_msg("balloon programs attached");
	/* what the load and the attach used, once they said so */
	release_load_memory();
	period_ms = interval_ms;
	/*
	 * A stop is taken only while the loop waits (balloon_serve()):
	 * one that came between the check of exiting and a wait of a whole
	 * period (an hour at most) would otherwise wait that long
	 */
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigprocmask(SIG_BLOCK, &stops, &old_mask);
	wait_mask = old_mask;
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	while (!exiting) {
		/*
		 * Unloaded, or loaded again by another daemon: these are not
		 * our programs any more, and two daemons would age twice.
		 */
		if (wsr_loaded_inode(pin_dir) != pins) {
			info_msg("the programs in %s were unloaded or replaced: exiting",
				 pin_dir);
			break;
		}
		balloon_attach_late(&module);
		/*
		 * Requests are ours for WSR_BALLOON_DAEMON_MS, then the request
		 * hook's; the claim's map comes with the balloon's first attach.
		 */
		if (!claimed && wsr_balloon_attached(pin_dir))
			claimed = !balloon_claim(0, 1);
		check_limits(&logged);
		/*
		 * Until the next aging: a period, or a request's early wake-up
		 * and a period after it (ages at most every WSR_BACKGROUND_MIN_MS).
		 * A balloon device's refresh_ms is looked at twice in its span.
		 */
		if (!seed_aging) {
			balloon_ms = age_in_background(period_ms + WSR_BACKGROUND_MIN_MS);
			period_ms = interval_ms;
			if (balloon_ms && balloon_ms / 2 < period_ms)
				period_ms = balloon_ms / 2 > WSR_BACKGROUND_MIN_MS ?
					    balloon_ms / 2 : WSR_BACKGROUND_MIN_MS;
		}
		balloon_serve(&bw, period_ms, &wait_mask);
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	if (claimed)
		balloon_claim(0, 0);
	balloon_unwatch(&bw);
	info_msg("exiting; the programs stay attached (\"wsr unload\" detaches)");
	return 0;
}

const struct wsr_cmd cmd_daemon = {
	.name = "daemon",
	.fn = do_daemon,
	.synopsis = "[--interval-ms MS] [--max-walk-steps N] [--seed-aging]",
	.help =
"Load the BPF programs (or adopt pinned ones), answer the balloon device's\n"
"requests, attach to virtio_balloon when it is loaded; runs in the\n"
"foreground, logs to stderr, stops on SIGTERM; programs stay attached\n"
"after it exits.\n\n"
"      --interval-ms MS   the daemon's period (1000; 1 to 3600000): each\n"
"                         period it ages (not with --seed-aging; at most\n"
"                         every 500 ms), looks at the balloon device if it\n"
"                         sent nothing, and attaches to a virtio_balloon\n"
"                         loaded since; while it ages for a configured\n"
"                         balloon device, at most half the device's\n"
"                         refresh_ms (not below 500 ms)\n"
"      --max-walk-steps N when it loads the programs: steps a report's\n"
"                         memcg walk may take (one per memcg or level; 1 to\n"
"                         1048576, the default); a walk cut short makes an\n"
"                         incomplete report (\"incomplete\":true, a warning)\n"
"      --seed-aging       the seed's rules alone: age only on reads and\n"
"                         balloon requests, as the seed's refresh does\n"
"                         (fewer than four generations, youngest older\n"
"                         than refresh_ms, not below memory.min), and load\n"
"                         no hooks that keep merged generations' ages\n"
"                         (refused if pinned ones have them).  Without it\n"
"                         the daemon also ages, at each --interval-ms (at\n"
"                         most every 500 ms), every lruvec of 64 pages or\n"
"                         more whose memcg (or an ancestor) has refresh_ms\n"
"                         and whose youngest generation is older than that\n"
"                         (not below memory.min), and, once the host has\n"
"                         configured the balloon device, every lruvec with\n"
"                         pages that would otherwise be older than its\n"
"                         refresh_ms (0: none) by the next period:\n"
"                         histograms stay right at both ends\n"
"                         (docs/estimator.md: \"Aging and idle ages\")\n",
};
