/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <limits.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "lupath.h"
#include "macro.h"
#include "ptrtable.h"

/* A link this object made whose claim went while deferred: removed by the next reconcile,
 * which cannot find it by its record if the record was lost. */
typedef struct Orphan {
	struct Orphan *next;
	unsigned set;
	char *known;
	char name[];
} Orphan;

struct Claims {
	const ClaimsOps *ops;
	void *userdata;
	/* Every Claim, by set and name (ptrtable.h: 8 bytes or so per claim, where a tsearch()
	 * node took 32 with its malloc header). */
	PtrTable table;
	bool deferred;
	Orphan *orphans;
	size_t n_failed; /* claims whose last write failed */
};

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

static bool lu_running(const Lu *lu)
{
	return !lu->state || streq(lu->state, "running");
}

static int claim_cmp(const Claim *x, const Claim *y)
{
	if (x->set != y->set)
		return x->set < y->set ? -1 : 1;
	return strcmp(x->name, y->name);
}

static uint32_t claim_hash(unsigned set, const char *name);

static uint32_t claim_hash_of(const void *p)
{
	const Claim *c = p;

	return claim_hash(c->set, c->name);
}

int claims_new(const ClaimsOps *ops, void *userdata, Claims **ret)
{
	Claims *cl;

	assert_return(ops && ops->add && ops->remove && ops->reconcile, -EINVAL);
	assert_return(ret, -EINVAL);

	cl = calloc(1, sizeof(*cl));
	if (!cl)
		return -ENOMEM;
	cl->ops = ops;
	cl->userdata = userdata;
	cl->table = PTRTABLE_INIT(claim_hash_of);
	*ret = cl;
	return 0;
}

/*
 * A claim's allocation: the Claim with its name, then, aligned, its built-in owner (ClaimOwner
 * with a target of Claim.room bytes, at Claim.owner_at * 8 bytes; none when 0). The first
 * owner fits there when its target is shorter than Claim.room; the link made for it, which has
 * the same target nearly always, points at the owner's target rather than at a copy. The
 * target's bytes stay while the built-in owner is free again (a link outlives its owner until
 * removed), and are copied out before another owner takes its place.
 */
static_assert(alignof(ClaimOwner) <= 8, "the built-in owner is aligned");

static ClaimOwner *builtin_owner(Claim *c)
{
	return c->owner_at ? (ClaimOwner *)(void *)((char *)c + c->owner_at * 8) : NULL;
}

static char *builtin_target(Claim *c)
{
	return c->owner_at ? builtin_owner(c)->target : NULL;
}

static void owner_free(Claim *c, ClaimOwner *o)
{
	if (o == builtin_owner(c))
		c->owner_busy = false;
	else
		free(o);
}

static void linked_clear(Claim *c)
{
	if (c->linked != builtin_target(c))
		free(c->linked);
	c->linked = NULL;
}

/* c->linked = @target: the built-in owner's bytes when they say the same, else a copy (NULL
 * when out of memory, as a failed strdup() leaves it). */
static void linked_set(Claim *c, const char *target)
{
	char *s;

	if (c->owner_busy && streq(builtin_target(c), target))
		s = builtin_target(c);
	else if (c->linked && streq(c->linked, target))
		return;
	else
		s = strdup(target);
	linked_clear(c);
	c->linked = s;
}

/* c->linked = @s, which @c takes. */
static void linked_adopt(Claim *c, char *s)
{
	if (s && c->owner_busy && streq(builtin_target(c), s)) {
		linked_set(c, s);
		free(s);
		return;
	}
	linked_clear(c);
	c->linked = s;
}

/* c->linked, handed over as an allocation of its own (NULL when out of memory). */
static char *linked_take(Claim *c)
{
	char *s;

	if (c->linked != builtin_target(c))
		return TAKE_PTR(c->linked);
	s = strdup(c->linked);
	c->linked = NULL;
	return s;
}

/* The built-in owner, free to take a target of @len bytes; NULL when it is busy, too small,
 * or its target is still the link's and cannot be copied out. */
