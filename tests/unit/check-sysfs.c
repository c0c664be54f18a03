/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sysfs: the first entry of a directory (what an LU's scsi_generic/, block/ and bsg/ hold)
 * in temporary trees: one entry, several in any order, a prefix, dot entries, more entries
 * than one read returns, an empty directory, a missing one and a file in its place.
 */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "check-util.h"
#include "macro.h"
#include "sysfs.h"

static CheckTree tree;

static void setup(void)
{
	check_tree_new(&tree, "sysfs");
}

static void teardown(void)
{
	check_tree_remove(&tree);
}

static void expect_first(const char *dir, const char *prefix, int want_r, const char *want)
{
	_cleanup_free_ char *got = NULL;
	int r = sysfs_first_entry(tree.fd, dir, prefix, &got);

	ck_assert_int_eq(r, want_r);
	if (want)
		ck_assert_str_eq(got, want);
	else
		ck_assert_ptr_null(got);
}

START_TEST(test_first_entry)
{
	check_tree_put_str(&tree, "lu/scsi_generic/sg7/dev", "21:7\n");
	expect_first("lu/scsi_generic", NULL, 0, "sg7");

	/* the smallest name, whatever order the directory gives */
	check_tree_mkdirs(&tree, "lu/block/sdz");
	check_tree_mkdirs(&tree, "lu/block/sdab");
	check_tree_mkdirs(&tree, "lu/block/sdb");
	expect_first("lu/block", NULL, 0, "sdab");
	expect_first("lu/block", "sdb", 0, "sdb");
	expect_first("lu/block", "", 0, "sdab");
	expect_first("lu/block", "nvme", -ENOENT, NULL);

	/* hidden entries are not devices */
	check_tree_put_str(&tree, "lu/bsg/.hidden", "");
	check_tree_mkdirs(&tree, "lu/bsg/..x");
	expect_first("lu/bsg", NULL, -ENOENT, NULL);
	check_tree_mkdirs(&tree, "lu/bsg/0:0:0:0");
	expect_first("lu/bsg", NULL, 0, "0:0:0:0");

	check_tree_mkdirs(&tree, "lu/empty");
	expect_first("lu/empty", NULL, -ENOENT, NULL);
	expect_first("lu/missing", NULL, -ENOENT, NULL);
	expect_first("lu/scsi_generic/sg7/dev", NULL, -ENOTDIR, NULL);
	expect_first("/lu", NULL, -EINVAL, NULL);
}
END_TEST

/* More entries than one getdents64() buffer holds: the smallest is found in any of them. */
START_TEST(test_first_entry_many)
{
	char rel[PATH_MAX];

	for (unsigned i = 0; i < 600; i++) {
		xsnprintf(rel, "many/entry-with-a-long-name-to-fill-the-buffer-%04u",
		          (i * 367) % 600);
		check_tree_put_str(&tree, rel, "");
	}
	expect_first("many", NULL, 0, "entry-with-a-long-name-to-fill-the-buffer-0000");
	expect_first("many", "entry-with-a-long-name-to-fill-the-buffer-05", 0,
	             "entry-with-a-long-name-to-fill-the-buffer-0500");
}
END_TEST

static int count_entry(const char *name, void *userdata)
{
	unsigned *n = userdata;

	if (streq(name, "stop"))
		return -ECANCELED;
	(*n)++;
	return 0;
}

/* Every entry with the prefix, none hidden; @fn's error ends the listing and is returned. */
START_TEST(test_for_each_entry)
{
	char rel[PATH_MAX];
	unsigned n = 0;

	for (unsigned i = 0; i < 300; i++) {
		xsnprintf(rel, "disk/sda%u/partition", i + 1);
		check_tree_put_str(&tree, rel, "1\n");
	}
	check_tree_put_str(&tree, "disk/size", "8\n");
	check_tree_put_str(&tree, "disk/.hidden", "");
	ck_assert_int_eq(sysfs_for_each_entry(tree.fd, "disk", "sda", count_entry, &n), 0);
	ck_assert_uint_eq(n, 300);
	n = 0;
	ck_assert_int_eq(sysfs_for_each_entry(tree.fd, "disk", NULL, count_entry, &n), 0);
	ck_assert_uint_eq(n, 301);
	check_tree_put_str(&tree, "disk/stop", "");
	ck_assert_int_eq(sysfs_for_each_entry(tree.fd, "disk", NULL, count_entry, &n), -ECANCELED);
	ck_assert_int_eq(sysfs_for_each_entry(tree.fd, "missing", NULL, count_entry, &n), -ENOENT);
	ck_assert_int_eq(sysfs_for_each_entry(tree.fd, "disk/size", NULL, count_entry, &n),
	                 -ENOTDIR);
}
END_TEST

static Suite *sysfs_suite(void)
{
	Suite *s = suite_create("sysfs");
	TCase *tc = tcase_create("first_entry");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_first_entry);
	tcase_add_test(tc, test_first_entry_many);
	tcase_add_test(tc, test_for_each_entry);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(sysfs_suite)
