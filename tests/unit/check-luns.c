/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "luns.h"
#include "macro.h"
#include "unaligned.h"

/* ---- REPORT LUNS ----------------------------------------------------------------------------- */

typedef struct ReportCase {
	const char *name;
	size_t len;
	uint8_t buf[48];
	int ret;
	size_t count;
	size_t want_len; /* luns_report_len() */
} ReportCase;

static const ReportCase report_cases[] = {
	{ "empty buffer", 0, {}, -EBADMSG },
	{ "seven bytes", 7, { 0, 0, 0, 0, 0, 0, 0 }, -EBADMSG },
	{ "empty list", 8, { 0, 0, 0, 0 }, 0, 0, 8 },
	{ "one LUN 0", 16, { 0, 0, 0, 8 }, 0, 1, 16 },
	{ "three",
	  32,
	  { 0,    0,    0, 24, 0, 0, 0, 0, 0x00, 0x00, 0, 0, 0, 0, 0, 0,
	    0x40, 0x01, 0, 0,  0, 0, 0, 0, 0xc1, 0x01, 0, 0, 0, 0, 0, 0 },
	  0,
	  3,
	  32 },
	{ "trailing bytes ignored", 40, { 0, 0, 0, 8, 0, 0, 0, 0, 0, 1 }, 0, 1, 16 },
	{ "truncated by allocation length", 16, { 0, 0, 0, 16 }, -EBADMSG, 0, 24 },
	{ "not a multiple of 8", 24, { 0, 0, 0, 9 }, -EBADMSG, 0, 17 },
	{ "4 GiB claimed", 16, { 0xff, 0xff, 0xff, 0xf8 }, -EBADMSG, 0, 8 + 0xfffffff8ul },
};

START_TEST(test_report)
{
	const ReportCase *c = &report_cases[_i];
	LunList l = { .count = 777 };
	ScsiLun lun;
	size_t want = 0;
	int r;

	r = luns_parse_report(c->buf, c->len, &l);
	ck_assert_msg(r == c->ret, "%s: %d", c->name, r);
	if (c->len >= 8) {
		ck_assert_int_eq(luns_report_len(c->buf, c->len, &want), 0);
		ck_assert_uint_eq(want, c->want_len);
	} else
		ck_assert_int_eq(luns_report_len(c->buf, c->len, &want), -EBADMSG);
	if (r < 0) {
		ck_assert_uint_eq(l.count, 777);
		return;
	}
	ck_assert_uint_eq(l.count, c->count);
	ck_assert_ptr_eq(l.entries, c->buf + 8);
	for (size_t i = 0; i < l.count; i++) {
		ck_assert_int_eq(luns_report_get(&l, i, &lun), 0);
		ck_assert(memcmp(lun.b, c->buf + 8 + 8 * i, 8) == 0);
	}
	ck_assert_int_eq(luns_report_get(&l, l.count, &lun), -ERANGE);
	ck_assert_int_eq(luns_report_get(&l, SIZE_MAX, &lun), -ERANGE);
}
END_TEST

/* A full 8 + 8 * 8191 byte list built in memory (the 64 KiB response the kernel asks for). */
START_TEST(test_report_large)
{
	size_t n = 8191, len = 8 + 8 * n;
	uint8_t *buf = calloc(1, len);
	LunList l;
	ScsiLun lun;

	ck_assert_ptr_nonnull(buf);
	unaligned_write_be32(buf, (uint32_t)(8 * n));
	for (size_t i = 0; i < n; i++) {
		ScsiLun x = lun_from_linux(i < 256 ? i : 0x4000 | i);
		memcpy(buf + 8 + 8 * i, x.b, 8);
	}
	ck_assert_int_eq(luns_parse_report(buf, len, &l), 0);
	ck_assert_uint_eq(l.count, n);
	ck_assert_int_eq(luns_report_get(&l, n - 1, &lun), 0);
	ck_assert_uint_eq(lun_to_linux(&lun), 0x4000 | (n - 1));
	ck_assert_int_eq(luns_parse_report(buf, len - 1, &l), -EBADMSG);
	free(buf);
}
END_TEST

