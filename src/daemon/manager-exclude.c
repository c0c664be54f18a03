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
#include "hostfacts.h"
#include "grow.h"
#include "macro.h"
#include "manager-private.h"

struct ExcludedLu {
	char *hctl, *rule;               /* rule: the [exclude NAME]; NULL when not excluded */
	char *report[_REACT_ACTION_MAX]; /* "luns = add by [react NAME]": what lund only reports */
};

static void excluded_lu_done(ExcludedLu *e)
{
	free(e->hctl);
	free(e->rule);
	for (int a = 0; a < _REACT_ACTION_MAX; a++)
		free(e->report[a]);
}

static void excluded_drop(Manager *m, size_t i)
{
	excluded_lu_done(&m->excluded[i]);
	m->excluded[i] = m->excluded[--m->n_excluded];
}

static ReactAction react_action_of(ScanActionKind what)
{
	switch (what) {
	case SCAN_ACTION_ADD:
		return REACT_ADD;
	case SCAN_ACTION_REMOVE:
		return REACT_REMOVE;
	case SCAN_ACTION_RESIZE:
		return REACT_RESIZE;
	case SCAN_ACTION_REIDENTIFY:
		return REACT_RENAME;
	default:
		return _REACT_ACTION_INVALID;
	}
}

bool manager_lu_reports(Manager *m, const Lu *lu, ReactAction what, char *why, size_t size)
{
	ExclusionFacts f;
	ReactVerdict v;

	policy_lu_facts(lu, &f);
	reaction_judge(policy_engine_conf(m->policy), &f, what, &v);
	if (v.report)
		reaction_why(&v, why, size);
	return v.report;
}

void manager_exclusion_update(Manager *m, const Lu *lu, bool gone)
{
	ExclusionVerdict v = {};
	ExcludedLu e = {};
	bool keep = false, oom = false;
	char why[160];
	size_t i;

	if (!gone)
		policy_lu_verdict(m->policy, lu, &v);
	if (v.excluded) {
		keep = true;
		oom = !(e.rule = strdup(v.rule));
	}
	for (ReactAction a = 0; !gone && !v.excluded && a < _REACT_ACTION_MAX; a++)
		if (a != REACT_SCAN_HOST && manager_lu_reports(m, lu, a, why, sizeof(why))) {
			keep = true;
			oom |= !(e.report[a] = strdup(why));
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
	ReactAction act = react_action_of(what);
	ExclusionVerdict v;
	ReactVerdict rv;
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
		if (e->rule)
			snprintf(rule, size, "excluded by [exclude %s]", e->rule);
		else if (act >= 0 && e->report[act])
			snprintf(rule, size, "%s", e->report[act]);
		left = e->rule || (act >= 0 && e->report[act]);
	}
	pthread_mutex_unlock(&m->excluded_lock);
	if (found)
		return left;
	/* the configuration is not replaced while a scan runs (scan_lock) */
	if (exclusion_needs_host_facts(policy_engine_conf(m->policy)) &&
	    hostfacts_read(m->rootfd, lu->host, &host) >= 0) {
		f.driver = host.driver;
		f.transport = host.kind;
	}
	exclusion_judge(policy_engine_conf(m->policy), &f, &v);
	if (v.excluded) {
		snprintf(rule, size, "excluded by [exclude %s]", v.rule);
		return true;
	}
	if (act < 0)
		return false;
	reaction_judge(policy_engine_conf(m->policy), &f, act, &rv);
	if (rv.report)
		reaction_why(&rv, rule, size);
	return rv.report;
}
