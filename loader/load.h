/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The BPF object's skeleton, for the files that load it (load.c, balloon.c). */
#ifndef __WSR_LOAD_H
#define __WSR_LOAD_H

#include "wsr.skel.h"

/*
 * The BPF object with its maps set to their pins, and either the balloon
 * programs or the others to load: the balloon programs call the
 * virtio_balloon module's kfuncs, so they load apart, when it is there.
 */
struct wsr_bpf *open_skel(bool balloon, __u32 walk_steps);

/* pin @link as @name in pin_dir, and drop our reference either way */
int pin_link(struct bpf_link *link, const char *name);

#endif /* __WSR_LOAD_H */
