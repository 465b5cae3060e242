// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What a refresh ages: see refresh.h. */
#include <stdio.h>
#include "refresh.h"

int wsr_refresh_parse(const char *line, struct wsr_refresh_lruvec *lv)
{
	int prot, end = 0;

	if (sscanf(line, "%u %u %llu %llu %d %llu %llu %llu %llu %llu%n", &lv->memcg_id,
		   &lv->node, &lv->max_seq, &lv->age_ms, &prot, &lv->swap_room, &lv->gens[0],
		   &lv->oldest[0], &lv->gens[1], &lv->oldest[1], &end) != 10 || (line[end] && line[end] != '\n') ||
	    (prot != 0 && prot != 1) || lv->node >= WSR_MAX_NODES || line[0] < '0' || line[0] > '9')
		return -1;
	lv->protected = prot;
	return 0;
}

/* would aging @lv merge the oldest generation of @type, holding pages? */
static bool merges_pages(const struct wsr_refresh_lruvec *lv, int type)
{
	return lv->gens[type] >= 4 && lv->oldest[type];
}

bool wsr_refresh_due(const struct wsr_refresh_lruvec *lv, const __u64 *refresh_ms,
		     bool can_swap)
{
	return lv->node < WSR_MAX_NODES && refresh_ms[lv->node] &&
	       lv->age_ms >= refresh_ms[lv->node] && !lv->protected &&
	       !(can_swap && merges_pages(lv, 0)) && !merges_pages(lv, 1);
}

bool wsr_refresh_can_swap(const struct wsr_refresh_lruvec *lv, int swappiness,
			  unsigned long long swap_free)
{
	unsigned long long room = lv->swap_room < swap_free ? lv->swap_room : swap_free;

	return swappiness > 0 && room >= 64;
}

int wsr_refresh_cmd(const struct wsr_refresh_lruvec *lv, bool can_swap, bool force,
		    char *buf, size_t len)
{
	return snprintf(buf, len, "+ %u %u %llu %d %d\n", lv->memcg_id, lv->node, lv->max_seq,
			can_swap, force);
}
