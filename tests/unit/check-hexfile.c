/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "hexfile.h"
#include "macro.h"

typedef struct HexCase {
	const char *name;
	const char *text;
	HexfileMode mode;
	size_t out_size; /* 0: HEXFILE_MAX_LEN */
	int ret;
	HexfileFormat format;
	size_t n;
	uint8_t want[48];
} HexCase;

static const HexCase hex_cases[] = {
	{ "plain two lines",
	  "00 83 00 04\n01 02 03 04\n",
	  HEXFILE_AUTO,
	  0,
	  0,
	  HEXFILE_FORMAT_HEX,
	  8,
	  { 0x00, 0x83, 0x00, 0x04, 0x01, 0x02, 0x03, 0x04 } },
	{ "comments",
	  "# Seagate ST4000NM0023 0004, sg_vpd -p sn -H\n"
	  "00 80 00 04   # header\n   41 42 43 44\n#end",
	  HEXFILE_AUTO,
	  0,
	  0,
	  HEXFILE_FORMAT_HEX,
	  8,
	  { 0x00, 0x80, 0x00, 0x04, 'A', 'B', 'C', 'D' } },
	{ "commas hyphens tabs crlf",
	  "00,80,00,02\r\n41-42\r\n\t\r\n",
	  HEXFILE_AUTO,
	  0,
	  0,
	  HEXFILE_FORMAT_HEX,
	  6,
	  { 0x00, 0x80, 0x00, 0x02, 0x41, 0x42 } },
	{ "single digits",
	  "0 80 0 1 a",
	  HEXFILE_AUTO,
	  0,
	  0,
	  HEXFILE_FORMAT_HEX,
	  5,
	  { 0x00, 0x80, 0x00, 0x01, 0x0a } },
	{ "upper case",
	  "0A FF Bc",
	  HEXFILE_AUTO,
	  0,
	  0,
	  HEXFILE_FORMAT_HEX,
	  3,
	  { 0x0a, 0xff, 0xbc } },
	{ "xxd -p run",
	  "0080000441424344\n",
	  HEXFILE_AUTO,
	  0,
	  0,
	  HEXFILE_FORMAT_HEX,
	  8,
	  { 0x00, 0x80, 0x00, 0x04, 0x41, 0x42, 0x43, 0x44 } },
	{ "odd run", "00800", HEXFILE_AUTO, 0, -EBADMSG },
	{ "three digits", "00 100", HEXFILE_AUTO, 0, -EBADMSG },
	{ "0x prefix", "0x12 0x34", HEXFILE_AUTO, 0, -EBADMSG },
	{ "non hex", "00 zz", HEXFILE_AUTO, 0, -EBADMSG },
	{ "semicolon", "00;01", HEXFILE_AUTO, 0, -EBADMSG },
	{ "sg_inq -H with ASCII column",
	  " 00     00 00 05 02 5b 00 00 02  41 54 41 20 20 20 20 20    ....[...ATA     \n"
	  " 10     53 61 6d 73 75 6e 67 20  53 53 44 20 38 36 30 20    Samsung SSD 860 \n"
	  " 20     31 42 36 51                                         1B6Q\n",
	  HEXFILE_AUTO,
	  0,
	  0,
	  HEXFILE_FORMAT_HEX_ADDRESSED,
	  36,
	  { 0x00, 0x00, 0x05, 0x02, 0x5b, 0x00, 0x00, 0x02, 'A', 'T', 'A', ' ',
	    ' ',  ' ',  ' ',  ' ',  'S',  'a',  'm',  's',  'u', 'n', 'g', ' ',
	    'S',  'S',  'D',  ' ',  '8',  '6',  '0',  ' ',  '1', 'B', '6', 'Q' } },
	{ "ASCII column that looks like hex",
	  " 00     00 80 00 02 ab cd                                   ....ab cd\n",
	  HEXFILE_AUTO,
	  0,
	  0,
	  HEXFILE_FORMAT_HEX_ADDRESSED,
	  6,
	  { 0x00, 0x80, 0x00, 0x02, 0xab, 0xcd } },
	{ "-HH single line",
	  " 00     00 80 00 02 41 42\n",
	  HEXFILE_AUTO,
	  0,
	  0,
	  HEXFILE_FORMAT_HEX_ADDRESSED,
	  6,
	  { 0x00, 0x80, 0x00, 0x02, 0x41, 0x42 } },
	{ "od -A x -t x1",
	  "000000 00 80 00 04 41 42 43 44\n000008\n",
	  HEXFILE_AUTO,
	  0,
	  0,
	  HEXFILE_FORMAT_HEX_ADDRESSED,
	  8,
	  { 0x00, 0x80, 0x00, 0x04, 0x41, 0x42, 0x43, 0x44 } },
	{ "address mismatch falls back to plain",
	  "00 01 02\n05 03 04\n",
	  HEXFILE_AUTO,
	  0,
	  0,
	  HEXFILE_FORMAT_HEX,
	  6,
	  { 0x00, 0x01, 0x02, 0x05, 0x03, 0x04 } },
	{ "plain forced on a dump", " 00     00 80 00 02    ....\n", HEXFILE_HEX_PLAIN, 0,
	  -EBADMSG },
	{ "plain forced",
	  " 00     00 80 00 02\n",
	  HEXFILE_HEX_PLAIN,
	  0,
	  0,
	  HEXFILE_FORMAT_HEX,
	  5,
	  { 0x00, 0x00, 0x80, 0x00, 0x02 } },
	{ "one line, narrow gap, stays plain",
	  "00 80 00 02\n",
	  HEXFILE_AUTO,
	  0,
	  0,
	  HEXFILE_FORMAT_HEX,
	  4,
	  { 0x00, 0x80, 0x00, 0x02 } },
	{ "no trailing newline",
	  "00 80\n00 01\n41",
	  HEXFILE_AUTO,
	  0,
	  0,
	  HEXFILE_FORMAT_HEX,
	  5,
	  { 0x00, 0x80, 0x00, 0x01, 0x41 } },
	{ "does not fit", "00 01 02 03 04", HEXFILE_AUTO, 4, -ENOBUFS },
	{ "fits exactly",
	  "00 01 02 03",
	  HEXFILE_AUTO,
	  4,
	  0,
	  HEXFILE_FORMAT_HEX,
	  4,
	  { 0x00, 0x01, 0x02, 0x03 } },
	{ "run does not fit", "0001020304", HEXFILE_AUTO, 4, -ENOBUFS },
	{ "empty", "", HEXFILE_AUTO, 0, -ENODATA },
	{ "only comments", "# nothing\n   # here\n\n", HEXFILE_AUTO, 0, -ENODATA },
	{ "only blanks", " \t\r\n\n", HEXFILE_AUTO, 0, -ENODATA },
	{ "separators only", ",,,---", HEXFILE_AUTO, 0, -ENODATA },
	{ "text forced binary",
	  "00 80",
	  HEXFILE_BINARY,
	  0,
	  0,
	  HEXFILE_FORMAT_BINARY,
	  5,
	  { '0', '0', ' ', '8', '0' } },
	{ "binary empty", "", HEXFILE_BINARY, 0, -ENODATA },
	{ "hex mode, text with DEL", "00 7f\x7f", HEXFILE_HEX, 0, -EBADMSG },
	{ "auto, DEL is binary",
	  "00 7f\x7f",
	  HEXFILE_AUTO,
	  0,
	  0,
	  HEXFILE_FORMAT_BINARY,
	  6,
	  { '0', '0', ' ', '7', 'f', 0x7f } },
	{ "address too wide", "00000000000000000 01 02\n00000000000000002 03\n", HEXFILE_AUTO, 0,
	  -EBADMSG },
};

