/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "macro.h"
#include "sense.h"
#include "unaligned.h"

typedef struct SenseCase {
	const char *name;
	size_t len;
	uint8_t buf[64];
	int ret;
	uint8_t response_code, key, asc, ascq, fru;
	bool descriptor, deferred, have_asc, filemark, eom, ili, info_valid, cmd_info_valid,
	        sks_valid, truncated;
	uint64_t information, cmd_info;
	uint8_t sks[3];
	size_t additional_len, used;
	const char *ua; /* sense_ua_event() when key is UNIT ATTENTION */
} SenseCase;

static const SenseCase sense_cases[] = {
	{ "empty", 0, {}, -EBADMSG },
	{ "fixed two bytes", 2, { 0x70, 0x00 }, -EBADMSG },
	{ "descriptor one byte", 1, { 0x72 }, -EBADMSG },
	{ "vendor specific 7f", 18, { 0x7f, 0, 0x06 }, -EBADMSG },
	{ "response code 00", 18, { 0x00, 0, 0x06 }, -EBADMSG },
	{ "response code 74", 18, { 0x74, 0, 0x06 }, -EBADMSG },
	{ "fixed key only", 3, { 0x70, 0x00, 0x02 }, 0, 0x70, 2, .used = 3 },
	{ "fixed UA reported luns changed",
	  18,
	  { 0x70, 0x00, 0x06, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0x3f, 0x0e, 0, 0, 0, 0 },
	  0,
	  0x70,
	  6,
	  0x3f,
	  0x0e,
	  .have_asc = true,
	  .cmd_info_valid = true,
	  .additional_len = 10,
	  .used = 18,
	  .ua = "REPORTED_LUNS_DATA_HAS_CHANGED" },
	{ "fixed medium error with info and retry count",
	  18,
	  { 0xf0, 0x00, 0x03, 0x12, 0x34, 0x56, 0x78, 0x0a, 0xde, 0xad, 0xbe, 0xef, 0x11, 0x00,
	    0x42, 0x80, 0x00, 0x05 },
	  0,
	  0x70,
	  3,
	  0x11,
	  0x00,
	  0x42,
	  .have_asc = true,
	  .info_valid = true,
	  .information = 0x12345678,
	  .cmd_info_valid = true,
	  .cmd_info = 0xdeadbeef,
	  .sks_valid = true,
	  .sks = { 0x80, 0x00, 0x05 },
	  .additional_len = 10,
	  .used = 18 },
	{ "fixed deferred",
	  18,
	  { 0x71, 0x00, 0x04, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0x44, 0x00 },
	  0,
	  0x71,
	  4,
	  0x44,
	  0x00,
	  .deferred = true,
	  .have_asc = true,
	  .cmd_info_valid = true,
	  .additional_len = 10,
	  .used = 18 },
	{ "fixed tape filemark eom ili",
	  18,
	  { 0x70, 0x00, 0xe0, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0x00, 0x01 },
	  0,
	  0x70,
	  0,
	  0x00,
	  0x01,
	  .have_asc = true,
	  .filemark = true,
	  .eom = true,
	  .ili = true,
	  .cmd_info_valid = true,
	  .additional_len = 10,
	  .used = 18 },
	{ "fixed additional length past buffer",
	  13,
	  { 0x70, 0x00, 0x02, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0x04 },
	  0,
	  0x70,
	  2,
	  .cmd_info_valid = true,
	  .truncated = true,
	  .additional_len = 10,
	  .used = 13 },
	{ "fixed additional length 255, 18 sent",
	  18,
	  { 0x70, 0x00, 0x06, 0, 0, 0, 0, 0xff, 0, 0, 0, 0, 0x29, 0x00, 0, 0, 0, 0 },
	  0,
	  0x70,
	  6,
	  0x29,
	  0x00,
	  .have_asc = true,
	  .cmd_info_valid = true,
	  .truncated = true,
	  .additional_len = 255,
	  .used = 18,
	  .ua = "POWER_ON_RESET_OCCURRED" },
	{ "fixed additional length 0 hides ASC",
	  18,
	  { 0x70, 0x00, 0x06, 0, 0, 0, 0, 0x00, 0, 0, 0, 0, 0x29, 0x00 },
	  0,
	  0x70,
	  6,
	  .used = 8 },
	{ "fixed not ready format progress",
	  18,
	  { 0x70, 0x00, 0x02, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0x04, 0x04, 0, 0x80, 0x40, 0x00 },
	  0,
	  0x70,
	  2,
	  0x04,
	  0x04,
	  .have_asc = true,
	  .cmd_info_valid = true,
	  .sks_valid = true,
	  .sks = { 0x80, 0x40, 0x00 },
	  .additional_len = 10,
	  .used = 18 },
	{ "fixed illegal request field pointer",
	  18,
	  { 0x70, 0x00, 0x05, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0x24, 0x00, 0, 0xcb, 0x00, 0x02 },
	  0,
	  0x70,
	  5,
	  0x24,
	  0x00,
	  .have_asc = true,
	  .cmd_info_valid = true,
	  .sks_valid = true,
	  .sks = { 0xcb, 0x00, 0x02 },
	  .additional_len = 10,
	  .used = 18 },
	{ "descriptor POR",
	  8,
	  { 0x72, 0x06, 0x29, 0x00, 0, 0, 0, 0 },
	  0,
	  0x72,
	  6,
	  0x29,
	  0x00,
	  .descriptor = true,
	  .have_asc = true,
	  .used = 8,
	  .ua = "POWER_ON_RESET_OCCURRED" },
	{ "descriptor short header",
	  4,
	  { 0x72, 0x06, 0x2a, 0x09 },
	  0,
	  0x72,
	  6,
	  0x2a,
	  0x09,
	  .descriptor = true,
	  .have_asc = true,
	  .used = 4,
	  .ua = "CAPACITY_DATA_HAS_CHANGED" },
	{ "descriptor key only",
	  2,
	  { 0x73, 0x03 },
	  0,
	  0x73,
	  3,
	  .descriptor = true,
	  .deferred = true,
	  .used = 2 },
	{ "descriptor info + sks + stream + fru",
	  8 + 12 + 8 + 4 + 4,
	  { 0x72, 0x03, 0x11, 0x00, 0,    0,    0,    28,   0x00, 0x0a, 0x80, 0,
	    0x00, 0x00, 0x00, 0x01, 0x23, 0x45, 0x67, 0x89, 0x02, 0x06, 0,    0,
	    0x80, 0x00, 0x03, 0,    0x04, 0x02, 0x00, 0x60, 0x03, 0x02, 0x00, 0x99 },
	  0,
	  0x72,
	  3,
	  0x11,
	  0x00,
	  0x99,
	  .descriptor = true,
	  .have_asc = true,
	  .info_valid = true,
	  .information = 0x0123456789ull,
	  .sks_valid = true,
	  .sks = { 0x80, 0x00, 0x03 },
	  .eom = true,
	  .ili = true,
	  .additional_len = 28,
	  .used = 36 },
	{ "descriptor command specific + block",
	  8 + 12 + 4,
	  { 0x72, 0x0b, 0x47, 0x00, 0,    0,    0,    16,   0x01, 0x0a, 0,    0,
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x05, 0x02, 0x00, 0x20 },
	  0,
	  0x72,
	  0x0b,
	  0x47,
	  0x00,
	  .descriptor = true,
	  .have_asc = true,
	  .cmd_info_valid = true,
	  .cmd_info = 0xfffffffffffffffeull,
	  .ili = true,
	  .additional_len = 16,
	  .used = 24 },
	{ "descriptor SBC direct-access",
	  8 + 24,
	  { 0x72, 0x03, 0x11, 0x00, 0, 0, 0,    24,   0x0d, 0x16, 0xa0, 0, 0x80, 0x00, 0x02, 0x07,
	    0,    0,    0,    0,    0, 0, 0x10, 0x00, 0,    0,    0,    0, 0,    0,    0,    0x05 },
	  0,
	  0x72,
	  3,
	  0x11,
	  0x00,
	  0x07,
	  .descriptor = true,
	  .have_asc = true,
	  .info_valid = true,
	  .ili = true,
	  .information = 0x1000,
	  .sks_valid = true,
	  .sks = { 0x80, 0x00, 0x02 },
	  .cmd_info_valid = true,
	  .cmd_info = 5,
	  .additional_len = 24,
	  .used = 32 },
	{ "descriptor length past additional data",
	  8 + 4,
	  { 0x72, 0x04, 0x44, 0x00, 0, 0, 0, 4, 0x00, 0x0a, 0x80, 0 },
	  0,
	  0x72,
	  4,
	  0x44,
	  0x00,
	  .descriptor = true,
	  .have_asc = true,
	  .truncated = true,
	  .additional_len = 4,
	  .used = 12 },
	{ "descriptor length past buffer, inside claim",
	  8 + 6,
	  { 0x72, 0x04, 0x44, 0x00, 0, 0, 0, 12, 0x00, 0x0a, 0x80, 0, 0, 0 },
	  0,
	  0x72,
	  4,
	  0x44,
	  0x00,
	  .descriptor = true,
	  .have_asc = true,
	  .truncated = true,
	  .additional_len = 12,
	  .used = 14 },
	{ "descriptor good then bad",
	  8 + 8 + 3,
	  { 0x72, 0x02, 0x04, 0x04, 0, 0, 0, 11, 0x02, 0x06, 0, 0, 0x80, 0x12, 0x34, 0, 0x00, 0x0a,
	    0x80 },
	  0,
	  0x72,
	  2,
	  0x04,
	  0x04,
	  .descriptor = true,
	  .have_asc = true,
	  .sks_valid = true,
	  .sks = { 0x80, 0x12, 0x34 },
	  .truncated = true,
	  .additional_len = 11,
	  .used = 19 },
	{ "descriptor partial header",
	  8 + 1,
	  { 0x72, 0x06, 0x3f, 0x03, 0, 0, 0, 1, 0x00 },
	  0,
	  0x72,
	  6,
	  0x3f,
	  0x03,
	  .descriptor = true,
	  .have_asc = true,
	  .truncated = true,
	  .additional_len = 1,
	  .used = 9,
	  .ua = "INQUIRY_DATA_HAS_CHANGED" },
	{ "descriptor short info descriptor ignored",
	  8 + 4,
	  { 0x72, 0x06, 0x2a, 0x06, 0, 0, 0, 4, 0x00, 0x02, 0x80, 0x00 },
	  0,
	  0x72,
	  6,
	  0x2a,
	  0x06,
	  .descriptor = true,
	  .have_asc = true,
	  .additional_len = 4,
	  .used = 12,
	  .ua = "ASYMMETRIC_ACCESS_STATE_CHANGED" },
	{ "descriptor zero-length descriptors",
	  8 + 6,
	  { 0x72, 0x06, 0x38, 0x07, 0, 0, 0, 6, 0x80, 0x00, 0x81, 0x00, 0x82, 0x00 },
	  0,
	  0x72,
	  6,
	  0x38,
	  0x07,
	  .descriptor = true,
	  .have_asc = true,
	  .additional_len = 6,
	  .used = 14,
	  .ua = "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED" },
	/* SPC-6 4.4.2: SDAT_OVFL (byte 4, bit 7) says the descriptors were cut, not malformed */
	{ "descriptor POR, SDAT_OVFL",
	  8,
	  { 0x72, 0x06, 0x29, 0x00, 0x80, 0, 0, 0 },
	  0,
	  0x72,
	  6,
	  0x29,
	  0x00,
	  .descriptor = true,
	  .have_asc = true,
	  .used = 8,
	  .ua = "POWER_ON_RESET_OCCURRED" },
};

