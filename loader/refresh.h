/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a refresh ages, decided from the lines the BPF iterator
 * wsr_refresh_list prints: pure functions, unit-tested on the host.
 */
#ifndef __WSR_REFRESH_H
#define __WSR_REFRESH_H

#include <stdbool.h>
#include <stddef.h>
#include "wsr.h"

/* one lruvec as wsr_refresh_list prints it */
struct wsr_refresh_lruvec {
	unsigned int memcg_id;	/* mem_cgroup_id(): lru_gen's memcg id */
	unsigned int node;
	unsigned long long max_seq;
	unsigned long long age_ms;	/* since the youngest generation was born */
	bool protected;		/* below memory.min */
	unsigned long long swap_room;	/* swap pages its memcg limits allow */
	unsigned long long gens[2];	/* generations of anon, file */
	unsigned long long oldest[2];	/* pages in the oldest one of each */
};

/*
 * "<memcg id> <node> <max_seq> <age_ms> <0|1> <swap_room> <anon gens>
 * <anon oldest> <file gens> <file oldest>\n": -1 unless exactly that
 */
int wsr_refresh_parse(const char *line, struct wsr_refresh_lruvec *lv);

/*
 * Should a read age @lv, refresh_ms[] being the reader's per node?  As the
 * seed's refresh_wss(): refresh_ms of its node is not 0, its youngest
 * generation is older than that, its memcg is not below memory.min, and
 * it has fewer than MGLRU's four generations, so that aging merges none.
 * Generations left empty at the old end do not count: MGLRU drops them
 * only on eviction, so a lruvec never reclaimed keeps four from its
 * birth, three of them empty, and would never age; merging an empty one
 * loses nothing.  The anon generations count only when @can_swap (else
 * the kernel does not move anon pages when it ages).
 */
bool wsr_refresh_due(const struct wsr_refresh_lruvec *lv, const __u64 *refresh_ms,
		     bool can_swap);

/*
 * Would MGLRU age @lv with anon pages (its get_swappiness() != 0)?  With
 * vm.swappiness @swappiness and @swap_free free swap pages on the machine:
 * swappiness is not 0 and at least MIN_LRU_BATCH (64) swap pages are
 * left to the memcg.
 */
bool wsr_refresh_can_swap(const struct wsr_refresh_lruvec *lv, int swappiness,
			  unsigned long long swap_free);

/*
 * The /sys/kernel/debug/lru_gen command that ages @lv, into @buf:
 * "+ id node max_seq can_swap force_scan".  Without @force the kernel
 * refuses (ERANGE) a lruvec that has four generations of can_swap's type,
 * empty or not; with it, the two oldest generations merge.  (Leaving out
 * force_scan does not mean 0: 6.1 then takes it as true.)  Returns the
 * length.
 */
int wsr_refresh_cmd(const struct wsr_refresh_lruvec *lv, bool can_swap, bool force,
		    char *buf, size_t len);

#endif /* __WSR_REFRESH_H */
