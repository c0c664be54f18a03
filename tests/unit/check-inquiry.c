/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "inquiry.h"
#include "macro.h"

/* A 36-byte standard INQUIRY as sent by an ATA disk behind libata's SAT layer. */
static const uint8_t inq_ata[] = {
	0x00, 0x00, 0x05, 0x02, 0x5b, 0x00, 0x00, 0x02, 'A', 'T', 'A', ' ',
	' ',  ' ',  ' ',  ' ',  'S',  'a',  'm',  's',  'u', 'n', 'g', ' ',
	'S',  'S',  'D',  ' ',  '8',  '6',  '0',  ' ',  '1', 'B', '6', 'Q',
};

typedef struct InqCase {
	const char *name;
	size_t len; /* bytes of the buffer below handed to the parser */
	uint8_t buf[96];
	int ret;
	uint8_t qualifier, type, version, response_format, tpgs;
	bool rmb, hisup, normaca, sccs, acc, threepc, protect, encserv, multip, cmdque;
	size_t additional_len, vendor_len, product_len, revision_len;
	const char *vendor, *product, *revision;
} InqCase;

static const InqCase inq_cases[] = {
	{ "empty", 0, {}, -EBADMSG },
	{ "four bytes", 4, { 0x00, 0x80, 0x05, 0x02 }, -EBADMSG },
	{ "minimum five",
	  5,
	  { 0x05, 0x80, 0x05, 0x32, 0x00 },
	  0,
	  .type = 5,
	  .rmb = true,
	  .version = 5,
	  .response_format = 2,
	  .hisup = true,
	  .normaca = true,
	  .additional_len = 5 },
	{ "byte five only",
	  6,
	  { 0x00, 0x00, 0x06, 0x12, 0x1f, 0xf9 },
	  0,
	  .version = 6,
	  .response_format = 2,
	  .hisup = true,
	  .additional_len = 36,
	  .sccs = true,
	  .acc = true,
	  .tpgs = 3,
	  .threepc = true,
	  .protect = true },
	{ "byte seven cmdque",
	  8,
	  { 0x0d, 0x00, 0x06, 0x02, 0x1f, 0x00, 0x50, 0x02 },
	  0,
	  .type = 0x0d,
	  .version = 6,
	  .response_format = 2,
	  .additional_len = 36,
	  .encserv = true,
	  .multip = true,
	  .cmdque = true },
	{ "vendor partial",
	  11,
	  { 0x00, 0x00, 0x05, 0x02, 0x1f, 0x00, 0x00, 0x00, 'A', 'B', 'C' },
	  0,
	  .version = 5,
	  .response_format = 2,
	  .additional_len = 36,
	  .vendor_len = 3,
	  .vendor = "ABC" },
	{ "product partial",
	  20,
	  { 0x00, 0x00, 0x05, 0x02, 0x1f, 0x00, 0x00, 0x00, 'V', 'E',
	    'N',  'D',  'O',  'R',  ' ',  ' ',  'P',  'R',  'O', 'D' },
	  0,
	  .version = 5,
	  .response_format = 2,
	  .additional_len = 36,
	  .vendor_len = 8,
	  .vendor = "VENDOR  ",
	  .product_len = 4,
	  .product = "PROD" },
	{ "revision partial",
	  34,
	  { 0x1f, 0x00, 0x05, 0x02, 0x1f, 0x00, 0x00, 0x00, 'V', 'E', 'N', 'D',
	    'O',  'R',  ' ',  ' ',  'P',  'R',  'O',  'D',  'U', 'C', 'T', ' ',
	    ' ',  ' ',  ' ',  ' ',  ' ',  ' ',  ' ',  ' ',  '1', '2' },
	  0,
	  .type = 0x1f,
	  .version = 5,
	  .response_format = 2,
	  .additional_len = 36,
	  .vendor_len = 8,
	  .vendor = "VENDOR  ",
	  .product_len = 16,
	  .product = "PRODUCT         ",
	  .revision_len = 2,
	  .revision = "12" },
	{ "qualifier 3 type 1f",
	  5,
	  { 0x7f, 0x00, 0x00, 0x00, 0x00 },
	  0,
	  .qualifier = 3,
	  .type = 0x1f,
	  .additional_len = 5 },
	{ "qualifier 1 tape",
	  5,
	  { 0x21, 0x80, 0x04, 0x02, 0x00 },
	  0,
	  .qualifier = 1,
	  .type = 1,
	  .rmb = true,
	  .version = 4,
	  .response_format = 2,
	  .additional_len = 5 },
	{ "claims 255 sends 96",
	  96,
	  { 0x00, 0x00, 0x07, 0x02, 0xff },
	  0,
	  .version = 7,
	  .response_format = 2,
	  .additional_len = 260,
	  .vendor_len = 8,
	  .vendor = "\0\0\0\0\0\0\0\0",
	  .product_len = 16,
	  .product = "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
	  .revision_len = 4,
	  .revision = "\0\0\0\0" },
};

