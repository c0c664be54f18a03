/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Link claims without a daemon: the links go to an in-memory store through ClaimsOps, where a
 * test makes a write fail or a foreign file hold a name, and counts what was reported.
 */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "claims.h"
#include "macro.h"

#define MAX_LINKS 16

typedef struct FakeLink {
	unsigned set;
	char name[64];
	char target[64];
} FakeLink;

/* The link directories, as the ops see them. */
static struct {
	FakeLink links[MAX_LINKS];
	size_t n;
	const char *foreign; /* a file lund did not make holds this name */
	const char *fail;    /* writes of this name fail with fail_error */
	int fail_error;
	unsigned adds, removes, reconciles, collisions, failures, aliases_dropped;
	char known[64];        /* the @known of the last write ("" for NULL) */
	const Lu *last_winner; /* of the last collision report */
	char failed_name[64];  /* of the last failure report */
	const Lu *failed_winner;
} store;

static FakeLink *store_find(unsigned set, const char *name)
{
	for (size_t i = 0; i < store.n; i++)
		if (store.links[i].set == set && streq(store.links[i].name, name))
			return &store.links[i];
	return NULL;
}

static const char *link_of(unsigned set, const char *name)
{
	FakeLink *l = store_find(set, name);

	return l ? l->target : NULL;
}

static int store_add(unsigned set, const char *name, const char *target)
{
	FakeLink *l;

	if (store.foreign && streq(name, store.foreign))
		return -EEXIST;
	if (store.fail && streq(name, store.fail))
		return store.fail_error;
	l = store_find(set, name);
	if (!l) {
		ck_assert_uint_lt(store.n, MAX_LINKS);
		l = &store.links[store.n++];
		l->set = set;
		snprintf(l->name, sizeof(l->name), "%s", name);
	}
	snprintf(l->target, sizeof(l->target), "%s", target);
	return 1;
}

static void store_drop(FakeLink *l)
{
	*l = store.links[--store.n];
}

static int op_add(void *userdata, unsigned set, const char *name, const char *target,
                  const char *known, const Lu *lu)
{
	ck_assert_ptr_nonnull(lu);
	store.adds++;
	snprintf(store.known, sizeof(store.known), "%s", known ?: "");
	return store_add(set, name, target);
}

static int op_remove(void *userdata, unsigned set, const char *name, const char *known,
                     const Lu *lu)
{
	FakeLink *l = store_find(set, name);

	store.removes++;
	if (store.fail && streq(name, store.fail))
		return store.fail_error;
	if (!l)
		return 0;
	store_drop(l);
	return 1;
}

static int op_reconcile(void *userdata, unsigned set, const LinkSpec *want, size_t n,
                        int *ret_results, unsigned *ret_unremoved)
{
	int ret = 0;

	store.reconciles++;
	*ret_unremoved = 0;
	for (size_t i = 0; i < store.n;) {
		bool wanted = false;

		for (size_t k = 0; k < n; k++)
			if (store.links[i].set == set && want[k].target &&
			    streq(store.links[i].name, want[k].name))
				wanted = true;
		if (store.links[i].set != set || wanted) {
			i++;
		} else if (store.fail && streq(store.links[i].name, store.fail)) {
			(*ret_unremoved)++; /* fails to go, as op_remove() does */
			ret = ret ?: store.fail_error;
			i++;
		} else
			store_drop(&store.links[i]);
	}
	for (size_t k = 0; k < n; k++) {
		snprintf(store.known, sizeof(store.known), "%s", want[k].known ?: "");
		if (!want[k].target) {
			/* Known, to go: as op_remove(); counted once, if the sweep above has not
			 * (a link it failed to remove is still in the store). */
			if (!store.fail || !streq(want[k].name, store.fail)) {
				ret_results[k] = 0;
				continue;
			}
			ret_results[k] = store.fail_error;
			if (!store_find(set, want[k].name)) {
				(*ret_unremoved)++;
				ret = ret ?: store.fail_error;
			}
			continue;
		}
		ret_results[k] = store_add(set, want[k].name, want[k].target);
		if (ret_results[k] < 0 && ret == 0)
			ret = ret_results[k];
	}
	return ret;
}

static void op_collision(void *userdata, const Claim *c, const Lu *winner)
{
	store.collisions++;
	store.last_winner = winner;
}

static void op_failed(void *userdata, const Claim *c, const char *target, int error, const Lu *lu)
{
	ck_assert_int_lt(error, 0);
	ck_assert_int_ne(error, -EEXIST);
	snprintf(store.failed_name, sizeof(store.failed_name), "%s", c->name);
	store.failed_winner = c->winner;
	store.failures++;
}

static void op_alias_dropped(void *userdata, const Claim *c, const Lu *lu)
{
	ck_assert(claim_is_alias(c, lu));
	store.aliases_dropped++;
}

static const ClaimsOps ops = {
	.alias_dropped = op_alias_dropped,
	.add = op_add,
	.remove = op_remove,
	.reconcile = op_reconcile,
	.collision = op_collision,
	.failed = op_failed,
};

/* Three LUs on two hosts: 0:0:0:2 < 0:0:1:0 < 1:0:0:0 in H:C:T:L order. */
static Host hosts[2] = { { .number = 0 }, { .number = 1 } };
static Target targets[3] = {
	{ .host = &hosts[0], .channel = 0, .id = 0 },
	{ .host = &hosts[0], .channel = 0, .id = 1 },
	{ .host = &hosts[1], .channel = 0, .id = 0 },
};
/* Paths of one LU by default (one LU key, a port key each); tests make clones of them. */
#define LU_KEY "0103:5000c50015ea71ac"
static Lu lus[3] = {
	{ .target = &targets[0], .lun = 2, .hctl = (char *)"0:0:0:2" },
	{ .target = &targets[1], .lun = 0, .hctl = (char *)"0:0:1:0" },
	{ .target = &targets[2], .lun = 0, .hctl = (char *)"1:0:0:0" },
};
static const char *const port_keys[3] = { "6194:00000001", "6194:00000002", "6194:00000003" };
static const char *const lu_targets[3] = { "../../sda", "../../sdb", "../../sdc" };

static Claims *cl;

static void setup(void)
{
	memset(&store, 0, sizeof(store));
	for (size_t i = 0; i < ELEMENTSOF(lus); i++) {
		lus[i].userdata = NULL;
		lus[i].state = NULL;
		lus[i].naming.lu_key = (char *)LU_KEY;
		lus[i].naming.port_key = (char *)port_keys[i];
	}
	ck_assert_int_eq(claims_new(&ops, NULL, &cl), 0);
}

static void teardown(void)
{
	for (size_t i = 0; i < ELEMENTSOF(lus); i++)
		claims_forget(&lus[i]);
	cl = claims_free(cl);
}

/* @lu wants @name pointing at its own node. */
static void want_one(Lu *lu, const char *name)
{
	ClaimWant w = { 0, name, lu_targets[lu - lus] };

	ck_assert_int_eq(claims_update(cl, lu, &w, 1), 0);
}

