/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mpath: dm-multipath's claim on a path, on fake sysfs trees shaped as the kernel shows a path
 * under multipathd (sys/class/block/sdX/holders/dm-N, sys/class/block/dm-N/dm/uuid).
 */

#include <check.h>
#include <errno.h>
#include <stdlib.h>

#include "check-util.h"
#include "mpath.h"

static CheckTree tree;

static void setup(void)
{
	check_tree_new(&tree, "mpath");
}

static void teardown(void)
{
	check_tree_remove(&tree);
}

static void holder(const char *block, const char *dm, const char *uuid)
{
	char p[256];

	xsnprintf(p, "sys/class/block/%s/holders/%s", block, dm);
	check_tree_mkdirs(&tree, p);
	if (uuid) {
		xsnprintf(p, "sys/class/block/%s/dm/uuid", dm);
		check_tree_put_str(&tree, p, uuid);
	}
}

START_TEST(test_mpath)
{
	_cleanup_free_ char *dm = NULL, *uuid = NULL;

	holder("sdb", "dm-4", "LVM-abcdef\n"); /* an LVM volume on the path: not multipath */
	holder("sdb", "dm-7", "mpath-35000c500deadbe01\n");
	holder("sdb", "dm-5", "mpath-35000c500deadbe02\n");
	ck_assert_int_eq(mpath_holder(tree.fd, "sdb", &dm, &uuid), 0);
	ck_assert_str_eq(dm, "dm-5"); /* the first in name order */
	ck_assert_str_eq(uuid, "mpath-35000c500deadbe02");
}
END_TEST

START_TEST(test_none)
{
	char *dm = (char *)"unset", *uuid = (char *)"unset";

	/* No holders directory, an empty one, only non-multipath holders, a holder without dm/,
	 * a bare "mpath-" uuid. */
	ck_assert_int_eq(mpath_holder(tree.fd, "sda", &dm, &uuid), -ENOENT);
	check_tree_mkdirs(&tree, "sys/class/block/sdc/holders");
	ck_assert_int_eq(mpath_holder(tree.fd, "sdc", &dm, &uuid), -ENOENT);
	holder("sdd", "dm-0", "CRYPT-LUKS2-1234\n");
	holder("sdd", "md0", NULL);
	holder("sdd", "dm-1", "mpath-");
	ck_assert_int_eq(mpath_holder(tree.fd, "sdd", &dm, &uuid), -ENOENT);
	ck_assert_str_eq(dm, "unset");
	ck_assert_str_eq(uuid, "unset");
	/* Names that would leave the directory. */
	ck_assert_int_eq(mpath_holder(tree.fd, "../sdb", &dm, &uuid), -EINVAL);
	ck_assert_int_eq(mpath_holder(tree.fd, "..", &dm, &uuid), -EINVAL);
	ck_assert_int_eq(mpath_holder(tree.fd, "", &dm, &uuid), -EINVAL);
}
END_TEST

static Suite *mpath_suite(void)
{
	Suite *s = suite_create("mpath");
	TCase *tc = tcase_create("io");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_mpath);
	tcase_add_test(tc, test_none);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(mpath_suite)