START_TEST(test_sense_parse)
{
	const SenseCase *c = &sense_cases[_i];
	ScsiSense s = { .key = 0xee };
	int r;

	r = sense_parse(c->buf, c->len, &s);
	ck_assert_msg(r == c->ret, "%s: %d", c->name, r);
	if (r < 0) {
		ck_assert_uint_eq(s.key, 0xee);
		return;
	}
	ck_assert_uint_eq(s.response_code, c->response_code);
	ck_assert_int_eq(s.descriptor, c->descriptor);
	ck_assert_int_eq(s.deferred, c->deferred);
	ck_assert_uint_eq(s.key, c->key);
	ck_assert_int_eq(s.have_asc, c->have_asc);
	ck_assert_uint_eq(s.asc, c->asc);
	ck_assert_uint_eq(s.ascq, c->ascq);
	ck_assert_int_eq(s.filemark, c->filemark);
	ck_assert_int_eq(s.eom, c->eom);
	ck_assert_int_eq(s.ili, c->ili);
	ck_assert_int_eq(s.info_valid, c->info_valid);
	ck_assert_uint_eq(s.information, c->information);
	ck_assert_int_eq(s.cmd_info_valid, c->cmd_info_valid);
	ck_assert_uint_eq(s.cmd_info, c->cmd_info);
	ck_assert_int_eq(s.sks_valid, c->sks_valid);
	if (c->sks_valid)
		ck_assert(memcmp(s.sks, c->sks, 3) == 0);
	ck_assert_uint_eq(s.fru, c->fru);
	ck_assert_uint_eq(s.additional_len, c->additional_len);
	ck_assert_msg(s.len == c->used, "%s: len %zu", c->name, s.len);
	ck_assert_uint_le(s.len, c->len);
	ck_assert_msg(s.truncated == c->truncated, "%s: truncated %d", c->name, s.truncated);
	if (c->ua)
		ck_assert_str_eq(sense_ua_event(s.asc, s.ascq), c->ua);
}
END_TEST