static ClaimOwner *builtin_owner_take(Claim *c, size_t len)
{
	if (c->owner_busy || len >= c->room)
		return NULL;
	if (c->linked == builtin_target(c)) {
		char *s = strdup(c->linked);

		if (!s)
			return NULL;
		c->linked = s;
	}
	c->owner_busy = true;
	return builtin_owner(c);
}

static void claim_free_node(void *p)
{
	Claim *c = p;

	while (c->owners) {
		ClaimOwner *o = c->owners;

		c->owners = o->next;
		owner_free(c, o);
	}
	linked_clear(c);
	free(c);
}

Claims *claims_free(Claims *cl)
{
	if (!cl)
		return NULL;
	for (size_t i = 0; i < cl->table.n_slots; i++)
		if (cl->table.slots[i])
			claim_free_node(cl->table.slots[i]);
	ptrtable_done(&cl->table);
	while (cl->orphans) {
		Orphan *o = cl->orphans;

		cl->orphans = o->next;
		free(o->known);
		free(o);
	}
	free(cl);
	return NULL;
}

void claims_forget(Lu *lu)
{
	lu->userdata = mfree(lu->userdata);
}

size_t claims_n(const Claims *cl)
{
	return cl ? cl->table.n : 0;
}

void claims_defer(Claims *cl, bool defer)
{
	cl->deferred = defer;
}

Claim *const *claims_of(const Lu *lu)
{
	return lu->userdata;
}

/* FNV-1a over the name, the set mixed in. */
static uint32_t claim_hash(unsigned set, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ set;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return (uint32_t)(h ^ (h >> 32));
}

Claim *claims_find(const Claims *cl, unsigned set, const char *name)
{
	uint32_t h = claim_hash(set, name);

	for (size_t i = ptrtable_home(&cl->table, h); ptrtable_at(&cl->table, i);
	     i = ptrtable_next(&cl->table, i)) {
		Claim *c = ptrtable_at(&cl->table, i);

		if (c->set == set && streq(c->name, name))
			return c;
	}
	return NULL;
}

static int claim_ptr_cmp(const void *a, const void *b)
{
	return claim_cmp(*(Claim *const *)a, *(Claim *const *)b);
}

/* The claims of set @set (every set: -1), ordered by set, then name, into @v (room for
 * cl->table.n); returns how many. */
static size_t claims_sorted(const Claims *cl, unsigned set, Claim **v)
{
	size_t n = 0;

	for (size_t i = 0; i < cl->table.n_slots; i++) {
		Claim *c = cl->table.slots[i];

		if (c && (set == UINT_MAX || c->set == set))
			v[n++] = c;
	}
	qsort(v, n, sizeof(*v), claim_ptr_cmp);
	return n;
}

/* The claim on @name, made when there is none with room for a target of @target_len. */
static Claim *claim_get(Claims *cl, unsigned set, const char *name, size_t target_len)
{
	Claim *c = claims_find(cl, set, name);
	size_t at, fixed, room = target_len + 1;

	if (c)
		return c;
	at = (offsetof(Claim, name) + strlen(name) + 1 + 7) & ~(size_t)7;
	fixed = at + offsetof(ClaimOwner, target);
	if (room > UINT8_MAX || at / 8 > UINT8_MAX)
		/* No built-in owner: the owner is an allocation of its own. */
		at = fixed = room = 0;
	else
		/* Up to the end of malloc's chunk (16-B steps, an 8-B header): a target a letter
		 * longer (sdz, sdaa) still fits, at no cost. */
		room = MIN(((fixed + room + 8 + 15) & ~(size_t)15) - 8 - fixed, (size_t)UINT8_MAX);
	c = calloc(1, MAX(fixed + room, offsetof(Claim, name) + strlen(name) + 1));
	if (!c)
		return NULL;
	c->set = set;
	c->owner_at = at / 8;
	c->room = room;
	strcpy(c->name, name);
	if (ptrtable_insert(&cl->table, c) < 0) {
		free(c);
		return NULL;
	}
	return c;
}

