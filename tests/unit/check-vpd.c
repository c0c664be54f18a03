/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "macro.h"
#include "unaligned.h"
#include "vpd.h"

/* ---- header ---------------------------------------------------------------------------------- */

typedef struct HeaderCase {
	const char *name;
	size_t len;
	uint8_t buf[16];
	int ret;
	uint8_t qualifier, type, page;
	size_t page_len;
} HeaderCase;

static const HeaderCase header_cases[] = {
	{ "empty", 0, {}, -EBADMSG },
	{ "three bytes", 3, { 0x00, 0x80, 0x00 }, -EBADMSG },
	{ "empty page", 4, { 0x00, 0x80, 0x00, 0x00 }, 0, .page = 0x80 },
	{ "exact",
	  6,
	  { 0x25, 0x83, 0x00, 0x02, 0xaa, 0xbb },
	  0,
	  .qualifier = 1,
	  .type = 5,
	  .page = 0x83,
	  .page_len = 2 },
	{ "trailing ignored",
	  8,
	  { 0x00, 0xb0, 0x00, 0x02, 1, 2, 3, 4 },
	  0,
	  .page = 0xb0,
	  .page_len = 2 },
	{ "one past", 6, { 0x00, 0x83, 0x00, 0x03, 0xaa, 0xbb }, -EBADMSG },
	{ "65535 claimed", 8, { 0x00, 0x83, 0xff, 0xff }, -EBADMSG },
	{ "high byte claimed", 16, { 0x00, 0x83, 0x01, 0x00 }, -EBADMSG },
};

START_TEST(test_header)
{
	const HeaderCase *c = &header_cases[_i];
	VpdHeader h = { .page_len = 12345 };
	int r = vpd_parse_header(c->buf, c->len, &h);

	ck_assert_msg(r == c->ret, "%s: %d", c->name, r);
	if (r < 0) {
		ck_assert_uint_eq(h.page_len, 12345);
		return;
	}
	ck_assert_uint_eq(h.qualifier, c->qualifier);
	ck_assert_uint_eq(h.type, c->type);
	ck_assert_uint_eq(h.page, c->page);
	ck_assert_uint_eq(h.page_len, c->page_len);
}
END_TEST

/* ---- 0x00 and 0x80 ------------------------------------------------------------------------- */

START_TEST(test_vpd00)
{
	static const uint8_t ok[] = { 0x00, 0x00, 0x00, 0x08, 0x00, 0x80,
		                      0x83, 0x89, 0xb0, 0xb1, 0xb2, 0x83 /* duplicate */ };
	static const uint8_t wrong_page[] = { 0x00, 0x80, 0x00, 0x01, 0x00 };
	static const uint8_t truncated[] = { 0x00, 0x00, 0x00, 0x09, 0x00, 0x80 };
	static const uint8_t empty[] = { 0x00, 0x00, 0x00, 0x00 };
	VpdSupported s;

	ck_assert_int_eq(vpd00_parse(ok, sizeof(ok), &s), 0);
	ck_assert_uint_eq(s.count, 7);
	ck_assert(vpd_supported_has(&s, 0x00));
	ck_assert(vpd_supported_has(&s, 0x83));
	ck_assert(vpd_supported_has(&s, 0xb2));
	ck_assert(!vpd_supported_has(&s, 0xb3));
	ck_assert(!vpd_supported_has(&s, 0xff));
	ck_assert(!vpd_supported_has(NULL, 0x00));

	ck_assert_int_eq(vpd00_parse(wrong_page, sizeof(wrong_page), &s), -ENODATA);
	ck_assert_int_eq(vpd00_parse(truncated, sizeof(truncated), &s), -EBADMSG);
	ck_assert_int_eq(vpd00_parse(empty, sizeof(empty), &s), 0);
	ck_assert_uint_eq(s.count, 0);
	ck_assert_int_eq(vpd00_parse(NULL, 0, &s), -EBADMSG);
}
END_TEST

