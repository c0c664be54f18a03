/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * errpolicy: value checks against what the patched 6.1 kernel accepts (kernel/README.md's
 * "write ..." rows), and knob detection and writes against a temporary sysfs tree: a stock LU
 * (no patchset attributes) and a patched one.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-util.h"
#include "errpolicy.h"
#include "macro.h"
#include "sysfs.h"

static const struct {
	ErrKnob k;
	const char *in;
	int r;
	const char *out;
} vals[] = {
	{ ERRKNOB_MAX_RETRIES, "-1", 0, "-1" },
	{ ERRKNOB_MAX_RETRIES, "0", 0, "0" },
	{ ERRKNOB_MAX_RETRIES, "5", 0, "5" },
	{ ERRKNOB_MAX_RETRIES, "-5", -EINVAL }, /* the stock kernel takes it: patch 1's bug */
	{ ERRKNOB_MAX_RETRIES, "6", -EINVAL },
	{ ERRKNOB_MAX_RETRIES, "-0", 0, "0" },
	{ ERRKNOB_MAX_RETRIES, "", -EINVAL },
	{ ERRKNOB_MAX_RETRIES, "-", -EINVAL },
	{ ERRKNOB_RETRY_LIMIT, "default", 0, "default" },
	{ ERRKNOB_RETRY_LIMIT, "0", 0, "0" },
	{ ERRKNOB_RETRY_LIMIT, "255", 0, "255" },
	{ ERRKNOB_RETRY_LIMIT, "256", -EINVAL },
	{ ERRKNOB_RETRY_LIMIT, "-1", -EINVAL },
	{ ERRKNOB_RETRY_LIMIT, "abc", -EINVAL },
	{ ERRKNOB_RETRY_LIMIT, "01", -EINVAL },
	{ ERRKNOB_RETRY_LIMIT, "1 ", -EINVAL },
	{ ERRKNOB_RETRY_LIMIT, "Default", -EINVAL },
	{ ERRKNOB_RETRY_LIMIT, "99999999999", -EINVAL },
	{ ERRKNOB_FAILFAST, "none", 0, "none" },
	{ ERRKNOB_FAILFAST, "transport", 0, "transport" },
	{ ERRKNOB_FAILFAST, "device,transport", 0, "transport,device" },
	{ ERRKNOB_FAILFAST, "driver device transport", 0, "transport,device,driver" },
	{ ERRKNOB_FAILFAST, "transport,transport", 0, "transport" },
	{ ERRKNOB_FAILFAST, "", -EINVAL },
	{ ERRKNOB_FAILFAST, ",", -EINVAL },
	{ ERRKNOB_FAILFAST, "bogus", -EINVAL },
	{ ERRKNOB_FAILFAST, "none transport", -EINVAL },
	{ ERRKNOB_FAILFAST, "transportx", -EINVAL },
	{ ERRKNOB_EVT_ERROR, "1", 0, "1" },
	{ ERRKNOB_EVT_ERROR, "2", -EINVAL },
	{ ERRKNOB_EVT_ERROR_BURST, "0", -EINVAL },
	{ ERRKNOB_EVT_ERROR_BURST, "1000", 0, "1000" },
	{ ERRKNOB_EVT_ERROR_BURST, "1001", -EINVAL },
	{ ERRKNOB_EVT_ERROR_INTERVAL_MS, "x", -EINVAL },
	{ ERRKNOB_EVT_ERROR_INTERVAL_MS, "0", -EINVAL }, /* would turn the kernel's limit off */
	{ ERRKNOB_EVT_ERROR_INTERVAL_MS, "999", -EINVAL },
	{ ERRKNOB_EVT_ERROR_INTERVAL_MS, "1000", 0, "1000" },
	{ ERRKNOB_EVT_ERROR_INTERVAL_MS, "3600000", 0, "3600000" },
	{ ERRKNOB_EVT_ERROR_INTERVAL_MS, "3600001", -EINVAL },
	{ ERRKNOB_TIMEOUT, "0", -EINVAL },
	{ ERRKNOB_TIMEOUT, "30", 0, "30" },
	{ ERRKNOB_IOERR_CNT, "0", -EINVAL }, /* read-only */
	{ _ERRKNOB_MAX, "0", -EINVAL },
	{ _ERRKNOB_INVALID, "0", -EINVAL },
};

START_TEST(test_validate)
{
	char out[ERRKNOB_VALUE_MAX] = "keep";

	ck_assert_int_eq(errknob_validate(vals[_i].k, vals[_i].in, out, sizeof(out)), vals[_i].r);
	ck_assert_str_eq(out, vals[_i].r == 0 ? vals[_i].out : "keep");
}
END_TEST

START_TEST(test_validate_nobufs)
{
	char out[5] = "keep";

	ck_assert_int_eq(errknob_validate(ERRKNOB_FAILFAST, "transport", out, sizeof(out)),
	                 -ENOBUFS);
	ck_assert_int_eq(errknob_validate(ERRKNOB_RETRY_LIMIT, "default", out, sizeof(out)),
	                 -ENOBUFS);
	ck_assert_int_eq(errknob_validate(ERRKNOB_RETRY_LIMIT, "255", out, sizeof(out)), 0);
}
END_TEST

START_TEST(test_names)
{
	for (ErrKnob k = 0; k < _ERRKNOB_MAX; k++) {
		ck_assert_ptr_nonnull(errknob_to_string(k));
		ck_assert_int_eq(errknob_from_string(errknob_to_string(k)), k);
		ck_assert_ptr_nonnull(errknob_help(k));
	}
	ck_assert_int_eq(errknob_from_string("retry"), _ERRKNOB_INVALID);
	ck_assert_int_eq(errknob_from_string(NULL), _ERRKNOB_INVALID);
	ck_assert(errknob_patched(ERRKNOB_RETRY_LIMIT));
	ck_assert(!errknob_patched(ERRKNOB_MAX_RETRIES));
	ck_assert(errknob_disk_only(ERRKNOB_MAX_RETRIES));
}
END_TEST

