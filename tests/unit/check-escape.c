/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * escape: udev's string helpers. Expected values are reasoned from systemd v252
 * (udev-util.c udev_replace_whitespace()/udev_replace_chars(), device-nodes.c
 * encode_devnode_name(), utf8.c utf8_encoded_valid_unichar()); the ENC form of padded INQUIRY
 * strings is also what the real scsi_id printed for the fixtures (tests/fixtures/vpd).
 */

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "escape.h"
#include "utf8.h"

static const struct {
	const char *in;
	size_t max;
	const char *out;
} ws[] = {
	{ "  QEMU    ", 63, "QEMU" },
	{ "QEMU HARDDISK   ", 63, "QEMU_HARDDISK" },
	{ "a  \t b", 63, "a_b" },
	{ "\va", 63, "_a" }, /* leading skip is " \t\n\r" only; \v is isspace() */
	{ "a\fb\r\n", 63, "a_b" },
	{ "abcdef", 3, "abc" },
	{ "  abcdef", 4, "ab" }, /* the bound counts input bytes, leading blanks too */
	{ "ab cd", 3, "ab" },
	{ "ab c", 4, "ab_c" },
	{ "", 10, "" },
	{ "   ", 10, "" },
	{ "S\xc3\xa9 x", 63, "S\xc3\xa9_x" }, /* bytes >= 0x80 are not spaces */
};

START_TEST(test_replace_whitespace)
{
	char out[64];

	ck_assert_int_eq(udev_replace_whitespace(ws[_i].in, ws[_i].max, out, sizeof(out)),
	                 (int)strlen(ws[_i].out));
	ck_assert_str_eq(out, ws[_i].out);
}
END_TEST

START_TEST(test_replace_whitespace_nobufs)
{
	char out[8] = "keep";

	ck_assert_int_eq(udev_replace_whitespace("abc", 8, out, 8), -ENOBUFS);
	ck_assert_str_eq(out, "keep");
	ck_assert_int_eq(udev_replace_whitespace("abc", 7, out, 8), 3);
}
END_TEST

static const struct {
	const char *in, *extra, *out;
	size_t replaced;
} rc[] = {
	{ "a b", NULL, "a_b", 1 },
	{ "a b", " ", "a b", 0 },
	{ "a\tb", " ", "a b", 1 },
	{ "x\\x2fy", NULL, "x\\x2fy", 0 },
	{ "x\\y", NULL, "x_y", 1 },
	{ "caf\xc3\xa9", NULL, "caf\xc3\xa9", 0 },
	{ "\xc3", NULL, "_", 1 },
	{ "\xed\xa0\x80", NULL, "___", 3 }, /* UTF-16 surrogate */
	{ "\xef\xbf\xbe", NULL, "___", 3 }, /* U+FFFE */
	{ "\xc0\xaf", NULL, "__", 2 },      /* overlong '/' */
	{ "a/b", NULL, "a_b", 1 },
	{ "a/b", "/", "a/b", 0 },
	{ "#+-.:=@_09AZaz", NULL, "#+-.:=@_09AZaz", 0 },
	{ "a\nID_X=1", NULL, "a_ID_X=1", 1 },
};

START_TEST(test_replace_chars)
{
	char buf[64];

	strcpy(buf, rc[_i].in);
	ck_assert_uint_eq(udev_replace_chars(buf, rc[_i].extra), rc[_i].replaced);
	ck_assert_str_eq(buf, rc[_i].out);
}
END_TEST

static const struct {
	const char *in;
	size_t len;
	const char *out;
} enc[] = {
	{ "QEMU    ", 8, "QEMU\\x20\\x20\\x20\\x20" },
	{ "a\\b", 3, "a\\x5cb" },
	{ "caf\xc3\xa9", 5, "caf\xc3\xa9" },
	{ "\xff", 1, "\\xff" },
	{ "a/b", 3, "a\\x2fb" },
	{ "ab\0cd", 5, "ab" },
	{ "#+-.:=@_", 8, "#+-.:=@_" },
	{ "", 0, "" },
};

START_TEST(test_encode)
{
	char out[64];

	ck_assert_int_eq(
	        udev_encode_string((const uint8_t *)enc[_i].in, enc[_i].len, out, sizeof(out)),
	        (int)strlen(enc[_i].out));
	ck_assert_str_eq(out, enc[_i].out);
}
END_TEST