START_TEST(test_vpd00_all_pages)
{
	uint8_t page[4 + 512];
	VpdSupported s;

	/* Every page code twice: count saturates at 256. */
	page[0] = 0;
	page[1] = 0;
	unaligned_write_be16(page + 2, 512);
	for (size_t i = 0; i < 512; i++)
		page[4 + i] = (uint8_t)i;
	ck_assert_int_eq(vpd00_parse(page, sizeof(page), &s), 0);
	ck_assert_uint_eq(s.count, 256);
	for (unsigned p = 0; p < 256; p++)
		ck_assert(vpd_supported_has(&s, (uint8_t)p));
}
END_TEST

typedef struct SerialCase {
	const char *name;
	size_t len;
	uint8_t buf[32];
	int ret;
	const char *serial;
	size_t serial_len;
} SerialCase;

static const SerialCase serial_cases[] = {
	{ "normal",
	  12,
	  { 0x00, 0x80, 0x00, 0x08, ' ', ' ', 'S', 'N', '1', '2', '3', ' ' },
	  0,
	  "  SN123 ",
	  8 },
	{ "empty", 4, { 0x00, 0x80, 0x00, 0x00 }, 0, "", 0 },
	{ "trailing junk",
	  10,
	  { 0x00, 0x80, 0x00, 0x02, 'A', 'B', 'C', 'D', 'E', 'F' },
	  0,
	  "AB",
	  2 },
	{ "truncated", 8, { 0x00, 0x80, 0x00, 0x08, 'A', 'B', 'C', 'D' }, -EBADMSG },
	{ "page 0x83", 8, { 0x00, 0x83, 0x00, 0x04, 'A', 'B', 'C', 'D' }, -ENODATA },
	{ "header only short", 2, { 0x00, 0x80 }, -EBADMSG },
	{ "embedded NUL and LF",
	  9,
	  { 0x00, 0x80, 0x00, 0x05, 'A', 0, '\n', 'B', 'C' },
	  0,
	  "A\0\nBC",
	  5 },
};

START_TEST(test_vpd80)
{
	const SerialCase *c = &serial_cases[_i];
	const uint8_t *sn = NULL;
	size_t sn_len = 999;
	int r = vpd80_parse(c->buf, c->len, &sn, &sn_len);

	ck_assert_msg(r == c->ret, "%s: %d", c->name, r);
	if (r < 0) {
		ck_assert_ptr_null(sn);
		ck_assert_uint_eq(sn_len, 999);
		return;
	}
	ck_assert_uint_eq(sn_len, c->serial_len);
	ck_assert_ptr_eq(sn, c->buf + 4);
	ck_assert(memcmp(sn, c->serial, sn_len) == 0);
}
END_TEST

/* ---- 0x83 ---------------------------------------------------------------------------------- */

typedef struct Desig {
	uint8_t protocol_id, code_set, association, type;
	bool piv;
	size_t len, offset;
} Desig;

typedef struct Page83Case {
	const char *name;
	size_t len;
	uint8_t buf[128];
	int end;  /* what the walk ends with: 0 or -errno */
	size_t n; /* designators returned before that */
	Desig d[6];
	bool pre_spc2;
} Page83Case;

