/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <limits.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

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

/*
 * One of an LU's claims, in its block (LuClaims): a full Claim, or a compact one: the LU the one
 * owner, wanting @set's name pool[@base] + claim_suffixes[@suffix] as a current name with target
 * pool[@target]; no other owner, no collision, no error, no foreign file, not superseded; the
 * owner the winner when @winner, its target linked when @linked (else no link is known). 16 B
 * where a full claim takes a 112-B malloc chunk.
 */
typedef struct LuClaim {
	union {
		Claim *full; /* !compact */
		Lu *lu;      /* compact: the owner */
	};
	uint16_t base, target; /* offsets in the block's pool */
	uint16_t index;        /* in the block: the way back to it from the table */
	uint8_t set;
	bool compact : 1;
	bool encoded : 1; /* claims_update(): @base, @target and @suffix say the want */
	uint8_t suffix : 2;
	bool winner : 1;
	bool linked : 1;
} LuClaim;

static_assert(sizeof(LuClaim) == 16, "a compact claim is 16 B");

/* Lu.userdata: an LU's claims, then the pool of the compact ones' strings (NUL-terminated, each
 * once: a base name is shared by its suffixed names and by every link set). */
typedef struct LuClaims {
	uint16_t n, n_alloc; /* the pool starts after @n_alloc entries */
	LuClaim v[];
} LuClaims;

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

struct Claims {
	const ClaimsOps *ops;
	void *userdata;
	/* Every claim, by set and name (ptrtable.h: 8 bytes or so per claim, where a tsearch()
	 * node took 32 with its malloc header): a Claim, or a compact LuClaim tagged with bit 0. */
	PtrTable table;
	bool deferred;
	Orphan *orphans;
	size_t n_failed;  /* claims whose last write failed */
	size_t n_compact; /* claims kept as compact entries */
};

static bool item_compact(const void *item)
{
	return (uintptr_t)item & 1;
}

static LuClaim *item_entry(const void *item)
{
	return (LuClaim *)((uintptr_t)item & ~(uintptr_t)1);
}

static void *entry_item(const LuClaim *e)
{
	return (void *)((uintptr_t)e | 1);
}

/* The table's item for @e, compact (tagged) or full. */
static void *lu_claim_item(const LuClaim *e)
{
	return e->compact ? entry_item(e) : e->full;
}

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

static const char *entry_target(const LuClaim *e)
{
	return block_pool(entry_block(e)) + e->target;
}

/* @e's name, built in @buf. */
static char *entry_name(const LuClaim *e, char buf[static NAME_MAX + 1])
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

/* Is @item the claim on (@set, @name)? */
static bool item_is(const void *item, unsigned set, const char *name)
{
	const LuClaim *e = item_entry(item);
	const Claim *c = item;

	if (item_compact(item))
		return e->set == set && entry_name_eq(e, name);
	return c->set == set && streq(c->name, name);
}

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

