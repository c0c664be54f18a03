/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "claims-private.h"
#include "lupath.h"
#include "macro.h"

int lu_cmp(const Lu *a, const Lu *b)
{
	const Target *ta = a->target, *tb = b->target;

	return CMP(ta->host->number, tb->host->number) ?: CMP(ta->channel, tb->channel) ?:
               CMP(ta->id, tb->id) ?: CMP(a->lun, b->lun);
}

bool lu_same_lu(const Lu *a, const Lu *b)
{
	return lu_relation(a, b) == LU_RELATION_PATHS;
}

const char *claim_state(const Claim *c, const Lu *lu)
{
	if (c->foreign)
		return "foreign";
	if (c->winner == lu)
		return "linked";
	if (c->superseded && claim_is_alias(c, lu))
		return "superseded";
	if (c->quarantined)
		return "quarantined";
	if (c->winner)
		return "collision";
	return "pending";
}

/* Does an LU want @c's name as a current name (not as an alias)? */
static bool claim_wanted_current(const Claim *c)
{
	for (const ClaimOwner *o = c->owners; o; o = o->next)
		if (!o->alias)
			return true;
	return false;
}

/* Does @o take part in @c's resolution? Aliases only while nobody wants the name as a current
 * name (@current: claim_wanted_current()). */
static bool owner_counts(const ClaimOwner *o, bool current)
{
	return !o->alias || !current;
}

/* Do @c's owners that count disagree on the target, and are they then paths (every pair the
 * same LU through different ports) or clones? */
static bool claim_disagree(const Claim *c, bool current, bool *ret_paths)
{
	bool differ = false, paths = true;

	for (const ClaimOwner *o = c->owners; o; o = o->next)
		for (const ClaimOwner *p = o->next; p; p = p->next) {
			if (!owner_counts(o, current) || !owner_counts(p, current))
				continue;
			if (!streq(o->target, p->target))
				differ = true;
			if (paths && !lu_same_lu(o->lu, p->lu))
				paths = false;
		}
	*ret_paths = paths;
	return differ;
}

ClaimVerdict claim_judge(const Claim *c)
{
	bool paths, current = claim_wanted_current(c);
	ClaimVerdict v = { .collision = claim_disagree(c, current, &paths) };

	v.quarantined = v.collision && !paths;
	for (ClaimOwner *o = c->owners; o; o = o->next) {
		bool better;

		v.superseded |= current && o->alias;
		if (v.quarantined || !owner_counts(o, current))
			continue;
		if (!v.win)
			better = true;
		else if (lu_running(o->lu) != lu_running(v.win->lu))
			better = lu_running(o->lu);
		else
			better = lu_cmp(o->lu, v.win->lu) < 0;
		if (better)
			v.win = o;
	}
	return v;
}