START_TEST(test_claim_release)
{
	ClaimWant want[] = {
		{ 0, "wwn-0x5000", "../../sda" },
		{ 0, "wwn-0x5000-sg", "../../sg0" },
		{ 1, "wwn-0x5000", "../../sda" }, /* same name, another link set */
	};
	ClaimView views[ELEMENTSOF(want)];
	const Claim *mine[ELEMENTSOF(want)];

	ck_assert_int_eq(claims_update(cl, &lus[0], want, ELEMENTSOF(want)), 0);
	ck_assert_uint_eq(claims_n(cl), 3);
	ck_assert_uint_eq(store.n, 3);
	ck_assert_str_eq(link_of(0, "wwn-0x5000"), "../../sda");
	ck_assert_str_eq(link_of(0, "wwn-0x5000-sg"), "../../sg0");
	ck_assert_str_eq(link_of(1, "wwn-0x5000"), "../../sda");
	/* Each one LU's, linked: compact, made whole for the reader. */
	ck_assert_uint_eq(claims_n_compact(cl), 3);
	ck_assert_uint_eq(claims_n_of(&lus[0]), ELEMENTSOF(want));
	for (size_t i = 0; i < ELEMENTSOF(want); i++) {
		mine[i] = claims_of(&lus[0], i, &views[i]);
		ck_assert_ptr_nonnull(mine[i]);
		ck_assert_uint_eq(mine[i]->set, want[i].set);
		ck_assert_str_eq(mine[i]->name, want[i].name);
		ck_assert_str_eq(mine[i]->linked, want[i].target);
		ck_assert_str_eq(claims_target_of(&lus[0], i), want[i].target);
		ck_assert_str_eq(claim_state(mine[i], &lus[0]), "linked");
		ck_assert_ptr_eq(mine[i]->winner, &lus[0]);
		ck_assert_ptr_nonnull(mine[i]->owners);
		ck_assert_ptr_null(mine[i]->owners->next);
		ck_assert(!claim_is_alias(mine[i], &lus[0]));
		ck_assert(!mine[i]->collision && !mine[i]->foreign && mine[i]->error == 0);
	}
	ck_assert_str_eq(claim_target(mine[1], &lus[0]), "../../sg0");
	ck_assert_ptr_null(claim_target(mine[1], &lus[1]));
	/* Found, it is made a full claim, the same as the view says. */
	ck_assert_str_eq(claims_find(cl, 1, "wwn-0x5000")->name, "wwn-0x5000");
	ck_assert_ptr_eq(claims_find(cl, 1, "wwn-0x5000")->winner, &lus[0]);
	ck_assert_uint_eq(claims_n_compact(cl), 2);
	ck_assert_ptr_eq(claims_of(&lus[0], 2, &views[2]), claims_find(cl, 1, "wwn-0x5000"));

	/* Claiming the same again changes nothing and writes nothing. */
	store.adds = 0;
	ck_assert_int_eq(claims_update(cl, &lus[0], want, ELEMENTSOF(want)), 0);
	ck_assert_uint_eq(store.adds, 0);
	ck_assert_uint_eq(claims_n(cl), 3);

	/* A name moving to another node of the same LU is rewritten. */
	want[1].target = "../../sg7";
	ck_assert_int_eq(claims_update(cl, &lus[0], want, ELEMENTSOF(want)), 0);
	ck_assert_str_eq(link_of(0, "wwn-0x5000-sg"), "../../sg7");
	ck_assert_uint_eq(claims_n(cl), 3);

	/* Giving up one name removes its link only. */
	ck_assert_int_eq(claims_update(cl, &lus[0], want, 2), 0);
	ck_assert_uint_eq(claims_n(cl), 2);
	ck_assert_ptr_null(link_of(1, "wwn-0x5000"));
	ck_assert_str_eq(link_of(0, "wwn-0x5000"), "../../sda");

	/* Release everything: no claim, no link, no array left. */
	ck_assert_int_eq(claims_update(cl, &lus[0], NULL, 0), 0);
	ck_assert_uint_eq(claims_n(cl), 0);
	ck_assert_uint_eq(store.n, 0);
	ck_assert_uint_eq(claims_n_of(&lus[0]), 0);
	ck_assert_ptr_null(lus[0].userdata);
	ck_assert_uint_eq(store.collisions, 0);
	ck_assert_uint_eq(store.failures, 0);
}
END_TEST

