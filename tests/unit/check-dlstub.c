/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dlstub: the loader of the libraries lund and lunctl load on first use, and the stubs it
 * generates. A library resolves all its functions or none; one that cannot be loaded is reported
 * once, however many stubs are called, and every stub then returns a zero of its type (lund
 * goes on without SCSI commands: src/daemon/lund-libs.c).
 */

#include <check.h>
#include <errno.h>
#include <unistd.h>

#include "check-util.h"
#include "dlstub.h"
#include "macro.h"

static unsigned n_failed;
static const char *failed_soname;

static void on_fail(const char *soname, const char *error)
{
	n_failed++;
	failed_soname = soname;
	ck_assert_ptr_nonnull(error);
}

/* A library no system has, with one function of each kind. */
#define MISSING_SONAME "liblund-check-missing.so.0"
int dlstub_check_add(int a, int b);
const char *dlstub_check_name(int i);
void dlstub_check_touch(int *p);

#define MISSING_FUNCTIONS(F, V)                          \
	F(int, dlstub_check_add, (int a, int b), (a, b)) \
	F(const char *, dlstub_check_name, (int i), (i)) \
	V(dlstub_check_touch, (int *p), (p))

#define DLSTUB_F_missing(...) DLSTUB_F(missing, __VA_ARGS__)
#define DLSTUB_V_missing(...) DLSTUB_V(missing, __VA_ARGS__)

DLSTUB_LIBRARY(missing, MISSING_SONAME, MISSING_FUNCTIONS, on_fail)

START_TEST(test_stubs_without_library)
{
	int x = 7;

	n_failed = 0;
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(dlstub_check_add(1, 2), 0);
		ck_assert_ptr_null(dlstub_check_name(i));
		dlstub_check_touch(&x);
	}
	ck_assert_int_eq(x, 7);
	ck_assert_uint_eq(n_failed, 1);
	ck_assert_str_eq(failed_soname, MISSING_SONAME);
}
END_TEST

START_TEST(test_load)
{
	static const char *const names[] = { "getpid", "getppid" };
	static const char *const lacking[] = { "getpid", "lund_check_no_such_function" };
	void *fns[2] = { NULL, NULL };
	void *dl = NULL;

	n_failed = 0;
	ck_assert_int_eq(dlstub_load("libc.so.6", names, 2, fns, &dl, on_fail), 0);
	ck_assert_ptr_nonnull(dl);
	ck_assert_int_eq(((pid_t(*)(void))fns[0])(), getpid());
	ck_assert_int_eq(((pid_t(*)(void))fns[1])(), getppid());
	ck_assert_uint_eq(n_failed, 0);

	/* All or none: the function found first is not left behind. */
	ck_assert_int_eq(dlstub_load("libc.so.6", lacking, 2, fns, NULL, on_fail), -ELIBBAD);
	ck_assert_ptr_null(fns[0]);
	ck_assert_ptr_null(fns[1]);
	ck_assert_uint_eq(n_failed, 1);

	ck_assert_int_eq(dlstub_load(MISSING_SONAME, names, 2, fns, NULL, NULL), -ELIBACC);
	ck_assert_uint_eq(n_failed, 1);
}
END_TEST

static Suite *dlstub_suite(void)
{
	Suite *s = suite_create("dlstub");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_stubs_without_library);
	tcase_add_test(tc, test_load);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(dlstub_suite)
