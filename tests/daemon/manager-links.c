/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The manager's links, in-process on a fake tree. An LU whose wanted links cannot be worked out
 * (out of memory) keeps the links it has: the manager does not hand the claims an empty list
 * (which removed every name of the LU) but leaves them as they are and works them out again on
 * the retry. And the run dir's links/ is read for lund's own record directories only.
 */

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-event.h>

#include "check-util.h"
#include "macro.h"
#include "manager-private.h"
#include "manager-test.h"

#define WWID "35000c500deadbe01"
#define NAME "dev/scsi/by-id/scsi-" WWID

static CheckTree tree;

#define readlink_rel(rel) manager_test_readlink(&tree, rel)
#define log_has(needle)   manager_test_log_has(needle)

START_TEST(test_wants_enomem)
{
	/* SPC-6 7.7.6: an NAA designator of the LU */
	static const uint8_t pg83[4 + 12] = {
		0x00, 0x83, 0x00, 12,   0x01, 0x03, 0x00, 0x08,
		0x50, 0x00, 0xc5, 0x00, 0xde, 0xad, 0xbe, 0x01,
	};
	char run_dir[PATH_MAX];
	ManagerConfig config = {};
	Manager *m = NULL;
	sd_event *e = NULL;
	Lu *lu;

	check_tree_new(&tree, "links-enomem");
	check_tree_put_lu(&tree, &(CheckLu){ .hctl = "0:0:0:0",
	                                     .scsi_level = 7,
	                                     .vendor = "FAKE",
	                                     .model = "DISK",
	                                     .rev = "0001",
	                                     .inquiry = true,
	                                     .block = { "sdb", "8:16\n" },
	                                     .attrs = { { "vpd_pg83", .data = pg83,
	                                                  .len = sizeof(pg83) } } });
	manager_test_log_to(&tree);
	config = manager_test_config(&tree, run_dir);
	ck_assert_int_ge(manager_new(&config, &m), 0);
	ck_assert_int_ge(manager_start(m), 0);
	ck_assert_int_ge(sd_event_default(&e), 0);
	for (int i = 0; i < 10; i++)
		(void)sd_event_run(e, 20 * 1000);
	ck_assert_str_eq(readlink_rel(NAME), "../../sdb");
	lu = inventory_first_lu(m->inventory);
	ck_assert_ptr_nonnull(lu);

	/* Out of memory while its links are worked out: they stay. */
	m->links_wants_error = -ENOMEM;
	manager_update_links(m, lu, false);
	ck_assert_str_eq(readlink_rel(NAME), "../../sdb");
	ck_assert(log_has("cannot work out its links, keeping them, retrying"));

	/* Memory again: the retry (a second later) works them out, and they stay right. */
	m->links_wants_error = 0;
	for (int i = 0; i < 100 && !log_has("Working out the links of every logical unit again");
	     i++)
		(void)sd_event_run(e, 50 * 1000);
	ck_assert(log_has("Working out the links of every logical unit again"));
	ck_assert_str_eq(readlink_rel(NAME), "../../sdb");

	manager_free(m);
	sd_event_unref(e);
	check_tree_remove(&tree);
}
END_TEST

/* The run dir's links/ holds the records of lund's own link sets only: the records of a link
 * directory lund no longer manages are retired with its links; a directory of another name
 * (anyone's) is ignored with a warning, and the symlinks it names stay. */
START_TEST(test_record_dirs)
{
	char run_dir[PATH_MAX], p[PATH_MAX];
	ManagerConfig config = {};
	Manager *m = NULL;

	check_tree_new(&tree, "links-record-dirs");
	/* /etc/alternatives/editor, and a "record" of it under a name lund never gives */
	check_tree_mkdirs(&tree, "etc/alternatives");
	ck_assert_int_eq(symlinkat("/usr/bin/vi", tree.fd, "etc/alternatives/editor"), 0);
	check_tree_mkdirs(&tree, "run/links/etc-alternatives");
	ck_assert_int_eq(symlinkat("/usr/bin/vi", tree.fd, "run/links/etc-alternatives/editor"), 0);
	/* lund's own /dev/disk/by-id of an earlier run with --manage-disk-links */
	check_tree_mkdirs(&tree, "dev/disk/by-id");
	ck_assert_int_eq(symlinkat("../../sda", tree.fd, "dev/disk/by-id/wwn-0x5000"), 0);
	check_tree_mkdirs(&tree, "run/links/dev-disk-by\\x2did");
	ck_assert_int_eq(symlinkat("../../sda", tree.fd, "run/links/dev-disk-by\\x2did/wwn-0x5000"),
	                 0);
	manager_test_log_to(&tree);
	config = manager_test_config(&tree, run_dir);
	ck_assert_int_ge(manager_new(&config, &m), 0);
	ck_assert_int_ge(manager_start(m), 0);
	ck_assert_str_eq(readlink_rel("etc/alternatives/editor"), "/usr/bin/vi");
	xsnprintf(p, "%s/links/etc-alternatives: no record directory of lund's, ignoring", run_dir);
	ck_assert_msg(log_has(p), "no warning \"%s\"", p);
	ck_assert_str_eq(readlink_rel("dev/disk/by-id/wwn-0x5000"), "(none)");
	manager_free(m);
	check_tree_remove(&tree);
}
END_TEST

static Suite *manager_links_suite(void)
{
	Suite *s = suite_create("manager-links");
	TCase *tc = tcase_create("manager-links");

	tcase_add_test(tc, test_wants_enomem);
	tcase_add_test(tc, test_record_dirs);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(manager_links_suite)
