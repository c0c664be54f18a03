/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Exclusions and reactions for the scans (lund.conf(5) EXCLUSIONS, REACTIONS): the scan threads
 * cannot read the inventory, which the loop owns, so the loop keeps the LUs excluded or with an
 * action to report only (H:C:T:L, the rule, the phrases) in a list of their own, under a lock,
 * judged with everything the inventory knows of each; a LUN not in the inventory is judged on
 * its address and type, and its host's driver and transport read from sysfs when a rule asks
 * for them (the scan threads are off the loop).
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exclusion.h"
#include "grow.h"
#include "hostfacts.h"
#include "macro.h"
#include "manager-private.h"

struct ExcludedLu {
	char *hctl;
	/* per scan action, why the scans leave it alone: "excluded by [exclude NAME]", "luns =
	 * add by [react NAME]"; NULL: they do not */
	char *why[_SCAN_ACTION_KIND_MAX];
};

static void excluded_lu_done(ExcludedLu *e)
{
	free(e->hctl);
	for (int a = 0; a < _SCAN_ACTION_KIND_MAX; a++)
		free(e->why[a]);
}

static void excluded_drop(Manager *m, size_t i)
{
	excluded_lu_done(&m->excluded[i]);
	m->excluded[i] = m->excluded[--m->n_excluded];
}

bool manager_lu_reports(Manager *m, const Lu *lu, ReactAction what, char *why, size_t size)
{
	const LundConf *conf = policy_engine_conf(m->policy);
	ExclusionFacts f;
	ReactVerdict v;

	if (!reaction_any(conf))
		return false;
	policy_lu_facts(lu, &f);
	reaction_judge(conf, &f, what, &v);
	if (v.report)
		reaction_why(&v, why, size);
	return v.report;
}

void manager_exclusion_update(Manager *m, const Lu *lu, bool gone)
{
	const LundConf *conf = policy_engine_conf(m->policy);
	ExclusionFacts f;
	ExcludedLu e = {};
	bool keep = false, oom = false;
	char why[160];
	size_t i;

	/* without exclusions and reactions nothing is left alone: nothing to judge */
	bool judge = !gone && (exclusion_any(conf) || reaction_any(conf));

	if (judge)
		policy_lu_facts(lu, &f);
	for (ScanActionKind a = 0; judge && a < _SCAN_ACTION_KIND_MAX; a++)
		if (exclusion_leaves(conf, &f, a, why, sizeof(why))) {
			keep = true;
			oom |= !(e.why[a] = strdup(why));
		}
	if (keep)
		oom |= !(e.hctl = strdup(lu->hctl));
	if (oom) {
		excluded_lu_done(&e); /* out of memory: judged on its address at the scan */
		keep = false;
	}
	pthread_mutex_lock(&m->excluded_lock);
	for (i = 0; i < m->n_excluded && !streq(m->excluded[i].hctl, lu->hctl); i++)
		;
	if (i < m->n_excluded)
		excluded_drop(m, i);
	if (keep && GREEDY_REALLOC_EXACT(m->excluded, m->n_excluded + 1) >= 0) {
		m->excluded[m->n_excluded++] = e;
		e = (ExcludedLu){};
	}
	pthread_mutex_unlock(&m->excluded_lock);
	excluded_lu_done(&e);
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
	_cleanup_(hostfacts_done) HostFacts host = {};
	char why[128];
	bool found = false, left = false;

	/* a hold (manager-hold.c) before the rules: it is what the admin said last */
	if (manager_held(m, lu->host, lu->channel, lu->target, lu->lun, why, sizeof(why))) {
		snprintf(rule, size, "held by %s", why);
		return true;
	}
	pthread_mutex_lock(&m->excluded_lock);
	for (size_t i = 0; i < m->n_excluded && !found; i++) {
		const ExcludedLu *e = &m->excluded[i];

		if (!streq(e->hctl, lu->hctl))
			continue;
		found = true;
		left = what >= 0 && what < _SCAN_ACTION_KIND_MAX && e->why[what];
		if (left)
			snprintf(rule, size, "%s", e->why[what]);
	}
	pthread_mutex_unlock(&m->excluded_lock);
	if (found && left)
		return true;
	/* the configuration is not replaced while a scan runs (scan_lock) */
	if (!found) {
		if (exclusion_needs_host_facts(policy_engine_conf(m->policy)) &&
		    hostfacts_read(m->rootfd, lu->host, &host) >= 0) {
			f.driver = host.driver;
			f.transport = host.kind;
		}
		if (exclusion_leaves(policy_engine_conf(m->policy), &f, what, rule, size))
			return true;
	}
	/* what a cluster holds is never removed (manager-reserve.c) */
	return what == SCAN_ACTION_REMOVE && manager_reservation_keeps(m, lu, rule, size);
}