START_TEST(test_encode_nobufs)
{
	char out[21];

	memset(out, 'k', sizeof(out));
	ck_assert_int_eq(udev_encode_string((const uint8_t *)"QEMU    ", 8, out, 20), -ENOBUFS);
	ck_assert_int_eq(out[0], 'k');
	ck_assert_int_eq(udev_encode_string((const uint8_t *)"QEMU    ", 8, out, 21), 20);
}
END_TEST

static const struct {
	const char *s;
	size_t len;
	int ret;
} u8[] = {
	{ "A", 1, 1 },
	{ "\xc3\xa9", 2, 2 },
	{ "\xe2\x82\xac", 3, 3 },
	{ "\xf0\x9f\x98\x80", 4, 4 },
	{ "\xc2\x80", 2, 2 },       /* U+0080 is valid UTF-8 */
	{ "\xc3", 1, -EINVAL },     /* truncated */
	{ "\xc3\xa9", 1, -EINVAL }, /* sequence longer than the bytes given */
	{ "\xc3\x28", 2, -EINVAL },
	{ "\xf4\x90\x80\x80", 4, -EINVAL }, /* > U+10FFFF */
	{ "\xef\xb7\x90", 3, -EINVAL },     /* U+FDD0 non-character */
	{ "\xf8\x88\x80\x80\x80", 5, -EINVAL },
	{ "\x80", 1, -EINVAL },
	{ "\xe2\x82", 3, -EINVAL }, /* NUL inside the sequence */
};

START_TEST(test_utf8)
{
	ck_assert_int_eq(utf8_valid_char((const uint8_t *)u8[_i].s, u8[_i].len), u8[_i].ret);
}
END_TEST

static const struct {
	const char *in;
	size_t len;
	const char *out;
} ev[] = {
	{ "abc", 3, "abc" },
	{ "a\nb", 3, "a\\x0ab" },
	{ "a\0b", 3, "a\\x00b" },
	{ "\x7f\r\x1b", 3, "\\x7f\\x0d\\x1b" },
	{ "caf\xc3\xa9", 5, "caf\xc3\xa9" },
	{ "\xc3", 1, "\\xc3" },
	{ "\xc0\xaf/", 3, "\\xc0\\xaf/" },
	{ "a\\x0a=b", 7, "a\\x0a=b" }, /* backslash, '=' and already-escaped text unchanged */
};

START_TEST(test_escape_value)
{
	char out[64];

	ck_assert_int_eq(escape_value((const uint8_t *)ev[_i].in, ev[_i].len, out, sizeof(out)),
	                 (int)strlen(ev[_i].out));
	ck_assert_str_eq(out, ev[_i].out);
	ck_assert_int_eq(escape_value_needed((const uint8_t *)ev[_i].in, ev[_i].len),
	                 strcmp(ev[_i].in, ev[_i].out) != 0 || strlen(ev[_i].in) != ev[_i].len);
	/* The escaped form never needs escaping again. */
	ck_assert(!escape_value_needed((const uint8_t *)out, strlen(out)));
}
END_TEST

START_TEST(test_escape_value_nobufs)
{
	char out[8];

	ck_assert_int_eq(escape_value((const uint8_t *)"a\nb", 3, out, 6), -ENOBUFS);
	ck_assert_int_eq(escape_value((const uint8_t *)"a\nb", 3, out, 7), 6);
	ck_assert_int_eq(escape_value(NULL, 0, out, 1), 0);
	ck_assert_int_eq(escape_value(NULL, 1, out, 8), -EINVAL);
}
END_TEST

static Suite *escape_suite(void)
{
	Suite *s = suite_create("escape");
	TCase *tc = tcase_create("core");

	CHECK_ADD_LOOP(tc, test_replace_whitespace, ws);
	tcase_add_test(tc, test_replace_whitespace_nobufs);
	CHECK_ADD_LOOP(tc, test_replace_chars, rc);
	CHECK_ADD_LOOP(tc, test_encode, enc);
	tcase_add_test(tc, test_encode_nobufs);
	CHECK_ADD_LOOP(tc, test_utf8, u8);
	CHECK_ADD_LOOP(tc, test_escape_value, ev);
	tcase_add_test(tc, test_escape_value_nobufs);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(escape_suite)
