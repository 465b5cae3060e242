/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the pure headers of bpf/ (binning.h, vgen.h, refresh.h, reclaim.h,
 * balloon.h: decisions with no kernel type, which the host's unit tests
 * include as the BPF programs do) take from libbpf's bpf_helpers.h, for
 * when they are compiled without it.
 */
#ifndef __WSR_PURE_H
#define __WSR_PURE_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#ifndef barrier_var
#define barrier_var(var) ((void)(var))
#endif

#endif /* __WSR_PURE_H */