/* ---- LUN structure ------------------------------------------------------------------------- */

typedef struct LevelWant {
	uint8_t method, size, bus, target, ext_kind, ext_length, ext_method;
	uint64_t lun;
} LevelWant;

typedef struct LunCase {
	const char *hex;
	int ret;
	uint64_t linux_lun;
	size_t n_levels;
	LevelWant l[4];
	const char *describe;
} LunCase;

#define P LUN_ADDR_PERIPHERAL
#define F LUN_ADDR_FLAT
#define L LUN_ADDR_LOGICAL_UNIT
#define E LUN_ADDR_EXTENDED

static const LunCase lun_cases[] = {
	{ "0x0000000000000000", 0, 0, 1, { { P, 2, .lun = 0 } }, "peripheral LUN 0" },
	{ "0x0005000000000000", 0, 5, 1, { { P, 2, .lun = 5 } }, "peripheral LUN 5" },
	{ "0x00ff000000000000", 0, 255, 1, { { P, 2, .lun = 255 } }, "peripheral LUN 255" },
	{ "0x0203000000000000",
	  0,
	  0x0203,
	  1,
	  { { P, 2, .bus = 2, .target = 3 } },
	  "peripheral bus 2 target 3" },
	{ "0x4001000000000000", 0, 0x4001, 1, { { F, 2, .lun = 1 } }, "flat space LUN 1" },
	{ "0x7fff000000000000", 0, 0x7fff, 1, { { F, 2, .lun = 0x3fff } }, "flat space LUN 16383" },
	{ "0x4000000000000000", 0, 0x4000, 1, { { F, 2, .lun = 0 } }, "flat space LUN 0" },
	{ "0x8a45000000000000",
	  0,
	  0x8a45,
	  1,
	  { { L, 2, .target = 10, .bus = 2, .lun = 5 } },
	  "logical unit target 10 bus 2 LUN 5" },
	{ "0xbfff000000000000",
	  0,
	  0xbfff,
	  1,
	  { { L, 2, .target = 63, .bus = 7, .lun = 31 } },
	  "logical unit target 63 bus 7 LUN 31" },
	/* Well known LUNs (SPC-6 table 717); Linux: SCSI_W_LUN_BASE 0xc100 + n. */
	{ "0xc101000000000000",
	  0,
	  0xc101,
	  1,
	  { { E, 2, .ext_kind = LUN_EXT_WELL_KNOWN, .ext_method = 1, .lun = 1 } },
	  "well known LUN: REPORT LUNS" },
	{ "0xc102000000000000",
	  0,
	  0xc102,
	  1,
	  { { E, 2, .ext_kind = LUN_EXT_WELL_KNOWN, .ext_method = 1, .lun = 2 } },
	  "well known LUN: ACCESS CONTROLS" },
	{ "0xc103000000000000",
	  0,
	  0xc103,
	  1,
	  { { E, 2, .ext_kind = LUN_EXT_WELL_KNOWN, .ext_method = 1, .lun = 3 } },
	  "well known LUN: TARGET LOG PAGES" },
	{ "0xc104000000000000",
	  0,
	  0xc104,
	  1,
	  { { E, 2, .ext_kind = LUN_EXT_WELL_KNOWN, .ext_method = 1, .lun = 4 } },
	  "well known LUN: SECURITY PROTOCOL" },
	{ "0xc105000000000000",
	  0,
	  0xc105,
	  1,
	  { { E, 2, .ext_kind = LUN_EXT_WELL_KNOWN, .ext_method = 1, .lun = 5 } },
	  "well known LUN: MANAGEMENT PROTOCOL" },
	{ "0xc106000000000000",
	  0,
	  0xc106,
	  1,
	  { { E, 2, .ext_kind = LUN_EXT_WELL_KNOWN, .ext_method = 1, .lun = 6 } },
	  "well known LUN: TARGET COMMANDS" },
	{ "0xc1d0000000000000",
	  0,
	  0xc1d0,
	  1,
	  { { E, 2, .ext_kind = LUN_EXT_WELL_KNOWN, .ext_method = 1, .lun = 0xd0 } },
	  "well known LUN 0xd0 (reserved)" },
	/* Extended flat space (4 bytes) and long extended flat space (6 bytes). */
	{ "0xd212345600000000",
	  0,
	  0x3456d212,
	  1,
	  { { E, 4, .ext_kind = LUN_EXT_FLAT, .ext_length = 1, .ext_method = 2, .lun = 0x123456 } },
	  "extended flat space LUN 1193046" },
	{ "0xe2010203040500000", -EINVAL },
	{ "0xe201020304050000", 0, 0, 1, { { 0 } }, NULL }, /* test_lun_long_flat */
	{ "0xffffffffffffffff",
	  0,
	  0xffffffffffffffffull,
	  1,
	  { { E, 8, .ext_kind = LUN_EXT_NOT_SPECIFIED, .ext_length = 3, .ext_method = 0xf,
	      .lun = 0xffffffffffffffull } },
	  "logical unit not specified" },
	{ "0xc000000000000000",
	  0,
	  0xc000,
	  1,
	  { { E, 2, .ext_kind = LUN_EXT_RESERVED } },
	  "reserved extended address (length 0, method 0x0) 0x00" },
	{ "0xf012345678abcdef",
	  0,
	  0xcdef78ab3456f012ull,
	  1,
	  { { E, 8, .ext_kind = LUN_EXT_RESERVED, .ext_length = 3, .ext_method = 0,
	      .lun = 0x12345678abcdefull } },
	  "reserved extended address (length 3, method 0x0) 0x12345678abcdef" },
	/* Multi-level LUNs. */
	{ "0x0001000200000000",
	  0,
	  0x00020001,
	  2,
	  { { P, 2, .lun = 1 }, { P, 2, .lun = 2 } },
	  "peripheral LUN 1; peripheral LUN 2" },
	{ "0x0102400300000000",
	  0,
	  0x40030102,
	  2,
	  { { P, 2, .bus = 1, .target = 2 }, { F, 2, .lun = 3 } },
	  "peripheral bus 1 target 2; flat space LUN 3" },
	{ "0x0001000000050000",
	  0,
	  0x0000000500000001ull,
	  3,
	  { { P, 2, .lun = 1 }, { P, 2, .lun = 0 }, { P, 2, .lun = 5 } },
	  "peripheral LUN 1; peripheral LUN 0; peripheral LUN 5" },
	{ "0x4001400281234004",
	  0,
	  0x4004812340024001ull,
	  4,
	  { { F, 2, .lun = 1 },
	    { F, 2, .lun = 2 },
	    { L, 2, .target = 1, .bus = 1, .lun = 3 },
	    { F, 2, .lun = 4 } },
	  "flat space LUN 1; flat space LUN 2; logical unit target 1 bus 1 LUN 3; "
	  "flat space LUN 4" },
	{ "0x0001c10100000000",
	  0,
	  0xc1010001,
	  2,
	  { { P, 2, .lun = 1 },
	    { E, 2, .ext_kind = LUN_EXT_WELL_KNOWN, .ext_method = 1, .lun = 1 } },
	  "peripheral LUN 1; well known LUN: REPORT LUNS" },
	{ "0x4001d2000007c101",
	  0,
	  0xc1010007d2004001ull,
	  3,
	  { { F, 2, .lun = 1 },
	    { E, 4, .ext_kind = LUN_EXT_FLAT, .ext_length = 1, .ext_method = 2, .lun = 7 },
	    { E, 2, .ext_kind = LUN_EXT_WELL_KNOWN, .ext_method = 1, .lun = 1 } },
	  "flat space LUN 1; extended flat space LUN 7; well known LUN: REPORT LUNS" },
	{ "0x4001e20000000009", 0, 0, 2, { { 0 } }, NULL }, /* test_lun_long_flat */
	/* Extended addresses that run past the 8 bytes. */
	{ "0x00010000e2000000", -EBADMSG },
	{ "0x000100000000d200", -EBADMSG },
	{ "0x0001ff0000000000", -EBADMSG },
	{ "0x00000000000000c1",
	  0,
	  0xc1000000000000ull,
	  4,
	  { { P, 2 }, { P, 2 }, { P, 2 }, { P, 2, .lun = 0xc1 } },
	  "peripheral LUN 0; peripheral LUN 0; peripheral LUN 0; "
	  "peripheral LUN 193" },
	{ "0x00000000f0000000", -EBADMSG },
};