START_TEST(test_hex)
{
	const HexCase *c = &hex_cases[_i];
	size_t size = c->out_size ? c->out_size : HEXFILE_MAX_LEN;
	uint8_t *out = malloc(size);
	size_t n = 12345;
	HexfileFormat f = 99;
	int r;

	ck_assert_ptr_nonnull(out);
	r = hexfile_parse_mode((const uint8_t *)c->text, strlen(c->text), c->mode, out, size, &n,
	                       &f);
	ck_assert_msg(r == c->ret, "%s: %d", c->name, r);
	if (r < 0) {
		ck_assert_uint_eq(n, 12345);
		ck_assert_int_eq(f, 99);
		free(out);
		return;
	}
	ck_assert_msg(f == c->format, "%s: format %d", c->name, f);
	ck_assert_msg(n == c->n, "%s: %zu bytes", c->name, n);
	ck_assert(memcmp(out, c->want, n) == 0);
	free(out);
}
END_TEST

START_TEST(test_binary)
{
	static const uint8_t page[] = { 0x00, 0x83, 0x00, 0x04, 0x01, 0x03, 0x00, 0x00 };
	uint8_t out[8];
	size_t n;
	HexfileFormat f;

	ck_assert(!hexfile_is_text(page, sizeof(page)));
	ck_assert_int_eq(
	        hexfile_parse_mode(page, sizeof(page), HEXFILE_AUTO, out, sizeof(out), &n, &f), 0);
	ck_assert_int_eq(f, HEXFILE_FORMAT_BINARY);
	ck_assert_uint_eq(n, sizeof(page));
	ck_assert(memcmp(out, page, n) == 0);
	ck_assert_int_eq(hexfile_parse_mode(page, sizeof(page), HEXFILE_AUTO, out, 7, &n, NULL),
	                 -ENOBUFS);
	/* NULL format is allowed; NULL ret_len and out are not. */
	ck_assert_int_eq(hexfile_parse_mode(page, sizeof(page), HEXFILE_AUTO, out, 8, &n, NULL), 0);
	ck_assert_int_eq(hexfile_parse_mode(page, sizeof(page), HEXFILE_AUTO, out, 8, NULL, NULL),
	                 -EINVAL);
	ck_assert_int_eq(hexfile_parse_mode(page, sizeof(page), HEXFILE_AUTO, NULL, 8, &n, NULL),
	                 -EINVAL);
	ck_assert_int_eq(hexfile_parse_mode(page, sizeof(page), (HexfileMode)7, out, 8, &n, NULL),
	                 -EINVAL);
	/* The short form is HEXFILE_AUTO. */
	ck_assert_int_eq(hexfile_parse(page, sizeof(page), out, sizeof(out), &n), 0);
	ck_assert_uint_eq(n, sizeof(page));
	ck_assert_int_eq(hexfile_parse((const uint8_t *)"41 42", 5, out, sizeof(out), &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(out[1], 0x42);
	ck_assert(hexfile_is_text((const uint8_t *)"00 01\t\r\n\f\v", 10));
	ck_assert(hexfile_is_text(NULL, 0));
}
END_TEST

/* The largest VPD page, written out as sg_inq -H would (address, 16 bytes, ASCII) and as a
 * plain list, parsed back in full; one byte of room less is -ENOBUFS. */
START_TEST(test_max_page)
{
	size_t n_bytes = HEXFILE_MAX_LEN, cap = n_bytes * 4 + (n_bytes / 16 + 1) * 40;
	uint8_t *page = malloc(n_bytes), *out = malloc(n_bytes);
	char *text = malloc(cap), *p;
	HexfileFormat f;
	size_t n;

	ck_assert_ptr_nonnull(page);
	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(text);
	for (size_t i = 0; i < n_bytes; i++)
		page[i] = (uint8_t)(i * 31 + (i >> 8));
	page[0] = 0x00;
	page[1] = 0x83;
	page[2] = 0xff;
	page[3] = 0xff;

	p = text;
	for (size_t i = 0; i < n_bytes; i += 16) {
		size_t k, m = MIN((size_t)16, n_bytes - i);

		p += sprintf(p, " %02zx     ", i);
		for (k = 0; k < m; k++)
			p += sprintf(p, "%02x %s", page[i + k], k == 7 ? " " : "");
		for (; k < 16; k++)
			p += sprintf(p, "   %s", k == 7 ? " " : "");
		p += sprintf(p, "   ");
		for (k = 0; k < m; k++)
			*p++ = (page[i + k] >= 0x20 && page[i + k] < 0x7f) ? (char)page[i + k]
			                                                   : '.';
		*p++ = '\n';
	}
	*p = '\0';
	ck_assert_uint_lt((size_t)(p - text), cap);

	ck_assert_int_eq(hexfile_parse_mode((uint8_t *)text, strlen(text), HEXFILE_AUTO, out,
	                                    n_bytes, &n, &f),
	                 0);
	ck_assert_int_eq(f, HEXFILE_FORMAT_HEX_ADDRESSED);
	ck_assert_uint_eq(n, n_bytes);
	ck_assert(memcmp(out, page, n) == 0);
	ck_assert_int_eq(hexfile_parse_mode((uint8_t *)text, strlen(text), HEXFILE_AUTO, out,
	                                    n_bytes - 1, &n, &f),
	                 -ENOBUFS);

	p = text;
	for (size_t i = 0; i < n_bytes; i++)
		p += sprintf(p, "%02x%c", page[i], (i % 16 == 15) ? '\n' : ' ');
	*p = '\0';
	ck_assert_int_eq(hexfile_parse_mode((uint8_t *)text, strlen(text), HEXFILE_HEX_PLAIN, out,
	                                    n_bytes, &n, &f),
	                 0);
	ck_assert_int_eq(f, HEXFILE_FORMAT_HEX);
	ck_assert_uint_eq(n, n_bytes);
	ck_assert(memcmp(out, page, n) == 0);

	free(text);
	free(out);
	free(page);
}
END_TEST

static Suite *hexfile_suite(void)
{
	Suite *s = suite_create("hexfile");
	TCase *tc = tcase_create("hexfile");

	CHECK_ADD_LOOP(tc, test_hex, hex_cases);
	tcase_add_test(tc, test_binary);
	tcase_add_test(tc, test_max_page);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(hexfile_suite)
