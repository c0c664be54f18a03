/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lupath: paths versus clones from page 0x83. The "qemu" pages are what QEMU's scsi-hd sends
 * with wwn, port_wwn and port_index set (hw/scsi/scsi-disk.c, scsi_disk_emulate_vpd_page():
 * the serial as an ASCII vendor-specific LU designator, wwn as a binary NAA LU designator,
 * port_wwn as a NAA target port designator and port_index as a relative target port, both with
 * PIV set and protocol 6, SAS); the others are hand-made from SPC-6 7.7.6.
 */

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "lupath.h"

/* Page header: 0x83 and a 16-bit length filled in by the row. */
#define PG83(...) 0x00, 0x83, 0x00, 0x00, __VA_ARGS__
/* Designators: vendor-specific ASCII serial "SER1", NAA LU, NAA port, relative port, TPG. */
#define D_SERIAL         0x02, 0x00, 0x00, 0x04, 'S', 'E', 'R', '1'
#define D_NAA_LU(x)      0x01, 0x03, 0x00, 0x08, 0x50, 0x00, 0xc5, 0x00, 0x15, 0xea, 0x71, (x)
#define D_NAA_PORT(x)    0x61, 0x93, 0x00, 0x08, 0x50, 0x00, 0xc5, 0x00, 0x15, 0xea, 0x72, (x)
#define D_REL_PORT(x)    0x61, 0x94, 0x00, 0x04, 0x00, 0x00, 0x00, (x)
#define D_TPG(x)         0x01, 0x95, 0x00, 0x04, 0x00, 0x00, 0x00, (x)
#define D_DEVICE_NAME(x) 0x03, 0xa8, 0x00, 0x08, 'i', 'q', 'n', '.', 'x', '-', 'd', (x)
#define D_T10(x)         0x02, 0x01, 0x00, 0x0c, 'G', 'e', 'n', 'e', 'r', 'i', 'c', ' ', 'C', 'A', 'R', (x)

typedef struct Page {
	uint8_t b[96];
	size_t len;
} Page;

/* clang-format 14 and 19 lay this initializer out differently */
/* clang-format off */
#define PAGE(...)                                                               \
	{                                                                       \
		{ PG83(__VA_ARGS__) }, sizeof((uint8_t[]){ PG83(__VA_ARGS__) }) \
	}
/* clang-format on */

static const struct {
	const char *name;
	Page a, b;
	LuRelation relation;
} pairs[] = {
	{ "qemu two ports of one wwn",
	  PAGE(D_SERIAL, D_NAA_LU(0xac), D_NAA_PORT(0x01), D_REL_PORT(1)),
	  PAGE(D_SERIAL, D_NAA_LU(0xac), D_NAA_PORT(0x02), D_REL_PORT(2)), LU_RELATION_PATHS },
	{ "the order of the designators does not matter",
	  PAGE(D_SERIAL, D_NAA_LU(0xac), D_NAA_PORT(0x01), D_REL_PORT(1)),
	  PAGE(D_REL_PORT(2), D_NAA_PORT(0x02), D_NAA_LU(0xac), D_SERIAL), LU_RELATION_PATHS },
	{ "ALUA: only the target port group differs", PAGE(D_NAA_LU(0xac), D_TPG(1)),
	  PAGE(D_NAA_LU(0xac), D_TPG(2)), LU_RELATION_PATHS },
	{ "relative ports differ, one target port group",
	  PAGE(D_NAA_LU(0xac), D_REL_PORT(1), D_TPG(1)),
	  PAGE(D_NAA_LU(0xac), D_REL_PORT(2), D_TPG(1)), LU_RELATION_PATHS },
	{ "a copied ID: identical port designators",
	  PAGE(D_SERIAL, D_NAA_LU(0xac), D_NAA_PORT(0x01), D_REL_PORT(1)),
	  PAGE(D_SERIAL, D_NAA_LU(0xac), D_NAA_PORT(0x01), D_REL_PORT(1)), LU_RELATION_CLONES },
	{ "USB bridge: a T10 vendor ID and no port", PAGE(D_T10('1')), PAGE(D_T10('1')),
	  LU_RELATION_CLONES },
	{ "one side has no port designator", PAGE(D_NAA_LU(0xac), D_REL_PORT(1)),
	  PAGE(D_NAA_LU(0xac)), LU_RELATION_CLONES },
	{ "the LU designators differ (one serial, two wwns)",
	  PAGE(D_SERIAL, D_NAA_LU(0xac), D_REL_PORT(1)),
	  PAGE(D_SERIAL, D_NAA_LU(0xad), D_REL_PORT(2)), LU_RELATION_CLONES },
	{ "one LU has an extra LU designator", PAGE(D_SERIAL, D_NAA_LU(0xac), D_REL_PORT(1)),
	  PAGE(D_NAA_LU(0xac), D_REL_PORT(2)), LU_RELATION_CLONES },
	{ "only target device names differ: not a port", PAGE(D_NAA_LU(0xac), D_DEVICE_NAME('1')),
	  PAGE(D_NAA_LU(0xac), D_DEVICE_NAME('2')), LU_RELATION_CLONES },
	{ "port designators only, no LU designator", PAGE(D_REL_PORT(1)), PAGE(D_REL_PORT(2)),
	  LU_RELATION_CLONES },
	{ "a duplicated designator counts once",
	  PAGE(D_NAA_LU(0xac), D_NAA_LU(0xac), D_REL_PORT(1)),
	  PAGE(D_NAA_LU(0xac), D_REL_PORT(2), D_REL_PORT(2)), LU_RELATION_PATHS },
};

