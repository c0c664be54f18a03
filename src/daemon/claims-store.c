/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <limits.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "claims-private.h"
#include "macro.h"
#include "ptrtable.h"

/* The suffixes a compact name may have (lund(8) LINKS: an LU's by-id names, its sg node's, its
 * non-rewinding tape's); at most four (LuClaim.suffix). */
static const char *const claim_suffixes[] = { "", "-sg", "-nst" };

/* A compact entry's target is at most this long, so its promotion always has room for it in the
 * claim's built-in owner (Claim.room is a byte) and ClaimView has room for it. */
#define COMPACT_TARGET_MAX 254

/* An LU's first wants, this many at most, may be compact (an LU wants a few names, a few
 * hundred with every partition in two link sets): the pool's strings are found by a linear
 * search, quadratic in the wants. */
#define COMPACT_WANTS_MAX 256

static LuClaims *entry_block(const LuClaim *e)
{
	return (LuClaims *)(void *)((char *)(uintptr_t)(e - e->index) - offsetof(LuClaims, v));
}

static const char *block_pool(const LuClaims *b)
{
	return (const char *)&b->v[b->n_alloc];
}

static const char *entry_base(const LuClaim *e)
{
	return block_pool(entry_block(e)) + e->base;
}

const char *entry_target(const LuClaim *e)
{
	return block_pool(entry_block(e)) + e->target;
}

char *entry_name(const LuClaim *e, char buf[static NAME_MAX + 1])
{
	stpcpy(stpcpy(buf, entry_base(e)), claim_suffixes[e->suffix]);
	return buf;
}

static bool entry_name_eq(const LuClaim *e, const char *name)
{
	const char *b = entry_base(e);

	while (*b)
		if (*b++ != *name++)
			return false;
	return streq(name, claim_suffixes[e->suffix]);
}

bool item_is(const void *item, unsigned set, const char *name)
{
	const LuClaim *e = item_entry(item);
	const Claim *c = item;

	if (item_compact(item))
		return e->set == set && entry_name_eq(e, name);
	return c->set == set && streq(c->name, name);
}