START_TEST(test_sense_sks_helpers)
{
	ScsiSense s;
	uint16_t v;

	/* NOT READY, FORMAT IN PROGRESS, 25% */
	ck_assert_int_eq(sense_parse(sense_cases[14].buf, sense_cases[14].len, &s), 0);
	ck_assert_int_eq(sense_progress(&s, &v), 0);
	ck_assert_uint_eq(v, 0x4000);
	/* SKSV clear */
	s.sks_valid = false;
	ck_assert_int_eq(sense_progress(&s, &v), -ENODATA);

	/* ILLEGAL REQUEST: its sense-key specific bytes are a field pointer */
	ck_assert_int_eq(sense_parse(sense_cases[15].buf, sense_cases[15].len, &s), 0);
	ck_assert_int_eq(sense_progress(&s, &v), -ENODATA);
}
END_TEST

START_TEST(test_sense_descriptor_walk)
{
	const SenseCase *c = &sense_cases[19]; /* info + sks + stream + fru */
	static const uint8_t types[] = { 0x00, 0x02, 0x04, 0x03 };
	SenseDescriptor d;
	size_t off = 0, n = 0;
	int r;

	while ((r = sense_next_descriptor(c->buf, c->len, &off, &d)) > 0) {
		ck_assert_uint_lt(n, ELEMENTSOF(types));
		ck_assert_uint_eq(d.type, types[n]);
		ck_assert_ptr_eq(d.desc, c->buf + d.offset);
		ck_assert_uint_le(d.offset + 2 + d.len, c->len);
		n++;
	}
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(n, 4);

	off = 0;
	ck_assert_int_eq(sense_next_descriptor(sense_cases[7].buf, 18, &off, &d), -ENODATA);
	off = 0;
	ck_assert_int_eq(sense_next_descriptor(sense_cases[23].buf, sense_cases[23].len, &off, &d),
	                 -EBADMSG);
	off = 0;
	ck_assert_int_eq(sense_next_descriptor(NULL, 0, &off, &d), -EBADMSG);
}
END_TEST

