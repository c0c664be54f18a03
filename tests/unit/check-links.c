/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The symlink writer against a temporary root: each row of the reconcile table sets a directory
 * up (links lund made earlier, foreign files, leftovers of an interrupted run), reconciles it
 * with a wanted set, and checks what is on disk afterwards.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check-util.h"
#include "links.h"
#include "macro.h"

#define LINK_DIR   "dev/scsi/by-id"
#define RECORD_DIR "run/lund/links/scsi-by-id"

static CheckTree tree;

static void setup(void)
{
	check_tree_new(&tree, "check-links");
}

static void teardown(void)
{
	check_tree_remove(&tree);
}

static Links *new_links(void)
{
	Links *l = NULL;

	ck_assert_int_eq(links_new(tree.fd, LINK_DIR, tree.fd, RECORD_DIR, NULL, NULL, &l), 0);
	return l;
}

/* Put an entry at LINK_DIR/@name or RECORD_DIR/@name directly, as another program (or an
 * interrupted lund) would have left it. */
static void put_symlink(const char *dir, const char *name, const char *target)
{
	char p[PATH_MAX];

	check_tree_mkdirs(&tree, dir);
	xsnprintf(p, "%s/%s/%s", tree.path, dir, name);
	ck_assert_int_eq(symlink(target, p), 0);
}

static void put_file(const char *dir, const char *name, const char *content)
{
	char rel[PATH_MAX];

	xsnprintf(rel, "%s/%s", dir, name);
	check_tree_put_str(&tree, rel, content);
}

/* Entry kinds checked afterwards. */
typedef enum Kind {
	ABSENT,
	SYMLINK,   /* with the given target */
	FILE_WITH, /* regular file with the given content */
} Kind;

typedef struct Expect {
	const char *dir;
	const char *name;
	Kind kind;
	const char *value;
} Expect;

static void check_entry(const Expect *e)
{
	char p[PATH_MAX], buf[PATH_MAX];
	struct stat st;
	ssize_t k;

	xsnprintf(p, "%s/%s/%s", tree.path, e->dir, e->name);
	switch (e->kind) {
	case ABSENT:
		ck_assert_msg(lstat(p, &st) < 0 && errno == ENOENT, "%s/%s exists", e->dir,
		              e->name);
		break;
	case SYMLINK:
		k = readlink(p, buf, sizeof(buf) - 1);
		ck_assert_msg(k >= 0, "%s/%s is not a symlink", e->dir, e->name);
		buf[k] = 0;
		ck_assert_str_eq(buf, e->value);
		break;
	case FILE_WITH: {
		FILE *f = fopen(p, "re");

		ck_assert_msg(f, "%s/%s missing", e->dir, e->name);
		ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
		fclose(f);
		ck_assert_str_eq(buf, e->value);
		break;
	}
	}
}

static size_t count_tmp(const char *dir)
{
	char p[PATH_MAX], cmd[PATH_MAX + 64];
	size_t n = 0;
	FILE *f;

	xsnprintf(p, "%s/%s", tree.path, dir);
	xsnprintf(cmd, "ls -A '%s' 2>/dev/null", p);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(p, sizeof(p), f))
		if (strneq(p, ".#lund.", 7))
			n++;
	pclose(f);
	return n;
}

/* ---- setups ---- */

static void setup_none(Links *l)
{
}

static void setup_ab(Links *l)
{
	ck_assert_int_eq(links_add(l, "a", "../../sda", NULL), LINKS_ADD_CREATED);
	ck_assert_int_eq(links_add(l, "b", "../../sdb", NULL), LINKS_ADD_CREATED);
}

static void setup_foreign_file(Links *l)
{
	put_file(LINK_DIR, "a", "not lund's");
}

static void setup_foreign_link(Links *l)
{
	put_symlink(LINK_DIR, "a", "../../elsewhere");
}

static void setup_foreign_same(Links *l)
{
	put_symlink(LINK_DIR, "a", "../../sda");
}

static void setup_ours_replaced_by_file(Links *l)
{
	char p[PATH_MAX];

	setup_ab(l);
	xsnprintf(p, "%s/%s/a", tree.path, LINK_DIR);
	ck_assert_int_eq(unlink(p), 0);
	put_file(LINK_DIR, "a", "admin's");
}

static void setup_ours_retargeted(Links *l)
{
	char p[PATH_MAX];

	setup_ab(l);
	xsnprintf(p, "%s/%s/a", tree.path, LINK_DIR);
	ck_assert_int_eq(unlink(p), 0);
	put_symlink(LINK_DIR, "a", "../../admins");
}

