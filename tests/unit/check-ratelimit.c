/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * shared/ratelimit.h: a burst per interval passes, the rest are counted, and the first message
 * of the next interval carries the suppressed count. Time is passed in, never read.
 */

#include <check.h>

#include "check-util.h"
#include "ratelimit.h"

START_TEST(test_burst_then_fold)
{
	RateLimit rl = RATELIMIT_INIT(10, 3);
	unsigned suppressed = 99;

	for (unsigned i = 0; i < 3; i++) {
		ck_assert(ratelimit_below(&rl, 100 + i, &suppressed));
		ck_assert_uint_eq(suppressed, 0);
	}
	for (unsigned i = 0; i < 5; i++)
		ck_assert(!ratelimit_below(&rl, 105, &suppressed));
	/* The next interval: one passes and reports the five folded ones. */
	ck_assert(ratelimit_below(&rl, 110, &suppressed));
	ck_assert_uint_eq(suppressed, 5);
	ck_assert(ratelimit_below(&rl, 111, &suppressed));
	ck_assert_uint_eq(suppressed, 0);
}
END_TEST

START_TEST(test_clock_backwards)
{
	RateLimit rl = RATELIMIT_INIT(10, 1);

	ck_assert(ratelimit_below(&rl, 1000, NULL));
	ck_assert(!ratelimit_below(&rl, 1001, NULL));
	/* A time before the interval's start begins a new interval rather than stalling. */
	ck_assert(ratelimit_below(&rl, 5, NULL));
}
END_TEST

static Suite *ratelimit_suite(void)
{
	Suite *s = suite_create("ratelimit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_burst_then_fold);
	tcase_add_test(tc, test_clock_backwards);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(ratelimit_suite)