static const Page83Case page83_cases[] = {
	{ "naa + t10 + name",
	  4 + 12 + 12 + 16,
	  {
	          0x00,
	          0x83,
	          0x00,
	          40,
	          /* NAA 6 registered extended, binary, LU */
	          0x01,
	          0x03,
	          0x00,
	          0x08,
	          0x60,
	          0x01,
	          0x40,
	          0x50,
	          0x12,
	          0x34,
	          0x56,
	          0x78,
	          /* T10 vendor ID, ASCII, LU */
	          0x02,
	          0x01,
	          0x00,
	          0x08,
	          'L',
	          'I',
	          'O',
	          '-',
	          'O',
	          'R',
	          'G',
	          ' ',
	          /* SCSI name string, UTF-8, target port, PIV, iSCSI */
	          0x53,
	          0x98,
	          0x00,
	          0x0c,
	          'i',
	          'q',
	          'n',
	          '.',
	          '2',
	          '0',
	          '0',
	          '3',
	          '-',
	          '0',
	          '1',
	          0,
	  },
	  0,
	  3,
	  {
	          { 0, 1, 0, 3, false, 8, 4 },
	          { 0, 2, 0, 1, false, 8, 16 },
	          { 5, 3, 1, 8, true, 12, 28 },
	  } },
	{ "every association and type",
	  4 + 5 * 6,
	  {
	          0x00, 0x83, 0x00, 30,   0x61, 0x94,
	          0x00, 0x02, 0x00, 0x01,             /* SAS relative target port */
	          0x01, 0x95, 0x00, 0x02, 0x00, 0x02, /* target port group, PIV clear */
	          0x01, 0x06, 0x00, 0x02, 0x00, 0x03, /* LU group */
	          0x01, 0x2a, 0x00, 0x02, 0xab, 0xcd, /* UUID (short, not validated here) */
	          0x01, 0x3f, 0x00, 0x02, 0xff, 0xff, /* association 3 reserved, type 0xf */
	  },
	  0,
	  5,
	  {
	          { 6, 1, 1, 4, true, 2, 4 },
	          { 0, 1, 1, 5, true, 2, 10 },
	          { 0, 1, 0, 6, false, 2, 16 },
	          { 0, 1, 2, 0xa, false, 2, 22 },
	          { 0, 1, 3, 0xf, false, 2, 28 },
	  } },
	{ "zero-length designators",
	  4 + 4 + 4 + 5,
	  {
	          0x00,
	          0x83,
	          0x00,
	          13,
	          0x02,
	          0x00,
	          0x00,
	          0x00,
	          0x01,
	          0x03,
	          0x00,
	          0x00,
	          0x02,
	          0x01,
	          0x00,
	          0x01,
	          'X',
	  },
	  0,
	  3,
	  {
	          { 0, 2, 0, 0, false, 0, 4 },
	          { 0, 1, 0, 3, false, 0, 8 },
	          { 0, 2, 0, 1, false, 1, 12 },
	  } },
	{ "duplicate designators",
	  4 + 12 + 12,
	  {
	          0x00, 0x83, 0x00, 24,   0x01, 0x03, 0x00, 0x08, 0x50, 0x00,
	          0xc5, 0x00, 0x11, 0x22, 0x33, 0x44, 0x01, 0x03, 0x00, 0x08,
	          0x50, 0x00, 0xc5, 0x00, 0x11, 0x22, 0x33, 0x44,
	  },
	  0,
	  2,
	  {
	          { 0, 1, 0, 3, false, 8, 4 },
	          { 0, 1, 0, 3, false, 8, 16 },
	  } },
	{ "length one past the page",
	  4 + 12 + 6,
	  {
	          0x00, 0x83, 0x00, 18,   0x01, 0x03, 0x00, 0x08, 0x50, 0x00, 0xc5, 0x00,
	          0x11, 0x22, 0x33, 0x44, 0x02, 0x01, 0x00, 0x03, 'A',  'B', /* claims 3, 2 present
	                                                                      */
	  },
	  -EBADMSG,
	  1,
	  { { 0, 1, 0, 3, false, 8, 4 } } },
	{ "length past page but inside buffer",
	  4 + 6 + 8,
	  {
	          /* The page says 6 bytes; the buffer has more. The walk must stop at the page. */
	          0x00,
	          0x83,
	          0x00,
	          6,
	          0x02,
	          0x01,
	          0x00,
	          0x06,
	          'A',
	          'B',
	          'C',
	          'D',
	          'E',
	          'F',
	          0,
	          0,
	          0,
	          0,
	  },
	  -EBADMSG,
	  0 },
	{ "length 255 in a short page",
	  4 + 4,
	  {
	          0x00,
	          0x83,
	          0x00,
	          4,
	          0x02,
	          0x01,
	          0x00,
	          0xff,
	  },
	  -EBADMSG,
	  0 },
	{ "partial descriptor header",
	  4 + 6 + 2,
	  {
	          0x00,
	          0x83,
	          0x00,
	          8,
	          0x02,
	          0x01,
	          0x00,
	          0x02,
	          'A',
	          'B',
	          0x01,
	          0x03,
	  },
	  -EBADMSG,
	  1,
	  { { 0, 2, 0, 1, false, 2, 4 } } },
	{ "empty page", 4, { 0x00, 0x83, 0x00, 0x00 }, 0, 0 },
	{ "page length past buffer",
	  8,
	  {
	          0x00,
	          0x83,
	          0x00,
	          0x10,
	          0x02,
	          0x01,
	          0x00,
	          0x00,
	  },
	  -EBADMSG,
	  0 },
	{ "wrong page code", 8, { 0x00, 0x80, 0x00, 0x04, 0x02, 0x01, 0x00, 0x00 }, -ENODATA, 0 },
	{ "pre-SPC-2 EMC",
	  4 + 16,
	  {
	          0x00, 0x83, 0x00, 0x10, 0x60, 0x06, 0x04, 0x80, 0x00, 0x01,
	          0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
	  },
	  -EBADMSG,
	  0,
	  .pre_spc2 = true },
};

