/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What wsr-host's files share: its messages, "wsr-host: " and the words
 * on stderr, errors and warnings apart from news (err_msg, info_msg, as
 * bpftool's p_err and p_info; libwsr's wsr_msg() says both).
 */
#ifndef __WSR_HOST_H
#define __WSR_HOST_H

#include <stdio.h>
#include "libwsr.h"

#define err_msg(...)	wsr_msg(stderr, "wsr-host", __VA_ARGS__)
#define info_msg(...)	wsr_msg(stderr, "wsr-host", __VA_ARGS__)

#endif /* __WSR_HOST_H */