/* Every order the three LUs may come in: the lowest H:C:T:L gets the name each time. */
static const unsigned orders[][3] = {
	{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
};

START_TEST(test_collision)
{
	const unsigned *order = orders[_i];
	Claim *c;

	for (size_t k = 0; k < 3; k++)
		want_one(&lus[order[k]], "scsi-SBOGUS");
	ck_assert_uint_eq(claims_n(cl), 1);
	c = claims_find(cl, 0, "scsi-SBOGUS");
	ck_assert_ptr_nonnull(c);
	ck_assert(c->collision);
	ck_assert_ptr_eq(c->winner, &lus[0]);
	ck_assert_str_eq(link_of(0, "scsi-SBOGUS"), "../../sda");
	ck_assert_str_eq(claim_state(c, &lus[0]), "linked");
	ck_assert_str_eq(claim_state(c, &lus[1]), "collision");
	ck_assert_str_eq(claim_state(c, &lus[2]), "collision");
	/* Reported once, when it began, naming the winner of that moment. */
	ck_assert_uint_eq(store.collisions, 1);
	ck_assert_ptr_eq(store.last_winner, order[0] < order[1] ? &lus[order[0]] : &lus[order[1]]);

	/* The winner goes: the next lowest takes the name over; still a collision. */
	ck_assert_int_eq(claims_update(cl, &lus[0], NULL, 0), 0);
	ck_assert_ptr_eq(c->winner, &lus[1]);
	ck_assert_str_eq(link_of(0, "scsi-SBOGUS"), "../../sdb");
	ck_assert(c->collision);
	ck_assert_uint_eq(store.collisions, 1);

	/* One owner left: no collision any more, and a new one is reported anew. */
	ck_assert_int_eq(claims_update(cl, &lus[1], NULL, 0), 0);
	ck_assert(!c->collision);
	ck_assert_ptr_eq(c->winner, &lus[2]);
	ck_assert_str_eq(link_of(0, "scsi-SBOGUS"), "../../sdc");
	want_one(&lus[0], "scsi-SBOGUS");
	ck_assert_uint_eq(store.collisions, 2);
	ck_assert_ptr_eq(c->winner, &lus[0]);

	ck_assert_int_eq(claims_update(cl, &lus[0], NULL, 0), 0);
	ck_assert_int_eq(claims_update(cl, &lus[2], NULL, 0), 0);
	ck_assert_uint_eq(claims_n(cl), 0);
	ck_assert_uint_eq(store.n, 0);
}
END_TEST

/* Clones (one ID, not provably one LU): nobody gets the name, in every order, and a link
 * made while the name was one LU's is removed. */
static const struct {
	const char *name;
	const char *lu_key[3], *port_key[3];
} clones[] = {
	{ "identical ports (a copied ID)",
	  { LU_KEY, LU_KEY, LU_KEY },
	  { "6194:00000001", "6194:00000001", "6194:00000001" } },
	{ "no page 0x83 (a USB bridge's one serial)", { NULL, NULL, NULL }, { NULL, NULL, NULL } },
	{ "LU designators differ",
	  { LU_KEY, "0103:5000c50015ea71ad", LU_KEY },
	  { "6194:00000001", "6194:00000002", "6194:00000003" } },
	{ "two paths and a clone of one of them",
	  { LU_KEY, LU_KEY, LU_KEY },
	  { "6194:00000001", "6194:00000002", "6194:00000002" } },
	{ "no port designators", { LU_KEY, LU_KEY, LU_KEY }, { "", "", "" } },
};

START_TEST(test_clones)
{
	const unsigned *order = orders[_i % ELEMENTSOF(orders)];
	unsigned row = _i / ELEMENTSOF(orders);
	Claim *c;

	for (size_t k = 0; k < 3; k++) {
		lus[k].naming.lu_key = (char *)clones[row].lu_key[k];
		lus[k].naming.port_key = (char *)clones[row].port_key[k];
	}
	want_one(&lus[order[0]], "scsi-SBOGUS");
	ck_assert_str_eq(link_of(0, "scsi-SBOGUS"), lu_targets[order[0]]);
	want_one(&lus[order[1]], "scsi-SBOGUS");
	want_one(&lus[order[2]], "scsi-SBOGUS");
	c = claims_find(cl, 0, "scsi-SBOGUS");
	ck_assert_ptr_nonnull(c);
	ck_assert_msg(c->collision && c->quarantined, "%s", clones[row].name);
	ck_assert_ptr_null(c->winner);
	ck_assert_ptr_null(link_of(0, "scsi-SBOGUS"));
	for (size_t k = 0; k < 3; k++)
		ck_assert_str_eq(claim_state(c, &lus[k]), "quarantined");
	ck_assert_ptr_null(store.last_winner);
	ck_assert_uint_eq(store.failures, 0);

	/* A full reconcile keeps it so. */
	ck_assert_int_eq(claims_reconcile(cl, 0), 0);
	ck_assert_ptr_null(link_of(0, "scsi-SBOGUS"));
	ck_assert_uint_eq(claims_failed(cl), 0);

	/* Down to one owner: the name is that LU's again. */
	ck_assert_int_eq(claims_update(cl, &lus[order[0]], NULL, 0), 0);
	ck_assert_int_eq(claims_update(cl, &lus[order[1]], NULL, 0), 0);
	ck_assert(!c->collision && !c->quarantined);
	ck_assert_str_eq(link_of(0, "scsi-SBOGUS"), lu_targets[order[2]]);
	ck_assert_int_eq(claims_update(cl, &lus[order[2]], NULL, 0), 0);
	ck_assert_uint_eq(claims_n(cl), 0);
	ck_assert_uint_eq(store.n, 0);
}
END_TEST

/* Paths, then a clone joins: the collision is reported again, now quarantined; it goes: the
 * lowest path has the name again. */
START_TEST(test_paths_then_clone)
{
	Claim *c;

	lus[2].naming.port_key = (char *)port_keys[0]; /* a clone of lus[0] */
	want_one(&lus[1], "scsi-SBOGUS");
	want_one(&lus[0], "scsi-SBOGUS");
	c = claims_find(cl, 0, "scsi-SBOGUS");
	ck_assert(c->collision && !c->quarantined);
	ck_assert_uint_eq(store.collisions, 1);
	ck_assert_ptr_eq(store.last_winner, &lus[0]);
	ck_assert_str_eq(link_of(0, "scsi-SBOGUS"), "../../sda");

	want_one(&lus[2], "scsi-SBOGUS");
	ck_assert(c->quarantined);
	ck_assert_uint_eq(store.collisions, 2);
	ck_assert_ptr_null(store.last_winner);
	ck_assert_ptr_null(link_of(0, "scsi-SBOGUS"));

	ck_assert_int_eq(claims_update(cl, &lus[2], NULL, 0), 0);
	ck_assert(c->collision && !c->quarantined);
	ck_assert_ptr_eq(c->winner, &lus[0]);
	ck_assert_str_eq(link_of(0, "scsi-SBOGUS"), "../../sda");
}
END_TEST

/* A path whose identity changes while it keeps the name (a rescan re-read its page 0x83 with
 * another LU designator, the NAA one unchanged): the same want, but now a clone of the others.
 * Its next update quarantines the name; changed back, the lowest path has it again. */
START_TEST(test_identity_changes)
{
	Claim *c;

	for (size_t k = 0; k < 3; k++)
		want_one(&lus[k], "scsi-SBOGUS");
	c = claims_find(cl, 0, "scsi-SBOGUS");
	ck_assert(c->collision && !c->quarantined);
	ck_assert_str_eq(link_of(0, "scsi-SBOGUS"), "../../sda");

	lus[1].naming.lu_key = (char *)"0103:5000c50015ea71ac 0283:4c554e444e455750524f44";
	want_one(&lus[1], "scsi-SBOGUS");
	ck_assert(c->quarantined);
	ck_assert_ptr_null(link_of(0, "scsi-SBOGUS"));

	lus[1].naming.lu_key = (char *)LU_KEY;
	want_one(&lus[1], "scsi-SBOGUS");
	ck_assert(c->collision && !c->quarantined);
	ck_assert_str_eq(link_of(0, "scsi-SBOGUS"), "../../sda");
}
END_TEST

/* The name points at the lowest running path; a path that stops running hands it on
 * (claims_refresh()), and takes it back when it runs again. */
START_TEST(test_running_path)
{
	Claim *c;

	lus[0].state = (char *)"offline";
	for (size_t k = 0; k < 3; k++)
		want_one(&lus[orders[_i][k]], "scsi-SBOGUS");
	c = claims_find(cl, 0, "scsi-SBOGUS");
	ck_assert_ptr_eq(c->winner, &lus[1]);
	ck_assert_str_eq(link_of(0, "scsi-SBOGUS"), "../../sdb");

	lus[0].state = (char *)"running";
	ck_assert_int_eq(claims_refresh(cl, &lus[0]), 0);
	ck_assert_ptr_eq(c->winner, &lus[0]);
	ck_assert_str_eq(link_of(0, "scsi-SBOGUS"), "../../sda");

	/* A refresh that changes nothing writes nothing. */
	store.adds = 0;
	ck_assert_int_eq(claims_refresh(cl, &lus[0]), 0);
	ck_assert_int_eq(claims_refresh(cl, &lus[2]), 0);
	ck_assert_uint_eq(store.adds, 0);

	/* None running: the lowest of all. */
	for (size_t k = 0; k < 3; k++) {
		lus[k].state = (char *)"transport-offline";
		ck_assert_int_eq(claims_refresh(cl, &lus[k]), 0);
	}
	ck_assert_ptr_eq(c->winner, &lus[0]);
	ck_assert_uint_eq(store.collisions, 1);
}
END_TEST

/* Owners that agree on the target (one node seen twice) are no collision. */
START_TEST(test_same_target)
{
	ClaimWant w = { 0, "wwn-0x5000", "../../sda" };
	Claim *c;

	ck_assert_int_eq(claims_update(cl, &lus[2], &w, 1), 0);
	ck_assert_int_eq(claims_update(cl, &lus[1], &w, 1), 0);
	c = claims_find(cl, 0, "wwn-0x5000");
	ck_assert(!c->collision);
	ck_assert_ptr_eq(c->winner, &lus[1]);
	ck_assert_uint_eq(store.collisions, 0);
}
END_TEST

/* dm-multipath takes the paths one by one (each LU's update, in any order): once all want the
 * map, the name points at the map and is no collision; given back, the lowest path has it. */
START_TEST(test_map_handover)
{
	const unsigned *order = orders[_i];
	ClaimWant map = { 0, "scsi-3600", "../../dm-3" };
	Claim *c;

	for (size_t k = 0; k < 3; k++)
		want_one(&lus[order[k]], "scsi-3600");
	c = claims_find(cl, 0, "scsi-3600");
	ck_assert(c->collision);
	ck_assert_str_eq(link_of(0, "scsi-3600"), "../../sda");
	for (size_t k = 0; k < 3; k++) {
		ck_assert_int_eq(claims_update(cl, &lus[order[k]], &map, 1), 0);
		/* partway, the paths still disagree: the lowest path's target, whichever it is */
		ck_assert_str_eq(link_of(0, "scsi-3600"), claim_target(c, &lus[0]));
	}
	ck_assert(!c->collision);
	ck_assert_ptr_eq(c->winner, &lus[0]);
	ck_assert_str_eq(link_of(0, "scsi-3600"), "../../dm-3");
	for (size_t k = 0; k < 3; k++)
		ck_assert_str_eq(claim_state(c, &lus[k]), k == 0 ? "linked" : "collision");
	for (size_t k = 0; k < 3; k++)
		want_one(&lus[order[k]], "scsi-3600");
	ck_assert(c->collision);
	ck_assert_str_eq(link_of(0, "scsi-3600"), "../../sda");
	ck_assert_uint_eq(store.failures, 0);
}
END_TEST

/* Deferred (start-up, resync): winners are chosen, nothing is written until the reconcile. */
START_TEST(test_deferred)
{
	store_add(0, "stale", "../../sdz"); /* lund's link nobody claims any more */
	claims_defer(cl, true);
	want_one(&lus[2], "scsi-SBOGUS");
	want_one(&lus[1], "scsi-SBOGUS");
	want_one(&lus[0], "wwn-0x5000");
	ck_assert_uint_eq(store.adds, 0);
	ck_assert_uint_eq(store.collisions, 1);
	ck_assert_ptr_eq(claims_find(cl, 0, "scsi-SBOGUS")->winner, &lus[1]);
	claims_defer(cl, false);

	ck_assert_int_eq(claims_reconcile(cl, 0), 0);
	ck_assert_uint_eq(store.reconciles, 1);
	ck_assert_uint_eq(store.n, 2);
	ck_assert_str_eq(link_of(0, "scsi-SBOGUS"), "../../sdb");
	ck_assert_str_eq(link_of(0, "wwn-0x5000"), "../../sda");
	ck_assert_ptr_null(link_of(0, "stale"));

	/* An LU that leaves while deferred: its unowned claim is dropped, the reconcile
	 * removes the link. */
	claims_defer(cl, true);
	ck_assert_int_eq(claims_update(cl, &lus[0], NULL, 0), 0);
	ck_assert_uint_eq(store.removes, 0);
	ck_assert_uint_eq(claims_n(cl), 1);
	claims_defer(cl, false);
	ck_assert_int_eq(claims_reconcile(cl, 0), 0);
	ck_assert_ptr_null(link_of(0, "wwn-0x5000"));
}
END_TEST

/* The link made for a claim's first owner keeps its target after that owner went and another
 * took its place in the claim (the store keeps the two in one allocation), until rewritten. */
START_TEST(test_linked_outlives_owner)
{
	Claim *c;

	want_one(&lus[0], "wwn-0x5000");
	c = claims_find(cl, 0, "wwn-0x5000");
	ck_assert_str_eq(c->linked, "../../sda");
	claims_defer(cl, true);
	want_one(&lus[1], "wwn-0x5000"); /* another path */
	ck_assert_int_eq(claims_update(cl, &lus[0], NULL, 0), 0);
	want_one(&lus[2], "wwn-0x5000");
	ck_assert_ptr_eq(claims_find(cl, 0, "wwn-0x5000"), c);
	/* Deferred: nothing was written, the link still points where it did. */
	ck_assert_str_eq(c->linked, "../../sda");
	ck_assert_str_eq(claim_target(c, &lus[1]), "../../sdb");
	ck_assert_str_eq(claim_target(c, &lus[2]), "../../sdc");
	claims_defer(cl, false);
	ck_assert_int_eq(claims_reconcile(cl, 0), 0);
	ck_assert_str_eq(store.known, "../../sda");
	ck_assert_str_eq(link_of(0, "wwn-0x5000"), "../../sdb");
	ck_assert_str_eq(c->linked, "../../sdb");

	/* The last owner goes: the link with it. */
	ck_assert_int_eq(claims_update(cl, &lus[1], NULL, 0), 0);
	ck_assert_int_eq(claims_update(cl, &lus[2], NULL, 0), 0);
	ck_assert_ptr_null(link_of(0, "wwn-0x5000"));
	ck_assert_uint_eq(claims_n(cl), 0);
}
END_TEST

/* A link write that failed is reported, left unlinked, and retried by the next reconcile. */
START_TEST(test_retry)
{
	Claim *c;

	store.fail = "wwn-0x5000";
	store.fail_error = -EROFS;
	want_one(&lus[1], "wwn-0x5000");
	c = claims_find(cl, 0, "wwn-0x5000");
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_null(c->winner);
	ck_assert_int_eq(c->error, -EROFS);
	ck_assert(!c->foreign);
	ck_assert_str_eq(claim_state(c, &lus[1]), "pending");
	ck_assert_uint_eq(store.failures, 1);
	ck_assert_ptr_null(link_of(0, "wwn-0x5000"));

	/* Still failing: the reconcile says so and keeps it for the next one. */
	ck_assert_int_eq(claims_reconcile(cl, 0), -EROFS);
	ck_assert_ptr_null(c->winner);
	ck_assert_int_eq(c->error, -EROFS);

	/* The directory is writable again: the next reconcile makes the link. */
	store.fail = NULL;
	ck_assert_int_eq(claims_reconcile(cl, 0), 0);
	ck_assert_ptr_eq(c->winner, &lus[1]);
	ck_assert_int_eq(c->error, 0);
	ck_assert_str_eq(link_of(0, "wwn-0x5000"), "../../sdb");
	ck_assert_str_eq(claim_state(c, &lus[1]), "linked");

	/* A failed removal is reported; the claim goes all the same. */
	store.fail = "wwn-0x5000";
	ck_assert_int_eq(claims_update(cl, &lus[1], NULL, 0), 0);
	ck_assert_uint_eq(store.failures, 2);
	ck_assert_uint_eq(claims_n(cl), 0);
	/* But it is not forgotten: a retry is due, and the reconcile removes the link. */
	ck_assert_str_eq(link_of(0, "wwn-0x5000"), "../../sdb");
	ck_assert_uint_eq(claims_failed(cl), 1);
	ck_assert_int_eq(claims_reconcile(cl, 0), -EROFS);
	ck_assert_uint_eq(claims_failed(cl), 1);
	store.fail = NULL;
	ck_assert_int_eq(claims_reconcile(cl, 0), 0);
	ck_assert_ptr_null(link_of(0, "wwn-0x5000"));
	ck_assert_uint_eq(claims_failed(cl), 0);
}
END_TEST

/* A foreign file at the name: left alone and not a failure, but tried again by every
 * reconcile, so the link is made once the file is gone. */
START_TEST(test_foreign)
{
	Claim *c;

	store.foreign = "wwn-0x5000";
	want_one(&lus[0], "wwn-0x5000");
	c = claims_find(cl, 0, "wwn-0x5000");
	ck_assert(c->foreign);
	ck_assert_ptr_null(c->winner);
	ck_assert_int_eq(c->error, 0);
	ck_assert_str_eq(claim_state(c, &lus[0]), "foreign");
	ck_assert_uint_eq(store.failures, 0);
	ck_assert_uint_eq(claims_failed(cl), 0);
	store.adds = 0;
	ck_assert_int_eq(claims_reconcile(cl, 0), -EEXIST);
	ck_assert(c->foreign);
	ck_assert_ptr_null(c->winner);
	ck_assert_ptr_null(link_of(0, "wwn-0x5000"));

	/* The foreign file is removed: the next reconcile makes the link. */
	store.foreign = NULL;
	ck_assert_int_eq(claims_reconcile(cl, 0), 0);
	ck_assert(!c->foreign);
	ck_assert_ptr_eq(c->winner, &lus[0]);
	ck_assert_str_eq(link_of(0, "wwn-0x5000"), "../../sda");
	ck_assert_str_eq(claim_state(c, &lus[0]), "linked");
	ck_assert_uint_eq(store.failures, 0);
}
END_TEST

/* @lu wants @name pointing at its own node as an alias (an old name kept until accepted). */
static void want_alias(Lu *lu, const char *name)
{
	ClaimWant w = { 0, name, lu_targets[lu - lus], true };

	ck_assert_int_eq(claims_update(cl, lu, &w, 1), 0);
}

/* An alias against another LU's current name, in both orders: the current name wins although
 * the alias's LU has the lower H:C:T:L and the two are not one LU (were both current names,
 * the name would be quarantined). No collision, no quarantine; the alias is reported dropped
 * once, and comes back when the current name goes. */
START_TEST(test_alias_vs_current)
{
	Claim *c;

	lus[2].naming.lu_key = (char *)"0103:5000c50015ea71ad"; /* another LU */
	if (_i == 0) {
		want_alias(&lus[0], "scsi-SOLD");
		ck_assert_str_eq(link_of(0, "scsi-SOLD"), "../../sda");
		want_one(&lus[2], "scsi-SOLD");
	} else {
		want_one(&lus[2], "scsi-SOLD");
		want_alias(&lus[0], "scsi-SOLD");
	}
	c = claims_find(cl, 0, "scsi-SOLD");
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_eq(c->winner, &lus[2]);
	ck_assert_str_eq(link_of(0, "scsi-SOLD"), "../../sdc");
	ck_assert(!c->collision && !c->quarantined && c->superseded);
	ck_assert_str_eq(claim_state(c, &lus[2]), "linked");
	ck_assert_str_eq(claim_state(c, &lus[0]), "superseded");
	ck_assert(claim_is_alias(c, &lus[0]));
	ck_assert(!claim_is_alias(c, &lus[2]));
	ck_assert_uint_eq(store.collisions, 0);
	ck_assert_uint_eq(store.aliases_dropped, 1);

	/* A second alias owner joining is reported too, once. */
	lus[1].naming.lu_key = (char *)"0103:5000c50015ea71ae";
	want_alias(&lus[1], "scsi-SOLD");
	ck_assert_uint_eq(store.aliases_dropped, 2);
	ck_assert_str_eq(claim_state(c, &lus[1]), "superseded");
	ck_assert_int_eq(claims_update(cl, &lus[1], NULL, 0), 0);

	/* A full reconcile decides alike. */
	ck_assert_int_eq(claims_reconcile(cl, 0), 0);
	ck_assert_str_eq(link_of(0, "scsi-SOLD"), "../../sdc");

	/* The current name goes: the alias has the name again. */
	ck_assert_int_eq(claims_update(cl, &lus[2], NULL, 0), 0);
	ck_assert(!c->superseded);
	ck_assert_ptr_eq(c->winner, &lus[0]);
	ck_assert_str_eq(link_of(0, "scsi-SOLD"), "../../sda");
	ck_assert_uint_eq(store.aliases_dropped, 2); /* nothing more: the alias is back */
	ck_assert_int_eq(claims_update(cl, &lus[0], NULL, 0), 0);
	ck_assert_uint_eq(claims_n(cl), 0);
	ck_assert_uint_eq(store.n, 0);
}
END_TEST

/* Clones quarantine a name they both want now; an alias of a third LU neither joins the
 * quarantine nor takes the name, and a link the alias had is removed. */
START_TEST(test_alias_vs_clones)
{
	Claim *c;

	lus[0].naming.lu_key = (char *)"0103:5000c50015ea71ad"; /* another LU */
	lus[2].naming.port_key = (char *)port_keys[1];          /* lus[2] a clone of lus[1] */
	want_alias(&lus[0], "scsi-SBOGUS");
	ck_assert_str_eq(link_of(0, "scsi-SBOGUS"), "../../sda");
	want_one(&lus[1], "scsi-SBOGUS");
	ck_assert_str_eq(link_of(0, "scsi-SBOGUS"), "../../sdb");
	want_one(&lus[2], "scsi-SBOGUS");
	c = claims_find(cl, 0, "scsi-SBOGUS");
	ck_assert(c->collision && c->quarantined && c->superseded);
	ck_assert_ptr_null(c->winner);
	ck_assert_ptr_null(link_of(0, "scsi-SBOGUS"));
	ck_assert_str_eq(claim_state(c, &lus[0]), "superseded");
	ck_assert_str_eq(claim_state(c, &lus[1]), "quarantined");
	ck_assert_uint_eq(store.collisions, 1);
	ck_assert_ptr_null(store.last_winner);
	ck_assert_uint_eq(store.aliases_dropped, 1);
	ck_assert_int_eq(claims_reconcile(cl, 0), 0);
	ck_assert_ptr_null(link_of(0, "scsi-SBOGUS"));

	/* The clones go: the alias has the name again. */
	ck_assert_int_eq(claims_update(cl, &lus[1], NULL, 0), 0);
	ck_assert_int_eq(claims_update(cl, &lus[2], NULL, 0), 0);
	ck_assert_str_eq(link_of(0, "scsi-SBOGUS"), "../../sda");
	ck_assert(!c->collision && !c->superseded);
}
END_TEST

/* A current name becoming the same LU's alias (an hwdb update renamed it) and back: the link
 * stays, never removed and written again (a name an fstab line uses must not blink). */
START_TEST(test_current_to_alias_keeps_link)
{
	Claim *c;
	unsigned adds, removes;

	want_one(&lus[0], "scsi-SRENAMED");
	ck_assert_str_eq(link_of(0, "scsi-SRENAMED"), "../../sda");
	adds = store.adds;
	removes = store.removes;
	want_alias(&lus[0], "scsi-SRENAMED");
	c = claims_find(cl, 0, "scsi-SRENAMED");
	ck_assert_ptr_nonnull(c);
	ck_assert(claim_is_alias(c, &lus[0]));
	ck_assert_str_eq(claim_state(c, &lus[0]), "linked");
	ck_assert_str_eq(link_of(0, "scsi-SRENAMED"), "../../sda");
	ck_assert_uint_eq(store.removes, removes);
	ck_assert_uint_eq(store.adds, adds);

	/* As an alias it gives way to another LU's current name, as any alias. */
	lus[2].naming.lu_key = (char *)"0103:5000c50015ea71ad";
	want_one(&lus[2], "scsi-SRENAMED");
	ck_assert_str_eq(link_of(0, "scsi-SRENAMED"), "../../sdc");
	ck_assert_uint_eq(store.aliases_dropped, 1);
	ck_assert_int_eq(claims_update(cl, &lus[2], NULL, 0), 0);
	ck_assert_str_eq(link_of(0, "scsi-SRENAMED"), "../../sda");

	/* Back to a current name: still no removal. */
	removes = store.removes;
	want_one(&lus[0], "scsi-SRENAMED");
	ck_assert(!claim_is_alias(c, &lus[0]));
	ck_assert_str_eq(link_of(0, "scsi-SRENAMED"), "../../sda");
	ck_assert_uint_eq(store.removes, removes);
	ck_assert_int_eq(claims_update(cl, &lus[0], NULL, 0), 0);
	ck_assert_uint_eq(claims_n(cl), 0);
}
END_TEST

/* Two clones holding one old name as an alias (one identity, both recorded): nobody gets it,
 * as for a current name. */
START_TEST(test_alias_clones)
{
	Claim *c;

	lus[1].naming.port_key = (char *)port_keys[0];
	want_alias(&lus[0], "scsi-SOLD");
	want_alias(&lus[1], "scsi-SOLD");
	c = claims_find(cl, 0, "scsi-SOLD");
	ck_assert(c->quarantined && !c->superseded);
	ck_assert_ptr_null(link_of(0, "scsi-SOLD"));
	ck_assert_uint_eq(store.aliases_dropped, 0);
}
END_TEST

/* The admin accepts: the LU's wants lose the alias, and its link goes; a name that turns
 * from alias into a current name (the rules changed back) is held as a current name. */
START_TEST(test_alias_accept)
{
	ClaimWant want[] = {
		{ 0, "scsi-SNEW", "../../sda", false },
		{ 0, "scsi-SOLD", "../../sda", true },
	};
	Claim *c;

	ck_assert_int_eq(claims_update(cl, &lus[0], want, 2), 0);
	ck_assert_str_eq(link_of(0, "scsi-SNEW"), "../../sda");
	ck_assert_str_eq(link_of(0, "scsi-SOLD"), "../../sda");
	c = claims_find(cl, 0, "scsi-SOLD");
	ck_assert(claim_is_alias(c, &lus[0]));
	ck_assert_str_eq(claim_state(c, &lus[0]), "linked");

	want[1].alias = false;
	ck_assert_int_eq(claims_update(cl, &lus[0], want, 2), 0);
	c = claims_find(cl, 0, "scsi-SOLD");
	ck_assert(!claim_is_alias(c, &lus[0]));
	ck_assert_str_eq(link_of(0, "scsi-SOLD"), "../../sda");

	/* Accepted: only the current name stays. */
	ck_assert_int_eq(claims_update(cl, &lus[0], want, 1), 0);
	ck_assert_ptr_null(link_of(0, "scsi-SOLD"));
	ck_assert_ptr_null(claims_find(cl, 0, "scsi-SOLD"));
	ck_assert_str_eq(link_of(0, "scsi-SNEW"), "../../sda");
	ck_assert_uint_eq(claims_n(cl), 1);
	ck_assert_uint_eq(store.aliases_dropped, 0);
}
END_TEST

/* Thousands of names: found after every growth of the table and after removals that leave
 * holes in its probe runs, gone once released, walked in set/name order. */
static int order_prev_set = -1;
static char order_prev_name[64];
static size_t order_seen;

static void check_order(const Claim *c, void *userdata)
{
	ck_assert(order_prev_set <= (int)c->set);
	if (order_prev_set == (int)c->set)
		ck_assert_str_lt(order_prev_name, c->name);
	order_prev_set = (int)c->set;
	snprintf(order_prev_name, sizeof(order_prev_name), "%s", c->name);
	order_seen++;
}

START_TEST(test_many)
{
	enum { N = 3000 };
	static char names[N][16];
	static ClaimWant want[N];
	size_t n = 0;

	claims_defer(cl, true); /* no link written: only the table is under test */
	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "n%zu", i * 7919 % N);
		want[i] = (ClaimWant){ i % 2, names[i], "../../sda" };
	}
	ck_assert_int_eq(claims_update(cl, &lus[0], want, N), 0);
	ck_assert_uint_eq(claims_n(cl), N);
	for (size_t i = 0; i < N; i++) {
		Claim *c = claims_find(cl, i % 2, names[i]);

		ck_assert_ptr_nonnull(c);
		ck_assert_str_eq(c->name, names[i]);
		ck_assert_ptr_null(claims_find(cl, 1 - i % 2, names[i]));
	}
	order_prev_set = -1;
	order_seen = 0;
	claims_foreach(cl, check_order, NULL);
	ck_assert_uint_eq(order_seen, N);

	/* Keep every third: the others are removed from the middle of their runs. */
	for (size_t i = 0; i < N; i += 3)
		want[n++] = (ClaimWant){ i % 2, names[i], "../../sda" };
	ck_assert_int_eq(claims_update(cl, &lus[0], want, n), 0);
	ck_assert_uint_eq(claims_n(cl), n);
	for (size_t i = 0; i < N; i++)
		if (i % 3 == 0)
			ck_assert_ptr_nonnull(claims_find(cl, i % 2, names[i]));
		else
			ck_assert_ptr_null(claims_find(cl, i % 2, names[i]));
	order_prev_set = -1;
	order_seen = 0;
	claims_foreach(cl, check_order, NULL);
	ck_assert_uint_eq(order_seen, n);

	ck_assert_int_eq(claims_update(cl, &lus[0], NULL, 0), 0);
	ck_assert_uint_eq(claims_n(cl), 0);
	ck_assert_ptr_null(claims_find(cl, 0, names[0]));
}
END_TEST

