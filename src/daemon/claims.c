/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "claims-private.h"
#include "macro.h"

void claims_defer(Claims *cl, bool defer)
{
	cl->deferred = defer;
}

/* Decide who gets @c's name and make the link so, unless a full reconcile is being prepared. */
static void claim_resolve(Claims *cl, Claim *c)
{
	ClaimVerdict v = claim_judge(c);
	ClaimOwner *win = v.win;
	int r;

	/* An alias gives way to any current name, and says so once. */
	if (v.superseded && !c->superseded && cl->ops->alias_dropped)
		for (const ClaimOwner *o = c->owners; o; o = o->next)
			if (o->alias)
				cl->ops->alias_dropped(cl->userdata, c, o->lu);
	c->superseded = v.superseded;

	if (v.collision && (!c->collision || v.quarantined != c->quarantined) &&
	    cl->ops->collision) {
		c->quarantined = v.quarantined;
		cl->ops->collision(cl->userdata, c, win ? win->lu : NULL);
	}
	c->collision = v.collision;
	c->quarantined = v.quarantined;

	if (cl->deferred) {
		/* The reconcile that follows makes the links, and removes unclaimed ones. */
		c->winner = win ? win->lu : NULL;
		if (!c->owners) {
			if (c->linked)
				orphan_add(cl, c->set, c->name, linked_take(c));
			claim_drop(cl, c);
		}
		return;
	}

	if (!win) {
		/* Nobody wants the name any more, or it is quarantined: no link either way. */
		if (c->linked || !c->owners) {
			r = cl->ops->remove(cl->userdata, c->set, c->name, c->linked, c->winner);
			if (r < 0 && cl->ops->failed)
				cl->ops->failed(cl->userdata, c, NULL, r, c->winner);
			/* A claim that goes keeps no failure: the reconcile retries it, and
			 * removes the link as lund's even when its record is gone too. */
			if (r < 0 && !c->owners) {
				cl->n_unremoved[c->set]++;
				cl->n_unremoved_all++;
				if (c->linked)
					orphan_add(cl, c->set, c->name, linked_take(c));
			}
			claim_written(cl, c, NULL, r);
		}
		c->winner = NULL;
		if (!c->owners)
			claim_drop(cl, c);
		return;
	}
	if (c->winner == win->lu && streq_ptr(c->linked, win->target) && c->error == 0 &&
	    !c->foreign)
		return; /* already so: a refresh that changed nothing writes nothing */
	r = cl->ops->add(cl->userdata, c->set, c->name, win->target, c->linked, win->lu);
	claim_written(cl, c, win->target, r);
	if (r >= 0)
		c->winner = win->lu;
	if (c->error < 0 && cl->ops->failed)
		cl->ops->failed(cl->userdata, c, win->target, r, win->lu);
}

/* Its one owner gives up compact @e: what claim_disown() and claim_resolve() do for a claim of
 * one owner, its link removed (deferred: left to the next reconcile as an orphan). */
static void entry_remove(Claims *cl, LuClaim *e)
{
	char name[NAME_MAX + 1];
	const char *target = entry_target(e);
	int r;

	entry_name(e, name);
	if (cl->deferred) {
		if (e->linked)
			orphan_add(cl, e->set, name, strdup(target));
	} else {
		r = cl->ops->remove(cl->userdata, e->set, name, e->linked ? target : NULL, NULL);
		if (r < 0) {
			/* As for a full claim (claim_resolve()): left to the reconcile. */
			cl->n_unremoved[e->set]++;
			cl->n_unremoved_all++;
			if (e->linked)
				orphan_add(cl, e->set, name, strdup(target));
		}
		if (r < 0 && cl->ops->failed) {
			ClaimView view;
			Claim *c = (Claim *)entry_view(e, &view, false);

			/* As a full claim is at that point: no owner, no winner. */
			c->winner = NULL;
			cl->ops->failed(cl->userdata, c, NULL, r, NULL);
		}
	}
	entry_drop(cl, e);
}

/* claim_resolve() for compact @e: nothing to do when its link is made (or deferred); else
 * (a link not yet made) it is done as for a full claim. */
static void entry_resolve(Claims *cl, LuClaim *e)
{
	Claim *c;

	if (cl->deferred) {
		e->winner = true;
		return;
	}
	if (e->winner && e->linked)
		return;
	c = entry_promote(cl, e);
	if (c)
		claim_resolve(cl, c);
}

/* Record the outcome @r of writing compact @e's link to @target: done, @e stays compact; else
 * @e is made a full claim that keeps the failure, returned. Out of memory for that, what the
 * failure tells is kept as far as a compact entry can (no link known, or the one that may be
 * there); the next reconcile writes it again. */
static Claim *entry_written(Claims *cl, LuClaim *e, const char *target, int r)
{
	Claim *c;

	if (r >= 0) {
		e->winner = e->linked = true;
		return NULL;
	}
	c = entry_promote(cl, e);
	if (!c) {
		e->winner = false;
		e->linked = r != -EEXIST;
		return NULL;
	}
	claim_written(cl, c, target, r);
	return c;
}

