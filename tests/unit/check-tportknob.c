/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Transport timeouts (engine/tportknob.h): the values lund.conf and lunctl policy accept, the
 * session or remote port found above an LU on fake sysfs trees laid out as Linux 6.1 lays out
 * iSCSI, FC and a transport-less host, and what tport_apply() writes there.
 */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check-util.h"
#include "macro.h"
#include "tportknob.h"

static CheckTree tree;

static void setup(void)
{
	check_tree_new(&tree, "check-tportknob");
}

static void teardown(void)
{
	check_tree_remove(&tree);
}

static const struct {
	TportKnob knob;
	const char *value;
	const char *canon; /* NULL: refused */
} validate_cases[] = {
	{ TPORT_RECOVERY_TMO, "5", "5" },
	{ TPORT_RECOVERY_TMO, "0", "0" },
	{ TPORT_RECOVERY_TMO, "3600", "3600" },
	{ TPORT_RECOVERY_TMO, "off", "off" },
	{ TPORT_RECOVERY_TMO, "-1", "off" }, /* how the kernel shows "off" */
	{ TPORT_RECOVERY_TMO, "3601", NULL },
	{ TPORT_RECOVERY_TMO, "-2", NULL },
	{ TPORT_RECOVERY_TMO, "05", NULL },
	{ TPORT_RECOVERY_TMO, " 5", NULL },
	{ TPORT_RECOVERY_TMO, "5\n", NULL },
	{ TPORT_RECOVERY_TMO, "", NULL },
	{ TPORT_RECOVERY_TMO, "99999999999", NULL },
	{ TPORT_FAST_IO_FAIL_TMO, "off", "off" },
	{ TPORT_FAST_IO_FAIL_TMO, "600", "600" },
	{ TPORT_FAST_IO_FAIL_TMO, "601", NULL },
	{ TPORT_DEV_LOSS_TMO, "1", "1" },
	{ TPORT_DEV_LOSS_TMO, "86400", "86400" },
	{ TPORT_DEV_LOSS_TMO, "0", NULL },
	{ TPORT_DEV_LOSS_TMO, "off", NULL },
	{ TPORT_DEV_LOSS_TMO, "-1", NULL },
	{ _TPORT_KNOB_MAX, "5", NULL },
};

START_TEST(test_validate)
{
	char out[TPORT_VALUE_MAX] = "unchanged";
	int r = tport_knob_validate(validate_cases[_i].knob, validate_cases[_i].value, out,
	                            sizeof(out));

	if (!validate_cases[_i].canon) {
		ck_assert_int_eq(r, -EINVAL);
		return;
	}
	ck_assert_int_eq(r, 0);
	ck_assert_str_eq(out, validate_cases[_i].canon);
	/* The canonical form is itself valid and canonical. */
	ck_assert_int_eq(tport_knob_validate(validate_cases[_i].knob, out, out, sizeof(out)), 0);
	ck_assert_str_eq(out, validate_cases[_i].canon);
	ck_assert_int_eq(
	        tport_knob_validate(validate_cases[_i].knob, validate_cases[_i].value, out, 3),
	        strlen(validate_cases[_i].canon) >= 3 ? -ENOBUFS : 0);
}
END_TEST

START_TEST(test_names)
{
	for (TportKnob k = 0; k < _TPORT_KNOB_MAX; k++) {
		ck_assert_int_eq(tport_knob_from_string(tport_knob_to_string(k)), k);
		ck_assert_ptr_nonnull(tport_knob_help(k));
	}
	ck_assert_int_eq(tport_knob_kind(TPORT_RECOVERY_TMO), TPORT_ISCSI);
	ck_assert_int_eq(tport_knob_kind(TPORT_DEV_LOSS_TMO), TPORT_FC);
	ck_assert_int_eq(tport_knob_from_string("timeout"), _TPORT_KNOB_INVALID);
	ck_assert_int_eq(tport_knob_from_string(NULL), _TPORT_KNOB_INVALID);
}
END_TEST

/* An LU at sys/devices/<devpath>/<hctl>, listed in sys/bus/scsi/devices as the kernel lists it. */
static void put_lu(const char *devpath, const char *hctl)
{
	check_tree_put_lu(&tree, &(CheckLu){ .hctl = hctl, .parent = devpath });
}

