/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Exclusions for the scans (lund.conf(5) EXCLUSIONS): the scan threads cannot read the
 * inventory, which the loop owns, so the loop keeps the excluded LUs (H:C:T:L and the rule) in
 * a list of their own, under a lock, judged with everything the inventory knows of each; a
 * LUN not in the inventory is judged on its address and type alone.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exclusion.h"
#include "grow.h"
#include "macro.h"
#include "manager-private.h"

struct ExcludedLu {
	char *hctl, *rule;
};

static void excluded_drop(Manager *m, size_t i)
{
	free(m->excluded[i].hctl);
	free(m->excluded[i].rule);
	m->excluded[i] = m->excluded[--m->n_excluded];
}

void manager_exclusion_update(Manager *m, const Lu *lu, bool gone)
{
	ExclusionVerdict v = {};
	char *hctl = NULL, *rule = NULL;
	size_t i;

	if (!gone)
		policy_lu_verdict(m->policy, lu, &v);
	if (v.excluded && (!(hctl = strdup(lu->hctl)) || !(rule = strdup(v.rule)))) {
		free(hctl);
		hctl = NULL; /* out of memory: judged on its address at the scan */
	}
	pthread_mutex_lock(&m->excluded_lock);
	for (i = 0; i < m->n_excluded && !streq(m->excluded[i].hctl, lu->hctl); i++)
		;
	if (i < m->n_excluded)
		excluded_drop(m, i);
	if (hctl && GREEDY_REALLOC_EXACT(m->excluded, m->n_excluded + 1) >= 0) {
		m->excluded[m->n_excluded++] = (ExcludedLu){ hctl, rule };
		hctl = rule = NULL;
	}
	pthread_mutex_unlock(&m->excluded_lock);
	free(hctl);
	free(rule);
}

void manager_exclusion_free(Manager *m)
{
	while (m->n_excluded > 0)
		excluded_drop(m, m->n_excluded - 1);
	m->excluded = mfree(m->excluded);
}

bool manager_scan_leave(void *userdata, const ScanLu *lu, ScanActionKind what, char *rule,
                        size_t size)
{
	Manager *m = userdata;
	ExclusionFacts f = { .host = lu->host,
		             .channel = lu->channel,
		             .target = lu->target,
		             .lun = (int64_t)lu->lun,
		             .type = lu->type };
	ExclusionVerdict v;
	char why[128];
	bool found = false;

	/* a hold (manager-hold.c) before the rules: it is what the admin said last */
	if (manager_held(m, lu->host, lu->channel, lu->target, lu->lun, why, sizeof(why))) {
		snprintf(rule, size, "held by %s", why);
		return true;
	}
	pthread_mutex_lock(&m->excluded_lock);
	for (size_t i = 0; i < m->n_excluded && !found; i++)
		if (streq(m->excluded[i].hctl, lu->hctl)) {
			snprintf(rule, size, "excluded by [exclude %s]", m->excluded[i].rule);
			found = true;
		}
	pthread_mutex_unlock(&m->excluded_lock);
	if (found)
		return true;
	/* the configuration is not replaced while a scan runs (scan_lock) */
	exclusion_judge(policy_engine_conf(m->policy), &f, &v);
	if (v.excluded)
		snprintf(rule, size, "excluded by [exclude %s]", v.rule);
	/* what a cluster holds is never removed (manager-reserve.c) */
	else if (what == SCAN_ACTION_REMOVE)
		return manager_reservation_keeps(m, lu, rule, size);
	return v.excluded;
}