/* @lu claims @w's name, into @slot: compact when nobody has the name and @slot says the want
 * (LuClaim.encoded), else a full claim. 0, or -ENOMEM. */
static int claim_add_want(Claims *cl, Lu *lu, const ClaimWant *w, LuClaim *slot)
{
	char name[NAME_MAX + 1];
	Orphan *o = NULL;
	Claim *c;
	int r;

	/* A link of lund's left at the name (its removal failed): the claim takes it as its own,
	 * and a full claim keeps it known while a write fails. */
	if (!cl->deferred && !claims_lookup(cl, w->set, w->name))
		o = orphan_take(cl, w->set, w->name);
	if (slot->encoded && !o && !claims_lookup(cl, w->set, w->name)) {
		if (entry_insert(cl, lu, slot) < 0)
			return -ENOMEM;
		/* claim_resolve() of a claim of one owner: it wins, and its link is made. */
		if (cl->deferred) {
			slot->winner = true;
			return 0;
		}
		r = cl->ops->add(cl->userdata, w->set, entry_name(slot, name), w->target, NULL, lu);
		c = entry_written(cl, slot, w->target, r);
		if (c && c->error < 0 && cl->ops->failed)
			cl->ops->failed(cl->userdata, c, w->target, r, lu);
		return 0;
	}
	c = claim_own(cl, lu, w);
	if (o) {
		if (c)
			(void)orphan_adopt(cl, o);
		o = orphan_free(o);
	}
	if (!c)
		return -ENOMEM;
	/* An alias joining a name another LU wants now gives way at once. */
	if (w->alias && c->superseded && cl->ops->alias_dropped)
		cl->ops->alias_dropped(cl->userdata, c, lu);
	claim_resolve(cl, c);
	slot->full = c;
	slot->compact = false;
	return 0;
}

/* Is @item's name with @target in @want, as a current name or an alias alike? */
static bool want_in(const ClaimWant *want, size_t n, const void *item, const char *target)
{
	for (size_t i = 0; i < n; i++)
		if (item_is(item, want[i].set, want[i].name) && streq(want[i].target, target))
			return true;
	return false;
}

int claims_refresh(Claims *cl, Lu *lu)
{
	LuClaims *b = lu->userdata;

	assert_return(cl && lu, -EINVAL);

	for (size_t i = 0; b && i < b->n; i++)
		if (b->v[i].compact)
			entry_resolve(cl, &b->v[i]);
		else
			claim_resolve(cl, b->v[i].full);
	return 0;
}

/* @lu keeps @e (of its old block), wanted now as @w: moved to @slot of its new block, compact
 * while it can be. 1 when kept, 0 when given up (out of memory to make it full), -ENOMEM when
 * kept but not as @w says (a current name that should have become an alias). */
static int entry_keep(Claims *cl, Lu *lu, LuClaim *e, const ClaimWant *w, LuClaim *slot)
{
	ClaimOwner *o;
	Claim *c;
	int ret = 1;

	if (e->compact && (!slot->encoded || w->alias)) {
		if (!entry_promote(cl, e)) {
			if (!slot->encoded) {
				entry_remove(cl, e);
				return 0;
			}
			ret = -ENOMEM; /* kept a current name: the next update tries again */
		}
	}
	if (e->compact) {
		entry_move(cl, e, slot);
		return ret;
	}
	c = e->full;
	slot->full = c;
	slot->compact = false;
	o = claim_owner(c, lu);
	/* A current name become an alias, or back (a rename accepted or undone): the same link,
	 * decided again with the new rank. */
	if (o && o->alias != w->alias) {
		o->alias = w->alias;
		claim_resolve(cl, c);
	}
	return ret;
}

