// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wsr-pin-foe: what the guest tests do to wsr's pin folder that wsr must
 * withstand.
 *
 *   wsr-pin-foe hold-lock DIR [UID]
 *                                take DIR's lock (flock, as wsr does) and
 *                                hold it until killed, as user UID (with
 *                                its gid, no other group) if given; "held"
 *                                once it is; status 1 if it cannot be taken
 *   wsr-pin-foe old-layout DIR   pin in DIR (made 0700) the maps config,
 *                                reports and stats as wsr pinned them
 *                                before commit 0dbafa3 (struct wsr_report
 *                                without claim_ns, struct wsr_stats without
 *                                walk_steps): an older wsr's pins
 *   wsr-pin-foe prealloc DIR     pin in DIR the map config as wsr pinned
 *                                it before its hash maps were made
 *                                BPF_F_NO_PREALLOC: same sizes, flags 0
 *   wsr-pin-foe jit PATH         pin at PATH a program of two instructions,
 *                                JIT-compiled: another BPF user, as a
 *                                guest's systemd is (vmtests/memcost-guest.sh)
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "wsr.h"

static int hold_lock(const char *dir, const char *uid)
{
	unsigned long id = uid ? strtoul(uid, NULL, 10) : 0;
	int fd;

	/* the guest has no su to a user with no passwd entry */
	if (uid && (setgroups(0, NULL) || setgid(id) || setuid(id))) {
		fprintf(stderr, "wsr-pin-foe: cannot become uid %s: %s\n", uid, strerror(errno));
		return 1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB)) {
		fprintf(stderr, "wsr-pin-foe: cannot lock %s: %s\n", dir, strerror(errno));
		return 1;
	}
	printf("held\n");
	fflush(stdout);
	for (;;)
		pause();
}

static int old_layout(const char *dir)
{
	/* the maps' definitions at 0dbafa3^: bpf/wsr.bpf.c, include/wsr.h */
	static const struct {
		const char *name;
		enum bpf_map_type type;
		__u32 key, value, entries;
	} maps[] = {
		{ "config", BPF_MAP_TYPE_HASH, sizeof(struct wsr_key), sizeof(struct wsr_config),
		  WSR_MAX_KEYS },
		{ "reports", BPF_MAP_TYPE_HASH, sizeof(struct wsr_key),
		  sizeof(struct wsr_report) - sizeof(__u64), WSR_MAX_KEYS },
		{ "stats", BPF_MAP_TYPE_ARRAY, sizeof(__u32), 3 * sizeof(__u64), 1 },
	};
	char path[4096];
	unsigned int i;
	int fd;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		fprintf(stderr, "wsr-pin-foe: cannot make %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, maps[i].name);
		fd = bpf_map_create(maps[i].type, maps[i].name, maps[i].key, maps[i].value,
				    maps[i].entries, NULL);
		if (fd < 0 || bpf_obj_pin(fd, path)) {
			fprintf(stderr, "wsr-pin-foe: cannot pin %s: %s\n", path, strerror(errno));
			return 1;
		}
		close(fd);
	}
	return 0;
}

static int prealloc(const char *dir)
{
	char path[4096];
	int fd;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		fprintf(stderr, "wsr-pin-foe: cannot make %s: %s\n", dir, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/config", dir);
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "config", sizeof(struct wsr_key),
			    sizeof(struct wsr_config), WSR_MAX_KEYS, NULL);
	if (fd < 0 || bpf_obj_pin(fd, path)) {
		fprintf(stderr, "wsr-pin-foe: cannot pin %s: %s\n", path, strerror(errno));
		return 1;
	}
	close(fd);
	return 0;
}

static int jit(const char *path)
{
	/* r0 = 0; exit: a socket filter that drops everything */
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "foe", "GPL", insns, 2, NULL);

	if (fd < 0 || bpf_obj_pin(fd, path)) {
		fprintf(stderr, "wsr-pin-foe: cannot pin a program at %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "hold-lock"))
		return hold_lock(argv[2], argc == 4 ? argv[3] : NULL);
	if (argc == 3 && !strcmp(argv[1], "old-layout"))
		return old_layout(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "prealloc"))
		return prealloc(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "jit"))
		return jit(argv[2]);
	fprintf(stderr, "usage: wsr-pin-foe hold-lock DIR [UID] | old-layout DIR | prealloc DIR | "
		"jit PATH\n");
	return 2;
}
