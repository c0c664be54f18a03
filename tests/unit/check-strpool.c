/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The inventory's shared strings: one copy per distinct string, counted, freed at zero. */

#include <check.h>
#include <stdio.h>

#include "check-util.h"
#include "macro.h"
#include "strpool.h"

START_TEST(test_strpool_share)
{
	StrPool *p = strpool_new();
	char buf[16];
	const char *a, *b, *c;

	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_null(strpool_get(p, NULL));
	a = strpool_get(p, "running");
	snprintf(buf, sizeof(buf), "%s", "running");
	b = strpool_get(p, buf);
	ck_assert_ptr_eq(a, b);
	ck_assert_str_eq(a, "running");
	c = strpool_get(p, "offline");
	ck_assert_ptr_ne(a, c);
	strpool_put(p, a);
	/* still held once */
	ck_assert_ptr_eq(strpool_get(p, "running"), b);
	strpool_put(p, b);
	strpool_put(p, b);
	strpool_put(p, c);
	strpool_put(p, NULL);
	strpool_free(p);
}
END_TEST

/* Many distinct strings (the table grows), each taken twice and given back in another order:
 * every copy is found again and freed once (ASan's leak check runs this too). */
START_TEST(test_strpool_many)
{
	enum { N = 1000 };
	StrPool *p = strpool_new();
	const char *s[N];
	char buf[32];

	ck_assert_ptr_nonnull(p);
	for (unsigned i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "model-%u", i);
		s[i] = strpool_get(p, buf);
		ck_assert_ptr_nonnull(s[i]);
	}
	for (unsigned i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "model-%u", i);
		ck_assert_ptr_eq(strpool_get(p, buf), s[i]);
	}
	for (unsigned i = N; i-- > 0;)
		strpool_put(p, s[i]);
	for (unsigned i = 0; i < N; i += 2)
		strpool_put(p, s[i]);
	/* the odd ones are still there, the even ones were freed and come back as new */
	for (unsigned i = 1; i < N; i += 2) {
		snprintf(buf, sizeof(buf), "model-%u", i);
		ck_assert_str_eq(s[i], buf);
	}
	strpool_free(p); /* frees what is still held */
}
END_TEST

static Suite *strpool_suite(void)
{
	Suite *s = suite_create("strpool");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_strpool_share);
	tcase_add_test(tc, test_strpool_many);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(strpool_suite)