/* Strings the claim's built-in owner has no room for: a name past what its offset can say, a
 * target past its room. The claim holds them all the same, hands the name to another path,
 * and hands the reconcile the link it left while deferred to remove as lund's (a name longer
 * than NAME_MAX, as the claim's own), retried while that fails. */
START_TEST(test_long_strings)
{
	static char name[3000], target[400];
	ClaimWant w0 = { 0, name, target }, w1 = { 0, name, "../../sdb" };
	Claim *c;

	memset(name, 'n', sizeof(name) - 1);
	memset(target, 't', sizeof(target) - 1);
	ck_assert_int_eq(claims_update(cl, &lus[0], &w0, 1), 0);
	c = claims_find(cl, 0, name);
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->name, name);
	ck_assert_str_eq(claim_target(c, &lus[0]), target);
	ck_assert_str_eq(c->linked, target);
	ck_assert_ptr_eq(c->winner, &lus[0]);

	ck_assert_int_eq(claims_update(cl, &lus[1], &w1, 1), 0);
	ck_assert(c->collision);
	ck_assert_ptr_eq(c->winner, &lus[0]);
	ck_assert_int_eq(claims_update(cl, &lus[0], NULL, 0), 0);
	ck_assert_ptr_eq(claims_find(cl, 0, name), c);
	ck_assert_ptr_eq(c->winner, &lus[1]);
	ck_assert_str_eq(c->linked, "../../sdb");

	claims_defer(cl, true);
	ck_assert_int_eq(claims_update(cl, &lus[1], NULL, 0), 0);
	ck_assert_uint_eq(claims_n(cl), 0);
	claims_defer(cl, false);
	store.fail = name;
	store.fail_error = -EIO;
	ck_assert_int_eq(claims_reconcile(cl, 0), -EIO);
	ck_assert_str_eq(store.known, "../../sdb");
	ck_assert_uint_eq(claims_failed(cl), 1);
	store.fail = NULL;
	ck_assert_int_eq(claims_reconcile(cl, 0), 0);
	ck_assert_uint_eq(claims_failed(cl), 0);
	ck_assert_uint_eq(store.n, 0);
}
END_TEST

