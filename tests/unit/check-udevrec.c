/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check-util.h"
#include "udevrec.h"

static CheckTree tree;

static void setup(void)
{
	check_tree_new(&tree, "udevrec");
}

static void teardown(void)
{
	check_tree_remove(&tree);
}

static const struct {
	const char *dir, *name;
	const char *expect; /* NULL: refused with -EINVAL */
} escape_cases[] = {
	{ "scsi/by-id", "scsi-35000c500a1b2c3d4", "scsi/by-id/scsi-35000c500a1b2c3d4" },
	{ "disk/by-path", "pci-0000:00:04.0-scsi-0:0:0:0-sg",
	  "disk/by-path/pci-0000:00:04.0-scsi-0:0:0:0-sg" },
	/* udev's own escapes stay as they are */
	{ "scsi/by-id", "scsi-0QEMU_QEMU\\x20HARDDISK", "scsi/by-id/scsi-0QEMU_QEMU\\x20HARDDISK" },
	/* whitespace would split the name into two links, quotes end the value, '$' and '%'
	 * are udev substitutions, '/' a directory: all escaped */
	{ "scsi/by-id", "a b", "scsi/by-id/a\\x20b" },
	{ "scsi/by-id", "a\tb\nLUND_LINK_1=x", "scsi/by-id/a\\x09b\\x0aLUND_LINK_1=x" },
	{ "scsi/by-id", "x\"y'z", "scsi/by-id/x\\x22y\\x27z" },
	{ "scsi/by-id", "$env{HOME}%k", "scsi/by-id/\\x24env\\x7bHOME\\x7d\\x25k" },
	{ "scsi/by-id", "../../etc", "scsi/by-id/..\\x2f..\\x2fetc" },
	{ "scsi/by-id", "\\x2", "scsi/by-id/\\x5cx2" }, /* not a whole escape */
	{ "scsi/by-id", "caf\xc3\xa9", "scsi/by-id/caf\\xc3\\xa9" },
	{ "scsi/by-id", "..x", "scsi/by-id/..x" },
	{ "scsi/by-id", ".", NULL },
	{ "scsi/by-id", "..", NULL },
	{ "scsi/by-id", "", NULL },
	{ "/scsi/by-id", "a", NULL },
	{ "scsi/../etc", "a", NULL },
	{ "scsi/./by-id", "a", NULL },
	{ "scsi//by-id", "a", NULL },
	{ "scsi/by-id/", "a", NULL },
	{ "..", "a", NULL },
	{ "", "a", NULL },
	{ "scsi/by id", "a", NULL },
};

START_TEST(test_escape)
{
	_cleanup_free_ char *s = NULL;
	int r = udevrec_escape_link(escape_cases[_i].dir, escape_cases[_i].name, &s);

	if (!escape_cases[_i].expect) {
		ck_assert_int_eq(r, -EINVAL);
		return;
	}
	ck_assert_int_eq(r, 0);
	ck_assert_str_eq(s, escape_cases[_i].expect);
	/* what the escape makes, the record takes */
	{
		_cleanup_free_ char *text = NULL;
		const char *links[] = { s };

		ck_assert_int_eq(udevrec_format(links, 1, &text), 0);
	}
}
END_TEST

START_TEST(test_escape_length)
{
	char name[NAME_MAX + 2];
	_cleanup_free_ char *s = NULL;

	memset(name, 'a', NAME_MAX);
	name[NAME_MAX] = 0;
	ck_assert_int_eq(udevrec_escape_link("scsi/by-id", name, &s), 0);
	free(s);
	s = NULL;
	/* a name that fits before escaping but not after */
	name[NAME_MAX - 1] = ' ';
	ck_assert_int_eq(udevrec_escape_link("scsi/by-id", name, &s), -EINVAL);
	ck_assert_ptr_null(s);
}
END_TEST

