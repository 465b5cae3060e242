// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wsr-fs-user: what a user of the seed's files does to them, for the
 * tests of wsr fs (tests/guest/test_fs_*).
 *
 *   wsr-fs-user poll FILE TIMEOUT_MS COUNT [READY [GO]]
 *        open FILE and read it, as a sysfs user does before it polls;
 *        create READY, wait for GO to exist; then COUNT times poll() for
 *        POLLPRI alone, at most TIMEOUT_MS each, and print a line each:
 *        "wake MS" (POLLPRI, after MS ms; FILE is then read again from
 *        its start) or "timeout MS".  Status 1 on an error.
 *   wsr-fs-user write FILE VALUE
 *        write VALUE in one write() and print "ok" or the errno's name
 *        (EINVAL, ERANGE, EACCES, ...), as the seed's users see it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* FILE from its start to its end: the bytes read, or -1 */
static long read_all(int fd)
{
	char buf[4096];
	long total = 0;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	return n < 0 ? -1 : total;
}

static int do_poll(int argc, char **argv)
{
	const char *ready = argc > 5 ? argv[5] : NULL, *go = argc > 6 ? argv[6] : NULL;
	int fd = open(argv[2], O_RDONLY), timeout = atoi(argv[3]), count = atoi(argv[4]), i;
	struct pollfd pfd = { .fd = fd, .events = POLLPRI };
	long t, r;

	if (fd < 0 || read_all(fd) <= 0) {
		fprintf(stderr, "wsr-fs-user: cannot open and read %s: %s\n", argv[2],
			strerror(errno));
		return 1;
	}
	if (ready)
		close(open(ready, O_CREAT | O_WRONLY, 0644));
	while (go && access(go, F_OK))
		usleep(50 * 1000);
	for (i = 0; i < count; i++) {
		t = now_ms();
		r = poll(&pfd, 1, timeout);
		t = now_ms() - t;
		if (r < 0) {
			fprintf(stderr, "wsr-fs-user: poll: %s\n", strerror(errno));
			return 1;
		}
		if (r == 0) {
			printf("timeout %ld\n", t);
		} else if (pfd.revents & POLLPRI) {
			printf("wake %ld\n", t);
			if (read_all(fd) <= 0) {
				fprintf(stderr, "wsr-fs-user: read after the wake-up failed\n");
				return 1;
			}
		} else {
			printf("revents 0x%x %ld\n", pfd.revents, t);
			return 1;
		}
		fflush(stdout);
	}
	return 0;
}

static const char *errno_name(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case ERANGE: return "ERANGE";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EIO: return "EIO";
	default: return "other";
	}
}

static int do_write(char **argv)
{
	int fd = open(argv[2], O_WRONLY);
	size_t len = strlen(argv[3]);
	char buf[4096];

	if (fd < 0) {
		printf("%s\n", errno_name(errno));
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s\n", argv[3]);
	if (write(fd, buf, len + 1) == (ssize_t)(len + 1))
		printf("ok\n");
	else
		printf("%s\n", errno_name(errno));
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && argc <= 7 && !strcmp(argv[1], "poll"))
		return do_poll(argc, argv);
	if (argc == 4 && !strcmp(argv[1], "write"))
		return do_write(argv);
	fprintf(stderr, "usage: wsr-fs-user poll FILE TIMEOUT_MS COUNT [READY [GO]]\n"
			"       wsr-fs-user write FILE VALUE\n");
	return 2;
}