/* FNV-1a over the name (@a then @b), the set mixed in. */
static uint32_t claim_hash2(unsigned set, const char *a, const char *b)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ set;

	for (const unsigned char *p = (const unsigned char *)a; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	for (const unsigned char *p = (const unsigned char *)b; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return (uint32_t)(h ^ (h >> 32));
}

static uint32_t claim_hash(unsigned set, const char *name)
{
	return claim_hash2(set, name, "");
}

static uint32_t claim_hash_of(const void *p)
{
	const Claim *c = p;
	const LuClaim *e;

	if (!item_compact(p))
		return claim_hash(c->set, c->name);
	e = item_entry(p);
	return claim_hash2(e->set, entry_base(e), claim_suffixes[e->suffix]);
}

/* Put @new in @old's slot of the table: the same claim, moved or made full. */
static void table_replace(PtrTable *t, const void *old, void *new)
{
	size_t i = ptrtable_home(t, t->hash_of(old));

	while (t->slots[i] != old)
		i = ptrtable_next(t, i);
	t->slots[i] = new;
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
	/* Compact claims are the LUs' (claims_forget()). */
	for (size_t i = 0; i < cl->table.n_slots; i++)
		if (cl->table.slots[i] && !item_compact(cl->table.slots[i]))
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

size_t claims_n_of(const Lu *lu)
{
	const LuClaims *b = lu->userdata;

	return b ? b->n : 0;
}

size_t claims_n_compact(const Claims *cl)
{
	return cl ? cl->n_compact : 0;
}

/* A claim in a sorted list: the table's item (compact ones tagged), its set and name. */
typedef struct SortedClaim {
	void *item;
	const char *name;
	unsigned set;
} SortedClaim;

static int sorted_cmp(const void *a, const void *b)
{
	const SortedClaim *x = a, *y = b;

	if (x->set != y->set)
		return x->set < y->set ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The claims of set @set (every set: UINT_MAX), ordered by set, then name, in *@ret, the
 * compact ones' names built in *@ret_names; returns how many, -ENOMEM. */
static ssize_t claims_sorted(const Claims *cl, unsigned set, SortedClaim **ret, char **ret_names)
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

/* A claim of set @set on name @a + @b with room for a target of @target_len, set up in @mem
 * (zeroed, claim_layout()'s size) or, when @mem is NULL, in a new allocation; not in the table.
 * NULL when out of memory. */
static Claim *claim_make(void *mem, unsigned set, const char *a, const char *b, size_t target_len)
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

static const Claim *entry_view(const LuClaim *e, ClaimView *view)
{
	static_assert(CLAIM_VIEW_SIZE >= ((offsetof(Claim, name) + NAME_MAX + 1 + 7) & ~(size_t)7) +
	                                         offsetof(ClaimOwner, target) + COMPACT_TARGET_MAX +
	                                         1,
	              "a view holds any compact claim");
	memset(view, 0, sizeof(*view));
	return entry_fill(e, view->bytes, true);
}

/* Make compact @e a full claim, in the table and in its LU's block; NULL when out of memory
 * (@e is then left as it was). */
static Claim *entry_promote(Claims *cl, LuClaim *e)
{
	Claim *c;

	assert(e->compact);
	c = entry_fill(e, NULL, true);
	if (!c)
		return NULL;
	table_replace(&cl->table, entry_item(e), c);
	cl->n_compact--;
	e->full = c;
	e->compact = false;
	return c;
}

/* The claim on (@set, @name) in the table, compact ones tagged; NULL if none. */
static void *claims_lookup(const Claims *cl, unsigned set, const char *name)
{
	uint32_t h = claim_hash(set, name);

	for (size_t i = ptrtable_home(&cl->table, h); ptrtable_at(&cl->table, i);
	     i = ptrtable_next(&cl->table, i)) {
		void *item = ptrtable_at(&cl->table, i);

		if (item_is(item, set, name))
			return item;
	}
	return NULL;
}

/* The claim on @name, a full one, made when there is none with room for a target of
 * @target_len (a compact one is promoted); NULL when out of memory. */
static Claim *claim_get(Claims *cl, unsigned set, const char *name, size_t target_len)
{
	void *item = claims_lookup(cl, set, name);
	Claim *c;

	if (item)
		return item_compact(item) ? entry_promote(cl, item_entry(item)) : item;
	c = claim_make(NULL, set, name, "", target_len);
	if (!c)
		return NULL;
	if (ptrtable_insert(&cl->table, c) < 0) {
		free(c);
		return NULL;
	}
	return c;
}

/* @item as a Claim: a compact one made whole in @view. */
static const Claim *item_claim(const void *item, ClaimView *view)
{
	return item_compact(item) ? entry_view(item_entry(item), view) : item;
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

/* Keep @known (taken; NULL: its copy ran out of memory), the target of the link lund made at
 * @name, for the next reconcile: the name's claim goes while deferred. Forgotten when out of
 * memory. */
static void orphan_add(Claims *cl, unsigned set, const char *name, char *known)
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

/* Its one owner gives up compact @e: what claim_remove() and claim_resolve() do for a claim of
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
		if (r < 0 && cl->ops->failed) {
			ClaimView view;
			Claim *c;

			/* As a full claim is at that point: no owner, no winner. */
			memset(&view, 0, sizeof(view));
			c = entry_fill(e, view.bytes, false);
			c->winner = NULL;
			cl->ops->failed(cl->userdata, c, NULL, r, NULL);
		}
	}
	ptrtable_delete(&cl->table, entry_item(e));
	cl->n_compact--;
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
	c->winner = NULL;
	return c;
}

/* @lu claims @w's name, into @slot: compact when nobody has the name and @slot says the want
 * (LuClaim.encoded), else a full claim. 0, or -ENOMEM. */
static int claim_add_want(Claims *cl, Lu *lu, const ClaimWant *w, LuClaim *slot)
{
	char name[NAME_MAX + 1];
	Claim *c;
	int r;

	if (slot->encoded && !claims_lookup(cl, w->set, w->name)) {
		slot->lu = lu;
		slot->compact = true;
		slot->winner = slot->linked = false;
		if (ptrtable_insert(&cl->table, entry_item(slot)) < 0)
			return -ENOMEM;
		cl->n_compact++;
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
	c = claim_add(cl, lu, w);
	if (!c)
		return -ENOMEM;
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

/* Is @s (@len bytes) among the pool strings of @want[0..@n) (bases and targets)? */
static bool pool_has(const ClaimWant *want, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		size_t bl;
		unsigned suffix;

		if (!want_split(&want[i], &bl, &suffix))
			continue;
		if ((bl == len && !memcmp(want[i].name, s, len)) ||
		    (strneq(want[i].target, s, len) && want[i].target[len] == '\0'))
			return true;
	}
	return false;
}

/* The bytes of the pool of @want's strings, each once (pool_put()'s). */
static size_t pool_size(const ClaimWant *want, size_t n)
{
	size_t size = 0;

	for (size_t i = 0; i < MIN(n, (size_t)COMPACT_WANTS_MAX); i++) {
		size_t bl, tl;
		unsigned suffix;

		if (!want_split(&want[i], &bl, &suffix))
			continue;
		if (!pool_has(want, i, want[i].name, bl))
			size += bl + 1;
		tl = strlen(want[i].target);
		if (!(bl == tl && !memcmp(want[i].name, want[i].target, tl)) &&
		    !pool_has(want, i, want[i].target, tl))
			size += tl + 1;
	}
	return size;
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

/* A block for @n claims with the pool of @want's strings; NULL when out of memory. */
static LuClaims *block_new(const ClaimWant *want, size_t n)
{
	size_t max = MIN(pool_size(want, n), (size_t)UINT16_MAX), size = 0;
	LuClaims *b = calloc(1, offsetof(LuClaims, v) + n * sizeof(LuClaim) + max);
	char *pool;

	if (!b)
		return NULL;
	b->n_alloc = n;
	pool = (char *)&b->v[n];
	for (size_t i = 0; i < n; i++) {
		b->v[i].index = i;
		if (i < COMPACT_WANTS_MAX)
			want_encode(&want[i], &b->v[i], pool, &size, max);
	}
	return b;
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
		/* The same strings, in the new block's pool. */
		slot->lu = e->lu;
		slot->compact = true;
		slot->winner = e->winner;
		slot->linked = e->linked;
		table_replace(&cl->table, entry_item(e), entry_item(slot));
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
		else
			claim_remove(cl, lu, e->full);
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
	_cleanup_free_ SortedClaim *claims = NULL;
	_cleanup_free_ char *names = NULL;
	_cleanup_free_ int *results = NULL;
	size_t n_v = 0;
	ssize_t n;
	int r;

	assert_return(cl, -EINVAL);

	v = calloc(cl->table.n + 1, sizeof(*v));
	results = calloc(cl->table.n + 1, sizeof(*results));
	if (!v || !results)
		return -ENOMEM;
	/* Links made for claims that went while deferred: removed unless claimed again. */
	for (Orphan **p = &cl->orphans; *p;) {
		Orphan *o = *p;
		void *item;

		if (o->set != set) {
			p = &o->next;
			continue;
		}
		*p = o->next;
		item = claims_lookup(cl, set, o->name);
		if (item && item_compact(item)) {
			LuClaim *e = item_entry(item);
			Claim *c;

			if (e->linked || !o->known)
				;
			else if (streq(o->known, entry_target(e)))
				e->linked = true;
			else if ((c = entry_promote(cl, e)))
				linked_adopt(c, TAKE_PTR(o->known));
		} else if (item) {
			Claim *c = item;

			if (!c->linked)
				linked_adopt(c, TAKE_PTR(o->known));
		} else {
			r = cl->ops->remove(cl->userdata, set, o->name, o->known, NULL);
			if (r < 0 && cl->ops->failed)
				orphan_failed(cl, o, r);
		}
		free(o->known);
		free(o);
	}

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

	r = cl->ops->reconcile(cl->userdata, set, v, n_v, results);
	for (size_t i = 0; i < n_v; i++) {
		void *item = claims[i].item;
		Claim *c = item;

		if (item_compact(item))
			entry_written(cl, item_entry(item), v[i].target, results[i]);
		else {
			claim_written(cl, c, v[i].target, results[i]);
			if (results[i] < 0)
				c->winner = NULL;
		}
	}
	return r;
}

size_t claims_failed(const Claims *cl)
{
	return cl ? cl->n_failed : 0;
}

void claims_foreach(const Claims *cl, void (*fn)(const Claim *c, void *userdata), void *userdata)
{
	_cleanup_free_ SortedClaim *v = NULL;
	_cleanup_free_ char *names = NULL;
	ClaimView view;
	ssize_t n;

	if (!cl)
		return;
	n = claims_sorted(cl, UINT_MAX, &v, &names);
	if (n < 0) {
		/* Out of memory for the order: every claim all the same, in table order. */
		for (size_t i = 0; i < cl->table.n_slots; i++) {
			void *item = cl->table.slots[i];

			if (item)
				fn(item_claim(item, &view), userdata);
		}
		return;
	}
	for (ssize_t i = 0; i < n; i++)
		fn(item_claim(v[i].item, &view), userdata);
}
