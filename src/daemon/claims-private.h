/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The claims' insides, shared by their files and nobody else:
 *   claims-store.c  the store: every claim and its owners in one table, an LU's compact claims
 *                   in its block, a claim's memory, the outcome of its last write, the readers
 *   claims-rule.c   who gets a name: the collision rule and the rank of aliases (no I/O)
 *   claims.c        the link operations (ClaimsOps) that updates, refreshes and reconciles of
 *                   the store drive
 */

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "claims.h"
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

struct Claims {
	const ClaimsOps *ops;
	void *userdata;
	/* Every claim, by set and name (ptrtable.h: 8 bytes or so per claim, where a tsearch()
	 * node took 32 with its malloc header): a Claim, or a compact LuClaim tagged with bit 0. */
	PtrTable table;
	bool deferred;
	Orphan *orphans;
	size_t n_failed; /* claims whose last write failed */
	/* Links lund failed to remove that no claim holds any more (their records stay, so the
	 * next claims_reconcile() removes them), per link set: counted anew by each set's
	 * reconcile, which leaves the other sets' counts alone; @n_unremoved_all their sum. */
	size_t n_unremoved[UINT8_MAX + 1];
	size_t n_unremoved_all;
	size_t n_compact; /* claims kept as compact entries */
};

static inline bool item_compact(const void *item)
{
	return (uintptr_t)item & 1;
}

static inline LuClaim *item_entry(const void *item)
{
	return (LuClaim *)((uintptr_t)item & ~(uintptr_t)1);
}

static inline void *entry_item(const LuClaim *e)
{
	return (void *)((uintptr_t)e | 1);
}

/* The table's item for @e, compact (tagged) or full. */
static inline void *lu_claim_item(const LuClaim *e)
{
	return e->compact ? entry_item(e) : e->full;
}

/* A claim in a sorted list: the table's item (compact ones tagged), its set and name. */
typedef struct SortedClaim {
	void *item;
	const char *name;
	unsigned set;
} SortedClaim;

/* claims-store.c */
const char *entry_target(const LuClaim *e);
/* @e's name, built in @buf. */
char *entry_name(const LuClaim *e, char buf[static NAME_MAX + 1]);
/* Is @item the claim on (@set, @name)? */
bool item_is(const void *item, unsigned set, const char *name);
/* The claim on (@set, @name) in the table, compact ones tagged; NULL if none. */
void *claims_lookup(const Claims *cl, unsigned set, const char *name);
/* The claims of set @set (every set: UINT_MAX), ordered by set, then name, in *@ret, the
 * compact ones' names built in *@ret_names; returns how many, -ENOMEM. */
ssize_t claims_sorted(const Claims *cl, unsigned set, SortedClaim **ret, char **ret_names);
/* A claim of set @set on name @a + @b with room for a target of @target_len, set up in @mem
 * (zeroed; a ClaimView holds any name of at most NAME_MAX bytes) or, when @mem is NULL, in a new
 * allocation; not in the table. NULL when out of memory. */
Claim *claim_make(void *mem, unsigned set, const char *a, const char *b, size_t target_len);
/* @e as a Claim in @view, with its one owner when @owner. */
const Claim *entry_view(const LuClaim *e, ClaimView *view, bool owner);

/* A block for @n claims with the pool of @want's strings, those that can be compact said in
 * their entries (LuClaim.encoded); NULL when out of memory. */
LuClaims *block_new(const ClaimWant *want, size_t n);
/* @lu's compact claim @slot (LuClaim.encoded) goes in the table, neither won nor linked yet:
 * 0, or -ENOMEM. */
int entry_insert(Claims *cl, Lu *lu, LuClaim *slot);
/* Compact @e moves to @slot of its LU's new block (the same strings in its pool). */
void entry_move(Claims *cl, const LuClaim *e, LuClaim *slot);
/* Make compact @e a full claim, in the table and in its LU's block; NULL when out of memory
 * (@e is then left as it was). */
Claim *entry_promote(Claims *cl, LuClaim *e);
/* Compact @e leaves the table. */
void entry_drop(Claims *cl, LuClaim *e);

/* @lu becomes an owner of @w's name, the claim made (a compact one promoted) when needed: the
 * claim, NULL when out of memory. */
Claim *claim_own(Claims *cl, Lu *lu, const ClaimWant *w);
ClaimOwner *claim_owner(const Claim *c, const Lu *lu);
/* @lu is no longer an owner of @c, nor its winner. */
void claim_disown(Claim *c, const Lu *lu);
/* @c leaves the table and is freed. */
void claim_drop(Claims *cl, Claim *c);

/* Record the outcome @r of writing @target (NULL: a removal) at @c's name; a failure leaves
 * no winner. */
void claim_written(Claims *cl, Claim *c, const char *target, int r);
void linked_clear(Claim *c);
/* c->linked, handed over as an allocation of its own (NULL when out of memory). */
char *linked_take(Claim *c);
/* Keep @known (taken; NULL: its copy ran out of memory), the target of the link lund made at
 * @name, for the next reconcile: the name's claim goes while deferred, or went and its link
 * could not be removed. Forgotten when out of memory. */
void orphan_add(Claims *cl, unsigned set, const char *name, char *known);
/* The orphan of @name in @set, taken off the list (free with orphan_free()); NULL if none. */
Orphan *orphan_take(Claims *cl, unsigned set, const char *name);
Orphan *orphan_free(Orphan *o);
/* The claim on orphan @o's name, if any, takes its link as its own (it had none): true; false
 * when there is no claim, and the link is to go. */
bool orphan_adopt(Claims *cl, Orphan *o);

/* claims-rule.c: how @c stands. Clones get nothing: the name is quarantined; otherwise the
 * lowest H:C:T:L among the running owners wins (the lowest of all when none runs), whatever the
 * event order. Alias owners count only while nobody wants the name as a current name. */
typedef struct ClaimVerdict {
	ClaimOwner *win;  /* whose target the link should have, NULL if nobody's */
	bool collision;   /* the owners that count disagree on the target */
	bool quarantined; /* a collision of clones */
	bool superseded;  /* an alias owner is left out for a current name */
} ClaimVerdict;

ClaimVerdict claim_judge(const Claim *c);