#undef P
#undef F
#undef L
#undef E

START_TEST(test_lun_decode)
{
	const LunCase *c = &lun_cases[_i];
	ScsiLun lun, back;
	LunAddress a = { .n_levels = 99 };
	char hex[LUN_HEX_STRLEN], desc[LUN_DESCRIBE_MAX];
	int r;

	r = lun_parse_hex(c->hex, &lun);
	if (c->ret == -EINVAL) {
		ck_assert_int_eq(r, -EINVAL);
		return;
	}
	ck_assert_int_eq(r, 0);

	/* Linux integer: both directions, and the T10 form survives. */
	back = lun_from_linux(lun_to_linux(&lun));
	ck_assert(memcmp(back.b, lun.b, 8) == 0);
	ck_assert_int_eq(lun_format_hex(&lun, hex, sizeof(hex)), 0);
	ck_assert_str_eq(hex, c->hex);

	r = lun_decode(&lun, &a);
	ck_assert_msg(r == c->ret, "%s: %d", c->hex, r);
	if (r < 0) {
		ck_assert_uint_eq(a.n_levels, 99);
		ck_assert_int_eq(lun_describe(&lun, desc, sizeof(desc)), r);
		return;
	}
	if (!c->describe) /* cases checked by hand below */
		return;
	ck_assert_msg(lun_to_linux(&lun) == c->linux_lun, "%s: linux %llx", c->hex,
	              (unsigned long long)lun_to_linux(&lun));
	ck_assert_uint_eq(a.n_levels, c->n_levels);
	for (size_t i = 0; i < a.n_levels; i++) {
		const LunLevel *l = &a.level[i];
		const LevelWant *w = &c->l[i];

		ck_assert_uint_eq(l->method, w->method);
		ck_assert_uint_eq(l->size, w->size);
		ck_assert_uint_eq(l->bus, w->bus);
		ck_assert_uint_eq(l->target, w->target);
		ck_assert_uint_eq(l->lun, w->lun);
		if (l->method == LUN_ADDR_EXTENDED) {
			ck_assert_uint_eq(l->ext_kind, w->ext_kind);
			ck_assert_uint_eq(l->ext_length, w->ext_length);
			ck_assert_uint_eq(l->ext_method, w->ext_method);
		}
	}
	ck_assert_int_eq(lun_describe(&lun, desc, sizeof(desc)), 0);
	ck_assert_str_eq(desc, c->describe);
}
END_TEST