/* Crash leftovers: temporaries in both directories, a record whose link was never made. */
static void setup_crash_tmp(Links *l)
{
	put_symlink(LINK_DIR, ".#lund.0123456789abcdef", "../../sda");
	put_symlink(RECORD_DIR, ".#lund.fedcba9876543210", "../../sda");
	put_symlink(RECORD_DIR, "a", "../../sda");
	put_symlink(RECORD_DIR, "gone", "../../sdz");
}

/* Crash in the middle of an update, before the swap: record lists new and old. */
static void setup_crash_update_before(Links *l)
{
	put_symlink(RECORD_DIR, "a", "../../sdb\n../../sda");
	put_symlink(LINK_DIR, "a", "../../sda");
}

/* ... after the swap, before the record was settled. */
static void setup_crash_update_after(Links *l)
{
	put_symlink(RECORD_DIR, "a", "../../sdb\n../../sda");
	put_symlink(LINK_DIR, "a", "../../sdb");
}

/* A foreign temporary-looking file that is not a symlink is not ours to clean. */
static void setup_foreign_tmp_file(Links *l)
{
	put_file(LINK_DIR, ".#lund.notasymlink", "x");
}

/* Record entries that cannot be records: a file, a directory, a name no link can have. */
static void setup_broken_records(Links *l)
{
	char p[PATH_MAX];

	setup_ab(l);
	xsnprintf(p, "%s/%s/a", tree.path, RECORD_DIR);
	ck_assert_int_eq(unlink(p), 0);
	put_file(RECORD_DIR, "a", "garbage");
	put_file(RECORD_DIR, "stale/inside", "x");
	put_symlink(RECORD_DIR, "bad\001name", "../../sdq");
}

typedef struct ReconcileCase {
	const char *what;
	void (*setup)(Links *l);
	LinkSpec want[4];
	size_t n_want;
	int ret;
	LinksStats stats;
	Expect expect[6];
	size_t n_tmp_left;
} ReconcileCase;

