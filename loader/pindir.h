/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Checks of the bpffs folder wsr pins its programs and maps in.  bpffs is
 * mode 1777 unless mounted with a mode, so any user can create a folder
 * there: one created before the daemon would let its owner unpin wsr's
 * links.  Pure functions of the file system, unit-tested on the host.
 */
#ifndef __WSR_PINDIR_H
#define __WSR_PINDIR_H

#include "parse.h"

/*
 * 0 if @path is a folder (not a symlink to one) owned by root that
 * neither group nor others may write; -ENOENT if it does not exist (the
 * daemon may create it); otherwise -EPERM or another -errno.  err->msg
 * says why whenever the result is not 0.
 */
int wsr_check_pin_dir(const char *path, struct wsr_err *err);

#endif /* __WSR_PINDIR_H */