static void claim_drop(Claims *cl, Claim *c)
{
	ptrtable_delete(&cl->table, c);
	if (c->error < 0)
		cl->n_failed--;
	linked_clear(c);
	free(c);
}

/* Record the outcome @r of writing @target (NULL: a removal) at @c's name. */
static void claim_written(Claims *cl, Claim *c, const char *target, int r)
{
	if (c->error < 0)
		cl->n_failed--;
	c->foreign = r == -EEXIST;
	/* -errno; anything outside Claim.error's range is no errno, kept as an I/O error. */
	c->error = r < 0 && r != -EEXIST ? (r >= INT16_MIN ? r : -EIO) : 0;
	if (c->error < 0)
		cl->n_failed++;
	if (r >= 0 || r == -EEXIST) {
		/* Done, or the name is someone else's: no other link of ours is there. */
		if (r >= 0 && target)
			linked_set(c, target);
		else
			linked_clear(c);
	} else if (!c->linked && target)
		/* Failed: a link to @target may be there all the same (adopted, its record not
		 * written), and only @target is ours to remove later. */
		linked_set(c, target);
}

static ClaimOwner *claim_owner(const Claim *c, const Lu *lu)
{
	for (ClaimOwner *o = c->owners; o; o = o->next)
		if (o->lu == lu)
			return o;
	return NULL;
}

const char *claim_target(const Claim *c, const Lu *lu)
{
	const ClaimOwner *o = claim_owner(c, lu);

	return o ? o->target : NULL;
}