START_TEST(test_lun_long_flat)
{
	ScsiLun lun;
	LunAddress a;
	char desc[LUN_DESCRIBE_MAX];

	ck_assert_int_eq(lun_parse_hex("0xe201020304050000", &lun), 0);
	ck_assert_int_eq(lun_decode(&lun, &a), 0);
	ck_assert_uint_eq(a.n_levels, 1);
	ck_assert_uint_eq(a.level[0].ext_kind, LUN_EXT_LONG_FLAT);
	ck_assert_uint_eq(a.level[0].size, 6);
	ck_assert_uint_eq(a.level[0].lun, 0x0102030405ull);
	ck_assert_uint_eq(lun_to_linux(&lun), 0x000004050203e201ull);
	ck_assert_int_eq(lun_describe(&lun, desc, sizeof(desc)), 0);
	ck_assert_str_eq(desc, "long extended flat space LUN 4328719365");

	/* Long extended flat space at level 2 would end at byte 8: fits exactly. */
	ck_assert_int_eq(lun_parse_hex("0x4001e20000000009", &lun), 0);
	ck_assert_int_eq(lun_decode(&lun, &a), 0);
	ck_assert_uint_eq(a.n_levels, 2);
	ck_assert_uint_eq(a.level[1].ext_kind, LUN_EXT_LONG_FLAT);
	ck_assert_uint_eq(a.level[1].lun, 9);
}
END_TEST