static const struct {
	const char *devpath; /* the LU's parent below sys/devices */
	const char *hctl;
	TportKind kind;
	const char *name;
} find_cases[] = {
	{ "platform/host3/session1/target3:0:0", "3:0:0:7", TPORT_ISCSI, "session1" },
	{ "platform/host4/session12/target4:0:0", "4:0:0:0", TPORT_ISCSI, "session12" },
	{ "pci0000:00/0000:00:03.0/host5/rport-5:0-0/target5:0:0", "5:0:0:1", TPORT_FC,
	  "rport-5:0-0" },
	{ "pci0000:00/0000:00:03.0/host6/rport-6:0-17/target6:0:3", "6:0:3:0", TPORT_FC,
	  "rport-6:0-17" },
	/* scsi_debug, virtio-scsi: no transport timeouts */
	{ "pseudo_0/adapter0/host2/target2:0:0", "2:0:0:0", TPORT_NONE, NULL },
	{ "pci0000:00/0000:00:04.0/virtio1/host0/target0:0:0", "0:0:0:0", TPORT_NONE, NULL },
	/* names that only look like transport objects */
	{ "platform/sessionX/host7/target7:0:0", "7:0:0:0", TPORT_NONE, NULL },
	{ "platform/host8/rport-8:0/target8:0:0", "8:0:0:0", TPORT_NONE, NULL },
	{ "platform/host9/session/target9:0:0", "9:0:0:0", TPORT_NONE, NULL },
};

START_TEST(test_find)
{
	_cleanup_(tport_done) Tport t = {};
	char syspath[64], dir[128];

	put_lu(find_cases[_i].devpath, find_cases[_i].hctl);
	xsnprintf(syspath, "sys/bus/scsi/devices/%s", find_cases[_i].hctl);
	ck_assert_int_eq(tport_find(tree.fd, syspath, &t), 0);
	ck_assert_int_eq(t.kind, find_cases[_i].kind);
	if (!find_cases[_i].name) {
		ck_assert_ptr_null(t.name);
		return;
	}
	ck_assert_str_eq(t.name, find_cases[_i].name);
	xsnprintf(dir, "sys/class/%s/%s",
	          t.kind == TPORT_ISCSI ? "iscsi_session" : "fc_remote_ports", find_cases[_i].name);
	ck_assert_str_eq(t.dir, dir);
}
END_TEST

START_TEST(test_find_gone)
{
	Tport t = {};

	ck_assert_int_eq(tport_find(tree.fd, "sys/bus/scsi/devices/1:0:0:0", &t), -ENOENT);
}
END_TEST

/* @rel holds @want; a written value is at its start only (sysfs_write_attr() does not truncate,
 * sysfs needs no truncation): @written compares that much. */
static void expect_attr_full(const char *rel, const char *want, bool written)
{
	_cleanup_free_ char *got = check_tree_get(&tree, rel);

	if (!want) {
		ck_assert_msg(!got, "%s written", rel);
		return;
	}
	ck_assert_msg(got, "%s missing", rel);
	if (written)
		got[strlen(want) < strlen(got) ? strlen(want) : strlen(got)] = 0;
	got[strcspn(got, "\n")] = 0;
	ck_assert_str_eq(got, want);
}

#define expect_attr(rel, want)    expect_attr_full((rel), (want), false)
#define expect_written(rel, want) expect_attr_full((rel), (want), true)

START_TEST(test_apply_iscsi)
{
	_cleanup_(tport_done) Tport t = {};
	_cleanup_(tport_result_done) TportResult res = {};
	const char *want[_TPORT_KNOB_MAX] = {
		[TPORT_RECOVERY_TMO] = "5", [TPORT_DEV_LOSS_TMO] = "30", /* an FC knob: not this
		                                                            transport's */
	};

	put_lu("platform/host3/session1/target3:0:0", "3:0:0:0");
	check_tree_put_str(&tree, "sys/class/iscsi_session/session1/recovery_tmo", "120\n");
	ck_assert_int_eq(tport_find(tree.fd, "sys/bus/scsi/devices/3:0:0:0", &t), 0);
	ck_assert_int_eq(tport_apply(tree.fd, &t, want, &res), 1);
	ck_assert(res.changed[TPORT_RECOVERY_TMO]);
	ck_assert_str_eq(res.old[TPORT_RECOVERY_TMO], "120");
	ck_assert_int_eq(res.error[TPORT_RECOVERY_TMO], 0);
	ck_assert_int_eq(res.error[TPORT_DEV_LOSS_TMO], -EOPNOTSUPP);
	ck_assert(!res.changed[TPORT_DEV_LOSS_TMO]);
	expect_written("sys/class/iscsi_session/session1/recovery_tmo", "5");
	expect_attr("sys/class/iscsi_session/session1/dev_loss_tmo", NULL);
}
END_TEST

