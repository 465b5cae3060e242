// SPDX-License-Identifier: GPL-2.0
/*
 * send-hold: the test-only loader of send_hold.bpf.c (see there).
 *
 *   send-hold DEVICE CYCLES HOLD_MS
 *
 * CYCLES times: fail the ws queue's adds, wait until a failed answer's
 * send re-arms the request work and is held there for HOLD_MS, unbind
 * DEVICE (a virtio device name, such as virtio1) from virtio_balloon
 * while it is held, wait 1 s (a request work left queued would run on the
 * freed device by then), bind it again and wait until its working set is
 * the active one.  Prints one line a cycle:
 *
 *   cycle N: held_ms=H unbind_ms=U failed=F
 *
 * where U is how long the unbind took.  Each cycle must show that the
 * removal reached ws_stop() while the send was held: ws_ready clear at
 * the end of the hold, which ended during the unbind, after all of
 * HOLD_MS.  The host must keep sending requests, and an agent answering
 * them (a failed answer is what re-arms).  Exits 1, saying why on
 * stderr, if the programs do not load, no send is held within 60 s, a
 * cycle shows no removal during the hold, or the device does not come
 * back within 30 s.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "send_hold.h"
#include "send_hold.skel.h"

#define DRV "/sys/bus/virtio/drivers/virtio_balloon"

static int usage(void)
{
	fprintf(stderr, "usage: send-hold DEVICE CYCLES HOLD_MS\n");
	return 2;
}

/* CLOCK_MONOTONIC, as bpf_ktime_get_ns() reads it */
static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static double now_ms(void)
{
	return now_ns() / 1e6;
}

/* the address of the one kernel symbol NAME, or 0 */
static unsigned long long ksym(const char *name)
{
	unsigned long long addr, found = 0;
	char line[512], sym[256], type;
	int n = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 && !strcmp(sym, name)) {
			found = addr;
			n++;
		}
	}
	fclose(f);
	return n == 1 ? found : 0;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* wait up to SECS for DEVICE's working_set/active to read 1 */
static int wait_active(const char *dev, int secs)
{
	char path[256], c = 0;
	double end = now_ms() + secs * 1e3;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/working_set/active", dev);
	while (now_ms() < end) {
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			if (read(fd, &c, 1) != 1)
				c = 0;
			close(fd);
			if (c == '1')
				return 0;
		}
		usleep(10000);
	}
	return -1;
}

static int cycle(struct send_hold_bpf *skel, const char *dev, int n, unsigned long long hold_ns)
{
	volatile struct send_hold_state *st = &skel->bss->state;
	double end = now_ms() + 60e3;
	unsigned long long t0, t1;
	int err;

	st->fail = 1;
	st->armed = 1;
	while (!st->holding && now_ms() < end)
		usleep(1000);
	if (!st->holding) {
		st->fail = 0;
		st->armed = 0;
		fprintf(stderr, "send-hold: cycle %d: no failed send re-armed the request work in 60 s "
			"(%llu adds failed)\n", n, (unsigned long long)st->failed);
		return 1;
	}
	t0 = now_ns();
	err = write_str(DRV "/unbind", dev);
	t1 = now_ns();
	st->fail = 0;
	if (err) {
		fprintf(stderr, "send-hold: cycle %d: unbind %s: %s\n", n, dev, strerror(-err));
		return 1;
	}
	/* the removal got to ws_stop() while the send was held, and waited */
	if (st->holding || st->ready_after || st->held_ns < hold_ns ||
	    st->hold_end_ns < t0 || st->hold_end_ns > t1) {
		fprintf(stderr, "send-hold: cycle %d: the removal did not run into the held send: "
			"ws_ready %s at the end of a %llu ms hold, which ended %.0f ms into a "
			"%.0f ms unbind (holding %u)\n", n, st->ready_after ? "set" : "clear",
			(unsigned long long)st->held_ns / 1000000,
			((double)st->hold_end_ns - t0) / 1e6, (t1 - t0) / 1e6, st->holding);
		return 1;
	}
	/* a request work the removal left queued is due 500 ms after the hold */
	sleep(1);
	err = write_str(DRV "/bind", dev);
	if (err) {
		fprintf(stderr, "send-hold: cycle %d: bind %s: %s\n", n, dev, strerror(-err));
		return 1;
	}
	if (wait_active(dev, 30)) {
		fprintf(stderr, "send-hold: cycle %d: %s's working set not active 30 s after binding\n",
			n, dev);
		return 1;
	}
	printf("cycle %d: held_ms=%llu unbind_ms=%.0f failed=%llu\n", n,
	       (unsigned long long)(st->held_ns / 1000000), (t1 - t0) / 1e6,
	       (unsigned long long)st->failed);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct send_hold_bpf *skel;
	int cycles, hold_ms, i, err = 0;

	if (argc != 4)
		return usage();
	cycles = atoi(argv[2]);
	hold_ms = atoi(argv[3]);
	if (cycles <= 0 || hold_ms <= 0 || hold_ms > 1000)
		return usage();
	skel = send_hold_bpf__open();
	if (!skel) {
		fprintf(stderr, "send-hold: cannot open the BPF object\n");
		return 1;
	}
	skel->rodata->send_func = ksym("ws_send_func");
	skel->rodata->request_func = ksym("ws_request_func");
	skel->rodata->hold_ns = hold_ms * 1000000ULL;
	if (!skel->rodata->send_func || !skel->rodata->request_func) {
		fprintf(stderr, "send-hold: ws_send_func and ws_request_func are not each once "
			"in /proc/kallsyms\n");
		err = 1;
	} else if (send_hold_bpf__load(skel) || send_hold_bpf__attach(skel)) {
		fprintf(stderr, "send-hold: cannot load or attach the programs (is ws_add_report "
			"open to error injection?): %s\n", strerror(errno));
		err = 1;
	}
	for (i = 1; i <= cycles && !err; i++)
		err = cycle(skel, argv[1], i, hold_ms * 1000000ULL);
	send_hold_bpf__destroy(skel);
	return err;
}
