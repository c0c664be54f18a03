/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Link claims: who wants which name, who gets it, and the link that says so.
 *
 * Every LU wants a set of names (lund(8), LINKS), each in one link set (lund's own tree, or
 * /dev/disk/by-id) and each pointing at one of its nodes. A name is held by a Claim with all its
 * owners; the tree of claims is the desired state. When two LUs want one name with different
 * targets the claim is a collision, of one of two kinds (core/lupath.h, from each LU's page
 * 0x83 keys in LuNaming): paths, when every owner is the same LU through a different target
 * port, and the running path with the lowest H:C:T:L gets the link (the lowest of all when none
 * runs), whatever order the events came in; clones otherwise (a device that gives every unit the
 * same serial, a copied ID), and the name is quarantined: no owner gets it and any link is
 * removed (design.md, Naming: a bogus shared ID is never linked to whichever came last). A
 * collision is reported when it begins and when its kind changes.
 *
 * The links themselves are written through ClaimsOps, so the object is tested without a
 * daemon, a link directory or an inventory: tests inject results and failures there. A write
 * that failed, and a name a foreign file held, are retried by every claims_reconcile() of
 * their set; claims_failed() tells the caller whether a retry is due. Each claim remembers the
 * link it made (Claim.linked), so the link is still replaced or removed as lund's when its
 * record was lost.
 *
 * Aliases (lund(8), "Naming contract"): an LU may claim a name as an alias, an old name its
 * identity was given and the admin has not yet let go of. An alias ranks below every current
 * name: while any LU wants the name as a current name, the alias owners are left out of the
 * claim (not counted for the winner, for the collision or for the quarantine) and
 * ClaimsOps.alias_dropped() says so once; only when nobody wants the name as a current name do
 * the alias owners compete, by the same rule as current names.
 *
 * An LU's own claims are a block in Lu.userdata, which belongs to this object. The common claim,
 * one LU that wants a current name and has its link, with no collision, no error and no foreign
 * file, is kept there as a compact entry (16 B, its name and target in the block's pool of
 * strings, shared by the names that differ by a suffix and by the link sets) rather than as a
 * Claim: the store makes a full Claim of it (promotes it) on the first event that needs more (a
 * second owner, an alias, a failed write, a foreign file). Readers see every claim as a Claim:
 * a compact one is made whole in a ClaimView of the caller's (claims_of(), claims_foreach()).
 */

#include <limits.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inventory.h"
#include "links.h"

typedef struct Claims Claims;

/* One owner of a claim and the target it wants the name to have. */
typedef struct ClaimOwner {
	Lu *lu;
	struct ClaimOwner *next;
	bool alias; /* an old name kept until accepted: below every current name */
	char target[];
} ClaimOwner;

/* Read-only outside claims*.c. */
typedef struct Claim {
	ClaimOwner *owners;
	Lu *winner;           /* whose target the link has, NULL if none was made */
	char *linked;         /* the target of the link this object made, NULL if none; after a
	                       * failed write, the targets it may have left, one per line */
	int16_t error;        /* the last write's failure (-errno, not -EEXIST), 0 if none */
	uint8_t set;          /* link sets are few (claims_update() takes < 256) */
	bool foreign : 1;     /* a file lund did not make holds the name */
	bool collision : 1;   /* owners disagree on the target */
	bool quarantined : 1; /* a collision of clones: nobody gets the name */
	bool superseded : 1;  /* alias owners left out: an LU wants the name as a current name */
	/* The store's own: the claim's allocation holds, after the name, one owner with a target
	 * of up to @room bytes (at @owner_at * 8 bytes from the claim; 0: none), which @linked
	 * points at while they are the same, so that the common claim (one owner, its link made)
	 * is a single allocation. Its hash is not kept: computed again from the name when the
	 * table of claims moves it (the claim is then 16 B smaller: a 112-B malloc chunk for a
	 * by-id name and its -sg twin, where 128 and 144 were). */
	bool owner_busy : 1; /* the built-in owner is in the list */
	uint8_t owner_at;
	uint8_t room;
	char name[];
} Claim;

/* Room for a compact claim made whole: the Claim, its name (at most NAME_MAX bytes), then its
 * one owner with a target of at most 254 bytes (the store keeps longer ones as full claims). */
#define CLAIM_VIEW_SIZE                                              \
	(((offsetof(Claim, name) + NAME_MAX + 1 + 7) & ~(size_t)7) + \
	 offsetof(ClaimOwner, target) + 256)
typedef struct ClaimView {
	alignas(8) char bytes[CLAIM_VIEW_SIZE];
} ClaimView;

/* What an LU wants: @name in link set @set, pointing at @target. */
typedef struct ClaimWant {
	unsigned set;
	const char *name;
	const char *target;
	bool alias; /* an old name kept as an alias (above) */
} ClaimWant;