static const ReconcileCase reconcile_cases[] = {
	{
	        "create into an empty directory",
	        setup_none,
	        { { "a", "../../sda" }, { "b", "../../sg0" } },
	        2,
	        0,
	        { .created = 2 },
	        { { LINK_DIR, "a", SYMLINK, "../../sda" },
	          { LINK_DIR, "b", SYMLINK, "../../sg0" },
	          { RECORD_DIR, "a", SYMLINK, "../../sda" },
	          { RECORD_DIR, "b", SYMLINK, "../../sg0" } },
	},
	{
	        "idempotent",
	        setup_ab,
	        { { "a", "../../sda" }, { "b", "../../sdb" } },
	        2,
	        0,
	        { .unchanged = 2 },
	        { { LINK_DIR, "a", SYMLINK, "../../sda" },
	          { LINK_DIR, "b", SYMLINK, "../../sdb" } },
	},
	{
	        "replace a wrong target",
	        setup_ab,
	        { { "a", "../../sdc" }, { "b", "../../sdb" } },
	        2,
	        0,
	        { .updated = 1, .unchanged = 1 },
	        { { LINK_DIR, "a", SYMLINK, "../../sdc" },
	          { RECORD_DIR, "a", SYMLINK, "../../sdc" } },
	},
	{
	        "stale recorded link removed",
	        setup_ab,
	        { { "a", "../../sda" } },
	        1,
	        0,
	        { .unchanged = 1, .removed = 1 },
	        { { LINK_DIR, "a", SYMLINK, "../../sda" },
	          { LINK_DIR, "b", ABSENT },
	          { RECORD_DIR, "b", ABSENT } },
	},
	{
	        "everything stale",
	        setup_ab,
	        {},
	        0,
	        0,
	        { .removed = 2 },
	        { { LINK_DIR, "a", ABSENT },
	          { LINK_DIR, "b", ABSENT },
	          { RECORD_DIR, "a", ABSENT },
	          { RECORD_DIR, "b", ABSENT } },
	},
	{
	        "foreign file at a wanted name left alone",
	        setup_foreign_file,
	        { { "a", "../../sda" }, { "b", "../../sdb" } },
	        2,
	        -EEXIST,
	        { .created = 1, .foreign = 1 },
	        { { LINK_DIR, "a", FILE_WITH, "not lund's" },
	          { RECORD_DIR, "a", ABSENT },
	          { LINK_DIR, "b", SYMLINK, "../../sdb" } },
	},
	{
	        "foreign symlink at a wanted name left alone",
	        setup_foreign_link,
	        { { "a", "../../sda" } },
	        1,
	        -EEXIST,
	        { .foreign = 1 },
	        { { LINK_DIR, "a", SYMLINK, "../../elsewhere" }, { RECORD_DIR, "a", ABSENT } },
	},
	{
	        "unrecorded symlink already right: adopted and recorded",
	        setup_foreign_same,
	        { { "a", "../../sda" } },
	        1,
	        0,
	        { .adopted = 1 },
	        { { LINK_DIR, "a", SYMLINK, "../../sda" },
	          { RECORD_DIR, "a", SYMLINK, "../../sda" } },
	},
	{
	        "broken record entries are removed, the links they spoilt made again",
	        setup_broken_records,
	        { { "a", "../../sda" }, { "b", "../../sdb" } },
	        2,
	        0,
	        { .adopted = 1, .unchanged = 1, .repaired = 3 },
	        { { LINK_DIR, "a", SYMLINK, "../../sda" },
	          { RECORD_DIR, "a", SYMLINK, "../../sda" },
	          { RECORD_DIR, "stale", ABSENT },
	          { RECORD_DIR, "bad\001name", ABSENT } },
	},
	{
	        "broken record entries of links nobody wants: removed, not an error",
	        setup_broken_records,
	        { { "b", "../../sdb" } },
	        1,
	        0,
	        { .unchanged = 1, .repaired = 3 },
	        { { LINK_DIR, "a", SYMLINK, "../../sda" }, { RECORD_DIR, "stale", ABSENT } },
	},
	{
	        "foreign symlink not wanted: never removed",
	        setup_foreign_link,
	        {},
	        0,
	        0,
	        {},
	        { { LINK_DIR, "a", SYMLINK, "../../elsewhere" } },
	},
	{
	        "our link replaced by a file: record dropped, file kept",
	        setup_ours_replaced_by_file,
	        { { "b", "../../sdb" } },
	        1,
	        0,
	        { .unchanged = 1, .lost = 1 },
	        { { LINK_DIR, "a", FILE_WITH, "admin's" }, { RECORD_DIR, "a", ABSENT } },
	},
	{
	        "our link retargeted by the admin and still wanted: theirs now",
	        setup_ours_retargeted,
	        { { "a", "../../sda" }, { "b", "../../sdb" } },
	        2,
	        -EEXIST,
	        { .unchanged = 1, .lost = 1, .foreign = 1 },
	        { { LINK_DIR, "a", SYMLINK, "../../admins" }, { RECORD_DIR, "a", ABSENT } },
	},
	{
	        "crash leftovers: temporaries removed, unfinished link made",
	        setup_crash_tmp,
	        { { "a", "../../sda" } },
	        1,
	        0,
	        { .created = 1, .temp_removed = 2 },
	        { { LINK_DIR, "a", SYMLINK, "../../sda" },
	          { RECORD_DIR, "a", SYMLINK, "../../sda" },
	          { RECORD_DIR, "gone", ABSENT } },
	},
	{
	        "crash during an update, before the swap",
	        setup_crash_update_before,
	        { { "a", "../../sdb" } },
	        1,
	        0,
	        { .updated = 1 },
	        { { LINK_DIR, "a", SYMLINK, "../../sdb" },
	          { RECORD_DIR, "a", SYMLINK, "../../sdb" } },
	},
	{
	        "crash during an update, after the swap",
	        setup_crash_update_after,
	        { { "a", "../../sdb" } },
	        1,
	        0,
	        { .unchanged = 1 },
	        { { LINK_DIR, "a", SYMLINK, "../../sdb" },
	          { RECORD_DIR, "a", SYMLINK, "../../sdb" } },
	},
	{
	        "crash during an update, link no longer wanted",
	        setup_crash_update_after,
	        {},
	        0,
	        0,
	        { .removed = 1 },
	        { { LINK_DIR, "a", ABSENT }, { RECORD_DIR, "a", ABSENT } },
	},
	{
	        "a non-symlink with the temporary prefix is not touched",
	        setup_foreign_tmp_file,
	        {},
	        0,
	        0,
	        {},
	        { { LINK_DIR, ".#lund.notasymlink", FILE_WITH, "x" } },
	        1,
	},
	{
	        "bad and duplicate names are refused, the rest is done",
	        setup_none,
	        { { "a", "../../sda" },
	          { "a", "../../sdb" },
	          { "x/y", "../../sdc" },
	          { "..", "../../sdd" } },
	        4,
	        -EINVAL,
	        { .created = 1, .failed = 3 },
	        { { LINK_DIR, "a", SYMLINK, "../../sda" }, { LINK_DIR, "x", ABSENT } },
	},
};