START_TEST(test_format)
{
	const char *links[] = { "scsi/by-id/scsi-3abc", "scsi/by-id/wwn-0xabc",
		                "scsi/by-path/x-sg" };
	const char *bad[] = { "scsi/by-id/a b",   "scsi/by-id/a\"", "/scsi/by-id/a",
		              "scsi/../a",        "noslash",        "scsi/by-id/..",
		              "scsi/by-id/a\\x2", "scsi/by-id/$x" };
	const char *many[UDEVREC_MAX_LINKS + 1];
	_cleanup_free_ char *text = NULL;

	ck_assert_int_eq(udevrec_format(links, 3, &text), 0);
	ck_assert_str_eq(text, "LUND_LINK_0=\"scsi/by-id/scsi-3abc\"\n"
	                       "LUND_LINK_1=\"scsi/by-id/wwn-0xabc\"\n"
	                       "LUND_LINK_2=\"scsi/by-path/x-sg\"\n");
	free(text);
	ck_assert_int_eq(udevrec_format(NULL, 0, &text), 0);
	ck_assert_str_eq(text, "");
	free(text);
	text = NULL;
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		ck_assert_int_eq(udevrec_format(&bad[i], 1, &text), -EINVAL);
	for (size_t i = 0; i < ELEMENTSOF(many); i++)
		many[i] = links[0];
	ck_assert_int_eq(udevrec_format(many, UDEVREC_MAX_LINKS, &text), 0);
	ck_assert_ptr_nonnull(strstr(text, "LUND_LINK_15="));
	free(text);
	text = NULL;
	ck_assert_int_eq(udevrec_format(many, UDEVREC_MAX_LINKS + 1, &text), -ENOBUFS);
	ck_assert_ptr_null(text);
}
END_TEST

START_TEST(test_keys)
{
	static const char *good[] = { "b8:0", "c21:3", "b259:1048575" };
	static const char *bad[] = { "",
		                     "b",
		                     "b8",
		                     "b8:",
		                     "b:0",
		                     "x8:0",
		                     "b8:0/..",
		                     "../b8:0",
		                     "b8:0:1",
		                     "b-1:0",
		                     "b12345678901:0",
		                     "b8:0 " };
	char key[UDEVREC_KEY_MAX];
	_cleanup_free_ char *path = NULL;

	ck_assert_int_eq(udevrec_key(true, makedev(8, 16), key, sizeof(key)), 0);
	ck_assert_str_eq(key, "b8:16");
	ck_assert_int_eq(udevrec_key(false, makedev(21, 0), key, sizeof(key)), 0);
	ck_assert_str_eq(key, "c21:0");
	ck_assert_int_eq(udevrec_key(false, makedev(21, 0), key, 4), -ENOBUFS);
	for (size_t i = 0; i < ELEMENTSOF(good); i++)
		ck_assert_int_eq(udevrec_key_valid(good[i]), 0);
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		ck_assert_int_eq(udevrec_key_valid(bad[i]), -EINVAL);
		ck_assert_int_eq(udevrec_write(tree.fd, bad[i], ""), -EINVAL);
		ck_assert_int_eq(udevrec_remove(tree.fd, bad[i]), -EINVAL);
	}
	ck_assert_int_eq(udevrec_uevent_path("b8:0", &path), 0);
	ck_assert_str_eq(path, "sys/dev/block/8:0/uevent");
	free(path);
	ck_assert_int_eq(udevrec_uevent_path("c21:0", &path), 0);
	ck_assert_str_eq(path, "sys/dev/char/21:0/uevent");
}
END_TEST

