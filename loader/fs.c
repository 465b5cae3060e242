// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wsr fs DIR: the seed's sysfs and cgroup files, served with FUSE
 * (libfuse3) by a process of its own, so that the daemon stays small and
 * a fault here cannot stop the estimator.  It runs until DIR is
 * unmounted (umount DIR) or it gets SIGTERM or SIGINT, then unmounts.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "fs.h"

static int serve(const char *dir, bool debug)
{
	/* any user reads, as sysfs; the kernel checks the modes */
	char *fargv[] = { "wsr", "-o", "allow_other,default_permissions,fsname=wsr,subtype=wsr",
			  debug ? "-d" : NULL, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(debug ? 4 : 3, fargv);
	struct fuse *f;
	int ret = 1;

	f = fuse_new(&args, &fs_ops, sizeof(fs_ops), NULL);
	if (!f) {
		err_msg("fs: cannot set up FUSE");
		return 1;
	}
	/* libfuse's handlers unmount at SIGTERM and SIGINT: only over SIG_DFL */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (fuse_set_signal_handlers(fuse_get_session(f))) {
		err_msg("fs: cannot set the signal handlers");
		goto out;
	}
	if (fuse_mount(f, dir)) {
		err_msg("fs: cannot mount on %s (is the fuse module loaded? /dev/fuse?)", dir);
		goto handlers;
	}
	if (fs_events_start()) {
		err_msg("fs: cannot start the thread that waits for reports");
		goto unmount;
	}
	info_msg("the seed's files in %s: devices/system/node/nodeN/wss/, "
		 "fs/cgroup/<memcg>/memory.wss.*", dir);
	/* the signal that ended it (libfuse's handlers) is a stop, not a fault */
	ret = fuse_loop_mt(f, 0);
	ret = ret && ret != SIGTERM && ret != SIGINT && ret != SIGHUP;
	fs_events_stop();
unmount:
	fuse_unmount(f);
handlers:
	fuse_remove_signal_handlers(fuse_get_session(f));
out:
	fuse_destroy(f);
	return ret;
}

static int do_fs(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "debug", no_argument, NULL, 'd' },
		{ 0 },
	};
	bool debug = false;
	struct stat st;
	int opt;

	while ((opt = cmd_getopt(argc, argv, "d", opts)) != -1) {
		if (opt != 'd')
			return 2;
		debug = true;
	}
	if (!cmd_args(argc, argv, 1, "fs takes the folder to mount on, e.g. \"wsr fs /run/wsr-fs\""))
		return 2;
	if (stat(argv[optind], &st) || !S_ISDIR(st.st_mode)) {
		err_msg("fs: %s is not a folder", argv[optind]);
		return 2;
	}
	return serve(argv[optind], debug);
}

const struct wsr_cmd cmd_fs = {
	.name = "fs",
	.fn = do_fs,
	.synopsis = "[--debug] DIR",
	.help =
"Mount the seed's files on DIR (FUSE) and serve them until DIR is\n"
"unmounted or wsr fs is stopped: the seed's /sys with DIR in place of /sys.\n"
"  DIR/devices/system/node/nodeN/wss/{intervals_ms,refresh_ms,report_ms,histogram}\n"
"  DIR/fs/cgroup/<memcg>/memory.wss.{intervals_ms,refresh_ms,report_ms,histogram}\n"
"  DIR/fs/cgroup/<memcg>/memory.reaccess.{intervals_ms,histogram}\n"
"Formats, modes and errors are the seed's; a write takes what wsr set\n"
"takes (a memcg's files N<node>=<value>), a read of histogram ages what\n"
"is due first (as wsr show), and poll() on histogram returns POLLPRI after\n"
"a reclaim report (reports since the last read or poll are one wake-up).\n"
"It needs the programs \"wsr daemon\" pinned; the daemon may restart under it.\n"
"\n"
"examples:\n"
"  mkdir -p /run/wsr-fs && wsr fs /run/wsr-fs &\n"
"  echo 1000,2000,4000 > /run/wsr-fs/devices/system/node/node0/wss/intervals_ms\n"
"  echo N0=1000 > /run/wsr-fs/fs/cgroup/job/memory.wss.report_ms\n"
"  cat /run/wsr-fs/fs/cgroup/job/memory.wss.histogram\n"
"  umount /run/wsr-fs\n"
"\n"
"  -d, --debug            libfuse's debug output: each request, on stderr\n",
};
