/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Driver loading (daemon/modload.h): libkmod, and libcrypto with it, is mapped only once a
 * driver is to be loaded, never where udevd runs. No module is loaded here: a test only asks for
 * the library to be set up (modload_prepare()), or runs where udevd's socket says udevd loads
 * the drivers.
 */

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check-util.h"
#include "config.h"
#include "macro.h"
#include "modload.h"

static CheckTree tree;

static void setup(void)
{
	check_tree_new(&tree, "modload");
}

static void teardown(void)
{
	check_tree_remove(&tree);
}

/* Is a libkmod mapped into this process? */
static bool libkmod_mapped(void)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "re");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/libkmod.so"))
			found = true;
	fclose(f);
	return found;
}

START_TEST(test_modload_never)
{
	ModLoader *ml = (ModLoader *)1;

	ck_assert_int_eq(modload_new(tree.fd, MODLOAD_NEVER, &ml), 0);
	ck_assert_ptr_null(ml);
	ck_assert(!modload_active(ml));
	ck_assert_int_eq(modload_lu(ml, "0:0:0:0", "sys/devices/x/0:0:0:0", "scsi:t-0x00"), 0);
	ck_assert_int_eq(modload_prepare(ml), -EOPNOTSUPP);
	ck_assert(!libkmod_mapped());
}
END_TEST

#if HAVE_KMOD
/* udevd runs: modload_lu() does nothing, and maps nothing. */
START_TEST(test_modload_udevd)
{
	ModLoader *ml = NULL;

	ck_assert(!libkmod_mapped()); /* the test is linked without it */
	check_tree_put_str(&tree, "run/udev/control", "");
	ck_assert_int_eq(modload_new(tree.fd, MODLOAD_AUTO, &ml), 0);
	ck_assert_ptr_nonnull(ml);
	ck_assert(!modload_active(ml));
	ck_assert_int_eq(modload_lu(ml, "0:0:0:0", "sys/devices/x/0:0:0:0", "scsi:t-0x00"), 0);
	ck_assert(!libkmod_mapped());
	modload_free(ml);
}
END_TEST

/* Without udevd the library is loaded when needed, once, and every function resolves. */
START_TEST(test_modload_prepare)
{
	ModLoader *ml = NULL;

	ck_assert_int_eq(modload_new(tree.fd, MODLOAD_AUTO, &ml), 0);
	ck_assert(modload_active(ml));
	ck_assert(!libkmod_mapped());
	ck_assert_int_eq(modload_prepare(ml), 0);
	ck_assert(libkmod_mapped());
	ck_assert_int_eq(modload_prepare(ml), 0);
	modload_free(ml);
}
END_TEST
#endif

static Suite *modload_suite(void)
{
	Suite *s = suite_create("modload");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_modload_never);
#if HAVE_KMOD
	tcase_add_test(tc, test_modload_udevd);
	tcase_add_test(tc, test_modload_prepare);
#endif
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(modload_suite)