START_TEST(test_write_replace_remove)
{
	_cleanup_free_ char *got = NULL;
	struct stat st1, st2;
	int dfd;

	check_tree_mkdirs(&tree, "run/lund/udev");
	dfd = openat(tree.fd, "run/lund/udev", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);

	ck_assert_int_eq(udevrec_write(dfd, "b8:0", "LUND_LINK_0=\"scsi/by-id/a\"\n"), 1);
	got = check_tree_get(&tree, "run/lund/udev/b8:0");
	ck_assert_str_eq(got, "LUND_LINK_0=\"scsi/by-id/a\"\n");
	free(got);
	ck_assert_int_eq(fstatat(dfd, "b8:0", &st1, 0), 0);
	ck_assert_uint_eq(st1.st_mode & 07777, 0644);

	/* the same text again: nothing written */
	ck_assert_int_eq(udevrec_write(dfd, "b8:0", "LUND_LINK_0=\"scsi/by-id/a\"\n"), 0);
	ck_assert_int_eq(fstatat(dfd, "b8:0", &st2, 0), 0);
	ck_assert_uint_eq(st1.st_ino, st2.st_ino);

	/* a change is a new file renamed over the old one: readers see one or the other */
	ck_assert_int_eq(udevrec_write(dfd, "b8:0", "LUND_LINK_0=\"scsi/by-id/b\"\n"), 1);
	ck_assert_int_eq(fstatat(dfd, "b8:0", &st2, 0), 0);
	ck_assert_uint_ne(st1.st_ino, st2.st_ino);
	got = check_tree_get(&tree, "run/lund/udev/b8:0");
	ck_assert_str_eq(got, "LUND_LINK_0=\"scsi/by-id/b\"\n");
	free(got);
	/* a shorter text is not a prefix match of the longer one */
	ck_assert_int_eq(udevrec_write(dfd, "b8:0", "LUND_LINK_0=\"scsi/by-id/b\"\nX"), 1);
	ck_assert_int_eq(udevrec_write(dfd, "b8:0", "LUND_LINK_0=\"scsi/by-id/b\"\n"), 1);
	got = check_tree_get(&tree, "run/lund/udev/b8:0");
	ck_assert_str_eq(got, "LUND_LINK_0=\"scsi/by-id/b\"\n");
	free(got);

	/* a leftover temporary file of an interrupted write does not block the next one */
	check_tree_put_str(&tree, "run/lund/udev/.#c21:0", "junk");
	ck_assert_int_eq(udevrec_write(dfd, "c21:0", "LUND_LINK_0=\"scsi/by-id/a-sg\"\n"), 1);
	ck_assert_int_eq(faccessat(dfd, ".#c21:0", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	got = check_tree_get(&tree, "run/lund/udev/c21:0");
	ck_assert_str_eq(got, "LUND_LINK_0=\"scsi/by-id/a-sg\"\n");
	free(got);
	got = NULL;

	/* a symlink planted at the name is replaced, never written through */
	check_tree_put_str(&tree, "victim", "keep");
	ck_assert_int_eq(symlinkat("../../../victim", dfd, "b8:16"), 0);
	ck_assert_int_eq(udevrec_write(dfd, "b8:16", "LUND_LINK_0=\"scsi/by-id/c\"\n"), 1);
	got = check_tree_get(&tree, "victim");
	ck_assert_str_eq(got, "keep");
	free(got);
	got = NULL;
	ck_assert_int_eq(fstatat(dfd, "b8:16", &st1, AT_SYMLINK_NOFOLLOW), 0);
	ck_assert(S_ISREG(st1.st_mode));

	ck_assert_int_eq(udevrec_remove(dfd, "b8:0"), 1);
	ck_assert_int_eq(udevrec_remove(dfd, "b8:0"), 0);
	ck_assert_int_eq(faccessat(dfd, "b8:0", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	ck_assert_int_eq(udevrec_write(-1, "b8:0", "x"), -EBADF);
	close(dfd);
}
END_TEST

static Suite *udevrec_suite(void)
{
	Suite *s = suite_create("udevrec");
	TCase *tc = tcase_create("udevrec");

	tcase_add_checked_fixture(tc, setup, teardown);
	CHECK_ADD_LOOP(tc, test_escape, escape_cases);
	tcase_add_test(tc, test_escape_length);
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_keys);
	tcase_add_test(tc, test_write_replace_remove);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(udevrec_suite)