START_TEST(test_vpd83)
{
	const Page83Case *c = &page83_cases[_i];
	size_t off = 0, n = 0;
	VpdDesignator d;
	int r;

	while ((r = vpd83_next(c->buf, c->len, &off, &d)) > 0) {
		ck_assert_msg(n < c->n, "%s: too many designators", c->name);
		ck_assert_uint_eq(d.protocol_id, c->d[n].protocol_id);
		ck_assert_uint_eq(d.code_set, c->d[n].code_set);
		ck_assert_uint_eq(d.association, c->d[n].association);
		ck_assert_uint_eq(d.type, c->d[n].type);
		ck_assert_int_eq(d.piv, c->d[n].piv);
		ck_assert_uint_eq(d.len, c->d[n].len);
		ck_assert_uint_eq(d.offset, c->d[n].offset);
		ck_assert_ptr_eq(d.desc, c->buf + d.offset);
		ck_assert_ptr_eq(d.value, c->buf + d.offset + 4);
		/* The value never reaches past the page. */
		ck_assert_uint_le(d.offset + 4 + d.len, 4 + unaligned_read_be16(c->buf + 2));
		n++;
	}
	ck_assert_msg(r == c->end, "%s: walk ended %d want %d", c->name, r, c->end);
	ck_assert_uint_eq(n, c->n);
	ck_assert_int_eq(vpd83_is_pre_spc2(c->buf, c->len), c->pre_spc2);
	/* A finished walk stays finished. */
	if (r == 0)
		ck_assert_int_eq(vpd83_next(c->buf, c->len, &off, &d), 0);
}
END_TEST

START_TEST(test_vpd83_pre_spc2)
{
	static const uint8_t short6[] = { 0x00, 0x83, 0x00, 0x02, 0x01, 0x03 };
	static const uint8_t p80[] = { 0x00, 0x80, 0x00, 0x04, 0x60, 0x06, 0x04, 0x80 };
	static const uint8_t spc3[] = { 0x00, 0x83, 0x00, 0x04, 0x01, 0x03, 0x00, 0x00 };

	ck_assert(!vpd83_is_pre_spc2(NULL, 0));
	ck_assert(!vpd83_is_pre_spc2(short6, sizeof(short6)));
	ck_assert(!vpd83_is_pre_spc2(p80, sizeof(p80)));
	ck_assert(!vpd83_is_pre_spc2(spc3, sizeof(spc3)));
}
END_TEST

/* The largest page there can be: 4 + 65535 bytes of 255-byte designators and one last short
 * one, so the walk has to land exactly on the end. Built on the heap, then run twice: once
 * intact, once with the last length byte one too large. */
START_TEST(test_vpd83_max_page)
{
	size_t len = VPD_MAX_LEN, off = 4, n = 0, expect = 0;
	uint8_t *page = calloc(1, len);
	VpdDesignator d;
	int r;

	ck_assert_ptr_nonnull(page);
	page[1] = 0x83;
	unaligned_write_be16(page + 2, 0xffff);
	while (off < len) {
		size_t left = len - off, dlen = MIN(left - 4, (size_t)255);

		/* Never leave 1..3 bytes behind: shorten this one so the next gets a header. */
		if (left - 4 - dlen > 0 && left - 4 - dlen < 4)
			dlen -= 4;
		page[off] = 0x02;
		page[off + 1] = 0x01;
		page[off + 3] = (uint8_t)dlen;
		off += 4 + dlen;
		expect++;
	}
	ck_assert_uint_eq(off, len);

	off = 0;
	while ((r = vpd83_next(page, len, &off, &d)) > 0)
		n++;
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(n, expect);
	ck_assert_uint_eq(off, len);

	/* Same page, last descriptor one byte longer than what is left. */
	off = 0;
	n = 0;
	while ((r = vpd83_next(page, len, &off, &d)) > 0) {
		if (off == len) {
			page[d.offset + 3]++;
			break;
		}
	}
	off = 0;
	while ((r = vpd83_next(page, len, &off, &d)) > 0)
		n++;
	ck_assert_int_eq(r, -EBADMSG);
	ck_assert_uint_eq(n, expect - 1);

	/* And the page claimed as 65535 but delivered one byte short. */
	off = 0;
	ck_assert_int_eq(vpd83_next(page, len - 1, &off, &d), -EBADMSG);
	free(page);
}
END_TEST