START_TEST(test_inquiry_parse)
{
	const InqCase *c = &inq_cases[_i];
	ScsiInquiry inq, untouched;
	int r;

	memset(&inq, 0xa5, sizeof(inq));
	untouched = inq;
	r = inquiry_parse(c->buf, c->len, &inq);
	ck_assert_msg(r == c->ret, "%s: got %d want %d", c->name, r, c->ret);
	if (r < 0) {
		ck_assert_msg(memcmp(&inq, &untouched, sizeof(inq)) == 0, "%s: ret written",
		              c->name);
		return;
	}
	ck_assert_uint_eq(inq.qualifier, c->qualifier);
	ck_assert_uint_eq(inq.type, c->type);
	ck_assert_int_eq(inq.rmb, c->rmb);
	ck_assert_uint_eq(inq.version, c->version);
	ck_assert_uint_eq(inq.response_format, c->response_format);
	ck_assert_int_eq(inq.hisup, c->hisup);
	ck_assert_int_eq(inq.normaca, c->normaca);
	ck_assert_uint_eq(inq.additional_len, c->additional_len);
	ck_assert_int_eq(inq.sccs, c->sccs);
	ck_assert_int_eq(inq.acc, c->acc);
	ck_assert_uint_eq(inq.tpgs, c->tpgs);
	ck_assert_int_eq(inq.threepc, c->threepc);
	ck_assert_int_eq(inq.protect, c->protect);
	ck_assert_int_eq(inq.encserv, c->encserv);
	ck_assert_int_eq(inq.multip, c->multip);
	ck_assert_int_eq(inq.cmdque, c->cmdque);
	ck_assert_uint_eq(inq.vendor_len, c->vendor_len);
	ck_assert_uint_eq(inq.product_len, c->product_len);
	ck_assert_uint_eq(inq.revision_len, c->revision_len);
	if (c->vendor_len)
		ck_assert(memcmp(inq.vendor, c->vendor, c->vendor_len) == 0);
	if (c->product_len)
		ck_assert(memcmp(inq.product, c->product, c->product_len) == 0);
	if (c->revision_len)
		ck_assert(memcmp(inq.revision, c->revision, c->revision_len) == 0);
}
END_TEST

START_TEST(test_inquiry_ata)
{
	ScsiInquiry inq;

	ck_assert_int_eq(inquiry_parse(inq_ata, sizeof(inq_ata), &inq), 0);
	ck_assert_uint_eq(inq.type, 0);
	ck_assert_uint_eq(inq.additional_len, 96);
	ck_assert(memcmp(inq.vendor, "ATA     ", 8) == 0);
	ck_assert(memcmp(inq.product, "Samsung SSD 860 ", 16) == 0);
	ck_assert(memcmp(inq.revision, "1B6Q", 4) == 0);
	ck_assert_int_eq(inq.cmdque, true);
	/* NULL buffer / result are refused, not dereferenced. */
	ck_assert_int_eq(inquiry_parse(NULL, 36, &inq), -EINVAL);
	ck_assert_int_eq(inquiry_parse(inq_ata, sizeof(inq_ata), NULL), -EINVAL);
}
END_TEST

typedef struct TypeCase {
	uint8_t type;
	const char *name; /* kernel scsi_device_type(), trimmed */
	const char *udev; /* systemd scsi_id set_type() */
} TypeCase;

static const TypeCase type_cases[] = {
	{ 0x00, "Direct-Access", "disk" },
	{ 0x01, "Sequential-Access", "tape" },
	{ 0x02, "Printer", "generic" },
	{ 0x03, "Processor", "generic" },
	{ 0x04, "WORM", "optical" },
	{ 0x05, "CD-ROM", "cd" },
	{ 0x06, "Scanner", "generic" },
	{ 0x07, "Optical Device", "optical" },
	{ 0x08, "Medium Changer", "generic" },
	{ 0x09, "Communications", "generic" },
	{ 0x0a, "ASC IT8", "generic" },
	{ 0x0b, "ASC IT8", "generic" },
	{ 0x0c, "RAID", "generic" },
	{ 0x0d, "Enclosure", "generic" },
	{ 0x0e, "Direct-Access-RBC", "disk" },
	{ 0x0f, "Optical card", "optical" },
	{ 0x10, "Bridge controller", "generic" },
	{ 0x11, "Object storage", "generic" },
	{ 0x12, "Automation/Drive", "generic" },
	{ 0x13, "Security Manager", "generic" },
	{ 0x14, "Direct-Access-ZBC", "generic" },
	{ 0x15, NULL, "generic" },
	{ 0x1d, NULL, "generic" },
	{ 0x1e, "Well-known LUN", "generic" },
	{ 0x1f, "No Device", "generic" },
	{ 0x20, NULL, "generic" },
	{ 0xff, NULL, "generic" },
};

START_TEST(test_inquiry_types)
{
	const TypeCase *c = &type_cases[_i];
	const char *n = inquiry_type_name(c->type);

	if (c->name)
		ck_assert_str_eq(n, c->name);
	else
		ck_assert_ptr_null(n);
	ck_assert_str_eq(inquiry_type_udev(c->type), c->udev);
}
END_TEST

static Suite *inquiry_suite(void)
{
	Suite *s = suite_create("inquiry");
	TCase *tc = tcase_create("parse");

	CHECK_ADD_LOOP(tc, test_inquiry_parse, inq_cases);
	tcase_add_test(tc, test_inquiry_ata);
	CHECK_ADD_LOOP(tc, test_inquiry_types, type_cases);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(inquiry_suite)
