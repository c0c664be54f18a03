/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The claims and the symlink writer together against a model: random sequences of LUs added,
 * removed, renamed (new IDs) and moved to other nodes, restarts (kill -9, then a start-up
 * reconcile), lost and corrupted records, foreign files and a faulty file system, on a temporary
 * link directory. The faults come in spells: a full file system (no symlink can be made), a
 * read-only one (nothing can be made, renamed or removed), and one failing any step of the writer
 * at random (opening a directory, a symlink, a rename, an unlink, each with a random errno), the
 * last as often as the others together.
 *
 * After every step the claims tell the truth about the directory: a name they believe linked is
 * linked there, to that target; a link of lund's they do not believe in, and a wanted name with
 * no link, is a failure they count (a claim's error, or a removal counted unremoved), so that
 * claims_failed() of 0 (status's "failed" and "pending" of 0, settle settled) means the directory
 * is what the claims say; foreign files are never touched. Without a failure counted, every link
 * in the directory resolves to a node of a present LU whose identity it names. After every
 * reconcile without a fault, nothing is failed and every claimed name not held by a foreign file
 * is linked to its winner (lowest H:C:T:L): the retry after a spell of faults repairs all. LUs that
 * share an identity are paths of one LU (same page 0x83 LU key, each its own port key); clones,
 * whose names nobody gets, are check-claims' cases.
 *
 * Each LU's names come from its LuNaming (its base name, as the inventory's naming gives it) and
 * the manager's suffixes, so most claims are compact (claims.h) and every promotion is exercised:
 * a second path, a write that fails, a foreign file, a restart. A rename frees the naming the
 * claims came from before the claims follow, as a re-probe replaces it. After every step each
 * LU's claims, compact or full, are checked against what it wants.
 *
 * The seeds are fixed so a failure reproduces; LUND_MODEL_SEED=<n> runs seed n instead, and
 * every failure names its seed and step.
 */

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-util.h"
#include "claims.h"
#include "links.h"
#include "macro.h"

#define LINK_DIR   "dev/scsi/by-id"
#define RECORD_DIR "run/lund/links/dev-scsi-by\\x2did"
#define N_LU       6
#define N_IDS      4 /* fewer identities than LUs: names collide */
#define N_STEPS    2000

static const unsigned seeds[] = { 1, 2, 3, 4, 5, 6 };

static CheckTree tree;
static Links *links;
static Claims *cl;
/* The spell of faults the file system is in. */
static enum { FS_OK, FS_FULL, FS_READ_ONLY, FS_RANDOM, _FS_MAX } fs;
static unsigned n_faults;                     /* faults injected since the last reconcile began */
static unsigned n_faults_of[_LINKS_STEP_MAX]; /* over the run, by step */
static bool tmp_allowed; /* a fault since the last reconcile without one: a temporary file
                          * whose removal failed may be left */
/* Every link of lund's is recorded: true after a reconcile with room, false after records were
 * lost or corrupted or while the file system is faulty. Only then can a restart notice an LU
 * that went while lund was down. */
static bool records_trusted;
static unsigned seed;  /* for failure messages */
static unsigned step;  /* idem */
static const char *op; /* idem */
static unsigned rng;

static Host hosts[2] = { { .number = 0 }, { .number = 1 } };
static Target targets[3] = {
	{ .host = &hosts[0], .channel = 0, .id = 0 },
	{ .host = &hosts[0], .channel = 0, .id = 1 },
	{ .host = &hosts[1], .channel = 0, .id = 0 },
};
#define PATH_OF(h) .naming = { .lu_key = (char *)"0103:5000", .port_key = (char *)(h) }
static Lu lus[N_LU] = {
	{ .target = &targets[0], .lun = 0, .hctl = (char *)"0:0:0:0", PATH_OF("0:0:0:0") },
	{ .target = &targets[0], .lun = 1, .hctl = (char *)"0:0:0:1", PATH_OF("0:0:0:1") },
	{ .target = &targets[1], .lun = 0, .hctl = (char *)"0:0:1:0", PATH_OF("0:0:1:0") },
	{ .target = &targets[1], .lun = 3, .hctl = (char *)"0:0:1:3", PATH_OF("0:0:1:3") },
	{ .target = &targets[2], .lun = 0, .hctl = (char *)"1:0:0:0", PATH_OF("1:0:0:0") },
	{ .target = &targets[2], .lun = 1, .hctl = (char *)"1:0:0:1", PATH_OF("1:0:0:1") },
};

/* Each LU's base names (LuNaming.names): one, "scsi-id<id>", allocated as the naming's are. */
static char *base_names[N_LU][1];

/* Claims seen compact, and seen full with one owner (promoted, or made full), over a run. */
static unsigned n_seen_compact, n_seen_full;

/* The world as the model knows it. */
static struct {
	bool present;
	unsigned id;   /* identity: its names are scsi-id<id> and scsi-id<id>-sg */
	unsigned node; /* its nodes are sd<node> and sg<node>; the lowest free is taken */
} world[N_LU];

/* Foreign files the model put at names: a regular file, or a symlink lund never wants. */
#define N_NAMES (N_IDS * 2)
static bool foreign[N_NAMES];
/* Names whose link the model replaced by a foreign file, behind the claims' back, since the
 * last reconcile without a fault: what the claims believe of them may be out of date. */
static bool replaced[N_NAMES];
/* Records lost or corrupted since the last reconcile without a fault: a link whose write then
 * failed may be one only the lost record said was lund's. Such a link is not counted failed;
 * the next reconcile (its prune) removes it, which is checked. */
static bool records_damaged;

_printf_(1, 2) static void model_fail(const char *fmt, ...)
{
	static char m[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	ck_abort_msg("seed %u step %u (%s): %s", seed, step, op, m);
}

static unsigned rnd(unsigned n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

static void name_of(unsigned k, char ret[static 32])
{
	snprintf(ret, 32, "scsi-id%u%s", k / 2, k % 2 ? "-sg" : "");
}

/* LinksFaultFn: the step fails as the spell says. */
static int fault(LinksStep st, const char *name, void *userdata)
{
	static const int errnos[] = { EIO, ENOSPC, EROFS, EACCES, EDQUOT };
	int r = 0;

	switch (fs) {
	case FS_FULL:
		r = st == LINKS_STEP_SYMLINK ? -ENOSPC : 0;
		break;
	case FS_READ_ONLY:
		r = st == LINKS_STEP_OPEN ? 0 : -EROFS;
		break;
	case FS_RANDOM:
		r = rnd(4) == 0 ? -errnos[rnd(ELEMENTSOF(errnos))] : 0;
		break;
	default:
		break;
	}
	if (r < 0 && getenv("LUND_MODEL_TRACE"))
		fprintf(stderr, "  fault: step %d on %s: %d\n", st, name, r);
	if (r < 0) {
		n_faults++;
		n_faults_of[st]++;
		tmp_allowed = true;
	}
	return r;
}

/* Every reconcile of the model's: a fault-free one leaves no temporary file behind. */
static int reconcile(void)
{
	int r;

	n_faults = 0;
	r = claims_reconcile(cl, 0);
	if (n_faults == 0) {
		tmp_allowed = false;
		records_damaged = false;
		memset(replaced, 0, sizeof(replaced));
	}
	return r;
}

/* ---- ops: the manager's, on the temporary tree ---- */

static int op_add(void *userdata, unsigned set, const char *name, const char *target,
                  const char *known, const Lu *lu)
{
	int r = links_add(links, name, target, known);

	if (getenv("LUND_MODEL_TRACE"))
		fprintf(stderr, "  add %s -> %s (known %s): %d\n", name, target, known ?: "-", r);
	return r;
}

static int op_remove(void *userdata, unsigned set, const char *name, const char *known,
                     const Lu *lu)
{
	int r = links_remove(links, name, known);

	if (getenv("LUND_MODEL_TRACE"))
		fprintf(stderr, "  remove %s (known %s): %d\n", name, known ?: "-", r);
	return r;
}

static bool prune_node(const char *name, const char *target, int dfd, void *userdata)
{
	return strneq(target, "../../sd", 8) || strneq(target, "../../sg", 8);
}

static int op_reconcile(void *userdata, unsigned set, const LinkSpec *want, size_t n,
                        int *ret_results, unsigned *ret_unremoved)
{
	LinksStats st = {}, pst = {};
	int r;

	/* The manager's prune of its own tree, first: unrecorded links of lund's left after lost
	 * records (links to a node, present or gone; the foreign symlinks point elsewhere). */
	(void)links_prune(links, want, n, prune_node, NULL, &pst);
	r = links_reconcile(links, want, n, ret_results, &st);

	for (size_t i = 0; getenv("LUND_MODEL_TRACE") && i < n; i++)
		fprintf(stderr, "  reconcile %s -> %s (known %s): %d\n", want[i].name,
		        want[i].target ?: "(remove)", want[i].known ?: "-", ret_results[i]);

	*ret_unremoved = st.unremoved + pst.unremoved;
	if (getenv("LUND_MODEL_TRACE"))
		fprintf(stderr, "  pruned %u, unremoved %u + %u\n", pst.removed, pst.unremoved,
		        st.unremoved);
	return r;
}

static const ClaimsOps ops = {
	.add = op_add,
	.remove = op_remove,
	.reconcile = op_reconcile,
};

/* ---- the daemon's moves ---- */

/* LU @i's naming for identity @id, replacing (freeing) the one it had, as a re-probe does. */
static void set_naming(size_t i, unsigned id)
{
	char base[32];

	name_of(id * 2, base);
	free(base_names[i][0]);
	base_names[i][0] = strdup(base);
	ck_assert_ptr_nonnull(base_names[i][0]);
	lus[i].naming.names = base_names[i];
	lus[i].naming.n_names = 1;
}

static void naming_done(size_t i)
{
	base_names[i][0] = mfree(base_names[i][0]);
	lus[i].naming.names = NULL;
	lus[i].naming.n_names = 0;
}

static void claim_world(size_t i)
{
	char sg[NAME_MAX + 1], t_sd[32], t_sg[32];
	const char *base;
	ClaimWant w[2];

	if (!world[i].present) {
		ck_assert_int_eq(claims_update(cl, &lus[i], NULL, 0), 0);
		return;
	}
	/* The manager's want_add(): the LU's base name and the suffixes of its nodes. */
	ck_assert_uint_eq(lus[i].naming.n_names, 1);
	base = lus[i].naming.names[0];
	xsnprintf(sg, "%s-sg", base);
	snprintf(t_sd, sizeof(t_sd), "../../sd%u", world[i].node);
	snprintf(t_sg, sizeof(t_sg), "../../sg%u", world[i].node);
	w[0] = (ClaimWant){ 0, base, t_sd };
	w[1] = (ClaimWant){ 0, sg, t_sg };
	ck_assert_int_eq(claims_update(cl, &lus[i], w, 2), 0);
}

/* Start-up and resync: claims collected deferred, then one reconcile. @gone (or -1) leaves
 * while deferred, as an LU found missing by the resync. */
static void resync(int gone)
{
	claims_defer(cl, true);
	if (gone >= 0)
		claim_world((size_t)gone);
	for (size_t i = 0; i < N_LU; i++)
		if ((int)i != gone)
			claim_world(i);
	claims_defer(cl, false);
	(void)reconcile();
}

static void restart(void)
{
	for (size_t i = 0; i < N_LU; i++)
		claims_forget(&lus[i]);
	cl = claims_free(cl);
	ck_assert_int_eq(claims_new(&ops, NULL, &cl), 0);
	resync(-1);
}

/* The lowest node no present LU has, other than @other. */
static unsigned free_node(unsigned other)
{
	for (unsigned n = 0;; n++) {
		bool used = n == other;

		for (size_t i = 0; i < N_LU; i++)
			if (world[i].present && world[i].node == n)
				used = true;
		if (!used)
			return n;
	}
}

/* ---- the checks ---- */

static int read_entry(const char *name, char *buf, size_t size, bool *ret_link)
{
	char p[PATH_MAX];
	struct stat st;
	ssize_t k;

	xsnprintf(p, "%s/%s/%s", tree.path, LINK_DIR, name);
	if (lstat(p, &st) < 0)
		return -errno;
	*ret_link = S_ISLNK(st.st_mode);
	if (!*ret_link)
		return 0;
	k = readlink(p, buf, size - 1);
	if (k < 0)
		return -errno;
	buf[k] = 0;
	return 0;
}

/* The target present LU @i's @k-th name must have, NULL if @i does not want name @k. */
static bool wants(size_t i, unsigned k, char ret[static 32])
{
	if (!world[i].present || world[i].id != k / 2)
		return false;
	snprintf(ret, 32, "../../%s%u", k % 2 ? "sg" : "sd", world[i].node);
	return true;
}

static void count_failed(const Claim *c, void *userdata)
{
	if (c->error < 0)
		(*(size_t *)userdata)++;
}

/* LU @i's claims, as claims_of() shows them, are what it wants; a compact one (a view, a copy
 * each time) is a claim of one owner, a current name, no collision, no error, no foreign file. */
static void check_lu_claims(size_t i)
{
	Lu *lu = &lus[i];

	if (!world[i].present) {
		if (claims_n_of(lu) != 0)
			model_fail("%s is gone, %zu claims left", lu->hctl, claims_n_of(lu));
		return;
	}
	if (claims_n_of(lu) != 2)
		model_fail("%s has %zu claims, wants 2", lu->hctl, claims_n_of(lu));
	for (size_t k = 0; k < 2; k++) {
		unsigned name_k = world[i].id * 2 + k;
		char name[32], t[32];
		ClaimView a, b;
		const Claim *c = claims_of(lu, k, &a);

		name_of(name_k, name);
		ck_assert(wants(i, name_k, t));
		if (c->set != 0 || !streq(c->name, name))
			model_fail("%s's claim %zu is %u/%s, wants %s", lu->hctl, k, c->set,
			           c->name, name);
		if (!streq_ptr(claim_target(c, lu), t) || !streq(claims_target_of(lu, k), t))
			model_fail("%s's %s has target %s, wants %s", lu->hctl, name,
			           claim_target(c, lu) ?: "(none)", t);
		if (claim_is_alias(c, lu))
			model_fail("%s's %s is an alias", lu->hctl, name);
		if (c == claims_of(lu, k, &b)) {
			if (!c->owners->next)
				n_seen_full++;
			continue;
		}
		n_seen_compact++;
		if (c->owners->lu != lu || c->owners->next || c->collision || c->quarantined ||
		    c->superseded || c->foreign || c->error != 0 ||
		    (c->winner && c->winner != lu) || (c->linked && !streq(c->linked, t)))
			model_fail("%s's %s is compact but not a claim of one owner, linked",
			           lu->hctl, name);
	}
}

static void count_claims(const Claim *c, void *userdata)
{
	(*(size_t *)userdata)++;
}

/* What the claims believe of each name: collected from claims_foreach(). */
static struct {
	bool claimed;
	bool winner;  /* some owner gets the name */
	bool foreign; /* a foreign file holds it, as far as the claim knows */
	int error;    /* the last write's failure */
	bool linked;  /* believed linked, to @target */
	char target[32];
} believed[N_NAMES];

static void collect_belief(const Claim *c, void *userdata)
{
	for (unsigned k = 0; k < N_NAMES; k++) {
		char name[32];

		name_of(k, name);
		if (!streq(c->name, name))
			continue;
		believed[k].claimed = true;
		believed[k].winner = c->winner;
		believed[k].foreign = c->foreign;
		believed[k].error = c->error;
		/* A link made for its winner, without a failure since. */
		if (c->winner && c->linked && c->error == 0 && !c->foreign) {
			believed[k].linked = true;
			snprintf(believed[k].target, sizeof(believed[k].target), "%s", c->linked);
			if (!streq_ptr(claim_target(c, c->winner), c->linked))
				model_fail("%s believed linked to %s, its winner wants %s", name,
				           c->linked, claim_target(c, c->winner) ?: "(none)");
		}
		return;
	}
	model_fail("a claim on %s, a name the model never gives", c->name);
}

static bool is_tmp(const char *name)
{
	return strneq(name, ".#lund.", 7);
}

static void check_invariant(bool converged)
{
	size_t n_failed = 0, n_claims = 0, n_unremoved;
	/* A fault-free reconcile: everything is repaired, and nothing counted failed. */
	bool repaired = converged && n_faults == 0;

	claims_foreach(cl, count_failed, &n_failed);
	if (n_failed > claims_failed(cl))
		model_fail("claims_failed() says %zu, %zu claims failed", claims_failed(cl),
		           n_failed);
	/* the rest is removals of links nobody claims that failed */
	n_unremoved = claims_failed(cl) - n_failed;
	if (repaired && claims_failed(cl) != 0)
		model_fail("%zu failed (%zu unremoved) after a reconcile without a fault",
		           claims_failed(cl), n_unremoved);
	claims_foreach(cl, count_claims, &n_claims);
	if (n_claims != claims_n(cl) || claims_n_compact(cl) > claims_n(cl))
		model_fail("%zu claims listed, claims_n() %zu, %zu compact", n_claims, claims_n(cl),
		           claims_n_compact(cl));
	for (size_t i = 0; i < N_LU; i++)
		check_lu_claims(i);
	memset(believed, 0, sizeof(believed));
	claims_foreach(cl, collect_belief, NULL);

	char p[PATH_MAX];
	size_t n_entries = 0;

	for (unsigned k = 0; k < N_NAMES; k++) {
		char name[32], cur[PATH_MAX], t[32];
		bool is_link = false, ok = false, counted;
		int r;

		name_of(k, name);
		r = read_entry(name, cur, sizeof(cur), &is_link);
		if (r == 0)
			n_entries++;
		if (foreign[k]) {
			if (r < 0)
				model_fail("foreign %s removed", name);
			if (is_link && !streq(cur, "../../foreign"))
				model_fail("foreign %s changed to %s", name, cur);
			continue;
		}
		/* What the claims believe is so, or a failure they count says it is not. */
		if (believed[k].linked && !replaced[k] &&
		    (r < 0 || !is_link || !streq(cur, believed[k].target)))
			model_fail("%s believed linked to %s, is %s", name, believed[k].target,
			           r == -ENOENT ? "missing"
			           : is_link    ? cur
			                        : "no symlink");
		counted = believed[k].winner ? believed[k].error < 0
		                             : believed[k].error < 0 || n_unremoved > 0;
		counted = counted || records_damaged;
		if (r == -ENOENT) {
			if (believed[k].claimed && believed[k].winner && !believed[k].foreign &&
			    !replaced[k] && !counted)
				model_fail("%s wanted, missing, and no failure counted", name);
			if (repaired)
				for (size_t i = 0; i < N_LU; i++)
					if (wants(i, k, t))
						model_fail("%s wanted by %s, missing after a "
						           "reconcile",
						           name, lus[i].hctl);
			continue;
		}
		if (r < 0 || !is_link)
			model_fail("%s: not a symlink (%d)", name, r);
		if (!(believed[k].linked && streq(cur, believed[k].target)) && !counted)
			model_fail("%s -> %s: a link the claims do not believe in, no failure "
			           "counted",
			           name, cur);
		/* It names identity k/2: some present LU of that identity has that node. */
		for (size_t i = 0; i < N_LU; i++)
			if (wants(i, k, t) && streq(t, cur))
				ok = true;
		if (!ok && !counted)
			model_fail("%s -> %s names no present LU of identity %u", name, cur, k / 2);
		if (repaired) {
			if (!ok)
				model_fail("%s -> %s names no present LU of identity %u after a "
				           "reconcile",
				           name, cur, k / 2);
			/* ... and it is the winner's (the lowest H:C:T:L). */
			for (size_t i = 0; i < N_LU; i++)
				if (wants(i, k, t)) {
					if (!streq(t, cur))
						model_fail("%s -> %s, winner %s wants %s", name,
						           cur, lus[i].hctl, t);
					break;
				}
		}
	}
	/* Nothing else is there: no other name, and no temporary file but one whose removal
	 * failed, until the next reconcile without a fault. */
	{
		DIR *d;
		size_t n = 0;

		xsnprintf(p, "%s/%s", tree.path, LINK_DIR);
		d = opendir(p);
		ck_assert_ptr_nonnull(d);
		for (struct dirent *de; (de = readdir(d));)
			if (!streq(de->d_name, ".") && !streq(de->d_name, "..") &&
			    !(tmp_allowed && is_tmp(de->d_name)))
				n++;
		closedir(d);
		if (n != n_entries)
			model_fail("%zu entries in the link directory, %zu expected", n, n_entries);
	}
}

/* ---- the steps ---- */

static void put_foreign(unsigned k)
{
	char name[32], p[PATH_MAX];
	bool is_link;
	char cur[PATH_MAX];

	name_of(k, name);
	xsnprintf(p, "%s/%s/%s", tree.path, LINK_DIR, name);
	if (read_entry(name, cur, sizeof(cur), &is_link) == 0) {
		ck_assert_int_eq(unlink(p), 0); /* the admin replaces lund's link */
		replaced[k] = true;
	}
	if (rnd(2)) {
		ck_assert_int_eq(symlink("../../foreign", p), 0);
	} else {
		FILE *f = fopen(p, "we");

		ck_assert_ptr_nonnull(f);
		fputs("not lund's\n", f);
		fclose(f);
	}
	foreign[k] = true;
}

static void drop_foreign(unsigned k)
{
	char name[32], p[PATH_MAX];

	name_of(k, name);
	xsnprintf(p, "%s/%s/%s", tree.path, LINK_DIR, name);
	ck_assert_int_eq(unlink(p), 0);
	foreign[k] = false;
}

static void corrupt_record(void)
{
	char name[32], p[PATH_MAX];
	FILE *f;

	name_of(rnd(N_NAMES), name);
	xsnprintf(p, "%s/%s/%s", tree.path, RECORD_DIR, name);
	if (unlink(p) < 0)
		return;
	if (rnd(2)) {
		f = fopen(p, "we");
		ck_assert_ptr_nonnull(f);
		fputs("garbage", f);
		fclose(f);
	} else
		ck_assert_int_eq(mkdir(p, 0755), 0);
}

static void run_step(void)
{
	size_t i = rnd(N_LU);
	bool converged = false;
	char p[PATH_MAX];

	switch (rnd(15)) {
	case 0:
	case 1:
		op = "add";
		if (world[i].present)
			return;
		world[i].id = rnd(N_IDS);
		world[i].node = free_node(UINT_MAX);
		world[i].present = true;
		set_naming(i, world[i].id);
		claim_world(i);
		break;
	case 2:
	case 3:
		op = "remove";
		if (!world[i].present)
			return;
		world[i].present = false;
		if (rnd(3) == 0) {
			op = "remove, found by a resync";
			resync((int)i);
			converged = true;
		} else
			claim_world(i);
		break;
	case 4:
		op = "rename";
		if (!world[i].present)
			return;
		world[i].id = rnd(N_IDS);
		set_naming(i, world[i].id); /* the old naming freed before the claims follow */
		claim_world(i);
		break;
	case 5:
		op = "new node";
		if (!world[i].present)
			return;
		world[i].present = false; /* its old node is freed first, as the kernel does */
		world[i].node = free_node(world[i].node);
		world[i].present = true;
		claim_world(i);
		break;
	case 6:
		op = "restart";
		restart();
		converged = true;
		break;
	case 14:
		op = "restart, an LU gone while down";
		if (!world[i].present || !records_trusted)
			return;
		world[i].present = false;
		restart();
		converged = true;
		break;
	case 7:
		op = "records lost";
		records_trusted = false;
		records_damaged = true;
		xsnprintf(p, "run/lund/links");
		check_tree_rm(&tree, p);
		break;
	case 8:
		op = "record corrupted";
		records_trusted = false;
		records_damaged = true;
		corrupt_record();
		break;
	case 9:
		/* A spell of faults, or its end; random faults as often as the others. */
		if (fs != FS_OK)
			fs = FS_OK;
		else
			fs = rnd(2) ? FS_RANDOM : FS_FULL + rnd(2);
		op = (const char *[]){ "file system sound again", "file system full",
			               "file system read-only", "file system faulty" }[fs];
		break;
	case 10: {
		unsigned k = rnd(N_NAMES);

		op = foreign[k] ? "foreign file removed" : "foreign file";
		if (foreign[k])
			drop_foreign(k);
		else
			put_foreign(k);
		break;
	}
	case 11:
		op = "resync";
		resync(-1);
		converged = true;
		break;
	case 12:
	case 13:
		op = "retry timer";
		if (claims_failed(cl) == 0)
			return;
		(void)reconcile();
		converged = true;
		break;
	}
	if (fs != FS_OK)
		records_trusted = false;
	else if (converged)
		records_trusted = true;
	if (getenv("LUND_MODEL_TRACE")) {
		fprintf(stderr, "step %u: %s lu %zu", step, op, i);
		for (size_t k = 0; k < N_LU; k++)
			if (world[k].present)
				fprintf(stderr, " [%s id%u n%u]", lus[k].hctl, world[k].id,
				        world[k].node);
		fprintf(stderr, " fs %d failed %zu\n", fs, claims_failed(cl));
	}
	check_invariant(converged);
}

START_TEST(test_model)
{
	const char *env = getenv("LUND_MODEL_SEED");

	if (env && _i > 0)
		return; /* one given seed, run once */
	seed = env ? (unsigned)strtoul(env, NULL, 0) : seeds[_i];
	rng = seed;
	memset(world, 0, sizeof(world));
	memset(foreign, 0, sizeof(foreign));
	memset(replaced, 0, sizeof(replaced));
	records_damaged = false;
	fs = FS_OK;
	n_faults = 0;
	tmp_allowed = false;
	memset(n_faults_of, 0, sizeof(n_faults_of));
	records_trusted = true;
	for (size_t i = 0; i < N_LU; i++)
		lus[i].userdata = NULL;
	n_seen_compact = n_seen_full = 0;
	check_tree_new(&tree, "check-claims-model");
	check_tree_mkdirs(&tree, LINK_DIR);
	ck_assert_int_eq(links_new(tree.fd, LINK_DIR, tree.fd, RECORD_DIR, NULL, NULL, &links), 0);
	links_set_fault_fn(links, fault, NULL);
	ck_assert_int_eq(claims_new(&ops, NULL, &cl), 0);

	for (step = 0; step < N_STEPS; step++)
		run_step();

	/* The faults stop: the retry timer's reconcile repairs everything. */
	fs = FS_OK;
	op = "retry after the faults";
	if (claims_failed(cl) > 0) {
		(void)reconcile();
		check_invariant(true);
	}
	ck_assert_uint_eq(claims_failed(cl), 0);
	/* Every kind of step failed somewhere in the run. */
	for (LinksStep st = 0; st < _LINKS_STEP_MAX; st++)
		ck_assert_uint_gt(n_faults_of[st], 0);

	/* No foreign file, a resync: everything converges. */
	op = "final resync";
	for (unsigned k = 0; k < N_NAMES; k++)
		if (foreign[k])
			drop_foreign(k);
	resync(-1);
	check_invariant(true);
	ck_assert_uint_eq(claims_failed(cl), 0);
	if (getenv("LUND_MODEL_TRACE"))
		fprintf(stderr, "seed %u: claims seen compact %u times, full of one owner %u\n",
		        seed, n_seen_compact, n_seen_full);
	/* Both forms were there to check: the compact path and the promotions. */
	ck_assert_uint_gt(n_seen_compact, 0);
	ck_assert_uint_gt(n_seen_full, 0);

	for (size_t i = 0; i < N_LU; i++) {
		claims_forget(&lus[i]);
		naming_done(i);
	}
	cl = claims_free(cl);
	links = links_free(links);
	check_tree_remove(&tree);
}
END_TEST

static Suite *model_suite(void)
{
	Suite *s = suite_create("claims-model");
	TCase *tc = tcase_create("claims-model");

	tcase_set_timeout(tc, 30);
	CHECK_ADD_LOOP(tc, test_model, seeds);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(model_suite)