/* ---- 0x89 ---------------------------------------------------------------------------------- */

static void put_ata_string(uint8_t *identify, unsigned word, const char *s, unsigned n_words)
{
	size_t l = strlen(s);

	for (unsigned i = 0; i < n_words * 2; i++) {
		char ch = i < l ? s[i] : ' ';
		/* first character of each pair in the high byte of the little-endian word */
		identify[word * 2 + (i ^ 1)] = (uint8_t)ch;
	}
}

static size_t build_vpd89(uint8_t *page, size_t page_len)
{
	memset(page, 0, 4 + page_len);
	page[1] = 0x89;
	unaligned_write_be16(page + 2, (uint16_t)page_len);
	memcpy(page + 8, "linux   ", 8);
	memcpy(page + 16, "libata          ", 16);
	memcpy(page + 32, "3.00", 4);
	page[36] = 0x34;
	page[56] = 0xec;
	if (page_len >= 568) {
		put_ata_string(page + 60, 10, "S3Z9NB0K123456A", 10);
		put_ata_string(page + 60, 23, "RVT04B6Q", 4);
		put_ata_string(page + 60, 27, "Samsung SSD 860 EVO 500GB", 20);
	}
	return 4 + page_len;
}

START_TEST(test_vpd89)
{
	uint8_t page[4 + 600];
	VpdAtaInfo a;
	size_t len;

	len = build_vpd89(page, 0x238);
	ck_assert_int_eq(vpd89_parse(page, len, &a), 0);
	ck_assert(a.have_identify);
	ck_assert_uint_eq(a.command_code, 0xec);
	ck_assert(memcmp(a.sat_vendor, "linux   ", 8) == 0);
	ck_assert(memcmp(a.sat_product, "libata          ", 16) == 0);
	ck_assert(memcmp(a.sat_revision, "3.00", 4) == 0);
	ck_assert_str_eq(a.serial, "S3Z9NB0K123456A     ");
	ck_assert_str_eq(a.firmware, "RVT04B6Q");
	ck_assert_str_eq(a.model, "Samsung SSD 860 EVO 500GB               ");

	/* One byte of IDENTIFY missing: identity strings absent, SAT fields still there. */
	len = build_vpd89(page, 0x237);
	ck_assert_int_eq(vpd89_parse(page, len, &a), 0);
	ck_assert(!a.have_identify);
	ck_assert_str_eq(a.model, "");
	ck_assert_str_eq(a.serial, "");
	ck_assert_uint_eq(a.command_code, 0xec);

	/* Page ends inside the SAT product field. */
	len = build_vpd89(page, 20);
	ck_assert_int_eq(vpd89_parse(page, len, &a), 0);
	ck_assert(memcmp(a.sat_vendor, "linux   ", 8) == 0);
	ck_assert(memcmp(a.sat_product, (uint8_t[16]){}, 16) == 0);
	ck_assert_uint_eq(a.command_code, 0);

	/* Truncated transfer and wrong page. */
	len = build_vpd89(page, 0x238);
	ck_assert_int_eq(vpd89_parse(page, len - 1, &a), -EBADMSG);
	page[1] = 0x8a;
	ck_assert_int_eq(vpd89_parse(page, len, &a), -ENODATA);
}
END_TEST

START_TEST(test_vpd89_identify_packet_and_nul)
{
	uint8_t page[4 + 0x238];
	VpdAtaInfo a;
	size_t len = build_vpd89(page, 0x238);

	page[56] = 0xa1;
	/* A NUL inside the model ends the C string early; no overrun either way. */
	page[60 + 27 * 2 + 1] = 'X';
	page[60 + 27 * 2] = 0;
	ck_assert_int_eq(vpd89_parse(page, len, &a), 0);
	ck_assert_uint_eq(a.command_code, 0xa1);
	ck_assert_str_eq(a.model, "X");
	ck_assert_uint_eq(a.model[40], 0);
}
END_TEST