static void fix_len(Page *p)
{
	p->b[2] = (uint8_t)((p->len - 4) >> 8);
	p->b[3] = (uint8_t)(p->len - 4);
}

static LuRelation relation_of(Page a, Page b)
{
	_cleanup_free_ char *lu_a = NULL, *port_a = NULL, *lu_b = NULL, *port_b = NULL;

	fix_len(&a);
	fix_len(&b);
	ck_assert_int_eq(lupath_keys(a.b, a.len, &lu_a, &port_a), 0);
	ck_assert_int_eq(lupath_keys(b.b, b.len, &lu_b, &port_b), 0);
	return lupath_relation(lu_a, port_a, lu_b, port_b);
}

START_TEST(test_relation)
{
	ck_assert_msg(relation_of(pairs[_i].a, pairs[_i].b) == pairs[_i].relation, "%s",
	              pairs[_i].name);
	/* Symmetric. */
	ck_assert_msg(relation_of(pairs[_i].b, pairs[_i].a) == pairs[_i].relation, "%s reversed",
	              pairs[_i].name);
}
END_TEST

START_TEST(test_keys)
{
	Page p = PAGE(D_REL_PORT(2), D_SERIAL, D_NAA_LU(0xac), D_NAA_PORT(0x01));
	_cleanup_free_ char *lu = NULL, *port = NULL;

	fix_len(&p);
	ck_assert_int_eq(lupath_keys(p.b, p.len, &lu, &port), 0);
	ck_assert_str_eq(lu, "0103:5000c50015ea71ac,0200:53455231");
	ck_assert_str_eq(port, "6193:5000c50015ea7201,6194:00000002");
}
END_TEST

/* No designator at all: empty keys, and never paths. */
START_TEST(test_empty_page)
{
	static const uint8_t pg[] = { 0x00, 0x83, 0x00, 0x00 };
	_cleanup_free_ char *lu = NULL, *port = NULL;

	ck_assert_int_eq(lupath_keys(pg, sizeof(pg), &lu, &port), 0);
	ck_assert_str_eq(lu, "");
	ck_assert_str_eq(port, "");
	ck_assert_int_eq(lupath_relation(lu, port, lu, port), LU_RELATION_CLONES);
	ck_assert_int_eq(lupath_relation(NULL, NULL, NULL, NULL), LU_RELATION_CLONES);
}
END_TEST

static const struct {
	const char *name;
	uint8_t b[32];
	size_t len;
	int ret;
} hostile[] = {
	{ "descriptor runs past the page",
	  { 0x00, 0x83, 0x00, 0x08, 0x01, 0x03, 0x00, 0x08, 0x50, 0x00, 0xc5, 0x00 },
	  12,
	  -EBADMSG },
	{ "page length runs past the buffer", { 0x00, 0x83, 0x00, 0x40, 0x01, 0x03 }, 6, -EBADMSG },
	{ "a partial descriptor header after a good one",
	  { 0x00, 0x83, 0x00, 0x0a, 0x61, 0x94, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x01, 0x03 },
	  14,
	  -EBADMSG },
	{ "not page 0x83", { 0x00, 0x80, 0x00, 0x04, 'S', 'E', 'R', '1' }, 8, -ENODATA },
	{ "pre-SPC-2 page",
	  { 0x00, 0x83, 0x00, 0x08, 0x00, 0x00, 'A', 'B', 'C', 'D', 'E', 'F' },
	  12,
	  -EBADMSG },
	{ "shorter than a header", { 0x00, 0x83 }, 2, -EBADMSG },
};

START_TEST(test_hostile)
{
	char *lu = (char *)"unset", *port = (char *)"unset";

	ck_assert_msg(lupath_keys(hostile[_i].b, hostile[_i].len, &lu, &port) == hostile[_i].ret,
	              "%s", hostile[_i].name);
	/* Written only on success. */
	ck_assert_str_eq(lu, "unset");
	ck_assert_str_eq(port, "unset");
}
END_TEST

/* Every length of one real page cut short: an error or keys, never a read past the end
 * (ASan watches the heap copy). */
START_TEST(test_truncated)
{
	Page p = PAGE(D_SERIAL, D_NAA_LU(0xac), D_NAA_PORT(0x01), D_REL_PORT(1));

	fix_len(&p);
	for (size_t n = 0; n <= p.len; n++) {
		_cleanup_free_ uint8_t *copy = malloc(n ?: 1);
		_cleanup_free_ char *lu = NULL, *port = NULL;
		int r;

		ck_assert_ptr_nonnull(copy);
		memcpy(copy, p.b, n);
		r = lupath_keys(copy, n, &lu, &port);
		ck_assert_int_eq(r, n == p.len ? 0 : -EBADMSG);
	}
}
END_TEST

static Suite *lupath_suite(void)
{
	Suite *s = suite_create("lupath");
	TCase *tc = tcase_create("core");

	CHECK_ADD_LOOP(tc, test_relation, pairs);
	tcase_add_test(tc, test_keys);
	tcase_add_test(tc, test_empty_page);
	CHECK_ADD_LOOP(tc, test_hostile, hostile);
	tcase_add_test(tc, test_truncated);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(lupath_suite)