/* A write's failure that is no errno (outside what a claim keeps) is kept as -EIO, not cut
 * to some other number. */
START_TEST(test_error_range)
{
	Claim *c;

	store.fail = "wwn-0x5000";
	store.fail_error = -70000;
	want_one(&lus[0], "wwn-0x5000");
	c = claims_find(cl, 0, "wwn-0x5000");
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->error, -EIO);
	ck_assert_uint_eq(claims_failed(cl), 1);
	store.fail_error = -EACCES;
	ck_assert_int_eq(claims_refresh(cl, &lus[0]), 0);
	ck_assert_int_eq(c->error, -EACCES);
	store.fail = NULL;
	ck_assert_int_eq(claims_reconcile(cl, 0), 0);
	ck_assert_int_eq(c->error, 0);
	ck_assert_uint_eq(claims_failed(cl), 0);
}
END_TEST

/* ---- compact claims (claims.h): promoted on the first event that needs a full claim ---- */

/* @lu's @i-th claim, as its reader sees it (in @view when compact). */
static const Claim *mine_at(Lu *lu, size_t i, ClaimView *view)
{
	ck_assert_uint_lt(i, claims_n_of(lu));
	return claims_of(lu, i, view);
}

/* @lu wants base name @base and its -sg twin, on its disk and its sg node. */
static void want_pair(Lu *lu, const char *base, const char *sd, const char *sg)
{
	char sgname[64];
	ClaimWant w[2] = { { 0, base, sd }, { 0, sgname, sg } };

	snprintf(sgname, sizeof(sgname), "%s-sg", base);
	ck_assert_int_eq(claims_update(cl, lu, w, ELEMENTSOF(w)), 0);
}