/* ---- 0xb0 ---------------------------------------------------------------------------------- */

START_TEST(test_vpdb0)
{
	uint8_t page[64] = { 0x00, 0xb0, 0x00, 0x3c };
	VpdBlockLimits b;

	page[4] = 0x01;
	page[5] = 0x80;
	unaligned_write_be16(page + 6, 8);
	unaligned_write_be32(page + 8, 0xffff);
	unaligned_write_be32(page + 12, 0x400);
	unaligned_write_be32(page + 16, 0x1000);
	unaligned_write_be32(page + 20, 0x400000);
	unaligned_write_be32(page + 24, 1);
	unaligned_write_be32(page + 28, 8);
	unaligned_write_be32(page + 32, 0x80000003);
	unaligned_write_be64(page + 36, 0x0123456789abcdefULL);
	unaligned_write_be32(page + 44, 0x100);
	unaligned_write_be32(page + 48, 0x10);
	unaligned_write_be32(page + 52, 0x20);

	ck_assert_int_eq(vpdb0_parse(page, sizeof(page), &b), 0);
	ck_assert(b.wsnz);
	ck_assert_uint_eq(b.max_compare_write, 0x80);
	ck_assert_uint_eq(b.opt_xfer_granularity, 8);
	ck_assert_uint_eq(b.max_xfer_len, 0xffff);
	ck_assert_uint_eq(b.opt_xfer_len, 0x400);
	ck_assert_uint_eq(b.max_prefetch_len, 0x1000);
	ck_assert_uint_eq(b.max_unmap_lba_count, 0x400000);
	ck_assert_uint_eq(b.max_unmap_block_desc_count, 1);
	ck_assert_uint_eq(b.opt_unmap_granularity, 8);
	ck_assert(b.ugavalid);
	ck_assert_uint_eq(b.unmap_granularity_alignment, 3);
	ck_assert_uint_eq(b.max_write_same_len, 0x0123456789abcdefULL);
	ck_assert_uint_eq(b.max_atomic_xfer_len, 0x100);
	ck_assert_uint_eq(b.atomic_alignment, 0x10);
	ck_assert_uint_eq(b.atomic_xfer_len_granularity, 0x20);

	/* SBC-2 era 0x10-byte page: only the first fields. */
	page[3] = 0x10;
	ck_assert_int_eq(vpdb0_parse(page, 20, &b), 0);
	ck_assert_uint_eq(b.max_prefetch_len, 0x1000);
	ck_assert_uint_eq(b.max_unmap_lba_count, 0);
	ck_assert(!b.ugavalid);
	ck_assert_uint_eq(b.max_write_same_len, 0);

	/* A field cut in half is absent, not half-read. */
	page[3] = 0x06;
	ck_assert_int_eq(vpdb0_parse(page, sizeof(page), &b), 0);
	ck_assert_uint_eq(b.opt_xfer_granularity, 8);
	ck_assert_uint_eq(b.max_xfer_len, 0);

	page[3] = 0x3c;
	ck_assert_int_eq(vpdb0_parse(page, 63, &b), -EBADMSG);
	page[1] = 0xb1;
	ck_assert_int_eq(vpdb0_parse(page, sizeof(page), &b), -ENODATA);
}
END_TEST

static Suite *vpd_suite(void)
{
	Suite *s = suite_create("vpd");
	TCase *tc = tcase_create("pages");

	CHECK_ADD_LOOP(tc, test_header, header_cases);
	tcase_add_test(tc, test_vpd00);
	tcase_add_test(tc, test_vpd00_all_pages);
	CHECK_ADD_LOOP(tc, test_vpd80, serial_cases);
	CHECK_ADD_LOOP(tc, test_vpd83, page83_cases);
	tcase_add_test(tc, test_vpd83_pre_spc2);
	tcase_add_test(tc, test_vpd83_max_page);
	tcase_add_test(tc, test_vpd89);
	tcase_add_test(tc, test_vpd89_identify_packet_and_nul);
	tcase_add_test(tc, test_vpdb0);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(vpd_suite)