typedef struct ClaimsOps {
	/* Make @name point to @target for @lu: links_add()'s contract (>= 0 done, -EEXIST a
	 * foreign file holds the name, -errno failed); @known is Claim.linked. */
	int (*add)(void *userdata, unsigned set, const char *name, const char *target,
	           const char *known, const Lu *lu);
	/* Remove lund's link @name, last held by @lu (may be NULL): links_remove()'s contract. */
	int (*remove)(void *userdata, unsigned set, const char *name, const char *known,
	              const Lu *lu);
	/* Make set @set hold exactly @want: links_reconcile()'s contract (an entry without a
	 * target: lund's link @known, to go); @ret_results gets each entry's outcome as add()
	 * or remove() returns it, @ret_unremoved how many links of lund's nobody wants it failed
	 * to remove (the next reconcile tries again). Failures are its to report. */
	int (*reconcile)(void *userdata, unsigned set, const LinkSpec *want, size_t n,
	                 int *ret_results, unsigned *ret_unremoved);
	/* @c became a collision (its owners disagree on the target), or its kind changed:
	 * @winner gets the name (paths), NULL when it is quarantined (clones). */
	void (*collision)(void *userdata, const Claim *c, const Lu *winner);
	/* add() or remove() failed with @error (not -EEXIST) for @c's link to @target (NULL
	 * for a removal). */
	void (*failed)(void *userdata, const Claim *c, const char *target, int error, const Lu *lu);
	/* @c's alias owner @lu is left out: @c is now wanted as a current name (optional). */
	void (*alias_dropped)(void *userdata, const Claim *c, const Lu *lu);
} ClaimsOps;

int claims_new(const ClaimsOps *ops, void *userdata, Claims **ret);
/* Frees the claims, not the LUs' arrays: claims_forget() each LU first. */
Claims *claims_free(Claims *cl);

/* Drop @lu's array of claims without touching any claim (the whole object goes away). */
void claims_forget(Lu *lu);

size_t claims_n(const Claims *cl);

/*
 * claims_defer() - while deferred, claims are resolved (winners chosen, collisions reported)
 * but no link is written or removed and unowned claims are dropped: a full claims_reconcile()
 * follows (start-up, resync).
 */
void claims_defer(Claims *cl, bool defer);

/*
 * claims_update() - bring @lu's claims to @want (@n entries; 0: release every name @lu holds).
 * Names @lu gives up are released first, so a name moving between nodes of one LU is freed
 * before it is retaken. Each changed claim is resolved and, unless deferred, its link written.
 * Returns 0, or -ENOMEM when some claim could not be made (the others are).
 */
int claims_update(Claims *cl, Lu *lu, const ClaimWant *want, size_t n);

/*
 * claims_reconcile() - make link set @set match the claims: every claim's winner linked,
 * including claims whose last write failed (the retry), everything else lund made removed.
 * Returns what ops->reconcile() returns, or -ENOMEM.
 */
int claims_reconcile(Claims *cl, unsigned set);

/* claims_failed() - how many claims' last write failed (not counting foreign files), and how
 * many links of lund's nobody wants any more it failed to remove: claims_reconcile() retries
 * both. */
size_t claims_failed(const Claims *cl);

/* Every claim, ordered by set, then name (in no order when memory for sorting runs out); a
 * compact one as a view valid until @fn returns. */
void claims_foreach(const Claims *cl, void (*fn)(const Claim *c, void *userdata), void *userdata);

/* How many claims @lu has. */
size_t claims_n_of(const Lu *lu);
/* @lu's @i-th claim (@i < claims_n_of()): the claim, or a compact one made whole in @view,
 * valid until @lu's claims next change or @view is reused. */
const Claim *claims_of(const Lu *lu, size_t i, ClaimView *view);
/* The target @lu wants for its @i-th claim (claim_target() of it), valid until @lu's claims
 * next change: unlike a view's, it may be kept while another view is made. */
const char *claims_target_of(const Lu *lu, size_t i);
/* Does @lu hold a name other paths of its LU want too (it is that collision's winner)? */
bool claims_lu_wins_paths(const Lu *lu);
/* How many claims are compact (the rest are full Claims). */
size_t claims_n_compact(const Claims *cl);

/* The claim on @name in set @set, NULL if none. A compact claim is made a full one (promoted),
 * so the pointer stays valid while the claim exists, as a full claim does: for tests and
 * tools, not for the daemon's paths, where that would cost the compact form its memory. */
Claim *claims_find(Claims *cl, unsigned set, const char *name);

/* The target @lu wants for @c's name, NULL if it is not an owner. */
const char *claim_target(const Claim *c, const Lu *lu);

/*
 * claims_refresh() - resolve @lu's claims again after something besides its names changed (its
 * state: a path that stops running hands its names to the next one). Returns 0.
 */
int claims_refresh(Claims *cl, Lu *lu);

/* @lu's standing on @c: "linked", "collision" (another path has it), "quarantined", "foreign",
 * "superseded" (@lu's alias gave way to another LU's current name), "pending". */
const char *claim_state(const Claim *c, const Lu *lu);

/* Does @lu hold @c as an alias? */
bool claim_is_alias(const Claim *c, const Lu *lu);

/* Paths (true) or clones: how @a and @b relate by their page 0x83 keys. */
bool lu_same_lu(const Lu *a, const Lu *b);

/* H:C:T:L order, the collision rule's. */
int lu_cmp(const Lu *a, const Lu *b);