int claims_update(Claims *cl, Lu *lu, const ClaimWant *want, size_t n)
{
	LuClaims *old = lu->userdata, *new;
	size_t n_old = old ? old->n : 0, n_new = 0;
	_cleanup_free_ bool *gone = NULL;
	int ret = 0;

	assert_return(cl && lu, -EINVAL);
	assert_return(n < UINT16_MAX, -EINVAL);
	for (size_t i = 0; i < n; i++)
		assert_return(want[i].set <= UINT8_MAX, -EINVAL);

	new = block_new(want, n);
	gone = calloc(n_old + 1, sizeof(*gone));
	if (!new || !gone) {
		free(new);
		return -ENOMEM;
	}

	/* Release first, so a name moving between nodes of one LU is freed before retaken. */
	for (size_t i = 0; i < n_old; i++) {
		LuClaim *e = &old->v[i];
		const char *target = claims_target_of(lu, i);

		if (target && want_in(want, n, lu_claim_item(e), target))
			continue;
		if (e->compact)
			entry_remove(cl, e);
		else {
			/* Freed when nobody else wants it. */
			claim_disown(e->full, lu);
			claim_resolve(cl, e->full);
		}
		gone[i] = true;
	}
	for (size_t i = 0; i < n; i++) {
		const ClaimWant *w = &want[i];
		LuClaim *slot = &new->v[n_new];
		bool found = false, kept = false;

		/* Its place in the block: the pool's strings it says are @want[i]'s. */
		if (n_new != i) {
			*slot = new->v[i];
			slot->index = n_new;
		}
		for (size_t k = 0; k < n_old && !found; k++) {
			LuClaim *e = &old->v[k];
			int r;

			if (gone[k] || !item_is(lu_claim_item(e), w->set, w->name))
				continue;
			found = true;
			gone[k] = true; /* held already, with this target */
			r = entry_keep(cl, lu, e, w, slot);
			if (r < 0)
				ret = r;
			kept = r != 0;
		}
		if (!found) {
			if (claim_add_want(cl, lu, w, slot) < 0) {
				ret = -ENOMEM;
				continue;
			}
			kept = true;
		}
		if (kept)
			n_new++;
	}
	new->n = n_new;
	free(old);
	/* A name kept with the same target may still change hands: the LU's page 0x83 may have
	 * changed (a rescan), making a path of the others a clone or a clone a path again.
	 * Resolving a claim whose outcome is unchanged writes nothing. */
	for (size_t i = 0; i < n_new; i++)
		if (!new->v[i].compact &&new->v[i].full->owners &&new->v[i].full->owners->next)
			claim_resolve(cl, new->v[i].full);
	if (n_new == 0)
		new = mfree(new);
	lu->userdata = new;
	return ret;
}

/* Set up @c's entry of a reconcile in @v; false when it gets no link. */
static bool collect_claim(Claims *cl, Claim *c, LinkSpec *v)
{
	/* Every claim is written again: a write that failed, a name a foreign file held. */
	ClaimOwner *win = claim_judge(c).win;

	c->winner = win ? win->lu : NULL;
	if (!win) {
		/* Quarantined: the reconcile removes whatever link lund made there. */
		if (c->error < 0)
			cl->n_failed--;
		c->error = 0;
		linked_clear(c);
		return false;
	}
	*v = (LinkSpec){ c->name, win->target, c->linked };
	return true;
}

int claims_reconcile(Claims *cl, unsigned set)
{
	_cleanup_free_ LinkSpec *v = NULL;
	_cleanup_free_ SortedClaim *claims = NULL;
	_cleanup_free_ char *names = NULL;
	_cleanup_free_ int *results = NULL;
	unsigned unremoved = 0;
	size_t n_v = 0, n_orphans = 0, k;
	ssize_t n;
	int r;

	assert_return(cl && set <= UINT8_MAX, -EINVAL);

	/* Links made for claims that went while deferred, or whose removal failed: taken by a
	 * claim of the name again, else removed by the reconcile as lund's, even without a
	 * record. */
	for (Orphan **p = &cl->orphans; *p;) {
		Orphan *o = *p;

		if (o->set == set && orphan_adopt(cl, o)) {
			*p = o->next;
			orphan_free(o);
			continue;
		}
		n_orphans += o->set == set;
		p = &o->next;
	}
	v = calloc(cl->table.n + n_orphans + 1, sizeof(*v));
	results = calloc(cl->table.n + n_orphans + 1, sizeof(*results));
	if (!v || !results)
		return -ENOMEM;

	n = claims_sorted(cl, set, &claims, &names);
	if (n < 0)
		return (int)n;
	for (ssize_t i = 0; i < n; i++) {
		void *item = claims[i].item;

		if (item_compact(item)) {
			/* Its one owner wins; written again, as every claim is. */
			LuClaim *e = item_entry(item);
			const char *target = entry_target(e);

			e->winner = true;
			v[n_v] = (LinkSpec){ claims[i].name, target, e->linked ? target : NULL };
		} else if (!collect_claim(cl, item, &v[n_v]))
			continue;
		claims[n_v++] = claims[i];
	}
	k = n_v;
	for (Orphan *o = cl->orphans; o; o = o->next)
		if (o->set == set)
			v[k++] = (LinkSpec){ o->name, NULL, o->known };

	r = cl->ops->reconcile(cl->userdata, set, v, k, results, &unremoved);
	/* What is left unremoved in this set now is all there is of it. */
	cl->n_unremoved_all += unremoved - cl->n_unremoved[(uint8_t)set];
	cl->n_unremoved[(uint8_t)set] = unremoved;
	for (size_t i = 0; i < n_v; i++) {
		void *item = claims[i].item;

		if (item_compact(item))
			entry_written(cl, item_entry(item), v[i].target, results[i]);
		else
			claim_written(cl, item, v[i].target, results[i]);
	}
	/* An orphan whose removal failed stays for the next reconcile (counted unremoved). */
	k = n_v;
	for (Orphan **p = &cl->orphans; *p;) {
		Orphan *o = *p;

		if (o->set != set || results[k++] < 0) {
			p = &o->next;
			continue;
		}
		*p = o->next;
		orphan_free(o);
	}
	return r;
}