/* Is @lu's @i-th claim a view (compact) rather than the claim itself? Two views of one compact
 * claim are two copies; two of a full one are the same pointer. */
static bool is_compact(Lu *lu, size_t i)
{
	ClaimView a, b;

	return mine_at(lu, i, &a) != mine_at(lu, i, &b);
}

START_TEST(test_compact_second_owner)
{
	ClaimView v0, v1;
	const Claim *c;

	want_pair(&lus[1], "scsi-3600", "../../sdb", "../../sg1");
	ck_assert_uint_eq(claims_n_compact(cl), 2);
	ck_assert(is_compact(&lus[1], 0) && is_compact(&lus[1], 1));
	c = mine_at(&lus[1], 1, &v1);
	ck_assert_str_eq(c->name, "scsi-3600-sg");
	ck_assert_str_eq(c->linked, "../../sg1");

	/* Another path wants the plain name: that claim is promoted, its link kept until the
	 * collision rule gives it to the lower H:C:T:L, the new owner. */
	want_one(&lus[0], "scsi-3600");
	ck_assert_uint_eq(claims_n_compact(cl), 1);
	ck_assert_uint_eq(claims_n(cl), 2);
	ck_assert(!is_compact(&lus[1], 0));
	ck_assert(is_compact(&lus[1], 1));
	c = mine_at(&lus[1], 0, &v1);
	ck_assert_ptr_eq(mine_at(&lus[0], 0, &v0), c);
	ck_assert(c->collision);
	ck_assert(!c->quarantined);
	ck_assert_ptr_eq(c->winner, &lus[0]);
	ck_assert_str_eq(c->linked, "../../sda");
	ck_assert_str_eq(link_of(0, "scsi-3600"), "../../sda");
	ck_assert_str_eq(claim_target(c, &lus[1]), "../../sdb");
	ck_assert_str_eq(claim_state(c, &lus[1]), "collision");
	ck_assert_uint_eq(store.collisions, 1);

	/* The winner goes: the other keeps the name, still a full claim, and its link. */
	ck_assert_int_eq(claims_update(cl, &lus[0], NULL, 0), 0);
	c = mine_at(&lus[1], 0, &v1);
	ck_assert_ptr_eq(c->winner, &lus[1]);
	ck_assert_str_eq(link_of(0, "scsi-3600"), "../../sdb");
	ck_assert_str_eq(claim_state(c, &lus[1]), "linked");
	ck_assert_str_eq(link_of(0, "scsi-3600-sg"), "../../sg1");

	/* A clone wants the -sg name: promoted and quarantined, its link removed. */
	lus[2].naming.lu_key = (char *)"0103:6000c50015ea71ac";
	want_one(&lus[2], "scsi-3600-sg");
	ck_assert_uint_eq(claims_n_compact(cl), 0);
	c = mine_at(&lus[1], 1, &v1);
	ck_assert(c->quarantined);
	ck_assert_ptr_null(c->winner);
	ck_assert_ptr_null(link_of(0, "scsi-3600-sg"));
	ck_assert_str_eq(claim_state(c, &lus[1]), "quarantined");

	ck_assert_int_eq(claims_update(cl, &lus[1], NULL, 0), 0);
	ck_assert_int_eq(claims_update(cl, &lus[2], NULL, 0), 0);
	ck_assert_uint_eq(claims_n(cl), 0);
	ck_assert_uint_eq(store.n, 0);
}
END_TEST

