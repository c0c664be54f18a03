/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * shared/grow.h: appends keep what was there, the capacity at least doubles, exact growth
 * sizes to the need, and an overflowing size fails leaving the array as it was.
 */

#include <check.h>
#include <stdint.h>

#include "check-util.h"
#include "grow.h"

START_TEST(test_greedy_append)
{
	unsigned *v = NULL;
	size_t n = 0, allocated = 0, reallocs = 0;

	for (unsigned i = 0; i < 1000; i++) {
		size_t before = allocated;

		ck_assert_int_eq(GREEDY_REALLOC(v, allocated, n + 1), 0);
		ck_assert_uint_ge(allocated, n + 1);
		if (allocated != before) {
			ck_assert_uint_ge(allocated, 2 * before);
			reallocs++;
		}
		v[n++] = i;
	}
	for (unsigned i = 0; i < 1000; i++)
		ck_assert_uint_eq(v[i], i);
	/* Amortised: a handful of reallocations, not one per append. */
	ck_assert_uint_le(reallocs, 10);
	/* Already big enough: nothing moves. */
	unsigned *same = v;
	ck_assert_int_eq(GREEDY_REALLOC(v, allocated, 10), 0);
	ck_assert_ptr_eq(v, same);
	free(v);
}
END_TEST

START_TEST(test_greedy_need_beyond_double)
{
	char *v = NULL;
	size_t allocated = 0;

	ck_assert_int_eq(GREEDY_REALLOC(v, allocated, 1), 0);
	ck_assert_uint_eq(allocated, 4);
	ck_assert_int_eq(GREEDY_REALLOC(v, allocated, 100), 0);
	ck_assert_uint_eq(allocated, 100);
	ck_assert_int_eq(GREEDY_REALLOC(v, allocated, 101), 0);
	ck_assert_uint_eq(allocated, 200);
	free(v);
}
END_TEST

START_TEST(test_exact)
{
	uint64_t *v = NULL;

	for (size_t n = 1; n <= 5; n++) {
		ck_assert_int_eq(GREEDY_REALLOC_EXACT(v, n), 0);
		v[n - 1] = n;
	}
	for (size_t n = 1; n <= 5; n++)
		ck_assert_uint_eq(v[n - 1], n);
	free(v);
}
END_TEST

START_TEST(test_overflow)
{
	uint64_t *v = NULL;
	size_t allocated = 0;

	ck_assert_int_eq(GREEDY_REALLOC(v, allocated, 3), 0);
	v[0] = 42;
	uint64_t *old = v;
	ck_assert_int_eq(GREEDY_REALLOC(v, allocated, SIZE_MAX / 4), -ENOMEM);
	ck_assert_int_eq(GREEDY_REALLOC_EXACT(v, SIZE_MAX / 2), -ENOMEM);
	ck_assert_int_eq(GREEDY_REALLOC_EXACT(v, 0), -ENOMEM);
	ck_assert_ptr_eq(v, old);
	ck_assert_uint_eq(allocated, 4);
	ck_assert_uint_eq(v[0], 42);
	free(v);
}
END_TEST

static Suite *grow_suite(void)
{
	Suite *s = suite_create("grow");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_greedy_append);
	tcase_add_test(tc, test_greedy_need_beyond_double);
	tcase_add_test(tc, test_exact);
	tcase_add_test(tc, test_overflow);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(grow_suite)
