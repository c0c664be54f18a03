/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * checktree: the temporary trees of check-util.h themselves. A test that fails ends its process
 * (check forks one per test and exits it on a failed assertion) before its own
 * check_tree_remove(): the tree must be removed anyway, or every failing run of a tree-based test
 * leaves a directory in $TMPDIR. And the fake LU every tree-based test builds.
 */

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check-util.h"

/* A child makes a tree with a file in it (and removes it itself if @remove_first), then exits
 * with 1 the way a failed assertion does. The tree's path is returned in @path. */
static void child_tree(bool remove_first, char *path, size_t size)
{
	int pfd[2];
	pid_t pid;
	int status;
	ssize_t n;

	ck_assert_int_eq(pipe(pfd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		CheckTree t;

		close(pfd[0]);
		check_tree_new(&t, "check-checktree");
		check_tree_mkdirs(&t, "sys/class");
		check_tree_put_str(&t, "sys/class/x", "1\n");
		if (write(pfd[1], t.path, strlen(t.path)) < 0)
			_exit(3);
		close(pfd[1]);
		if (remove_first)
			check_tree_remove(&t);
		exit(1);
	}
	close(pfd[1]);
	n = read(pfd[0], path, size - 1);
	close(pfd[0]);
	ck_assert_int_gt(n, 0);
	path[n] = 0;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 1);
}

START_TEST(test_failed_test_leaves_no_tree)
{
	char path[PATH_MAX];

	child_tree(false, path, sizeof(path));
	ck_assert_msg(access(path, F_OK) < 0 && errno == ENOENT, "%s left behind", path);
}
END_TEST

START_TEST(test_removed_tree_stays_removed)
{
	char path[PATH_MAX];

	child_tree(true, path, sizeof(path));
	ck_assert_msg(access(path, F_OK) < 0 && errno == ENOENT, "%s left behind", path);
}
END_TEST

/* The LU builder writes what the kernel shows: padded strings, INQUIRY, nodes, the bus link. */
START_TEST(test_put_lu)
{
	static const char inq[] = "\x01\x00\x06\x02\x1f\x00\x00\x00QEMU    TAPE            2.5+";
	static const char *const want[][2] = {
		{ "sys/bus/scsi/devices/0:0:1:0/type", "1\n" },
		{ "sys/bus/scsi/devices/0:0:1:0/vendor", "QEMU    \n" },
		{ "sys/bus/scsi/devices/0:0:1:0/model", "TAPE            \n" },
		{ "sys/bus/scsi/devices/0:0:1:0/rev", "2.5+\n" },
		{ "sys/devices/h/t/0:0:1:0/scsi_level", "7\n" },
		{ "sys/devices/h/t/0:0:1:0/scsi_tape/st0/dev", "9:0\n" },
		{ "sys/devices/h/t/0:0:1:0/timeout", "30\n" },
	};
	CheckTree t;
	char *v;

	check_tree_new(&t, "check-checktree");
	check_tree_put_lu(&t, &(CheckLu){ .hctl = "0:0:1:0",
	                                  .parent = "h/t",
	                                  .type = 1,
	                                  .vendor = "QEMU",
	                                  .model = "TAPE",
	                                  .rev = "2.5+",
	                                  .inquiry = true,
	                                  .scsi_level = 7,
	                                  .tape = { "st0", "9:0\n" },
	                                  .sg = { "sg1" },
	                                  .attrs = { { "timeout", "30\n" } } });
	for (size_t i = 0; i < ELEMENTSOF(want); i++) {
		v = check_tree_get(&t, want[i][0]);
		ck_assert_msg(v && streq(v, want[i][1]), "%s: %s", want[i][0], v ?: "(none)");
		free(v);
	}
	v = check_tree_get(&t, "sys/bus/scsi/devices/0:0:1:0/inquiry");
	ck_assert_ptr_nonnull(v);
	ck_assert_mem_eq(v, inq, 36);
	free(v);
	ck_assert_int_eq(faccessat(t.fd, "sys/devices/h/t/0:0:1:0/scsi_generic/sg1", F_OK, 0), 0);
	ck_assert_int_lt(faccessat(t.fd, "sys/devices/h/t/0:0:1:0/block", F_OK, 0), 0);
	check_tree_remove(&t);
}
END_TEST

static Suite *checktree_suite(void)
{
	Suite *s = suite_create("checktree");
	TCase *tc = tcase_create("checktree");

	tcase_add_test(tc, test_failed_test_leaves_no_tree);
	tcase_add_test(tc, test_removed_tree_stays_removed);
	tcase_add_test(tc, test_put_lu);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(checktree_suite)
