// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wsr fs DIR: the seed's sysfs and cgroup files, served with FUSE
 * (libfuse3) by a process of its own, so that the daemon stays small and
 * a fault here cannot stop the estimator.  It runs until DIR is
 * unmounted (wsr fs --unmount DIR, or umount DIR) or it gets SIGTERM or
 * SIGINT, then unmounts.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
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

/* statfs()'s f_type of a FUSE mount (linux/magic.h has none) */
#define FUSE_SUPER_MAGIC	0x65735546

/*
 * --unmount: what the unit's ExecStop runs; the serving wsr fs then exits
 * 0.  Only a wsr fs mount: root could unmount anything else by mistake.
 */
static int unmount(const char *dir)
{
	char node[PATH_MAX + 32];
	struct statfs sf;

	snprintf(node, sizeof(node), "%s/devices/system/node", dir);
	if (statfs(dir, &sf) || sf.f_type != FUSE_SUPER_MAGIC || access(node, F_OK)) {
		err_msg("fs: %s is not a wsr fs mount: not unmounting it", dir);
		return 1;
	}
	if (!umount2(dir, 0))
		return 0;
	if (errno == EINVAL)
		err_msg("fs: nothing is mounted on %s", dir);
	else
		err_msg("fs: cannot unmount %s: %s%s", dir, strerror(errno),
			errno == EBUSY ? " (a process works in it: umount -l detaches it)" : "");
	return 1;
}

static int do_fs(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "debug", no_argument, NULL, 'd' },
		{ "unmount", no_argument, NULL, 'u' },
		{ 0 },
	};
	bool debug = false, umount = false;
	struct stat st;
	int opt;

	while ((opt = cmd_getopt(argc, argv, "du", opts)) != -1) {
		if (opt == 'd')
			debug = true;
		else if (opt == 'u')
			umount = true;
		else
			return 2;
	}
	if (!cmd_args(argc, argv, 1, "fs takes the folder to mount on, e.g. \"wsr fs /run/wsr-fs\""))
		return 2;
	if (umount)
		return unmount(argv[optind]);
	if (stat(argv[optind], &st) || !S_ISDIR(st.st_mode)) {
		err_msg("fs: %s is not a folder", argv[optind]);
		return 2;
	}
	return serve(argv[optind], debug);
}

const struct wsr_cmd cmd_fs = {
	.name = "fs",
	.fn = do_fs,
	.synopsis = "[--debug] DIR | --unmount DIR",
	.help =
"Mount the seed's files on DIR (FUSE) and serve them until DIR is\n"
"unmounted (wsr fs --unmount DIR, or umount) or wsr fs gets SIGTERM or\n"
"SIGINT: the seed's /sys with DIR in place of /sys.\n"
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
"  wsr fs --unmount /run/wsr-fs\n"
"\n"
"  -d, --debug            libfuse's debug output: each request, on stderr\n"
"  -u, --unmount          unmount DIR (the serving wsr fs then exits 0)\n",
};