/* 8 + 255 bytes of 2-byte descriptors, the most there can be, then the same with the last
 * descriptor's length one too large. */
START_TEST(test_sense_max)
{
	uint8_t buf[SENSE_MAX_LEN] = { 0x72, 0x06, 0x3f, 0x0e, 0, 0, 0, 255 };
	SenseDescriptor d;
	ScsiSense s;
	size_t off = 0, n = 0;
	int r;

	for (size_t i = 8; i + 2 <= sizeof(buf); i += 2)
		buf[i] = 0x80 | (i & 0x7f);
	/* 255 is odd: the last descriptor carries one byte. */
	buf[sizeof(buf) - 2] = 0x01;
	while ((r = sense_next_descriptor(buf, sizeof(buf), &off, &d)) > 0)
		n++;
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(n, 127);
	ck_assert_int_eq(sense_parse(buf, sizeof(buf), &s), 0);
	ck_assert(!s.truncated);
	ck_assert_uint_eq(s.len, SENSE_MAX_LEN);

	buf[sizeof(buf) - 2] = 0x02;
	ck_assert_int_eq(sense_parse(buf, sizeof(buf), &s), 0);
	ck_assert(s.truncated);
	ck_assert_uint_eq(s.key, 6);
	ck_assert_str_eq(sense_ua_event(s.asc, s.ascq), "REPORTED_LUNS_DATA_HAS_CHANGED");
}
END_TEST

START_TEST(test_key_names)
{
	static const char *const want[16] = {
		"NO SENSE",       "RECOVERED ERROR", "NOT READY",      "MEDIUM ERROR",
		"HARDWARE ERROR", "ILLEGAL REQUEST", "UNIT ATTENTION", "DATA PROTECT",
		"BLANK CHECK",    "VENDOR SPECIFIC", "COPY ABORTED",   "ABORTED COMMAND",
		"OBSOLETE",       "VOLUME OVERFLOW", "MISCOMPARE",     "COMPLETED",
	};

	for (unsigned k = 0; k < 16; k++)
		ck_assert_str_eq(sense_key_name(k), want[k]);
	ck_assert_ptr_null(sense_key_name(16));
	ck_assert_ptr_null(sense_key_name(0xff));
}
END_TEST

static Suite *sense_suite(void)
{
	Suite *s = suite_create("sense");
	TCase *tc = tcase_create("sense");

	CHECK_ADD_LOOP(tc, test_sense_parse, sense_cases);
	tcase_add_test(tc, test_sense_sks_helpers);
	tcase_add_test(tc, test_sense_descriptor_walk);
	tcase_add_test(tc, test_sense_max);
	tcase_add_test(tc, test_key_names);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(sense_suite)