START_TEST(test_reconcile)
{
	const ReconcileCase *c = &reconcile_cases[_i];
	Links *l = new_links();
	LinksStats st = {};
	int r;

	c->setup(l);
	r = links_reconcile(l, c->want, c->n_want, NULL, &st);
	ck_assert_msg(r == c->ret, "%s: returned %d, expected %d", c->what, r, c->ret);
	ck_assert_msg(memcmp(&st, &c->stats, sizeof(st)) == 0,
	              "%s: stats c%u u%u r%u = %u f%u l%u t%u x%u a%u b%u", c->what, st.created,
	              st.updated, st.removed, st.unchanged, st.foreign, st.lost, st.temp_removed,
	              st.failed, st.adopted, st.repaired);
	for (size_t i = 0; i < ELEMENTSOF(c->expect) && c->expect[i].name; i++)
		check_entry(&c->expect[i]);
	ck_assert_uint_eq(count_tmp(LINK_DIR), c->n_tmp_left);
	ck_assert_uint_eq(count_tmp(RECORD_DIR), 0);

	/* Reconciling again changes nothing and reports the same foreign files. */
	r = links_reconcile(l, c->want, c->n_want, NULL, &st);
	ck_assert_int_eq(st.created + st.updated + st.removed + st.lost + st.temp_removed, 0);
	for (size_t i = 0; i < ELEMENTSOF(c->expect) && c->expect[i].name; i++)
		check_entry(&c->expect[i]);
	links_free(l);
}
END_TEST

static const char *const bad_names[] = {
	"", ".", "..", "a/b", "/", "a\nb", "a\tb", "\x7f", ".#lund.0123456789abcdef", NULL,
};

