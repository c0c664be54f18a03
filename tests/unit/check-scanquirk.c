/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Scan quirks from lund.conf (the hwdb side is sd-hwdb's lookup, exercised in the VM): which
 * sections apply, in which order, and what a bad value does.
 */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check-util.h"
#include "macro.h"
#include "scanquirk.h"

static char conf[256];

static void write_conf(const char *text)
{
	FILE *f;
	int fd;

	snprintf(conf, sizeof(conf), "%s/check-scanquirk-XXXXXX", getenv("TMPDIR") ?: "/tmp");
	fd = mkstemp(conf);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void teardown(void)
{
	if (conf[0])
		unlink(conf);
	conf[0] = 0;
}

static const char *const conf_text = "[defaults]\n"
                                     "timeout = 30\n"
                                     "scan_max_lun = 4\n"
                                     "\n"
                                     "[device old-raid]\n"
                                     "vendor = FAKE\n"
                                     "model = DISK*\n"
                                     "scan_sequential = yes\n"
                                     "\n"
                                     "[device old-raid-sparse]\n"
                                     "vendor = fake\n"
                                     "model = DISK2\n"
                                     "scan_sparse = on\n"
                                     "scan_max_lun = 16\n"
                                     "\n"
                                     "[device broken]\n"
                                     "vendor = OTHER\n"
                                     "scan_sequential = 1\n"
                                     "scan_max_lun = zero\n"
                                     "\n"
                                     "[device no-scan-keys]\n"
                                     "vendor = *\n"
                                     "eh_timeout = 10\n";

static const struct {
	const char *vendor, *model;
	int r;
	ScanQuirk expect;
	const char *why;
} lookup_cases[] = {
	{ "FAKE", "DISK", 0, { .sequential = true, .max_lun = 4 }, NULL },
	/* later sections win; vendor and model match case-insensitively, as the policy does */
	{ "FAKE", "DISK2", 0, { .sequential = true, .sparse = true, .max_lun = 16 }, NULL },
	{ "NONE", "X", 0, { .max_lun = 4 }, NULL },
	/* the bad value is skipped and named; the good one still applies */
	{ "OTHER",
	  "X",
	  -EINVAL,
	  { .sequential = true, .max_lun = 4 },
	  "invalid scan_max_lun \"zero\"" },
};

START_TEST(test_lookup)
{
	ScanQuirks *q = NULL;
	ScanQuirk got;
	char why[256] = "";
	int r;

	write_conf(conf_text);
	ck_assert_int_eq(scan_quirks_new("/nonexistent/hwdb.bin", conf, &q), 0);
	ck_assert(scan_quirks_active(q));
	r = scan_quirks_lookup(q, 0, lookup_cases[_i].vendor, lookup_cases[_i].model, "0001", &got,
	                       why, sizeof(why));
	ck_assert_int_eq(r, lookup_cases[_i].r);
	ck_assert_int_eq(got.sequential, lookup_cases[_i].expect.sequential);
	ck_assert_int_eq(got.sparse, lookup_cases[_i].expect.sparse);
	ck_assert_uint_eq(got.max_lun, lookup_cases[_i].expect.max_lun);
	if (lookup_cases[_i].why) {
		ck_assert_ptr_nonnull(strstr(why, lookup_cases[_i].why));
		ck_assert_ptr_nonnull(strstr(why, conf));
	}
	scan_quirks_free(q);
}
END_TEST

START_TEST(test_no_sources)
{
	ScanQuirks *q = NULL;
	ScanQuirk got;

	/* no hwdb, no lund.conf: nothing to look up, and no error */
	ck_assert_int_eq(scan_quirks_new("/nonexistent/hwdb.bin", "/nonexistent/lund.conf", &q), 0);
	ck_assert(!scan_quirks_active(q));
	ck_assert_int_eq(scan_quirks_lookup(q, 0, "FAKE", "DISK", "", &got, NULL, 0), 0);
	ck_assert(!got.sequential);
	scan_quirks_free(q);

	/* a lund.conf without a scan key loads no rule */
	write_conf("[defaults]\ntimeout = 30\n");
	ck_assert_int_eq(scan_quirks_new("/nonexistent/hwdb.bin", conf, &q), 0);
	ck_assert(!scan_quirks_active(q));
	scan_quirks_free(q);
}
END_TEST

static const struct {
	const char *s;
	int r;
	uint64_t v;
} max_lun_cases[] = {
	{ "1", 0, 1 },
	{ "8", 0, 8 },
	{ "16384", 0, 16384 },
	{ "16385", -EINVAL, 0 },
	{ "0", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "", -EINVAL, 0 },
	{ "8x", -EINVAL, 0 },
	{ " 8", -EINVAL, 0 },
	{ "18446744073709551617", -EINVAL, 0 },
	/* decimal.h's integers, as every other lund.conf value: no leading zeros or '+' */
	{ "047", -EINVAL, 0 },
	{ "+5", -EINVAL, 0 },
	{ "-0", -EINVAL, 0 },
};

START_TEST(test_parse_max_lun)
{
	uint64_t v = 0;

	ck_assert_int_eq(scan_quirk_parse_max_lun(max_lun_cases[_i].s, &v), max_lun_cases[_i].r);
	if (max_lun_cases[_i].r == 0)
		ck_assert_uint_eq(v, max_lun_cases[_i].v);
}
END_TEST

START_TEST(test_parse_bool)
{
	bool b;

	ck_assert_int_eq(scan_quirk_parse_bool("1", &b), 0);
	ck_assert(b);
	ck_assert_int_eq(scan_quirk_parse_bool("Yes", &b), 0);
	ck_assert(b);
	ck_assert_int_eq(scan_quirk_parse_bool("off", &b), 0);
	ck_assert(!b);
	ck_assert_int_eq(scan_quirk_parse_bool("0", &b), 0);
	ck_assert(!b);
	ck_assert_int_eq(scan_quirk_parse_bool("2", &b), -EINVAL);
	ck_assert_int_eq(scan_quirk_parse_bool("", &b), -EINVAL);
}
END_TEST

static Suite *scanquirk_suite(void)
{
	Suite *s = suite_create("scanquirk");
	TCase *tc = tcase_create("scanquirk");

	tcase_add_checked_fixture(tc, NULL, teardown);
	CHECK_ADD_LOOP(tc, test_lookup, lookup_cases);
	tcase_add_test(tc, test_no_sources);
	CHECK_ADD_LOOP(tc, test_parse_max_lun, max_lun_cases);
	tcase_add_test(tc, test_parse_bool);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(scanquirk_suite)
