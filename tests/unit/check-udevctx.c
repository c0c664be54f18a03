/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Which of sg3-utils-udev's rules files udev reads (engine/udevctx.h), looked at directly and
 * through the cache lund keeps (UdevRulesCache): the cache answers without looking until a
 * rules directory changes, seen as udevd sees it (the directories' times, at most every
 * UDEVCTX_RULES_CHECK_USEC), or until it is forgotten (a reload).
 */

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-util.h"
#include "macro.h"
#include "probe.h"
#include "udevctx.h"

#define SEC UINT64_C(1000000)

static CheckTree tree;

static void setup(void)
{
	check_tree_new(&tree, "check-udevctx");
	check_tree_put_str(&tree, "usr/lib/udev/rules.d/55-scsi-sg3_id.rules", "# sg_inq\n");
	check_tree_put_str(&tree, "usr/lib/udev/rules.d/58-scsi-sg3_symlink.rules", "# links\n");
}

static void teardown(void)
{
	check_tree_remove(&tree);
}

/* @dir's modification time set a minute back, so that the next change shows whatever the
 * clock's granularity. */
static void age(const char *dir)
{
	struct timespec t[2] = { { .tv_nsec = UTIME_OMIT } };
	struct stat st;

	ck_assert_int_eq(fstatat(tree.fd, dir, &st, 0), 0);
	t[1] = st.st_mtim;
	t[1].tv_sec -= 60;
	ck_assert_int_eq(utimensat(tree.fd, dir, t, 0), 0);
}

START_TEST(test_rules_read)
{
	UdevRules r;

	udevctx_rules_read(tree.fd, &r);
	ck_assert(r.sg3_id && r.sg3_symlink);
	/* /etc masks /usr/lib with a link to /dev/null */
	check_tree_mkdirs(&tree, "etc/udev/rules.d");
	ck_assert_int_eq(symlinkat("/dev/null", tree.fd, "etc/udev/rules.d/55-scsi-sg3_id.rules"),
	                 0);
	udevctx_rules_read(tree.fd, &r);
	ck_assert(!r.sg3_id && !r.sg3_symlink);
}
END_TEST

START_TEST(test_rules_cached)
{
	UdevRulesCache c = {};
	UdevRules r;

	age("usr/lib/udev/rules.d");
	udevctx_rules_cached(&c, tree.fd, 100 * SEC, &r);
	ck_assert(r.sg3_id && r.sg3_symlink);

	/* The symlink rules go: within the interval the cache answers unseen. */
	ck_assert_int_eq(unlinkat(tree.fd, "usr/lib/udev/rules.d/58-scsi-sg3_symlink.rules", 0), 0);
	udevctx_rules_cached(&c, tree.fd, 101 * SEC, &r);
	ck_assert(r.sg3_id && r.sg3_symlink);
	/* Past it the directory's change shows. */
	udevctx_rules_cached(&c, tree.fd, 100 * SEC + UDEVCTX_RULES_CHECK_USEC, &r);
	ck_assert(r.sg3_id && !r.sg3_symlink);

	/* A directory that did not exist appears, with a mask in it. */
	check_tree_mkdirs(&tree, "run/udev/rules.d");
	ck_assert_int_eq(symlinkat("/dev/null", tree.fd, "run/udev/rules.d/55-scsi-sg3_id.rules"),
	                 0);
	udevctx_rules_cached(&c, tree.fd, 200 * SEC, &r);
	ck_assert(!r.sg3_id && !r.sg3_symlink);

	/* Forgotten (a reload): the files are read at once, within the interval too. */
	udevctx_rules_cached(&c, tree.fd, 300 * SEC, &r);
	ck_assert_int_eq(unlinkat(tree.fd, "run/udev/rules.d/55-scsi-sg3_id.rules", 0), 0);
	udevctx_rules_cached(&c, tree.fd, 301 * SEC, &r);
	ck_assert(!r.sg3_id);
	udevctx_rules_forget(&c);
	udevctx_rules_cached(&c, tree.fd, 302 * SEC, &r);
	ck_assert(r.sg3_id && !r.sg3_symlink);
}
END_TEST

/* The disk's "removable" attribute, and before sd made the disk (the LU's add event) the RMB bit
 * of the INQUIRY data, which sd copies into it. */
START_TEST(test_removable)
{
	uint8_t inq[36] = { 0, 0x80, 6, 2, 31 };
	ProbeData pd = { .buf[PROBE_INQUIRY] = inq, .len[PROBE_INQUIRY] = sizeof(inq) };
	LuRef lu = { .syspath = (char *)"sys/bus/scsi/devices/1:0:0:0" };
	const UdevCtxKnown known = { .pages = &pd };
	UdevCtx c;

	check_tree_put_str(&tree, "sys/bus/scsi/devices/1:0:0:0/scsi_level", "7\n");
	ck_assert_int_eq(udevctx_read_full(tree.fd, &lu, &known, &c), 0);
	ck_assert(c.removable);
	inq[1] = 0;
	ck_assert_int_eq(udevctx_read_full(tree.fd, &lu, &known, &c), 0);
	ck_assert(!c.removable);

	/* the disk's attribute once there is one */
	check_tree_put_str(&tree, "sys/block/sdc/removable", "1\n");
	lu.block = (char *)"sdc";
	ck_assert_int_eq(udevctx_read_full(tree.fd, &lu, &known, &c), 0);
	ck_assert(c.removable);
}
END_TEST

static Suite *udevctx_suite(void)
{
	Suite *s = suite_create("udevctx");
	TCase *tc = tcase_create("rules");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_rules_read);
	tcase_add_test(tc, test_rules_cached);
	tcase_add_test(tc, test_removable);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(udevctx_suite)