bool claim_is_alias(const Claim *c, const Lu *lu)
{
	const ClaimOwner *o = claim_owner(c, lu);

	return o && o->alias;
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

/* Do @c's owners disagree on the target, and are they then paths (every pair the same LU
 * through different ports) or clones? Only the owners that count (owner_counts()). */
static bool claim_disagree(const Claim *c, bool *ret_paths)
{
	bool differ = false, paths = true, current = claim_wanted_current(c);

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

/* The collision rule: clones get nothing; otherwise the lowest H:C:T:L among the running
 * owners wins (the lowest of all when none runs), deterministic whatever the event order. */
static ClaimOwner *claim_pick(const Claim *c)
{
	ClaimOwner *win = NULL;
	bool paths, current = claim_wanted_current(c);

	if (claim_disagree(c, &paths) && !paths)
		return NULL;
	for (ClaimOwner *o = c->owners; o; o = o->next) {
		bool better;

		if (!owner_counts(o, current))
			continue;
		if (!win)
			better = true;
		else if (lu_running(o->lu) != lu_running(win->lu))
			better = lu_running(o->lu);
		else
			better = lu_cmp(o->lu, win->lu) < 0;
		if (better)
			win = o;
	}
	return win;
}

/* Decide who gets @c's name and make the link so, unless a full reconcile is being prepared. */
static void claim_resolve(Claims *cl, Claim *c)
{
	ClaimOwner *win = claim_pick(c);
	bool paths, collision = claim_disagree(c, &paths), quarantined = collision && !paths;
	bool superseded = false;
	int r;

	/* An alias gives way to any current name, and says so once. */
	if (claim_wanted_current(c))
		for (const ClaimOwner *o = c->owners; o; o = o->next)
			if (o->alias) {
				superseded = true;
				if (!c->superseded && cl->ops->alias_dropped)
					cl->ops->alias_dropped(cl->userdata, c, o->lu);
			}
	c->superseded = superseded;

	if (collision && (!c->collision || quarantined != c->quarantined) && cl->ops->collision) {
		c->quarantined = quarantined;
		cl->ops->collision(cl->userdata, c, win ? win->lu : NULL);
	}
	c->collision = collision;
	c->quarantined = quarantined;

	if (cl->deferred) {
		/* The reconcile that follows makes the links, and removes unclaimed ones. */
		c->winner = win ? win->lu : NULL;
		if (!c->owners) {
			Orphan *o = c->linked ? malloc(sizeof(*o) + strlen(c->name) + 1) : NULL;

			if (o) {
				o->set = c->set;
				o->known = linked_take(c);
				strcpy(o->name, c->name);
				o->next = cl->orphans;
				cl->orphans = o;
			}
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
	c->winner = r >= 0 ? win->lu : NULL;
	if (c->error < 0 && cl->ops->failed)
		cl->ops->failed(cl->userdata, c, win->target, r, win->lu);
}

/* @lu claims @w's name; returns the claim, NULL when out of memory. */
static Claim *claim_add(Claims *cl, Lu *lu, const ClaimWant *w)
{
	size_t len = strlen(w->target);
	Claim *c = claim_get(cl, w->set, w->name, len);
	ClaimOwner *o;

	if (!c)
		return NULL;
	o = builtin_owner_take(c, len) ?: malloc(sizeof(*o) + len + 1);
	if (!o) {
		if (!c->owners)
			claim_drop(cl, c);
		return NULL;
	}
	o->lu = lu;
	o->alias = w->alias;
	strcpy(o->target, w->target);
	o->next = c->owners;
	c->owners = o;
	/* An alias joining a name another LU wants now gives way at once. */
	if (o->alias && c->superseded && cl->ops->alias_dropped)
		cl->ops->alias_dropped(cl->userdata, c, lu);
	claim_resolve(cl, c);
	return c;
}

/* @lu gives up @c, which is freed when nobody else wants it. */
static void claim_remove(Claims *cl, Lu *lu, Claim *c)
{
	for (ClaimOwner **p = &c->owners; *p; p = &(*p)->next)
		if ((*p)->lu == lu) {
			ClaimOwner *o = *p;

			*p = o->next;
			owner_free(c, o);
			break;
		}
	if (c->winner == lu)
		c->winner = NULL;
	claim_resolve(cl, c);
}

/* Is @name with @target in @want, as a current name or an alias alike? */
static bool want_in(const ClaimWant *want, size_t n, unsigned set, const char *name,
                    const char *target)
{
	for (size_t i = 0; i < n; i++)
		if (want[i].set == set && streq(want[i].name, name) &&
		    streq(want[i].target, target))
			return true;
	return false;
}

int claims_refresh(Claims *cl, Lu *lu)
{
	Claim **mine = lu->userdata;

	assert_return(cl && lu, -EINVAL);

	for (size_t i = 0; mine && mine[i]; i++)
		claim_resolve(cl, mine[i]);
	return 0;
}

int claims_update(Claims *cl, Lu *lu, const ClaimWant *want, size_t n)
{
	Claim **old = lu->userdata, **new;
	size_t n_old = 0, n_new = 0;
	int ret = 0;

	assert_return(cl && lu, -EINVAL);
	for (size_t i = 0; i < n; i++)
		assert_return(want[i].set <= UINT8_MAX, -EINVAL);

	while (old && old[n_old])
		n_old++;
	new = calloc(n + 1, sizeof(*new));
	if (!new)
		return -ENOMEM;

	/* Release first, so a name moving between nodes of one LU is freed before retaken. */
	for (size_t i = 0; i < n_old; i++) {
		ClaimOwner *o = claim_owner(old[i], lu);

		if (!o || !want_in(want, n, old[i]->set, old[i]->name, o->target)) {
			claim_remove(cl, lu, old[i]);
			old[i] = NULL;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const ClaimWant *w = &want[i];
		Claim *c = NULL;

		for (size_t k = 0; k < n_old && !c; k++)
			if (old[k] && old[k]->set == w->set && streq(old[k]->name, w->name)) {
				ClaimOwner *o = claim_owner(old[k], lu);

				c = old[k];
				old[k] = NULL; /* held already, with this target */
				/* A current name become an alias, or back (a rename accepted or
				 * undone): the same link, decided again with the new rank. */
				if (o && o->alias != w->alias) {
					o->alias = w->alias;
					claim_resolve(cl, c);
				}
			}
		if (!c) {
			c = claim_add(cl, lu, w);
			if (!c) {
				ret = -ENOMEM;
				continue;
			}
		}
		new[n_new++] = c;
	}
	free(old);
	/* A name kept with the same target may still change hands: the LU's page 0x83 may have
	 * changed (a rescan), making a path of the others a clone or a clone a path again.
	 * Resolving a claim whose outcome is unchanged writes nothing. */
	for (size_t i = 0; i < n_new; i++)
		if (new[i]->owners &&new[i]->owners->next)
			claim_resolve(cl, new[i]);
	if (n_new == 0)
		new = mfree(new);
	lu->userdata = new;
	return ret;
}

/* Set up @c's entry of a reconcile in @v; false when it gets no link. */
static bool collect_claim(Claims *cl, Claim *c, LinkSpec *v)
{
	/* Every claim is written again: a write that failed, a name a foreign file held. */
	ClaimOwner *win = claim_pick(c);

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

/* Report the failed removal of orphan @o's link as a claim's: one made up for the call. */
static void orphan_failed(Claims *cl, const Orphan *o, int r)
{
	union {
		Claim c;
		char bytes[offsetof(Claim, name) + NAME_MAX + 1];
	} stack;
	size_t size = offsetof(Claim, name) + strlen(o->name) + 1;
	_cleanup_free_ Claim *heap = NULL;
	Claim *tmp = &stack.c;

	if (size > sizeof(stack)) {
		tmp = heap = malloc(size);
		if (!tmp)
			return; /* no memory to report it: the removal is retried all the same */
	}
	*tmp = (Claim){ .set = o->set };
	strcpy(tmp->name, o->name);
	cl->ops->failed(cl->userdata, tmp, NULL, r, NULL);
}

int claims_reconcile(Claims *cl, unsigned set)
{
	_cleanup_free_ LinkSpec *v = NULL;
	_cleanup_free_ Claim **claims = NULL;
	_cleanup_free_ int *results = NULL;
	size_t n, n_v = 0;
	int r;

	assert_return(cl, -EINVAL);

	v = calloc(cl->table.n + 1, sizeof(*v));
	claims = calloc(cl->table.n + 1, sizeof(*claims));
	results = calloc(cl->table.n + 1, sizeof(*results));
	if (!v || !claims || !results)
		return -ENOMEM;
	/* Links made for claims that went while deferred: removed unless claimed again. */
	for (Orphan **p = &cl->orphans; *p;) {
		Orphan *o = *p;
		Claim *c;

		if (o->set != set) {
			p = &o->next;
			continue;
		}
		*p = o->next;
		c = claims_find(cl, set, o->name);
		if (c && !c->linked)
			linked_adopt(c, TAKE_PTR(o->known));
		else if (!c) {
			r = cl->ops->remove(cl->userdata, set, o->name, o->known, NULL);
			if (r < 0 && cl->ops->failed)
				orphan_failed(cl, o, r);
		}
		free(o->known);
		free(o);
	}

	n = claims_sorted(cl, set, claims);
	for (size_t i = 0; i < n; i++)
		if (collect_claim(cl, claims[i], &v[n_v]))
			claims[n_v++] = claims[i];

	r = cl->ops->reconcile(cl->userdata, set, v, n_v, results);
	for (size_t i = 0; i < n_v; i++) {
		claim_written(cl, claims[i], v[i].target, results[i]);
		if (results[i] < 0)
			claims[i]->winner = NULL;
	}
	return r;
}

size_t claims_failed(const Claims *cl)
{
	return cl ? cl->n_failed : 0;
}

void claims_foreach(const Claims *cl, void (*fn)(const Claim *c, void *userdata), void *userdata)
{
	_cleanup_free_ Claim **v = NULL;
	size_t n;

	if (!cl)
		return;
	v = malloc((cl->table.n + 1) * sizeof(*v));
	if (!v) {
		/* Out of memory for the order: every claim all the same, in table order. */
		for (size_t i = 0; i < cl->table.n_slots; i++)
			if (cl->table.slots[i])
				fn(cl->table.slots[i], userdata);
		return;
	}
	n = claims_sorted(cl, UINT_MAX, v);
	for (size_t i = 0; i < n; i++)
		fn(v[i], userdata);
}