/* "off" is shown as -1: equal, so nothing is written (the file keeps the kernel's form). */
START_TEST(test_apply_equal)
{
	_cleanup_(tport_done) Tport t = {};
	_cleanup_(tport_result_done) TportResult res = {};
	const char *want[_TPORT_KNOB_MAX] = { [TPORT_RECOVERY_TMO] = "off" };
	_cleanup_free_ char *v = NULL;

	put_lu("platform/host3/session2/target3:0:0", "3:0:0:0");
	check_tree_put_str(&tree, "sys/class/iscsi_session/session2/recovery_tmo", "-1\n");
	ck_assert_int_eq(tport_find(tree.fd, "sys/bus/scsi/devices/3:0:0:0", &t), 0);
	ck_assert_int_eq(tport_apply(tree.fd, &t, want, &res), 0);
	ck_assert(!res.changed[TPORT_RECOVERY_TMO]);
	ck_assert_int_eq(res.error[TPORT_RECOVERY_TMO], 0);
	expect_attr("sys/class/iscsi_session/session2/recovery_tmo", "-1");
	ck_assert_int_eq(tport_read(tree.fd, &t, TPORT_RECOVERY_TMO, &v), 0);
	ck_assert_str_eq(v, "-1");
	ck_assert_int_eq(tport_read(tree.fd, &t, TPORT_DEV_LOSS_TMO, &v), -EOPNOTSUPP);
}
END_TEST

START_TEST(test_apply_fc)
{
	_cleanup_(tport_done) Tport t = {};
	_cleanup_(tport_result_done) TportResult res = {};
	const char *want[_TPORT_KNOB_MAX] = {
		[TPORT_RECOVERY_TMO] = "5", /* iSCSI's */
		[TPORT_FAST_IO_FAIL_TMO] = "5",
		[TPORT_DEV_LOSS_TMO] = "60",
	};
	const char *rp = "sys/class/fc_remote_ports/rport-5:0-0";
	char path[128];

	put_lu("pci0000:00/0000:00:03.0/host5/rport-5:0-0/target5:0:0", "5:0:0:1");
	xsnprintf(path, "%s/fast_io_fail_tmo", rp);
	check_tree_put_str(&tree, path, "off\n");
	xsnprintf(path, "%s/dev_loss_tmo", rp);
	check_tree_put_str(&tree, path, "60\n");
	ck_assert_int_eq(tport_find(tree.fd, "sys/bus/scsi/devices/5:0:0:1", &t), 0);
	ck_assert_int_eq(t.kind, TPORT_FC);
	ck_assert_int_eq(tport_apply(tree.fd, &t, want, &res), 1);
	ck_assert(res.changed[TPORT_FAST_IO_FAIL_TMO]);
	ck_assert(!res.changed[TPORT_DEV_LOSS_TMO]); /* already 60 */
	ck_assert_str_eq(res.old[TPORT_FAST_IO_FAIL_TMO], "off");
	ck_assert_int_eq(res.error[TPORT_RECOVERY_TMO], -EOPNOTSUPP);
	xsnprintf(path, "%s/fast_io_fail_tmo", rp);
	expect_written(path, "5");
	xsnprintf(path, "%s/dev_loss_tmo", rp);
	expect_attr(path, "60");
	expect_attr("sys/class/iscsi_session/rport-5:0-0/recovery_tmo", NULL);
}
END_TEST

/* A remote port without the attribute (a driver that lacks it): -ENOENT, nothing created. */
START_TEST(test_apply_absent)
{
	_cleanup_(tport_done) Tport t = {};
	_cleanup_(tport_result_done) TportResult res = {};
	const char *want[_TPORT_KNOB_MAX] = {
		[TPORT_FAST_IO_FAIL_TMO] = "5", [TPORT_DEV_LOSS_TMO] = "bogus"
	};

	put_lu("pci0000:00/0000:00:03.0/host5/rport-5:0-1/target5:0:1", "5:0:1:0");
	check_tree_mkdirs(&tree, "sys/class/fc_remote_ports/rport-5:0-1");
	ck_assert_int_eq(tport_find(tree.fd, "sys/bus/scsi/devices/5:0:1:0", &t), 0);
	ck_assert_int_eq(tport_apply(tree.fd, &t, want, &res), 0);
	ck_assert_int_eq(res.error[TPORT_FAST_IO_FAIL_TMO], -ENOENT);
	ck_assert_int_eq(res.error[TPORT_DEV_LOSS_TMO], -EINVAL);
	expect_attr("sys/class/fc_remote_ports/rport-5:0-1/fast_io_fail_tmo", NULL);
	expect_attr("sys/class/fc_remote_ports/rport-5:0-1/dev_loss_tmo", NULL);
}
END_TEST

static Suite *tportknob_suite(void)
{
	Suite *s = suite_create("tportknob");
	TCase *tc = tcase_create("values");
	TCase *tt = tcase_create("tree");

	CHECK_ADD_LOOP(tc, test_validate, validate_cases);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(tt, setup, teardown);
	CHECK_ADD_LOOP(tt, test_find, find_cases);
	tcase_add_test(tt, test_find_gone);
	tcase_add_test(tt, test_apply_iscsi);
	tcase_add_test(tt, test_apply_equal);
	tcase_add_test(tt, test_apply_fc);
	tcase_add_test(tt, test_apply_absent);
	suite_add_tcase(s, tt);
	return s;
}

CHECK_MAIN(tportknob_suite)