/* Every value from a sample of the 64-bit space: Linux -> SAM -> Linux is the identity, and
 * the byte placement is the kernel's: bytes 2n,2n+1 hold bits 16n+15..16n. */
START_TEST(test_lun_linux_roundtrip)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	/* Plain comparisons in the loop: check's assertions are too slow for 200k rounds. */
	for (unsigned i = 0; i < 200000; i++) {
		uint64_t v;
		ScsiLun lun;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = i < 70000 ? i : i < 100000 ? x & 0xffffffff : x;
		lun = lun_from_linux(v);
		if (lun_to_linux(&lun) != v)
			ck_abort_msg("linux 0x%llx does not round-trip", (unsigned long long)v);
		for (unsigned n = 0; n < 4; n++)
			if (lun.b[2 * n] != ((v >> (16 * n + 8)) & 0xff) ||
			    lun.b[2 * n + 1] != ((v >> (16 * n)) & 0xff))
				ck_abort_msg("linux 0x%llx: level %u misplaced",
				             (unsigned long long)v, n);
	}
}
END_TEST

START_TEST(test_lun_sam_roundtrip)
{
	uint8_t b[8] = {};

	/* SAM -> Linux -> SAM over every first level and a spread of lower ones. */
	for (unsigned hi = 0; hi < 65536; hi++) {
		ScsiLun lun, back;

		b[0] = hi >> 8;
		b[1] = hi & 0xff;
		b[2] = (uint8_t)(hi * 7);
		b[5] = (uint8_t)(hi * 13);
		b[7] = (uint8_t)(hi >> 3);
		memcpy(lun.b, b, 8);
		back = lun_from_linux(lun_to_linux(&lun));
		if (memcmp(back.b, lun.b, 8) != 0)
			ck_abort_msg("first level 0x%04x does not round-trip", hi);
	}
}
END_TEST

START_TEST(test_lun_hex)
{
	ScsiLun lun;
	char small[LUN_HEX_STRLEN - 1];
	char desc[12];

	ck_assert_int_eq(lun_parse_hex("4001", &lun), 0);
	ck_assert_uint_eq(lun_to_linux(&lun), 0x4001);
	ck_assert_int_eq(lun_parse_hex("0XC101", &lun), 0);
	ck_assert(lun_is_wlun(&lun));
	ck_assert_int_eq(lun_parse_hex("0x", &lun), -EINVAL);
	ck_assert_int_eq(lun_parse_hex("", &lun), -EINVAL);
	ck_assert_int_eq(lun_parse_hex("401", &lun), -EINVAL);
	ck_assert_int_eq(lun_parse_hex("0x40g1", &lun), -EINVAL);
	ck_assert_int_eq(lun_parse_hex("0x40 1", &lun), -EINVAL);
	ck_assert_int_eq(lun_parse_hex("0x00000000000000000", &lun), -EINVAL);
	ck_assert_int_eq(lun_format_hex(&lun, small, sizeof(small)), -ENOBUFS);
	ck_assert_int_eq(lun_format_hex(&lun, NULL, 0), -ENOBUFS);

	/* describe: too small -> -ENOBUFS with a terminated prefix. */
	ck_assert_int_eq(lun_describe(&lun, desc, sizeof(desc)), -ENOBUFS);
	ck_assert_uint_eq(strlen(desc), sizeof(desc) - 1);
	ck_assert_int_eq(lun_describe(&lun, desc, 0), -ENOBUFS);
	ck_assert(!lun_is_wlun(NULL));
	ck_assert_ptr_null(lun_wlun_name(0));
	ck_assert_ptr_null(lun_wlun_name(0x07));
}
END_TEST

