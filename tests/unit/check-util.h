/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What every tests/unit/check-<module>.c needs besides its own cases, in one place. A check
 * file builds one Suite in a function and ends with CHECK_MAIN() of it:
 *
 *	static Suite *vpd_suite(void)
 *	{
 *		Suite *s = suite_create("vpd");
 *		TCase *tc = tcase_create("core");
 *
 *		CHECK_ADD_LOOP(tc, test_pg83, pg83_cases);
 *		suite_add_tcase(s, tc);
 *		return s;
 *	}
 *
 *	CHECK_MAIN(vpd_suite)
 *
 * Tests that need files get them from here: a CheckTree is a temporary directory that stands
 * in for the root file system (sysfs, /dev, /run) of the I/O code, which opens everything
 * relative to a root fd; check_read_file() and check_fixture_list() read tests/fixtures/
 * (FIXTURES_DIR, set by tests/unit/meson.build). Every helper fails the running test rather
 * than return an error: a test has nothing better to do with one.
 */

#include <check.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "macro.h"

/* Runs @s with check's environment settings (CK_VERBOSITY, CK_RUN_CASE, ...) and frees it.
 * Returns the exit status of the test program: EXIT_SUCCESS when every test passed. */
int check_run(Suite *s);

#define CHECK_MAIN(suite_fn)                  \
	int main(void)                        \
	{                                     \
		return check_run(suite_fn()); \
	}

/* One loop test per row of the static array @table; the row is _i in @fn. */
#define CHECK_ADD_LOOP(tc, fn, table) tcase_add_loop_test((tc), (fn), 0, (int)ELEMENTSOF(table))

/* snprintf() into the array @buf that fails the test instead of truncating. */
#define xsnprintf(buf, ...) \
	ck_assert_int_lt(snprintf((buf), sizeof(buf), __VA_ARGS__), (int)sizeof(buf))

typedef struct CheckTree {
	char path[PATH_MAX]; /* "$TMPDIR/<name>-XXXXXX" made unique */
	int fd;              /* O_PATH directory fd on @path, the root fd of the code under test */
} CheckTree;

/* Creates an empty tree for one test (call it from a fixture's setup). */
void check_tree_new(CheckTree *t, const char *name);

/* Closes the fd and removes the tree with everything in it; a tree never made is left alone. */
void check_tree_remove(CheckTree *t);

/* rm -rf @rel below the tree. Safe from any thread: it fails no test, whatever is left. */
void check_tree_rm(const CheckTree *t, const char *rel);

/* mkdir -p @rel below the tree. */
void check_tree_mkdirs(const CheckTree *t, const char *rel);

/* Writes @len bytes of @data to the file @rel below the tree, making its directories. */
void check_tree_put(const CheckTree *t, const char *rel, const void *data, size_t len);
void check_tree_put_str(const CheckTree *t, const char *rel, const char *s);

/* The whole file @rel below the tree, NUL-terminated (free() it), or NULL when it is absent. */
char *check_tree_get(const CheckTree *t, const char *rel);

/* The whole file at @path, NUL-terminated (free() it), its length in @ret_len unless NULL; with
 * @skip_comments, lines starting with '#' are left out (the annotated .expect files). */
char *check_read_file(const char *path, bool skip_comments, size_t *ret_len);

/* The names in @dir that end in @suffix, without it, sorted (so _i picks the same file on every
 * run), NULL-terminated; their count in @ret_n. Exits the program when there are none: a
 * fixture set that vanished must not pass by running no case. */
char **check_fixture_list(const char *dir, const char *suffix, size_t *ret_n);

/*
 * A SCSI LU in a tree's fake sysfs, laid out as Linux 6.1 shows one. Only what is given is
 * written, besides `type`, which every LU has:
 *
 *	check_tree_put_lu(&tree, &(CheckLu){
 *	        .hctl = "0:0:0:0", .type = 0, .vendor = "QEMU", .model = "QEMU HARDDISK",
 *	        .scsi_level = 7, .inquiry = true,
 *	        .block = { "sda", "8:0\n" }, .sg = { "sg0", "21:0\n" },
 *	        .attrs = { { "vpd_pg83", .data = pg83, .len = sizeof(pg83) } } });
 */
typedef struct CheckAttr {
	const char *name;  /* below the LU's directory; ending in '/': an empty directory */
	const char *value; /* the text written, or NULL for @data */
	const void *data;  /* binary (inquiry, vpd_pg83), @len bytes */
	size_t len;
} CheckAttr;

typedef struct CheckLuNode {
	const char *name; /* "sda", "st0", "sg0"; NULL: no such node */
	const char *dev;  /* its `dev` file ("8:0\n"); NULL: the directory only */
} CheckLuNode;

typedef struct CheckLu {
	const char *hctl; /* "H:C:T:L" */
	/* NULL: the LU is the directory sys/bus/scsi/devices/<hctl>. Else the LU's parent below
	 * sys/devices ("platform/host3/session1/target3:0:0"), the LU sys/devices/<parent>/<hctl>
	 * and sys/bus/scsi/devices/<hctl> a symlink to it, as the kernel lists it. */
	const char *parent;
	int type; /* peripheral device type, written as `type` */
	/* `vendor`, `model`, `rev` padded with spaces to 8, 16 and 4 as the kernel shows them
	 * (NULL: not written); @inquiry writes a standard 36-byte `inquiry` (SPC-4) of them. */
	const char *vendor, *model, *rev;
	bool inquiry;
	int scsi_level;      /* 0: not written */
	CheckLuNode block;   /* below block/ */
	CheckLuNode sg;      /* below scsi_generic/ */
	CheckLuNode tape;    /* below scsi_tape/ */
	CheckAttr attrs[12]; /* anything else (vpd_pg*, timeout, state, ...), up to the first
	                        unnamed */
} CheckLu;

/* Writes @lu below the tree. */
void check_tree_put_lu(const CheckTree *t, const CheckLu *lu);

/* Cuts the checksum line ("#sum " and 16 hex digits, core/namerec.h) off the name records
 * @text as lund writes them, failing when it is not there as the last line: what is left
 * compares with the records expected. Returns @text. */
char *check_unsum(char *text);
