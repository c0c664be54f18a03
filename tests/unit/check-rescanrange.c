/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rescanrange: the lists `lunctl rescan` takes for --hosts, --channels, --ids and --luns, in
 * rescan-scsi-bus.sh's syntax ("A[-B][,C[-D]]...", no blanks), each value bounded; bad input
 * is refused with a reason naming the element.
 */

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "lunctl-rescan-range.h"

static const struct {
	const char *s;
	uint64_t max;
	int ret;
	const char *values; /* the distinct values, comma-separated */
	const char *why;    /* a word the reason must hold */
} cases[] = {
	{ "0", UINT32_MAX, 0, "0" },
	{ "0-3,5", UINT32_MAX, 0, "0,1,2,3,5" },
	{ "5,0-3", UINT32_MAX, 0, "0,1,2,3,5" },
	{ "2-2", UINT32_MAX, 0, "2" },
	{ "0-3,2-5,4", UINT32_MAX, 0, "0,1,2,3,4,5" },
	{ "7,7", UINT32_MAX, 0, "7" },
	{ "4294967295", UINT32_MAX, 0, "4294967295" },
	{ "18446744073709551615", UINT64_MAX, 0, "18446744073709551615" },
	{ "", UINT32_MAX, -EINVAL, NULL, "empty" },
	{ ",", UINT32_MAX, -EINVAL, NULL, "empty" },
	{ "1,", UINT32_MAX, -EINVAL, NULL, "empty" },
	{ "1,,2", UINT32_MAX, -EINVAL, NULL, "empty" },
	{ "3-1", UINT32_MAX, -EINVAL, NULL, "backwards" },
	{ "1-", UINT32_MAX, -EINVAL, NULL, "'1-'" },
	{ "-1", UINT32_MAX, -EINVAL, NULL, "'-1'" },
	{ "1-2-3", UINT32_MAX, -EINVAL, NULL, "'1-2-3'" },
	{ "a", UINT32_MAX, -EINVAL, NULL, "'a'" },
	{ "0x3", UINT32_MAX, -EINVAL, NULL, "'0x3'" },
	{ " 1", UINT32_MAX, -EINVAL, NULL, "digits" },
	{ "1 ,2", UINT32_MAX, -EINVAL, NULL, "digits" },
	{ "+1", UINT32_MAX, -EINVAL, NULL, "digits" },
	{ "4294967296", UINT32_MAX, -EINVAL, NULL, "largest" },
	{ "0-4294967296", UINT32_MAX, -EINVAL, NULL, "largest" },
	{ "18446744073709551616", UINT64_MAX, -EINVAL, NULL, "'18446744073709551616'" },
};

START_TEST(test_parse)
{
	RangeList l = {};
	char err[256] = "", got[256] = "";
	_cleanup_free_ uint64_t *v = NULL;
	size_t n = 0;
	int r;

	r = range_list_parse(cases[_i].s, cases[_i].max, "thing", &l, err, sizeof(err));
	ck_assert_msg(r == cases[_i].ret, "'%s': %d (%s)", cases[_i].s, r, err);
	if (r < 0) {
		ck_assert_msg(strstr(err, cases[_i].why), "'%s': reason '%s' lacks '%s'",
		              cases[_i].s, err, cases[_i].why);
		ck_assert_msg(strstr(err, "thing"), "'%s': reason '%s' does not say what",
		              cases[_i].s, err);
		ck_assert_ptr_null(l.v);
		return;
	}
	ck_assert_int_eq(range_list_values(&l, 1000, &v, &n), 0);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(got);

		snprintf(got + len, sizeof(got) - len, "%s%llu", i ? "," : "",
		         (unsigned long long)v[i]);
	}
	ck_assert_str_eq(got, cases[_i].values);
	ck_assert_uint_eq(range_list_count(&l), n);
	range_list_done(&l);
}
END_TEST

START_TEST(test_count)
{
	RangeList l = {};
	uint64_t *v = NULL;
	size_t n;

	ck_assert_int_eq(range_list_parse("0-16383,20000", UINT64_MAX, "LUN", &l, NULL, 0), 0);
	ck_assert_uint_eq(range_list_count(&l), 16385);
	ck_assert_int_eq(range_list_values(&l, 16384, &v, &n), -E2BIG);
	ck_assert_int_eq(range_list_values(&l, 16385, &v, &n), 0);
	ck_assert_uint_eq(n, 16385);
	ck_assert_uint_eq(v[16384], 20000);
	free(v);
	range_list_done(&l);

	ck_assert_int_eq(range_list_parse("0-18446744073709551615", UINT64_MAX, "LUN", &l, NULL, 0),
	                 0);
	ck_assert_uint_eq(range_list_count(&l), UINT64_MAX);
	ck_assert_int_eq(range_list_values(&l, 100, &v, &n), -E2BIG);
	range_list_done(&l);
}
END_TEST

static Suite *rescanrange_suite(void)
{
	Suite *s = suite_create("rescanrange");
	TCase *tc = tcase_create("core");

	CHECK_ADD_LOOP(tc, test_parse, cases);
	tcase_add_test(tc, test_count);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(rescanrange_suite)
