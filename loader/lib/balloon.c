// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libwsr: the virtio_balloon driver's working_set folder in sysfs
 * (kernel-patches/, Documentation/ABI), read by the daemon and by "wsr
 * balloon show" (libwsr.h).
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "libwsr.h"

int wsr_balloon_read_text(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

__u64 wsr_balloon_read_u64(const char *dir, const char *name)
{
	char buf[32];

	return wsr_balloon_read_text(dir, name, buf, sizeof(buf)) ? 0 : strtoull(buf, NULL, 10);
}

bool wsr_balloon_configured(const char *dir)
{
	return wsr_balloon_read_u64(dir, "configs") > 0;
}

ino_t wsr_balloon_module(void)
{
	struct stat st;

	return stat(WSR_BALLOON_BTF, &st) ? 0 : st.st_ino;
}

/*
 * After an unbind and bind, or with several devices, the one the kfuncs
 * report through is not merely the first one bound: its "active" reads 1.
 */
int wsr_balloon_dir(const struct wsr_sys *sys, char *dir, size_t len)
{
	char pattern[PATH_MAX], active[8];
	glob_t g;
	size_t i;
	int err = -1;

	snprintf(pattern, sizeof(pattern), "%s/virtio*/working_set", sys->balloon);
	if (glob(pattern, 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc && err; i++) {
			if (wsr_balloon_read_text(g.gl_pathv[i], "active", active,
						  sizeof(active)) || strcmp(active, "1"))
				continue;
			snprintf(dir, len, "%s", g.gl_pathv[i]);
			err = 0;
		}
	}
	globfree(&g);
	return err;
}