/* A compact current name become an alias (a rename not yet accepted), and back. */
START_TEST(test_compact_alias)
{
	ClaimView v;
	const Claim *c;

	want_one(&lus[0], "scsi-SOLD");
	ck_assert_uint_eq(claims_n_compact(cl), 1);
	store.adds = 0;
	want_alias(&lus[0], "scsi-SOLD");
	ck_assert_uint_eq(claims_n_compact(cl), 0);
	c = mine_at(&lus[0], 0, &v);
	ck_assert(claim_is_alias(c, &lus[0]));
	ck_assert_ptr_eq(c->winner, &lus[0]);
	ck_assert_str_eq(claim_state(c, &lus[0]), "linked");
	ck_assert_str_eq(link_of(0, "scsi-SOLD"), "../../sda");
	ck_assert_uint_eq(store.adds, 0); /* the same link */

	/* An alias is never compact, even a new one. */
	want_alias(&lus[1], "scsi-SOTHER");
	ck_assert(claim_is_alias(mine_at(&lus[1], 0, &v), &lus[1]));
	ck_assert_uint_eq(claims_n_compact(cl), 0);

	/* Back to a current name: the claim stays full (no demotion), its link as it was. */
	want_one(&lus[0], "scsi-SOLD");
	c = mine_at(&lus[0], 0, &v);
	ck_assert(!claim_is_alias(c, &lus[0]));
	ck_assert_str_eq(claim_state(c, &lus[0]), "linked");
	ck_assert_str_eq(link_of(0, "scsi-SOLD"), "../../sda");
}
END_TEST

/* Writes that fail, and foreign files, make full claims: when the link is first written, by a
 * refresh, and by a reconcile; the removal of a compact claim's link that fails is reported
 * with its name. */
START_TEST(test_compact_write_faults)
{
	ClaimView v;
	const Claim *c;

	store.fail = "wwn-0x5000-sg";
	store.fail_error = -EACCES;
	want_pair(&lus[0], "wwn-0x5000", "../../sda", "../../sg0");
	ck_assert_uint_eq(claims_n_compact(cl), 1);
	ck_assert(is_compact(&lus[0], 0));
	c = mine_at(&lus[0], 1, &v);
	ck_assert(!is_compact(&lus[0], 1));
	ck_assert_int_eq(c->error, -EACCES);
	ck_assert_ptr_null(c->winner);
	ck_assert_str_eq(c->linked, "../../sg0"); /* the link may be there all the same */
	ck_assert_uint_eq(claims_failed(cl), 1);
	ck_assert_uint_eq(store.failures, 1);

	/* A reconcile's failure: the compact claim is promoted with the error. */
	store.fail = "wwn-0x5000";
	ck_assert_int_eq(claims_reconcile(cl, 0), -EACCES);
	ck_assert_uint_eq(claims_n_compact(cl), 0);
	c = mine_at(&lus[0], 0, &v);
	ck_assert_int_eq(c->error, -EACCES);
	ck_assert_ptr_null(c->winner);
	ck_assert_uint_eq(claims_failed(cl), 1);
	store.fail = NULL;
	ck_assert_int_eq(claims_reconcile(cl, 0), 0);
	ck_assert_uint_eq(claims_failed(cl), 0);
	ck_assert_str_eq(link_of(0, "wwn-0x5000"), "../../sda");
	ck_assert_str_eq(link_of(0, "wwn-0x5000-sg"), "../../sg0");

	/* A foreign file at a name another LU's compact claim is written to by a reconcile. */
	want_pair(&lus[1], "wwn-0x6000", "../../sdb", "../../sg1");
	ck_assert_uint_eq(claims_n_compact(cl), 2);
	store.foreign = "wwn-0x6000";
	store_drop(store_find(0, "wwn-0x6000"));
	ck_assert_int_eq(claims_reconcile(cl, 0), -EEXIST);
	ck_assert_uint_eq(claims_n_compact(cl), 1);
	c = mine_at(&lus[1], 0, &v);
	ck_assert(c->foreign);
	ck_assert_ptr_null(c->linked);
	ck_assert_str_eq(claim_state(c, &lus[1]), "foreign");
	ck_assert_uint_eq(claims_failed(cl), 0);

	/* A compact claim's removal that fails: reported under its name, the claim gone. */
	store.fail = "wwn-0x6000-sg";
	store.failures = 0;
	ck_assert_int_eq(claims_update(cl, &lus[1], NULL, 0), 0);
	ck_assert_uint_eq(store.failures, 1);
	ck_assert_str_eq(store.failed_name, "wwn-0x6000-sg");
	ck_assert_ptr_null(store.failed_winner);
	ck_assert_uint_eq(claims_n_compact(cl), 0);
	ck_assert_ptr_null(claims_find(cl, 0, "wwn-0x6000-sg"));
	/* The link stays until a reconcile removes it: a retry is due. */
	ck_assert_str_eq(link_of(0, "wwn-0x6000-sg"), "../../sg1");
	ck_assert_uint_eq(claims_failed(cl), 1);
	/* Another link set's reconcile (lund reconciles them in turn) leaves this one's count. */
	ck_assert_int_eq(claims_reconcile(cl, 1), 0);
	ck_assert_uint_eq(claims_failed(cl), 1);
	store.fail = NULL;
	store.foreign = NULL;
	ck_assert_int_eq(claims_reconcile(cl, 0), 0);
	ck_assert_ptr_null(link_of(0, "wwn-0x6000-sg"));
	ck_assert_uint_eq(claims_failed(cl), 0);
}
END_TEST

/* The owner of a compact claim goes while deferred and its link stays for the next reconcile:
 * another LU that wants the name with the same target takes the link over (still compact); with
 * another target the claim is promoted with the old link, which the reconcile replaces. */
START_TEST(test_compact_owner_leaves)
{
	ClaimView v;
	const Claim *c;

	want_one(&lus[0], "scsi-SA");
	want_one(&lus[1], "scsi-SB");
	ck_assert_uint_eq(claims_n_compact(cl), 2);
	claims_defer(cl, true);
	ck_assert_int_eq(claims_update(cl, &lus[0], NULL, 0), 0);
	ck_assert_int_eq(claims_update(cl, &lus[1], NULL, 0), 0);
	ck_assert_uint_eq(claims_n(cl), 0);
	{
		ClaimWant a = { 0, "scsi-SA", "../../sda" }, b = { 0, "scsi-SB", "../../sdc" };

		ck_assert_int_eq(claims_update(cl, &lus[2], &a, 1), 0);
		ck_assert_int_eq(claims_update(cl, &lus[1], &b, 1), 0);
	}
	ck_assert_uint_eq(claims_n_compact(cl), 2);
	claims_defer(cl, false);
	store.adds = store.removes = 0;
	ck_assert_int_eq(claims_reconcile(cl, 0), 0);
	ck_assert_uint_eq(store.removes, 0);
	/* Same target: the old link is the claim's own, known as such, still compact. */
	c = mine_at(&lus[2], 0, &v);
	ck_assert(is_compact(&lus[2], 0));
	ck_assert_str_eq(c->linked, "../../sda");
	ck_assert_ptr_eq(c->winner, &lus[2]);
	/* Another target: promoted with the old link, written over. */
	ck_assert(!is_compact(&lus[1], 0));
	c = mine_at(&lus[1], 0, &v);
	ck_assert_str_eq(c->linked, "../../sdc");
	ck_assert_str_eq(link_of(0, "scsi-SB"), "../../sdc");
	ck_assert_str_eq(store.known, "../../sdb");

	/* Not deferred, the owner goes and the link with it. */
	ck_assert_int_eq(claims_update(cl, &lus[2], NULL, 0), 0);
	ck_assert_ptr_null(link_of(0, "scsi-SA"));
	ck_assert_uint_eq(claims_n(cl), 1);

	/* Deferred, gone and not claimed again: the reconcile removes the link, passing it as
	 * lund's. */
	want_one(&lus[2], "scsi-SC");
	claims_defer(cl, true);
	ck_assert_int_eq(claims_update(cl, &lus[2], NULL, 0), 0);
	claims_defer(cl, false);
	ck_assert_str_eq(link_of(0, "scsi-SC"), "../../sdc");
	ck_assert_int_eq(claims_reconcile(cl, 0), 0);
	ck_assert_ptr_null(link_of(0, "scsi-SC"));
}
END_TEST

