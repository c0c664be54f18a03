/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * namestate: the name record file in a temporary state directory: missing, written and read
 * back, damaged (cut short, a wrong header, too big, a symlink or directory in its place, a
 * stale temporary file) and written again.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-util.h"
#include "namestate.h"

static CheckTree tree;

static void setup(void)
{
	check_tree_new(&tree, "namestate");
}

static void teardown(void)
{
	check_tree_remove(&tree);
}

static int open_state(void)
{
	int fd = namestate_open_dir(tree.fd, "/var/lib/lund", true);

	ck_assert_int_ge(fd, 0);
	return fd;
}

START_TEST(test_missing_then_saved)
{
	NameRecSet s = {}, back = {};
	NameStateDamage d = { .unusable = true, .bad_lines = 9 };
	int fd;
	char *text;

	ck_assert_int_eq(namestate_open_dir(tree.fd, "var/lib/lund", false), -ENOENT);
	fd = open_state();
	ck_assert_int_eq(namestate_load(fd, &s, &d), 0);
	ck_assert_uint_eq(s.n, 0);
	ck_assert(!d.unusable);
	ck_assert_uint_eq(d.bad_lines, 0);

	ck_assert_int_eq(namerec_set_add(&s, "B", "scsi/by-id/b", NAMEREC_NAME), 0);
	ck_assert_int_eq(namerec_set_add(&s, "A", "scsi/by-id/a", NAMEREC_ALIAS), 0);
	namerec_set_sort(&s);
	ck_assert_int_eq(namestate_save(fd, &s), 0);
	text = check_tree_get(&tree, "var/lib/lund/names");
	ck_assert_str_eq(check_unsum(text),
	                 "lund-names 1\nA alias scsi/by-id/a\nB name scsi/by-id/b\n");
	free(text);
	ck_assert_ptr_null(check_tree_get(&tree, "var/lib/lund/" NAMESTATE_TMP));

	ck_assert_int_eq(namestate_load(fd, &back, &d), 0);
	ck_assert_uint_eq(back.n, 2);
	ck_assert_str_eq(back.rec[0].identity, "A");
	ck_assert_int_eq(back.rec[0].state, NAMEREC_ALIAS);
	ck_assert(!d.unusable);
	namerec_set_done(&s);
	namerec_set_done(&back);
	close(fd);
}
END_TEST

static const struct {
	const char *content;
	bool unusable;
	size_t n, bad;
} damaged[] = {
	{ "lund-names 1\nA name a\nB name", false, 1, 1 }, /* cut short by a crash */
	{ "lund-names 1\nA name a\nA name a/..\n", false, 1, 1 },
	{ "", true, 0, 0 },                         /* created, never written */
	{ "lund-names 9\nA name a\n", true, 0, 0 }, /* a future format */
	{ "\x7f"
	  "ELF\x02\x01\x01\0\0\0\0",
	  true, 0, 0 }, /* something else entirely */
};

START_TEST(test_damaged)
{
	NameRecSet s = {}, fixed = {};
	NameStateDamage d;
	int fd;

	check_tree_mkdirs(&tree, "var/lib/lund");
	check_tree_put(&tree, "var/lib/lund/names", damaged[_i].content,
	               strlen(damaged[_i].content));
	fd = open_state();
	ck_assert_int_eq(namestate_load(fd, &s, &d), 0);
	ck_assert_int_eq(d.unusable, damaged[_i].unusable);
	ck_assert_uint_eq(d.bad_lines, damaged[_i].bad);
	ck_assert_uint_eq(s.n, damaged[_i].n);

	/* Repaired: what was read, written again, reads back without damage. */
	ck_assert_int_eq(namestate_save(fd, &s), 0);
	ck_assert_int_eq(namestate_load(fd, &fixed, &d), 0);
	ck_assert(!d.unusable);
	ck_assert_uint_eq(d.bad_lines, 0);
	ck_assert_uint_eq(fixed.n, damaged[_i].n);
	namerec_set_done(&s);
	namerec_set_done(&fixed);
	close(fd);
}
END_TEST