/* FNV-1a over the name (@a then @b), the set mixed in. */
static uint32_t claim_hash(unsigned set, const char *a, const char *b)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ set;

	for (const unsigned char *p = (const unsigned char *)a; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	for (const unsigned char *p = (const unsigned char *)b; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return (uint32_t)(h ^ (h >> 32));
}

static uint32_t claim_hash_of(const void *p)
{
	const Claim *c = p;
	const LuClaim *e;

	if (!item_compact(p))
		return claim_hash(c->set, c->name, "");
	e = item_entry(p);
	return claim_hash(e->set, entry_base(e), claim_suffixes[e->suffix]);
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

void linked_clear(Claim *c)
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

char *linked_take(Claim *c)
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
	/* Compact claims are the LUs' (claims_forget()). */
	for (size_t i = 0; i < cl->table.n_slots; i++)
		if (cl->table.slots[i] && !item_compact(cl->table.slots[i]))
			claim_free_node(cl->table.slots[i]);
	ptrtable_done(&cl->table);
	while (cl->orphans) {
		Orphan *o = cl->orphans;

		cl->orphans = o->next;
		orphan_free(o);
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

size_t claims_n_of(const Lu *lu)
{
	const LuClaims *b = lu->userdata;

	return b ? b->n : 0;
}

bool claims_lu_wins_paths(const Lu *lu)
{
	const LuClaims *b = lu->userdata;

	for (size_t i = 0; b && i < b->n; i++) {
		const Claim *c = b->v[i].full;

		/* A compact claim has one owner: no other path wants it. */
		if (!b->v[i].compact && c->collision && !c->quarantined && c->winner == lu)
			return true;
	}
	return false;
}

size_t claims_n_compact(const Claims *cl)
{
	return cl ? cl->n_compact : 0;
}

static int sorted_cmp(const void *a, const void *b)
{
	const SortedClaim *x = a, *y = b;

	if (x->set != y->set)
		return x->set < y->set ? -1 : 1;
	return strcmp(x->name, y->name);
}

ssize_t claims_sorted(const Claims *cl, unsigned set, SortedClaim **ret, char **ret_names)
{
	_cleanup_free_ SortedClaim *v = NULL;
	_cleanup_free_ char *names = NULL;
	size_t n = 0, size = 0;
	char *p;

	for (size_t i = 0; i < cl->table.n_slots; i++) {
		void *item = cl->table.slots[i];
		const LuClaim *e = item_entry(item);

		if (item && item_compact(item) && (set == UINT_MAX || e->set == set))
			size += strlen(entry_base(e)) + strlen(claim_suffixes[e->suffix]) + 1;
	}
	v = malloc((cl->table.n + 1) * sizeof(*v));
	names = malloc(size + 1);
	if (!v || !names)
		return -ENOMEM;
	p = names;
	for (size_t i = 0; i < cl->table.n_slots; i++) {
		void *item = cl->table.slots[i];
		const LuClaim *e = item_entry(item);
		const Claim *c = item;

		if (!item)
			continue;
		if (item_compact(item)) {
			if (set != UINT_MAX && e->set != set)
				continue;
			v[n++] = (SortedClaim){ item, p, e->set };
			p = stpcpy(stpcpy(p, entry_base(e)), claim_suffixes[e->suffix]) + 1;
		} else if (set == UINT_MAX || c->set == set)
			v[n++] = (SortedClaim){ item, c->name, c->set };
	}
	qsort(v, n, sizeof(*v), sorted_cmp);
	*ret = TAKE_PTR(v);
	*ret_names = TAKE_PTR(names);
	return (ssize_t)n;
}

/* Where a claim of name @name_len bytes puts its built-in owner (*@ret_at, 0: none) and how
 * many bytes of target it has room for there (*@ret_room), for a target of @target_len; returns
 * the size to allocate. */
static size_t claim_layout(size_t name_len, size_t target_len, size_t *ret_at, size_t *ret_room)
{
	size_t at, fixed, room = target_len + 1;

	at = (offsetof(Claim, name) + name_len + 1 + 7) & ~(size_t)7;
	fixed = at + offsetof(ClaimOwner, target);
	if (room > UINT8_MAX || at / 8 > UINT8_MAX)
		/* No built-in owner: the owner is an allocation of its own. */
		at = fixed = room = 0;
	else
		/* Up to the end of malloc's chunk (16-B steps, an 8-B header): a target a letter
		 * longer (sdz, sdaa) still fits, at no cost. */
		room = MIN(((fixed + room + 8 + 15) & ~(size_t)15) - 8 - fixed, (size_t)UINT8_MAX);
	*ret_at = at;
	*ret_room = room;
	return MAX(fixed + room, offsetof(Claim, name) + name_len + 1);
}

Claim *claim_make(void *mem, unsigned set, const char *a, const char *b, size_t target_len)
{
	size_t at, room, size = claim_layout(strlen(a) + strlen(b), target_len, &at, &room);
	Claim *c = mem ?: calloc(1, size);

	if (!c)
		return NULL;
	c->set = set;
	c->owner_at = at / 8;
	c->room = room;
	stpcpy(stpcpy(c->name, a), b);
	return c;
}

/* @e as a Claim in @mem (ClaimView's room; NULL: allocated): its one owner (none when !@owner)
 * built in. NULL when out of memory. */
static Claim *entry_fill(const LuClaim *e, void *mem, bool owner)
{
	const char *target = entry_target(e);
	size_t len = strlen(target);
	Claim *c = claim_make(mem, e->set, entry_base(e), claim_suffixes[e->suffix], len);

	if (!c)
		return NULL;
	if (owner) {
		ClaimOwner *o = builtin_owner(c);

		assert(len < c->room);
		c->owner_busy = true;
		*o = (ClaimOwner){ .lu = e->lu };
		strcpy(o->target, target);
		c->owners = o;
	}
	c->winner = e->winner ? e->lu : NULL;
	if (e->linked) {
		/* Without its owner the bytes of the built-in owner's target hold the link's all
		 * the same (the view is not freed). */
		strcpy(builtin_target(c), target);
		c->linked = builtin_target(c);
	}
	return c;
}

const Claim *entry_view(const LuClaim *e, ClaimView *view, bool owner)
{
	static_assert(CLAIM_VIEW_SIZE >= ((offsetof(Claim, name) + NAME_MAX + 1 + 7) & ~(size_t)7) +
	                                         offsetof(ClaimOwner, target) + COMPACT_TARGET_MAX +
	                                         1,
	              "a view holds any compact claim");
	memset(view, 0, sizeof(*view));
	return entry_fill(e, view->bytes, owner);
}

int entry_insert(Claims *cl, Lu *lu, LuClaim *slot)
{
	slot->lu = lu;
	slot->compact = true;
	slot->winner = slot->linked = false;
	if (ptrtable_insert(&cl->table, entry_item(slot)) < 0)
		return -ENOMEM;
	cl->n_compact++;
	return 0;
}

void entry_move(Claims *cl, const LuClaim *e, LuClaim *slot)
{
	slot->lu = e->lu;
	slot->compact = true;
	slot->winner = e->winner;
	slot->linked = e->linked;
	/* The same claim, moved: the same hash. */
	ptrtable_replace(&cl->table, entry_item(e), entry_item(slot));
}

Claim *entry_promote(Claims *cl, LuClaim *e)
{
	Claim *c;

	assert(e->compact);
	c = entry_fill(e, NULL, true);
	if (!c)
		return NULL;
	ptrtable_replace(&cl->table, entry_item(e), c);
	cl->n_compact--;
	e->full = c;
	e->compact = false;
	return c;
}

void *claims_lookup(const Claims *cl, unsigned set, const char *name)
{
	uint32_t h = claim_hash(set, name, "");

	for (size_t i = ptrtable_home(&cl->table, h); ptrtable_at(&cl->table, i);
	     i = ptrtable_next(&cl->table, i)) {
		void *item = ptrtable_at(&cl->table, i);

		if (item_is(item, set, name))
			return item;
	}
	return NULL;
}

/* @item as a Claim: a compact one made whole in @view. */
static const Claim *item_claim(const void *item, ClaimView *view)
{
	return item_compact(item) ? entry_view(item_entry(item), view, true) : item;
}

const Claim *claims_of(const Lu *lu, size_t i, ClaimView *view)
{
	const LuClaims *b = lu->userdata;

	assert(b && i < b->n);
	return item_claim(lu_claim_item(&b->v[i]), view);
}

const char *claims_target_of(const Lu *lu, size_t i)
{
	const LuClaims *b = lu->userdata;

	assert(b && i < b->n);
	return b->v[i].compact ? entry_target(&b->v[i]) : claim_target(b->v[i].full, lu);
}

Claim *claims_find(Claims *cl, unsigned set, const char *name)
{
	void *item = claims_lookup(cl, set, name);

	return item && item_compact(item) ? entry_promote(cl, item_entry(item)) : item;
}

void entry_drop(Claims *cl, LuClaim *e)
{
	ptrtable_delete(&cl->table, entry_item(e));
	cl->n_compact--;
}

Claim *claim_own(Claims *cl, Lu *lu, const ClaimWant *w)
{
	size_t len = strlen(w->target);
	void *item = claims_lookup(cl, w->set, w->name);
	Claim *c = item_compact(item) ? entry_promote(cl, item_entry(item)) : item;
	ClaimOwner *o;

	if (!item) {
		/* A new claim, with room for this owner's target. */
		c = claim_make(NULL, w->set, w->name, "", len);
		if (c && ptrtable_insert(&cl->table, c) < 0)
			c = mfree(c);
	}
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
	return c;
}

void claim_disown(Claim *c, const Lu *lu)
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
}

void claim_drop(Claims *cl, Claim *c)
{
	ptrtable_delete(&cl->table, c);
	if (c->error < 0)
		cl->n_failed--;
	linked_clear(c);
	free(c);
}

void claim_written(Claims *cl, Claim *c, const char *target, int r)
{
	if (c->error < 0)
		cl->n_failed--;
	c->foreign = r == -EEXIST;
	/* -errno; anything outside Claim.error's range is no errno, kept as an I/O error. */
	c->error = r < 0 && r != -EEXIST ? (r >= INT16_MIN ? r : -EIO) : 0;
	if (c->error < 0)
		cl->n_failed++;
	if (r < 0)
		c->winner = NULL;
	if (r >= 0 || r == -EEXIST) {
		/* Done, or the name is someone else's: no other link of ours is there. */
		if (r >= 0 && target)
			linked_set(c, target);
		else
			linked_clear(c);
	} else if (target) {
		/* Failed: a link to @target may be there all the same (adopted, or made, its
		 * record not written), or the one this claim made before: either is ours to
		 * replace or remove later, one per line as a record keeps them (links_add()). */
		char *both;

		if (!c->linked)
			linked_set(c, target);
		else if (!links_record_has(c->linked, target) &&
		         asprintf(&both, "%s\n%s", target, c->linked) >= 0)
			linked_adopt(c, both);
	}
}

ClaimOwner *claim_owner(const Claim *c, const Lu *lu)
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

bool orphan_adopt(Claims *cl, Orphan *o)
{
	void *item = claims_lookup(cl, o->set, o->name);
	LuClaim *e = item_entry(item);
	Claim *c = item;

	if (!item)
		return false;
	if (!item_compact(item)) {
		if (!c->linked)
			linked_adopt(c, TAKE_PTR(o->known));
	} else if (e->linked || !o->known)
		;
	else if (streq(o->known, entry_target(e)))
		e->linked = true;
	else if ((c = entry_promote(cl, e)))
		linked_adopt(c, TAKE_PTR(o->known));
	return true;
}

Orphan *orphan_take(Claims *cl, unsigned set, const char *name)
{
	for (Orphan **p = &cl->orphans; *p; p = &(*p)->next)
		if ((*p)->set == set && streq((*p)->name, name)) {
			Orphan *o = *p;

			*p = o->next;
			return o;
		}
	return NULL;
}

Orphan *orphan_free(Orphan *o)
{
	if (o)
		free(o->known);
	free(o);
	return NULL;
}

void orphan_add(Claims *cl, unsigned set, const char *name, char *known)
{
	Orphan *o = malloc(sizeof(*o) + strlen(name) + 1);

	if (!o) {
		free(known);
		return;
	}
	o->set = set;
	o->known = known;
	strcpy(o->name, name);
	o->next = cl->orphans;
	cl->orphans = o;
}

/* The offset of @s (@len bytes) in the pool of @size bytes at @pool, added when not there yet;
 * -1 when the pool has no room (@max bytes) left. */
static int pool_put(char *pool, size_t *size, size_t max, const char *s, size_t len)
{
	size_t off;

	for (off = 0; off < *size; off += strlen(pool + off) + 1)
		if (strneq(pool + off, s, len) && pool[off + len] == '\0')
			return (int)off;
	if (*size + len + 1 > max || *size > UINT16_MAX)
		return -1;
	memcpy(pool + off, s, len);
	pool[off + len] = '\0';
	*size += len + 1;
	return (int)off;
}

/* Can @w be compact: a current name of at most NAME_MAX bytes and a target of at most
 * COMPACT_TARGET_MAX? Its base's length in *@ret_base_len, its suffix in *@ret_suffix. */
static bool want_split(const ClaimWant *w, size_t *ret_base_len, unsigned *ret_suffix)
{
	size_t len = strlen(w->name);
	unsigned suffix = 0;

	if (w->alias || len > NAME_MAX || strlen(w->target) > COMPACT_TARGET_MAX ||
	    w->set > UINT8_MAX)
		return false;
	for (unsigned k = 1; k < ELEMENTSOF(claim_suffixes) && !suffix; k++) {
		size_t sl = strlen(claim_suffixes[k]);

		if (len > sl && streq(w->name + len - sl, claim_suffixes[k]))
			suffix = k;
	}
	*ret_base_len = len - strlen(claim_suffixes[suffix]);
	*ret_suffix = suffix;
	return true;
}

/* Say @w in @e's fields (LuClaim.encoded) when it can be compact, its strings put in @pool. */
static void want_encode(const ClaimWant *w, LuClaim *e, char *pool, size_t *size, size_t max)
{
	size_t bl;
	unsigned suffix;
	int base, target;

	e->encoded = false;
	if (!want_split(w, &bl, &suffix))
		return;
	base = pool_put(pool, size, max, w->name, bl);
	target = base < 0 ? -1 : pool_put(pool, size, max, w->target, strlen(w->target));
	if (target < 0)
		return;
	e->base = base;
	e->target = target;
	e->suffix = suffix;
	e->set = w->set;
	e->encoded = true;
}

LuClaims *block_new(const ClaimWant *want, size_t n)
{
	size_t head = offsetof(LuClaims, v) + n * sizeof(LuClaim), max = 0, size = 0;
	LuClaims *b, *fit;

	/* Room for every string, what those shared by several wants leave over given back. */
	for (size_t i = 0; i < MIN(n, (size_t)COMPACT_WANTS_MAX); i++)
		max += strlen(want[i].name) + strlen(want[i].target) + 2;
	max = MIN(max, (size_t)UINT16_MAX);
	b = calloc(1, head + max);
	if (!b)
		return NULL;
	b->n_alloc = n;
	for (size_t i = 0; i < n; i++) {
		b->v[i].index = i;
		if (i < COMPACT_WANTS_MAX)
			want_encode(&want[i], &b->v[i], (char *)&b->v[n], &size, max);
	}
	/* Not yet in the table: the block may move. */
	fit = realloc(b, head + size);
	return fit ?: b;
}

size_t claims_failed(const Claims *cl)
{
	return cl ? cl->n_failed + cl->n_unremoved_all : 0;
}

void claims_foreach(const Claims *cl, void (*fn)(const Claim *c, void *userdata), void *userdata)
{
	_cleanup_free_ SortedClaim *v = NULL;
	_cleanup_free_ char *names = NULL;
	ClaimView view;
	ssize_t n;

	if (!cl)
		return;
	/* Out of memory for the order: every claim all the same, in table order. */
	n = claims_sorted(cl, UINT_MAX, &v, &names);
	for (size_t i = 0; i < (n < 0 ? cl->table.n_slots : (size_t)n); i++) {
		void *item = n < 0 ? cl->table.slots[i] : v[i].item;

		if (item)
			fn(item_claim(item, &view), userdata);
	}
}