START_TEST(test_bad_names)
{
	Links *l = new_links();
	char longname[NAME_MAX + 2];
	const char *name;

	if (_i < (int)ELEMENTSOF(bad_names) - 1)
		name = bad_names[_i];
	else if (_i == (int)ELEMENTSOF(bad_names) - 1) {
		memset(longname, 'x', NAME_MAX + 1);
		longname[NAME_MAX + 1] = 0;
		name = longname;
	} else
		name = NULL;

	ck_assert_int_eq(links_name_valid(name), -EINVAL);
	ck_assert_int_eq(links_add(l, name, "../../sda", NULL), -EINVAL);
	ck_assert_int_eq(links_remove(l, name, NULL), -EINVAL);
	/* Nothing was created outside the link directory. */
	ck_assert_int_eq(faccessat(tree.fd, "dev/scsi/by-id/a", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	ck_assert_int_eq(faccessat(tree.fd, "dev/scsi/b", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	links_free(l);
}
END_TEST

START_TEST(test_good_names)
{
	Links *l = new_links();
	char longname[NAME_MAX + 1];

	memset(longname, 'x', NAME_MAX);
	longname[NAME_MAX] = 0;
	ck_assert_int_eq(links_name_valid(longname), 0);
	ck_assert_int_eq(links_add(l, longname, "../../sda", NULL), LINKS_ADD_CREATED);
	ck_assert_int_eq(links_add(l, "scsi-35000c500a1b2c3d4", "../../sda", NULL),
	                 LINKS_ADD_CREATED);
	ck_assert_int_eq(links_add(l, "scsi-SATA_QEMU\\x2fHD_1", "../../sdb", NULL),
	                 LINKS_ADD_CREATED);
	ck_assert_int_eq(links_add(l, "...", "../../sdc", NULL), LINKS_ADD_CREATED);
	ck_assert_int_eq(links_target_valid("../../sda\n"), -EINVAL);
	ck_assert_int_eq(links_add(l, "t", "bad\ntarget", NULL), -EINVAL);
	links_free(l);
}
END_TEST

START_TEST(test_add_remove)
{
	Links *l = new_links();
	LinkSpec *rec;
	size_t n;

	ck_assert_int_eq(links_add(l, "a", "../../sda", NULL), LINKS_ADD_CREATED);
	ck_assert_int_eq(links_add(l, "a", "../../sda", NULL), 0);
	ck_assert_int_eq(links_add(l, "a", "../../sdb", NULL), LINKS_ADD_UPDATED);
	ck_assert_int_eq(links_add(l, "b", "../../sg1", NULL), LINKS_ADD_CREATED);

	ck_assert_int_eq(links_recorded(l, &rec, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(rec[0].name, "a");
	ck_assert_str_eq(rec[0].target, "../../sdb");
	ck_assert_str_eq(rec[1].name, "b");
	links_spec_free(rec, n);

	ck_assert_int_eq(links_remove(l, "a", NULL), 1);
	ck_assert_int_eq(links_remove(l, "a", NULL), 0);
	check_entry(&(Expect){ LINK_DIR, "a", ABSENT });

	/* Never removes what it did not make. */
	put_file(LINK_DIR, "c", "mine");
	ck_assert_int_eq(links_remove(l, "c", NULL), 0);
	check_entry(&(Expect){ LINK_DIR, "c", FILE_WITH, "mine" });
	ck_assert_int_eq(links_add(l, "c", "../../sda", NULL), -EEXIST);
	check_entry(&(Expect){ LINK_DIR, "c", FILE_WITH, "mine" });
	ck_assert_uint_eq(count_tmp(LINK_DIR), 0);
	links_free(l);
}
END_TEST

/* An unrecorded link already right is adopted, so it goes with its device: records lost with
 * lund down must not leave names pointing at whatever disk gets the node next. */
START_TEST(test_adopt)
{
	Links *l = new_links();

	put_symlink(LINK_DIR, "a", "../../sdk");
	ck_assert_int_eq(links_add(l, "a", "../../sdk", NULL), LINKS_ADD_ADOPTED);
	check_entry(&(Expect){ RECORD_DIR, "a", SYMLINK, "../../sdk" });
	ck_assert_int_eq(links_add(l, "a", "../../sdk", NULL), 0);
	ck_assert_int_eq(links_remove(l, "a", NULL), 1);
	check_entry(&(Expect){ LINK_DIR, "a", ABSENT });
	check_entry(&(Expect){ RECORD_DIR, "a", ABSENT });
	links_free(l);
}
END_TEST

/* A link the caller made (@known) is lund's even when its record was lost meanwhile. */
START_TEST(test_known)
{
	Links *l = new_links();
	char p[PATH_MAX];

	ck_assert_int_eq(links_add(l, "a", "../../sda", NULL), LINKS_ADD_CREATED);
	ck_assert_int_eq(links_add(l, "b", "../../sdb", NULL), LINKS_ADD_CREATED);
	xsnprintf(p, "rm -rf '%s/%s'", tree.path, RECORD_DIR);
	ck_assert_int_eq(system(p), 0);

	/* Without @known, both are foreign now. */
	ck_assert_int_eq(links_remove(l, "a", NULL), 0);
	ck_assert_int_eq(links_add(l, "b", "../../sdc", NULL), -EEXIST);
	/* With it, they are lund's: removed, updated. */
	ck_assert_int_eq(links_remove(l, "a", "../../sdz"), 0);
	check_entry(&(Expect){ LINK_DIR, "a", SYMLINK, "../../sda" });
	ck_assert_int_eq(links_remove(l, "a", "../../sda"), 1);
	check_entry(&(Expect){ LINK_DIR, "a", ABSENT });
	ck_assert_int_eq(links_add(l, "b", "../../sdc", "../../sdb"), LINKS_ADD_UPDATED);
	check_entry(&(Expect){ LINK_DIR, "b", SYMLINK, "../../sdc" });
	check_entry(&(Expect){ RECORD_DIR, "b", SYMLINK, "../../sdc" });
	/* A foreign file is never lund's, whatever the caller thinks. */
	put_file(LINK_DIR, "c", "mine");
	ck_assert_int_eq(links_remove(l, "c", "../../sda"), 0);
	check_entry(&(Expect){ LINK_DIR, "c", FILE_WITH, "mine" });
	links_free(l);
}
END_TEST

static int full_fault(LinksStep step, const char *name, void *userdata)
{
	return step == LINKS_STEP_SYMLINK ? -ENOSPC : 0;
}

/* A full file system: nothing is made, and a link that cannot be updated is removed rather than
 * left naming the old node. Once there is room, the next add makes it. */
START_TEST(test_full)
{
	Links *l = new_links();

	ck_assert_int_eq(links_add(l, "a", "../../sda", NULL), LINKS_ADD_CREATED);
	links_set_fault_fn(l, full_fault, NULL);
	ck_assert_int_eq(links_add(l, "b", "../../sdb", NULL), -ENOSPC);
	check_entry(&(Expect){ LINK_DIR, "b", ABSENT });
	ck_assert_int_eq(links_add(l, "a", "../../sdc", NULL), -ENOSPC);
	check_entry(&(Expect){ LINK_DIR, "a", ABSENT });
	check_entry(&(Expect){ RECORD_DIR, "a", ABSENT });
	links_set_fault_fn(l, NULL, NULL);
	ck_assert_int_eq(links_add(l, "a", "../../sdc", NULL), LINKS_ADD_CREATED);
	ck_assert_int_eq(links_add(l, "b", "../../sdb", NULL), LINKS_ADD_CREATED);
	ck_assert_uint_eq(count_tmp(LINK_DIR), 0);
	ck_assert_uint_eq(count_tmp(RECORD_DIR), 0);
	links_free(l);
}
END_TEST

/* Every symlink the writer makes, counted and passed on to symlinkat(2). */
static unsigned n_symlinks, n_symlinks_tmp;
static unsigned n_readlinks;

/* Every readlinkat(2) of the test program, links.c's included, counted: a definition in the
 * program comes before the C library's. */
ssize_t readlinkat(int dfd, const char *path, char *buf, size_t size)
{
	n_readlinks++;
	return syscall(SYS_readlinkat, dfd, path, buf, size);
}

static int counting_fault(LinksStep step, const char *name, void *userdata)
{
	if (step != LINKS_STEP_SYMLINK)
		return 0;
	n_symlinks++;
	if (strneq(name, ".#lund.", 7))
		n_symlinks_tmp++;
	return 0;
}

/* A link at a free name (every name of a cold start, every LU that appears) costs one symlink
 * for its record and one for itself, each made at its final name, and nothing else:
 * symlinkat(2) is as atomic and as exclusive as a temporary renamed with RENAME_NOREPLACE, and
 * its EEXIST says the name is taken, so nothing is read first. A record left by an interrupted
 * run is read and rewritten as before, and what is there stays foreign, without a record. */
START_TEST(test_create_direct)
{
	Links *l = new_links();

	links_set_fault_fn(l, counting_fault, NULL);
	n_symlinks = n_symlinks_tmp = n_readlinks = 0;
	ck_assert_int_eq(links_add(l, "a", "../../sda", NULL), LINKS_ADD_CREATED);
	ck_assert_uint_eq(n_symlinks, 2);
	ck_assert_uint_eq(n_symlinks_tmp, 0);
	ck_assert_uint_eq(n_readlinks, 0);
	check_entry(&(Expect){ LINK_DIR, "a", SYMLINK, "../../sda" });
	check_entry(&(Expect){ RECORD_DIR, "a", SYMLINK, "../../sda" });

	/* a record without its link, pointing elsewhere (a crash between the two) */
	put_symlink(RECORD_DIR, "b", "../../sdx\n../../sdy");
	n_symlinks = n_symlinks_tmp = 0;
	ck_assert_int_eq(links_add(l, "b", "../../sdb", NULL), LINKS_ADD_CREATED);
	ck_assert_uint_eq(n_symlinks_tmp, 1); /* the record rewritten, atomically */
	check_entry(&(Expect){ LINK_DIR, "b", SYMLINK, "../../sdb" });
	check_entry(&(Expect){ RECORD_DIR, "b", SYMLINK, "../../sdb" });

	/* a record that is no record: repaired, then made */
	put_file(RECORD_DIR, "c", "junk");
	ck_assert_int_eq(links_add(l, "c", "../../sdc", NULL), LINKS_ADD_CREATED);
	check_entry(&(Expect){ RECORD_DIR, "c", SYMLINK, "../../sdc" });

	/* the name taken by someone else: left alone */
	put_symlink(LINK_DIR, "d", "../../sdz");
	ck_assert_int_eq(links_add(l, "d", "../../sdd", NULL), -EEXIST);
	check_entry(&(Expect){ LINK_DIR, "d", SYMLINK, "../../sdz" });
	check_entry(&(Expect){ RECORD_DIR, "d", ABSENT });
	links_set_fault_fn(l, NULL, NULL);
	ck_assert_uint_eq(count_tmp(LINK_DIR), 0);
	ck_assert_uint_eq(count_tmp(RECORD_DIR), 0);
	links_free(l);
}
END_TEST

/* A symlinked directory component is never followed. */
START_TEST(test_dir_symlink)
{
	Links *l = NULL;

	check_tree_mkdirs(&tree, "elsewhere");
	check_tree_mkdirs(&tree, "dev");
	put_symlink("dev", "scsi", "../elsewhere");
	ck_assert_int_eq(links_new(tree.fd, LINK_DIR, tree.fd, RECORD_DIR, NULL, NULL, &l), 0);
	ck_assert_int_eq(links_add(l, "a", "../../sda", NULL), -ENOTDIR);
	ck_assert_int_eq(links_reconcile(l, NULL, 0, NULL, NULL), -ENOTDIR);
	/* Each wanted link is told it failed: a result left 0 would read as made. */
	{
		const LinkSpec want[] = { { "a", "../../sda", NULL }, { "b", "../../sdb", NULL } };
		int results[] = { 0, 0 };

		ck_assert_int_eq(links_reconcile(l, want, ELEMENTSOF(want), results, NULL),
		                 -ENOTDIR);
		ck_assert_int_eq(results[0], -ENOTDIR);
		ck_assert_int_eq(results[1], -ENOTDIR);
	}
	ck_assert_int_eq(faccessat(tree.fd, "elsewhere/by-id", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	/* Also when the directory behind the symlink exists. */
	check_tree_mkdirs(&tree, "elsewhere/by-id");
	ck_assert_int_eq(links_add(l, "a", "../../sda", NULL), -ENOTDIR);
	ck_assert_int_eq(faccessat(tree.fd, "elsewhere/by-id/a", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	links_free(l);

	/* A directory that was real, then replaced by a symlink to itself moved away. */
	ck_assert_int_eq(links_new(tree.fd, "dev/disk/by-id", tree.fd, "run/lund/links/disk", NULL,
	                           NULL, &l),
	                 0);
	ck_assert_int_eq(links_add(l, "a", "../../sda", NULL), LINKS_ADD_CREATED);
	ck_assert_int_eq(renameat(tree.fd, "dev/disk", tree.fd, "dev/disk.old"), 0);
	ck_assert_int_eq(symlinkat("disk.old", tree.fd, "dev/disk"), 0);
	ck_assert_int_eq(links_add(l, "b", "../../sdb", NULL), -ENOTDIR);
	ck_assert_int_eq(links_remove(l, "a", NULL), -ENOTDIR);
	ck_assert_int_eq(faccessat(tree.fd, "dev/disk.old/by-id/b", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	ck_assert_int_eq(faccessat(tree.fd, "dev/disk.old/by-id/a", F_OK, AT_SYMLINK_NOFOLLOW), 0);
	links_free(l);
	ck_assert_int_eq(links_new(tree.fd, "/dev/x", tree.fd, RECORD_DIR, NULL, NULL, &l),
	                 -EINVAL);
}
END_TEST

typedef struct Seen {
	unsigned n[_LINK_ACTION_MAX];
} Seen;

static void count_report(LinkAction a, const char *name, const char *target, int error,
                         void *userdata)
{
	Seen *s = userdata;

	ck_assert(a >= 0 && a < _LINK_ACTION_MAX);
	ck_assert_ptr_nonnull(link_action_name(a));
	s->n[a]++;
}

START_TEST(test_report)
{
	Seen seen = {};
	Links *l = NULL;
	LinkSpec want[] = { { "a", "../../sda" }, { "f", "../../sdf" } };
	int results[ELEMENTSOF(want)];

	put_file(LINK_DIR, "f", "foreign");
	ck_assert_int_eq(links_new(tree.fd, LINK_DIR, tree.fd, RECORD_DIR, count_report, &seen, &l),
	                 0);
	ck_assert_int_eq(links_reconcile(l, want, ELEMENTSOF(want), results, NULL), -EEXIST);
	ck_assert_uint_eq(seen.n[LINK_CREATED], 1);
	ck_assert_uint_eq(seen.n[LINK_FOREIGN], 1);
	ck_assert_int_eq(results[0], LINKS_ADD_CREATED);
	ck_assert_int_eq(results[1], -EEXIST);
	ck_assert_int_eq(links_reconcile(l, NULL, 0, NULL, NULL), 0);
	ck_assert_uint_eq(seen.n[LINK_REMOVED], 1);
	links_free(l);
}
END_TEST

static bool prune_all(const char *name, const char *target, int dfd, void *userdata)
{
	return true;
}

/* Fails the listing of the record directory by a reconcile: its second opening of it, after
 * the one open_dirs() makes. */
static unsigned n_record_opens;
static int record_list_fault(LinksStep step, const char *name, void *userdata)
{
	if (step == LINKS_STEP_OPEN && streq(name, RECORD_DIR) && ++n_record_opens == 2)
		return -EIO;
	return 0;
}

/* What the claims model found, case by case: a link of lund's without its record is still
 * removed when the caller knows it (a want entry without a target) and held against nothing;
 * an unrecorded link at a wanted name to another node is pruned, so the name can be linked;
 * a record of another target does not hide it; a removal or a listing that fails is counted. */
START_TEST(test_unrecorded)
{
	Links *l = new_links();
	LinksStats st = {};
	int results[2];

	/* known, to go, without a record: removed; and counted while it cannot be */
	put_symlink(LINK_DIR, "a", "../../sda");
	links_set_fault_fn(l, full_fault, NULL); /* harmless: removal makes no symlink */
	{
		const LinkSpec want[] = { { "a", NULL, "../../sda" } };

		ck_assert_int_eq(links_reconcile(l, want, 1, results, &st), 0);
		ck_assert_int_eq(results[0], 1);
		ck_assert_uint_eq(st.removed, 1);
	}
	check_entry(&(Expect){ LINK_DIR, "a", ABSENT });
	links_set_fault_fn(l, NULL, NULL);

	/* an unrecorded link at a wanted name, to another node, with a record of a third */
	put_symlink(LINK_DIR, "b", "../../sdx");
	put_symlink(RECORD_DIR, "b", "../../sdy");
	{
		const LinkSpec want[] = { { "b", "../../sdb", NULL } };

		ck_assert_int_eq(links_prune(l, want, 1, prune_all, NULL, &st), 0);
		ck_assert_uint_eq(st.removed, 1);
		ck_assert_int_eq(links_reconcile(l, want, 1, results, &st), 0);
		ck_assert_int_eq(results[0], LINKS_ADD_CREATED);
	}
	check_entry(&(Expect){ LINK_DIR, "b", SYMLINK, "../../sdb" });
	check_entry(&(Expect){ RECORD_DIR, "b", SYMLINK, "../../sdb" });

	/* ... but one the caller knows it made, or the wanted one, stays for the reconcile */
	put_symlink(LINK_DIR, "c", "../../sdz");
	{
		const LinkSpec want[] = { { "b", "../../sdb", NULL },
			                  { "c", "../../sdc", "../../sdz" } };

		ck_assert_int_eq(links_prune(l, want, 2, prune_all, NULL, &st), 0);
		ck_assert_uint_eq(st.removed, 0);
		ck_assert_int_eq(links_reconcile(l, want, 2, results, &st), 0);
		ck_assert_int_eq(results[1], LINKS_ADD_UPDATED);
	}
	check_entry(&(Expect){ LINK_DIR, "c", SYMLINK, "../../sdc" });

	/* the records cannot be listed: those nobody wants are not known gone */
	n_record_opens = 0;
	links_set_fault_fn(l, record_list_fault, NULL);
	ck_assert_int_eq(links_reconcile(l, NULL, 0, NULL, &st), -EIO);
	ck_assert_uint_eq(st.unremoved, 1);
	links_set_fault_fn(l, NULL, NULL);
	check_entry(&(Expect){ LINK_DIR, "b", SYMLINK, "../../sdb" });
	ck_assert_int_eq(links_reconcile(l, NULL, 0, NULL, &st), 0);
	ck_assert_uint_eq(st.unremoved, 0);
	ck_assert_uint_eq(st.removed, 2);
	links_free(l);
}
END_TEST

static Suite *links_suite(void)
{
	Suite *s = suite_create("links");
	TCase *tc = tcase_create("links");

	tcase_add_checked_fixture(tc, setup, teardown);
	CHECK_ADD_LOOP(tc, test_reconcile, reconcile_cases);
	tcase_add_loop_test(tc, test_bad_names, 0, ELEMENTSOF(bad_names) + 1);
	tcase_add_test(tc, test_good_names);
	tcase_add_test(tc, test_add_remove);
	tcase_add_test(tc, test_dir_symlink);
	tcase_add_test(tc, test_adopt);
	tcase_add_test(tc, test_known);
	tcase_add_test(tc, test_full);
	tcase_add_test(tc, test_create_direct);
	tcase_add_test(tc, test_report);
	tcase_add_test(tc, test_unrecorded);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(links_suite)
