/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * io/hwdb.c: a compiled hwdb built here byte by byte (systemd's hwdb-internal.h layout) is
 * opened and searched; every single-bit corruption of it is either refused with -EBADMSG or
 * still searched without a crash (check forks each case, so a crash fails that byte's case).
 */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-util.h"
#include "hwdb.h"
#include "macro.h"

/* strings, then the root node "lund:scsi:t0:v" with one child '*', then that leaf with one
 * property. Offsets are fixed so the file is the same every time. */
#define OFF_STRINGS 80u
#define OFF_ROOT    160u
#define OFF_LEAF    200u
#define FILE_LEN    240u

static const char prefix[] = "lund:scsi:t0:v";
static const char key[] = " LUND_TEST";
static const char value[] = "yes";

static void put64(uint8_t *p, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void build(uint8_t buf[FILE_LEN])
{
	size_t s_prefix = OFF_STRINGS, s_key = s_prefix + sizeof(prefix),
	       s_value = s_key + sizeof(key), s_empty = s_value + sizeof(value);

	memset(buf, 0, FILE_LEN);
	memcpy(buf, "KSLPHHRH", 8);
	put64(buf + 8, 252);       /* tool_version */
	put64(buf + 16, FILE_LEN); /* file_size */
	put64(buf + 24, 80);       /* header_size */
	put64(buf + 32, 24);       /* node_size */
	put64(buf + 40, 16);       /* child_entry_size */
	put64(buf + 48, 16);       /* value_entry_size */
	put64(buf + 56, OFF_ROOT);
	put64(buf + 64, FILE_LEN - OFF_ROOT);
	put64(buf + 72, OFF_ROOT - OFF_STRINGS);
	memcpy(buf + s_prefix, prefix, sizeof(prefix));
	memcpy(buf + s_key, key, sizeof(key));
	memcpy(buf + s_value, value, sizeof(value));
	/* root: prefix, 1 child, 0 values; child entry '*' -> leaf */
	put64(buf + OFF_ROOT, s_prefix);
	buf[OFF_ROOT + 8] = 1;
	buf[OFF_ROOT + 24] = '*';
	put64(buf + OFF_ROOT + 32, OFF_LEAF);
	/* leaf: empty prefix, 0 children, 1 value */
	put64(buf + OFF_LEAF, s_empty);
	put64(buf + OFF_LEAF + 16, 1);
	put64(buf + OFF_LEAF + 24, s_key);
	put64(buf + OFF_LEAF + 32, s_value);
}

static void count_fn(const char *k, const char *v, void *userdata)
{
	unsigned *n = userdata;

	if (streq(k, "LUND_TEST") && streq(v, "yes"))
		(*n)++;
}

static char *write_file(const uint8_t *buf, size_t len)
{
	char *path = strdup("/tmp/check-hwdb-XXXXXX");
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
	return path;
}

/* A FIFO or a device at the path: refused at once, never waited on nor mapped. */
START_TEST(test_not_regular)
{
	char path[] = "/tmp/check-hwdb-fifo-XXXXXX";
	char fifo[sizeof(path) + 8];
	Hwdb *h = NULL;

	ck_assert_ptr_nonnull(mkdtemp(path));
	snprintf(fifo, sizeof(fifo), "%s/hwdb", path);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(hwdb_open(fifo, &h), -EBADMSG);
	ck_assert_int_eq(hwdb_open("/dev/zero", &h), -EBADMSG);
	ck_assert_ptr_null(h);
	unlink(fifo);
	rmdir(path);
}
END_TEST

START_TEST(test_valid)
{
	uint8_t buf[FILE_LEN];
	_cleanup_free_ char *path = NULL;
	Hwdb *h = NULL;
	unsigned n = 0;

	build(buf);
	ck_assert_int_eq(hwdb_validate(buf, sizeof(buf)), 0);
	path = write_file(buf, sizeof(buf));
	ck_assert_int_eq(hwdb_open(path, &h), 0);
	ck_assert_int_eq(hwdb_lookup(h, "lund:scsi:t0:vATA:mDISK:r1", count_fn, &n), 1);
	ck_assert_uint_eq(n, 1);
	n = 0;
	ck_assert_int_eq(hwdb_lookup(h, "lund:scsi:t5:vATA:mCD:r1", count_fn, &n), 0);
	hwdb_free(h);
	unlink(path);
}
END_TEST

START_TEST(test_cycle_and_truncation)
{
	uint8_t buf[FILE_LEN];

	build(buf);
	put64(buf + OFF_ROOT + 32, OFF_ROOT); /* the child is the root itself */
	ck_assert_int_eq(hwdb_validate(buf, sizeof(buf)), -EBADMSG);
	build(buf);
	ck_assert_int_eq(hwdb_validate(buf, sizeof(buf) - 1), -EBADMSG);
	build(buf);
	put64(buf + OFF_LEAF + 16, UINT64_MAX); /* values_count */
	ck_assert_int_eq(hwdb_validate(buf, sizeof(buf)), -EBADMSG);
}
END_TEST

/* Each bit of the 8 bytes of word _i flipped in turn. */
START_TEST(test_bitflip)
{
	uint8_t buf[FILE_LEN];

	for (unsigned bit = 0; bit < 64; bit++) {
		_cleanup_free_ char *path = NULL;
		Hwdb *h = NULL;
		unsigned n = 0;
		int r;

		build(buf);
		buf[_i * 8 + bit / 8] ^= (uint8_t)(1u << (bit % 8));
		path = write_file(buf, sizeof(buf));
		r = hwdb_open(path, &h);
		if (r >= 0) {
			ck_assert_int_ge(hwdb_lookup(h, "lund:scsi:t0:vATA:mDISK:r1", count_fn, &n),
			                 0);
			ck_assert_int_ge(hwdb_lookup(h, "lund:scsi:t0:v", count_fn, &n), 0);
			ck_assert_int_ge(hwdb_lookup(h, "", count_fn, &n), 0);
			hwdb_free(h);
		} else
			ck_assert_int_eq(r, -EBADMSG);
		unlink(path);
	}
}
END_TEST

static Suite *hwdb_suite(void)
{
	Suite *s = suite_create("hwdb");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_valid);
	tcase_add_test(tc, test_not_regular);
	tcase_add_test(tc, test_cycle_and_truncation);
	tcase_add_loop_test(tc, test_bitflip, 0, FILE_LEN / 8);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(hwdb_suite)