/* An LU's identity or nodes change (a re-probe, a rename): its compact claims follow, whatever
 * the strings its wants were made from become afterwards. */
START_TEST(test_compact_naming_change)
{
	char *base = strdup("scsi-SOLD"), *sd = strdup("../../sda");
	ClaimView v;
	const Claim *c;

	ck_assert_ptr_nonnull(base);
	ck_assert_ptr_nonnull(sd);
	want_pair(&lus[0], base, sd, "../../sg0");
	/* The naming they came from is freed, as a re-probe does: the claims hold their own. */
	free(base);
	free(sd);
	ck_assert_uint_eq(claims_n_compact(cl), 2);
	c = mine_at(&lus[0], 0, &v);
	ck_assert_str_eq(c->name, "scsi-SOLD");
	ck_assert_str_eq(claim_target(c, &lus[0]), "../../sda");

	/* New identity, one name kept in another set: the old names' links go, the new come,
	 * every one compact. */
	{
		ClaimWant w[] = {
			{ 0, "scsi-SNEW", "../../sda" },
			{ 0, "scsi-SNEW-sg", "../../sg0" },
			{ 1, "scsi-SOLD", "../../sda" },
		};

		ck_assert_int_eq(claims_update(cl, &lus[0], w, ELEMENTSOF(w)), 0);
		ck_assert_uint_eq(claims_n(cl), 3);
		ck_assert_uint_eq(claims_n_compact(cl), 3);
		ck_assert_ptr_null(link_of(0, "scsi-SOLD"));
		ck_assert_ptr_null(link_of(0, "scsi-SOLD-sg"));
		ck_assert_str_eq(link_of(0, "scsi-SNEW"), "../../sda");
		ck_assert_str_eq(link_of(0, "scsi-SNEW-sg"), "../../sg0");
		ck_assert_str_eq(link_of(1, "scsi-SOLD"), "../../sda");
		for (size_t i = 0; i < ELEMENTSOF(w); i++) {
			c = mine_at(&lus[0], i, &v);
			ck_assert_uint_eq(c->set, w[i].set);
			ck_assert_str_eq(c->name, w[i].name);
			ck_assert_str_eq(claim_target(c, &lus[0]), w[i].target);
		}

		/* The same names on new nodes, in another order, one more: moved to the new
		 * block (the table finds them there), the moved links rewritten, nothing else. */
		ClaimWant x[] = {
			{ 1, "scsi-SOLD", "../../sda" },
			{ 0, "scsi-SNEW-sg", "../../sg4" },
			{ 0, "scsi-SNEW", "../../sda" },
			{ 0, "scsi-SNEW-nst", "../../nst0" },
		};

		store.adds = store.removes = 0;
		ck_assert_int_eq(claims_update(cl, &lus[0], x, ELEMENTSOF(x)), 0);
		ck_assert_uint_eq(store.adds, 2);
		ck_assert_uint_eq(claims_n(cl), 4);
		ck_assert_uint_eq(claims_n_compact(cl), 4);
		ck_assert_str_eq(link_of(0, "scsi-SNEW-sg"), "../../sg4");
		ck_assert_str_eq(link_of(0, "scsi-SNEW-nst"), "../../nst0");
		for (size_t i = 0; i < ELEMENTSOF(x); i++) {
			c = mine_at(&lus[0], i, &v);
			ck_assert_str_eq(c->name, x[i].name);
			ck_assert_str_eq(claims_target_of(&lus[0], i), x[i].target);
			ck_assert_str_eq(c->linked, x[i].target);
		}
		/* Another LU finds each by name: promoted from the new block. */
		want_one(&lus[1], "scsi-SNEW");
		ck_assert_uint_eq(claims_n_compact(cl), 3);
		c = mine_at(&lus[1], 0, &v);
		ck_assert_ptr_eq(mine_at(&lus[0], 2, &v), c);
		ck_assert_ptr_eq(c->winner, &lus[0]);
	}
	ck_assert_int_eq(claims_update(cl, &lus[0], NULL, 0), 0);
	ck_assert_int_eq(claims_update(cl, &lus[1], NULL, 0), 0);
	ck_assert_uint_eq(claims_n(cl), 0);
	ck_assert_uint_eq(store.n, 0);
}
END_TEST

/* The listing of every claim makes compact ones whole: the same fields a full one has. */
static void check_view(const Claim *c, void *userdata)
{
	unsigned *n = userdata;

	ck_assert_ptr_nonnull(c->owners);
	ck_assert_ptr_null(c->owners->next);
	ck_assert_ptr_eq(c->winner, c->owners->lu);
	ck_assert_str_eq(c->linked, c->owners->target);
	ck_assert_str_eq(link_of(c->set, c->name), c->linked);
	(*n)++;
}

START_TEST(test_compact_foreach)
{
	unsigned n = 0;

	want_pair(&lus[0], "scsi-SA", "../../sda", "../../sg0");
	want_pair(&lus[1], "scsi-SB", "../../sdb", "../../sg1");
	ck_assert_uint_eq(claims_n_compact(cl), 4);
	claims_foreach(cl, check_view, &n);
	ck_assert_uint_eq(n, 4);
}
END_TEST

static Suite *claims_suite(void)
{
	Suite *s = suite_create("claims");
	TCase *tc = tcase_create("claims");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_claim_release);
	CHECK_ADD_LOOP(tc, test_collision, orders);
	tcase_add_loop_test(tc, test_clones, 0, (int)(ELEMENTSOF(clones) * ELEMENTSOF(orders)));
	tcase_add_test(tc, test_paths_then_clone);
	tcase_add_test(tc, test_identity_changes);
	CHECK_ADD_LOOP(tc, test_running_path, orders);
	tcase_add_test(tc, test_same_target);
	CHECK_ADD_LOOP(tc, test_map_handover, orders);
	tcase_add_test(tc, test_deferred);
	tcase_add_test(tc, test_linked_outlives_owner);
	tcase_add_test(tc, test_retry);
	tcase_add_test(tc, test_foreign);
	tcase_add_loop_test(tc, test_alias_vs_current, 0, 2);
	tcase_add_test(tc, test_current_to_alias_keeps_link);
	tcase_add_test(tc, test_alias_vs_clones);
	tcase_add_test(tc, test_alias_clones);
	tcase_add_test(tc, test_alias_accept);
	tcase_add_test(tc, test_many);
	tcase_add_test(tc, test_long_strings);
	tcase_add_test(tc, test_error_range);
	tcase_add_test(tc, test_compact_second_owner);
	tcase_add_test(tc, test_compact_alias);
	tcase_add_test(tc, test_compact_write_faults);
	tcase_add_test(tc, test_compact_owner_leaves);
	tcase_add_test(tc, test_compact_naming_change);
	tcase_add_test(tc, test_compact_foreach);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(claims_suite)
