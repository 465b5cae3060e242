// SPDX-License-Identifier: GPL-2.0
/*
 * kfunc-probe: the test-only loader of kfunc_probe.bpf.c (see there).
 *
 *   kfunc-probe null          run the NULL-argument calls once and print
 *                             "config_null=E report_null=E header_null=E config=E"
 *   kfunc-probe switch SECS   call the kfuncs on every context switch for
 *                             SECS seconds, then print the tally:
 *                             "calls=N queued=N busy=N nodev=N stale=N
 *                             other=N last_other=E"
 *
 * Exits 1, saying why on stderr, if the programs do not load or attach.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kfunc_probe.h"
#include "kfunc_probe.skel.h"

static int usage(void)
{
	fprintf(stderr, "usage: kfunc-probe null | switch SECS\n");
	return 2;
}

static int run_null(struct kfunc_probe_bpf *skel)
{
	/* the root cgroup alone: the program acts on the first one it sees */
	union bpf_iter_link_info linfo = { .cgroup.order = BPF_CGROUP_ITER_SELF_ONLY };
	LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &linfo,
		    .link_info_len = sizeof(linfo));
	struct bpf_link *link;
	char buf[256];
	ssize_t n;
	int fd;

	link = bpf_program__attach_iter(skel->progs.kfunc_probe_null, &opts);
	if (!link) {
		fprintf(stderr, "kfunc-probe: cannot attach the iterator: %s\n", strerror(errno));
		return 1;
	}
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		fprintf(stderr, "kfunc-probe: cannot create the iterator: %s\n", strerror(errno));
		bpf_link__destroy(link);
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = 0;
		fputs(buf, stdout);
	}
	close(fd);
	bpf_link__destroy(link);
	return n < 0;
}

static int run_switch(struct kfunc_probe_bpf *skel, unsigned int secs)
{
	struct kfunc_tally *t = &skel->bss->tally;

	if (kfunc_probe_bpf__attach(skel)) {
		fprintf(stderr, "kfunc-probe: cannot attach to sched_switch: %s\n", strerror(errno));
		return 1;
	}
	sleep(secs);
	bpf_link__destroy(skel->links.kfunc_probe_switch);
	skel->links.kfunc_probe_switch = NULL;
	printf("calls=%llu queued=%llu busy=%llu nodev=%llu stale=%llu other=%llu last_other=%lld\n",
	       (unsigned long long)t->calls, (unsigned long long)t->queued,
	       (unsigned long long)t->busy, (unsigned long long)t->nodev,
	       (unsigned long long)t->stale, (unsigned long long)t->other,
	       (long long)t->last_other);
	return 0;
}

int main(int argc, char **argv)
{
	struct kfunc_probe_bpf *skel;
	bool null_mode;
	int err;

	if (argc == 2 && !strcmp(argv[1], "null"))
		null_mode = true;
	else if (argc == 3 && !strcmp(argv[1], "switch") && atoi(argv[2]) > 0)
		null_mode = false;
	else
		return usage();
	skel = kfunc_probe_bpf__open();
	if (!skel) {
		fprintf(stderr, "kfunc-probe: cannot open the BPF object\n");
		return 1;
	}
	bpf_program__set_autoload(skel->progs.kfunc_probe_null, null_mode);
	bpf_program__set_autoload(skel->progs.kfunc_probe_switch, !null_mode);
	if (kfunc_probe_bpf__load(skel)) {
		fprintf(stderr, "kfunc-probe: cannot load the programs (no balloon kfuncs?)\n");
		kfunc_probe_bpf__destroy(skel);
		return 1;
	}
	err = null_mode ? run_null(skel) : run_switch(skel, atoi(argv[2]));
	kfunc_probe_bpf__destroy(skel);
	return err;
}