static CheckTree tmp;
#define LU "sys/bus/scsi/devices/2:0:0:0"

static void put_file(const char *rel, const char *content, mode_t mode)
{
	char path[PATH_MAX];

	check_tree_put_str(&tmp, rel, content);
	xsnprintf(path, "%s/%s", tmp.path, rel);
	ck_assert_int_eq(chmod(path, mode), 0);
}

static char *get_file(const char *rel)
{
	char *v = check_tree_get(&tmp, rel);

	ck_assert_ptr_nonnull(v);
	return v;
}

static void make_tree(bool patched)
{
	check_tree_new(&tmp, "check-errpolicy");
	check_tree_mkdirs(&tmp, LU "/scsi_disk/2:0:0:0");
	put_file(LU "/type", "0\n", 0444);
	put_file(LU "/timeout", "30\n", 0644);
	put_file(LU "/eh_timeout", "10\n", 0644);
	put_file(LU "/queue_depth", "32\n", 0644);
	put_file(LU "/iorequest_cnt", "0x2a\n", 0444);
	put_file(LU "/ioerr_cnt", "0x1\n", 0444);
	put_file(LU "/iotmo_cnt", "0x0\n", 0444);
	put_file(LU "/scsi_disk/2:0:0:0/max_retries", "5\n", 0644);
	if (patched) {
		put_file(LU "/retry_limit", "default\n", 0644);
		put_file(LU "/failfast", "none\n", 0644);
		put_file(LU "/evt_error", "0\n", 0644);
		put_file(LU "/evt_error_burst", "10\n", 0644);
		put_file(LU "/evt_error_interval_ms", "5000\n", 0644);
	}
}

static void drop_tree(void)
{
	check_tree_remove(&tmp);
}

START_TEST(test_stock)
{
	_cleanup_(errpolicy_done) ErrPolicy p = {};
	_cleanup_free_ char *v = NULL;
	_cleanup_close_ int fd = -EBADF;

	make_tree(false);
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(errpolicy_read(fd, LU, "2:0:0:0", &p), 0);
	ck_assert(!errpolicy_has_patchset(&p));
	ck_assert(p.present[ERRKNOB_MAX_RETRIES]);
	ck_assert_str_eq(p.value[ERRKNOB_MAX_RETRIES], "5");
	ck_assert_str_eq(p.value[ERRKNOB_IOREQUEST_CNT], "0x2a");
	for (ErrKnob k = 0; k < _ERRKNOB_MAX; k++)
		ck_assert_int_eq(p.present[k], !errknob_patched(k));

	ck_assert_int_eq(errpolicy_write(fd, LU, "2:0:0:0", ERRKNOB_RETRY_LIMIT, "1"), -EOPNOTSUPP);
	ck_assert_int_eq(errpolicy_write(fd, LU, "2:0:0:0", ERRKNOB_MAX_RETRIES, "-5"), -EINVAL);
	v = get_file(LU "/scsi_disk/2:0:0:0/max_retries");
	ck_assert_str_eq(v, "5\n");
	free(v);
	ck_assert_int_eq(errpolicy_write(fd, LU, "2:0:0:0", ERRKNOB_MAX_RETRIES, "2"), 0);
	v = get_file(LU "/scsi_disk/2:0:0:0/max_retries");
	ck_assert_int_eq(strncmp(v, "2", 1), 0); /* sysfs_write_attr() does not truncate */
	ck_assert_int_eq(errpolicy_read(fd, "sys/bus/scsi/devices/9:0:0:0", "9:0:0:0", &p),
	                 -ENOENT);
	drop_tree();
}
END_TEST

START_TEST(test_patched)
{
	_cleanup_(errpolicy_done) ErrPolicy p = {};
	_cleanup_free_ char *v = NULL;
	_cleanup_close_ int fd = -EBADF;

	make_tree(true);
	fd = sysfs_open_root(tmp.path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(errpolicy_read(fd, LU, "2:0:0:0", &p), 0);
	ck_assert(errpolicy_has_patchset(&p));
	ck_assert_str_eq(p.value[ERRKNOB_RETRY_LIMIT], "default");
	ck_assert_int_eq(errpolicy_write(fd, LU, "2:0:0:0", ERRKNOB_FAILFAST, "none transport"),
	                 -EINVAL);
	v = get_file(LU "/failfast");
	ck_assert_str_eq(v, "none\n");
	free(v);
	ck_assert_int_eq(errpolicy_write(fd, LU, "2:0:0:0", ERRKNOB_FAILFAST, "device transport"),
	                 0);
	v = get_file(LU "/failfast");
	ck_assert_str_eq(v, "transport,device");
	free(v);
	/* Counters cannot be written even though the file is there. */
	ck_assert_int_eq(errpolicy_write(fd, LU, "2:0:0:0", ERRKNOB_IOERR_CNT, "0"), -EINVAL);
	v = get_file(LU "/ioerr_cnt");
	ck_assert_str_eq(v, "0x1\n");
	drop_tree();
}
END_TEST

static Suite *errpolicy_suite(void)
{
	Suite *s = suite_create("errpolicy");
	TCase *tc = tcase_create("io");

	CHECK_ADD_LOOP(tc, test_validate, vals);
	tcase_add_test(tc, test_validate_nobufs);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_stock);
	tcase_add_test(tc, test_patched);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(errpolicy_suite)