/* Every 2-byte first level decodes without error, its description fits the documented maximum
 * and the level size matches SAM-5's LENGTH field. */
START_TEST(test_lun_all_first_levels)
{
	for (unsigned v = 0; v < 65536; v++) {
		ScsiLun lun = {};
		LunAddress a;
		char desc[LUN_DESCRIBE_MAX];
		int r;

		lun.b[0] = v >> 8;
		lun.b[1] = v & 0xff;
		r = lun_decode(&lun, &a);
		if (r != 0 || a.n_levels != 1)
			ck_abort_msg("0x%04x: decode %d levels %zu", v, r, a.n_levels);
		if (lun_describe(&lun, desc, sizeof(desc)) != 0)
			ck_abort_msg("0x%04x: describe failed", v);
		if ((v >> 14) == 3 && a.level[0].size != 2 + 2 * ((v >> 12) & 3))
			ck_abort_msg("0x%04x: extended level size %u", v, a.level[0].size);
	}
}
END_TEST

START_TEST(test_hctl_parse)
{
	unsigned h, c, t;
	uint64_t l;

	ck_assert_int_eq(hctl_parse("2:0:1:16384", &h, &c, &t, &l), 0);
	ck_assert_uint_eq(h, 2);
	ck_assert_uint_eq(c, 0);
	ck_assert_uint_eq(t, 1);
	ck_assert_uint_eq(l, 16384);
	ck_assert_int_eq(hctl_parse("4294967295:0:0:18446744073709551615", &h, NULL, NULL, &l), 0);
	ck_assert_uint_eq(h, 4294967295u);
	ck_assert_uint_eq(l, UINT64_MAX);
	ck_assert_int_eq(hctl_parse("0:0:0:0", NULL, NULL, NULL, NULL), 0);
	/* what sysfs lists beside scsi_devices, and malformed names */
	ck_assert_int_eq(hctl_parse("host0", NULL, NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(hctl_parse("target0:0:1", NULL, NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(hctl_parse("0:0:1", NULL, NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(hctl_parse("0:0:1:2:3", NULL, NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(hctl_parse("0:0:1:2 ", NULL, NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(hctl_parse("0:-1:1:2", NULL, NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(hctl_parse("0: 1:1:2", NULL, NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(hctl_parse("4294967296:0:0:0", NULL, NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(hctl_parse("0:0:0:18446744073709551616", NULL, NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(hctl_parse("", NULL, NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(hctl_parse("99999999999999999999999:0:0:0", NULL, NULL, NULL, NULL),
	                 -EINVAL);
	/* leading zeros are no overflow */
	ck_assert_int_eq(hctl_parse("0:0:0:000000000000000000000000017", NULL, NULL, NULL, &l), 0);
	ck_assert_uint_eq(l, 17);
}
END_TEST

static Suite *luns_suite(void)
{
	Suite *s = suite_create("luns");
	TCase *tc = tcase_create("luns");

	tcase_set_timeout(tc, 60);
	CHECK_ADD_LOOP(tc, test_report, report_cases);
	tcase_add_test(tc, test_report_large);
	CHECK_ADD_LOOP(tc, test_lun_decode, lun_cases);
	tcase_add_test(tc, test_lun_long_flat);
	tcase_add_test(tc, test_lun_linux_roundtrip);
	tcase_add_test(tc, test_hctl_parse);
	tcase_add_test(tc, test_lun_sam_roundtrip);
	tcase_add_test(tc, test_lun_hex);
	tcase_add_test(tc, test_lun_all_first_levels);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(luns_suite)