START_TEST(test_too_big)
{
	NameRecSet s = {};
	NameStateDamage d;
	int fd = open_state(), f;

	f = openat(fd, NAMESTATE_FILE, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(f, 0);
	ck_assert_int_eq(ftruncate(f, (off_t)NAMEREC_FILE_MAX + 1), 0);
	close(f);
	ck_assert_int_eq(namestate_load(fd, &s, &d), 0);
	ck_assert(d.unusable);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_int_eq(namestate_save(fd, &s), 0);
	ck_assert_int_eq(namestate_load(fd, &s, &d), 0);
	ck_assert(!d.unusable);
	close(fd);
}
END_TEST

/* A file whose checksum does not match: unusable, and set aside (not overwritten) on request. */
START_TEST(test_checksum)
{
	NameRecSet s = {};
	NameStateDamage d;
	int fd = open_state();
	char *text;

	ck_assert_int_eq(namerec_set_add(&s, "A", "scsi/by-id/a", NAMEREC_NAME), 0);
	ck_assert_int_eq(namestate_save(fd, &s), 0);
	namerec_set_done(&s);
	text = check_tree_get(&tree, "var/lib/lund/names");
	text[strlen("lund-names 1\n")] = 'B'; /* the identity is another's now */
	check_tree_put_str(&tree, "var/lib/lund/names", text);
	ck_assert_int_eq(namestate_load(fd, &s, &d), 0);
	ck_assert(d.unusable);
	ck_assert(d.checksum);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_int_eq(namestate_set_aside(fd), 0);
	free(check_tree_get(&tree, "var/lib/lund/" NAMESTATE_DAMAGED));
	ck_assert_int_eq(faccessat(fd, NAMESTATE_FILE, F_OK, AT_SYMLINK_NOFOLLOW), -1);
	free(text);
	close(fd);
}
END_TEST

/* A FIFO at the file's path: damage, read at once, never a wait for a writer. */
START_TEST(test_fifo)
{
	NameRecSet s = {};
	NameStateDamage d;
	int fd = open_state();

	ck_assert_int_eq(mkfifoat(fd, NAMESTATE_FILE, 0600), 0);
	ck_assert_int_eq(namestate_load(fd, &s, &d), 0);
	ck_assert(d.unusable);
	ck_assert_uint_eq(s.n, 0);
	/* the next save replaces it */
	ck_assert_int_eq(namerec_set_add(&s, "A", "a", NAMEREC_NAME), 0);
	ck_assert_int_eq(namestate_save(fd, &s), 0);
	namerec_set_done(&s);
	ck_assert_int_eq(namestate_load(fd, &s, &d), 0);
	ck_assert(!d.unusable);
	ck_assert_uint_eq(s.n, 1);
	namerec_set_done(&s);
	close(fd);
}
END_TEST

START_TEST(test_not_a_file)
{
	NameRecSet s = {};
	NameStateDamage d;
	int fd = open_state();
	char *text;

	/* A symlink in place of the file or the temporary file is never followed. */
	check_tree_put_str(&tree, "victim", "keep\n");
	ck_assert_int_eq(symlinkat("../../../victim", fd, NAMESTATE_FILE), 0);
	ck_assert_int_eq(symlinkat("../../../victim", fd, NAMESTATE_TMP), 0);
	ck_assert_int_eq(namestate_load(fd, &s, &d), 0);
	ck_assert(d.unusable);
	ck_assert_int_eq(namerec_set_add(&s, "A", "a", NAMEREC_NAME), 0);
	ck_assert_int_eq(namestate_save(fd, &s), 0);
	text = check_tree_get(&tree, "victim");
	ck_assert_str_eq(text, "keep\n");
	free(text);
	text = check_tree_get(&tree, "var/lib/lund/names");
	ck_assert_str_eq(check_unsum(text), "lund-names 1\nA name a\n");
	free(text);
	namerec_set_done(&s);

	/* A directory in its place: reported, and the save fails without a crash. */
	check_tree_rm(&tree, "var/lib/lund/names");
	check_tree_mkdirs(&tree, "var/lib/lund/names/x");
	ck_assert_int_eq(namestate_load(fd, &s, &d), 0);
	ck_assert(d.unusable);
	ck_assert_int_lt(namestate_save(fd, &s), 0);
	ck_assert_ptr_null(check_tree_get(&tree, "var/lib/lund/" NAMESTATE_TMP));
	close(fd);

	/* A symlinked state directory is refused. */
	check_tree_mkdirs(&tree, "elsewhere");
	ck_assert_int_eq(symlinkat("../elsewhere", tree.fd, "var/link"), 0);
	ck_assert_int_eq(namestate_open_dir(tree.fd, "var/link/lund", true), -ENOTDIR);
	ck_assert_int_eq(namestate_open_dir(tree.fd, "var/../lund", true), -EINVAL);
}
END_TEST

static Suite *namestate_suite(void)
{
	Suite *s = suite_create("namestate");
	TCase *tc = tcase_create("io");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_missing_then_saved);
	CHECK_ADD_LOOP(tc, test_damaged, damaged);
	tcase_add_test(tc, test_too_big);
	tcase_add_test(tc, test_not_a_file);
	tcase_add_test(tc, test_fifo);
	tcase_add_test(tc, test_checksum);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(namestate_suite)
