/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ident: every fixture set in tests/fixtures/vpd/ with a NAME.expect must produce exactly those
 * lines (the .expect files come from the real scsi_id / sg_inq, see make-fixtures.py; fixtures
 * added later, e.g. captured in the VM, join automatically). Plus table cases for the fields
 * that are not printed (serial source and type) and for argument handling.
 */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-fixture.h"
#include "check-util.h"
#include "export.h"
#include "ident.h"

#define VPD_DIR FIXTURES_DIR "/vpd"

static char **names;
static size_t n_names;

static char *read_expect(const char *name, size_t *ret_len)
{
	char path[PATH_MAX];

	xsnprintf(path, "%s/%s.expect", VPD_DIR, name);
	return check_read_file(path, true, ret_len);
}

START_TEST(test_fixture)
{
	const char *name = names[_i];
	ScsiIdentInput in;
	ScsiIdent *id = calloc(1, sizeof(*id));
	size_t size = 4 << 20, len, elen;
	char *buf = malloc(size), *exp;
	Fixture fx = {};

	ck_assert_int_eq(fixture_load(VPD_DIR, name, &fx), 0);
	fixture_ident_input(&fx, &in);
	ck_assert_int_eq(ident_compute(&in, id), 0);
	ck_assert_int_eq(export_to_buffer(id, EXPORT_UDEV | EXPORT_SG_INQ, buf, size, &len), 0);
	exp = read_expect(name, &elen);
	ck_assert_msg(len == elen && memcmp(buf, exp, len) == 0, "%s: got\n%s\nexpected\n%s", name,
	              buf, exp);
	free(exp);
	free(buf);
	free(id);
	fixture_done(&fx);
}
END_TEST

/* Fields not visible in the export. Expected values reasoned from scsi_serial.c (v252). */
static const struct {
	const char *name;
	IdentSerialSource source;
	char type;
	bool have_serial;
} fields[] = {
	{ "qemu-hd-serial", IDENT_SERIAL_PG83, '0', true }, /* vendor specific */
	{ "qemu-hd-wwn", IDENT_SERIAL_PG83, '3', true },    /* NAA beats vendor specific */
	{ "scsi-debug", IDENT_SERIAL_PG83, '3', true },     /* NAA 3 beats T10 */
	{ "sat-ata-disk", IDENT_SERIAL_PG83, '1', true },   /* T10 beats vendor specific */
	{ "eui64-16", IDENT_SERIAL_PG83, '2', true },
	{ "emc-pre-spc2", IDENT_SERIAL_PG83_PRE_SPC2, '3', true },
	{ "name-iqn-only", IDENT_SERIAL_PG80, 'S', true },  /* no name strings in the table */
	{ "name-naa-eui", IDENT_SERIAL_NONE, '\0', false }, /* and no page 0x80 */
	{ "hostile-vendor-nul", IDENT_SERIAL_LEFTOVER, 'S', true },
	{ "hostile-pg00-is-inquiry", IDENT_SERIAL_NONE, '\0', false },
	{ "hostile-pg00-dup83", IDENT_SERIAL_PG80, 'S', true },
	{ "hostile-pg80-long", IDENT_SERIAL_NONE, '\0', false }, /* 240 > 231 bytes */
	{ "hostile-binary-128", IDENT_SERIAL_PG80, 'S', true },  /* 2*128+2 > 256 */
	{ "hostile-pg83-65535", IDENT_SERIAL_NONE, '\0', false },
};

START_TEST(test_fields)
{
	ScsiIdentInput in;
	ScsiIdent *id = calloc(1, sizeof(*id));
	Fixture fx = {};

	ck_assert_int_eq(fixture_load(VPD_DIR, fields[_i].name, &fx), 0);
	fixture_ident_input(&fx, &in);
	ck_assert_int_eq(ident_compute(&in, id), 0);
	ck_assert_msg(id->serial_source == fields[_i].source, "%s: source %s", fields[_i].name,
	              ident_serial_source_name(id->serial_source));
	ck_assert_int_eq(id->serial_type, fields[_i].type);
	ck_assert_int_eq(id->have_serial, fields[_i].have_serial);
	free(id);
	fixture_done(&fx);
}
END_TEST

/* -p 0x80 / 0x83 / pre-spc3-83 (scsi_id's per-device page option). */
START_TEST(test_page_option)
{
	ScsiIdentInput in;
	ScsiIdent *id = calloc(1, sizeof(*id));
	Fixture fx = {};

	ck_assert_int_eq(fixture_load(VPD_DIR, "qemu-hd-wwn", &fx), 0);
	fixture_ident_input(&fx, &in);
	in.page = IDENT_PAGE_80;
	ck_assert_int_eq(ident_compute(&in, id), 0);
	ck_assert_str_eq(id->serial, "SQEMU_QEMU_HARDDISK_QM00002");
	ck_assert_str_eq(id->scsi_serial, ""); /* only page 0x83 mode fetches it */
	ck_assert_str_eq(id->wwn, "");
	in.page = IDENT_PAGE_83;
	ck_assert_int_eq(ident_compute(&in, id), 0);
	ck_assert_str_eq(id->serial, "35000c50015ea71ac");
	ck_assert_str_eq(id->scsi_serial, "QM00002");
	/* pre-spc3-83 on an SPC-3 page: byte 6 is 0, so it falls back to the normal walk. */
	in.page = IDENT_PAGE_83_PRE_SPC3;
	ck_assert_int_eq(ident_compute(&in, id), 0);
	ck_assert_str_eq(id->serial, "35000c50015ea71ac");
	/* Without page 0x00 and without inference, scsi_id gets no serial at all. */
	in.page = IDENT_PAGE_DEFAULT;
	in.pg00_infer = false;
	ck_assert_int_eq(ident_compute(&in, id), 0);
	ck_assert(!id->have_serial);
	ck_assert_str_eq(id->vendor, "QEMU");
	free(id);
	fixture_done(&fx);
}
END_TEST

/* What scsi_id made of each page 0x83 designator (lunctl names --why), on a crafted page. */
START_TEST(test_designators)
{
	static const uint8_t inq[36] = { 0x00, 0,   6,   2,   31,  0,   0,   0,   'V',
		                         'E',  'N', 'D', 'O', 'R', ' ', ' ', 'M', 'O',
		                         'D',  'E', 'L', ' ', ' ', ' ', ' ', ' ', ' ',
		                         ' ',  ' ', ' ', ' ', ' ', '1', '0', '0', '0' };
	static const uint8_t pg00[] = { 0, 0x00, 0, 3, 0x00, 0x80, 0x83 };
	static const uint8_t pg00_no83[] = { 0, 0x00, 0, 2, 0x00, 0x80 };
	static const uint8_t pg80[] = { 0, 0x80, 0, 4, 'S', 'N', '0', '1' };
	uint8_t pg83[400] = { 0, 0x83 };
	size_t o = 4;
	ScsiIdentInput in = {
		.inquiry = inq,
		.inquiry_len = sizeof(inq),
		.pg00 = pg00,
		.pg00_len = sizeof(pg00),
		.pg80 = pg80,
		.pg80_len = sizeof(pg80),
		.pg83 = pg83,
	};
	ScsiIdent *id = calloc(1, sizeof(*id));
	IdentDesignator d[16];
	static const IdentDesigVerdict want[] = {
		IDENT_DESIG_ASSOC,    IDENT_DESIG_CODE_SET,  IDENT_DESIG_USED,
		IDENT_DESIG_TPG,      IDENT_DESIG_OUTRANKED, IDENT_DESIG_TYPE,
		IDENT_DESIG_TOO_LONG, IDENT_DESIG_UNSEEN,
	};
	size_t n;

	/* NAA 5 of the target port */
	pg83[o] = 1, pg83[o + 1] = 0x13, pg83[o + 3] = 8, pg83[o + 4] = 0x50, o += 12;
	/* T10 vendor ID in UTF-8 */
	pg83[o] = 3, pg83[o + 1] = 0x01, pg83[o + 3] = 4, memcpy(pg83 + o + 4, "ABCD", 4), o += 8;
	/* EUI-64, binary, of the LU: the one */
	pg83[o] = 1, pg83[o + 1] = 0x02, pg83[o + 3] = 8, pg83[o + 4] = 0x11, o += 12;
	/* target port group 2 */
	pg83[o] = 1, pg83[o + 1] = 0x15, pg83[o + 3] = 4, pg83[o + 7] = 2, o += 8;
	/* T10 vendor ID, ASCII, of the LU: a lower row */
	pg83[o] = 2, pg83[o + 1] = 0x01, pg83[o + 3] = 4, memcpy(pg83 + o + 4, "WXYZ", 4), o += 8;
	/* UUID */
	pg83[o] = 1, pg83[o + 1] = 0x0a, pg83[o + 3] = 4, o += 8;
	/* vendor specific, ASCII, 240 bytes: with vendor and model, past scsi_id's serial */
	pg83[o] = 2, pg83[o + 1] = 0x00, pg83[o + 3] = 240, memset(pg83 + o + 4, 'x', 240);
	o += 244;
	/* an NAA that starts past the 254 bytes scsi_id reads */
	pg83[o] = 1, pg83[o + 1] = 0x03, pg83[o + 3] = 8, pg83[o + 4] = 0x60, o += 12;
	pg83[2] = (uint8_t)((o - 4) >> 8), pg83[3] = (uint8_t)(o - 4);
	in.pg83_len = o;

	ck_assert_int_eq(ident_compute(&in, id), 0);
	ck_assert_int_eq(id->serial_source, IDENT_SERIAL_PG83);
	ck_assert_str_eq(id->serial, "21100000000000000");
	ck_assert_str_eq(id->target_port, "2");
	n = ident_designators(id, d, ELEMENTSOF(d));
	ck_assert_uint_eq(n, ELEMENTSOF(want));
	for (size_t k = 0; k < n; k++)
		ck_assert_msg(d[k].verdict == want[k], "designator %zu: %s, expected %s", k,
		              ident_designator_verdict_name(d[k].verdict),
		              ident_designator_verdict_name(want[k]));
	ck_assert_int_eq(d[2].row, 7);  /* EUI-64 binary */
	ck_assert_int_eq(d[4].row, 10); /* T10 ASCII */
	ck_assert_uint_eq(d[2].offset, 24);

	/* fewer slots than designators: only as many are filled */
	ck_assert_uint_eq(ident_designators(id, d, 3), 3);

	/* page 0x00 does not list page 0x83: scsi_id never walks it, page 0x80 names */
	in.pg00 = pg00_no83, in.pg00_len = sizeof(pg00_no83);
	ck_assert_int_eq(ident_compute(&in, id), 0);
	ck_assert_int_eq(id->serial_source, IDENT_SERIAL_PG80);
	n = ident_designators(id, d, ELEMENTSOF(d));
	ck_assert_uint_eq(n, ELEMENTSOF(want));
	for (size_t k = 0; k < n; k++)
		ck_assert_int_eq(d[k].verdict, IDENT_DESIG_NOT_TRIED);

	/* a page that is no page 0x83, or none: no designators */
	pg83[1] = 0x80;
	in.pg00 = pg00, in.pg00_len = sizeof(pg00);
	ck_assert_int_eq(ident_compute(&in, id), 0);
	ck_assert_uint_eq(ident_designators(id, d, ELEMENTSOF(d)), 0);
	in.pg83 = NULL;
	ck_assert_int_eq(ident_compute(&in, id), 0);
	ck_assert_uint_eq(ident_designators(id, d, ELEMENTSOF(d)), 0);
	free(id);
}
END_TEST

START_TEST(test_args)
{
	ScsiIdentInput in = {};
	ScsiIdent id;
	static const uint8_t inq[36] = { 0x05 };

	ck_assert_int_eq(ident_compute(NULL, &id), -EINVAL);
	ck_assert_int_eq(ident_compute(&in, NULL), -EINVAL);
	ck_assert_int_eq(ident_compute(&in, &id), -ENODATA);
	in.inquiry = inq;
	in.inquiry_len = sizeof(inq);
	in.page = _IDENT_PAGE_MAX;
	ck_assert_int_eq(ident_compute(&in, &id), -EINVAL);
	in.page = IDENT_PAGE_DEFAULT;
	ck_assert_int_eq(ident_compute(&in, &id), 0);
	ck_assert_str_eq(id.type, "cd");
	ck_assert_str_eq(id.vendor, ""); /* all NUL: empty, as scsi_id prints it */
	ck_assert_str_eq(ident_serial_source_name(IDENT_SERIAL_PG80), "pg80");
	ck_assert_ptr_null(ident_serial_source_name(_IDENT_SERIAL_SOURCE_MAX));
}
END_TEST

/*
 * libata's sysfs ata_device "id" as the ATAPI source of ata_id's view. The file is the ahci
 * ide-cd's (tests/fixtures/ata/ahci-cd-dev4.0.id, read in the naming-udev
 * VM); udev's ata_id printed for it ID_MODEL=LUND_DVD-ROM, ID_SERIAL=LUND_DVD-ROM_ATAPI00001,
 * ID_SERIAL_SHORT=ATAPI00001, ID_TYPE=cd (`udevadm info /dev/sr2`, same run).
 */
#define ATA_ID_FILE FIXTURES_DIR "/ata/ahci-cd-dev4.0.id"

START_TEST(test_ata_identify)
{
	uint8_t inq[FIXTURE_MAX], ata[ATA_IDENTIFY_LEN];
	char a[8192], b[8192];
	size_t n, la, lb;
	_cleanup_free_ char *text = check_read_file(ATA_ID_FILE, false, &n);
	int ni = fixture_read_hex(FIXTURES_DIR "/captured/ahci-cd/sysfs-inquiry.hex", inq,
	                          sizeof(inq));
	ScsiIdentInput in;
	ScsiIdent with, without;

	ck_assert_int_gt(ni, 0);
	ck_assert_int_eq(ident_ata_identify_parse(text, n, ata), 0);
	/* word 0 0x85c0: ATAPI, CD/DVD command set; words go out least significant byte first */
	ck_assert_uint_eq(ata[0], 0xc0);
	ck_assert_uint_eq(ata[1], 0x85);

	in = (ScsiIdentInput){ .inquiry = inq, .inquiry_len = (size_t)ni, .pg00_infer = true };
	ck_assert_int_eq(ident_compute(&in, &without), 0);
	ck_assert(!without.ata.valid);
	in.ata_identify = ata;
	in.ata_identify_len = sizeof(ata);
	ck_assert_int_eq(ident_compute(&in, &with), 0);
	ck_assert(with.ata.valid);
	ck_assert(with.ata.packet);
	ck_assert_str_eq(with.ata.type, "cd");
	ck_assert_str_eq(with.ata.model, "LUND_DVD-ROM");
	ck_assert_str_eq(with.ata.serial, "LUND_DVD-ROM_ATAPI00001");
	ck_assert_str_eq(with.ata.serial_short, "ATAPI00001");
	ck_assert_str_eq(with.ata.revision, "2.5+");
	ck_assert_str_eq(with.ata.wwn, "");

	/* The scsi_id and sg_inq sets do not change: the IDENTIFY data only feeds ata_id's. */
	ck_assert_int_eq(export_to_buffer(&without, EXPORT_UDEV | EXPORT_SG_INQ, a, sizeof(a), &la),
	                 0);
	ck_assert_int_eq(export_to_buffer(&with, EXPORT_UDEV | EXPORT_SG_INQ, b, sizeof(b), &lb),
	                 0);
	ck_assert_str_eq(a, b);

	/* A short buffer is not used. */
	in.ata_identify_len = sizeof(ata) - 1;
	ck_assert_int_eq(ident_compute(&in, &with), 0);
	ck_assert(!with.ata.valid);
}
END_TEST

static char words_ok[256 * 5 + 1], words_bad[256 * 5 + 8];

static const struct {
	const char *name;
	const char *text; /* NULL: built in main() */
	int ret;
} parse_cases[] = {
	{ "empty", "", -EBADMSG },
	{ "one-word", "85c0\n", -EBADMSG },
	{ "not-hex", "85cg 0000\n", -EBADMSG },
};

START_TEST(test_ata_identify_parse)
{
	uint8_t out[ATA_IDENTIFY_LEN];

	ck_assert_int_eq(
	        ident_ata_identify_parse(parse_cases[_i].text, strlen(parse_cases[_i].text), out),
	        parse_cases[_i].ret);
}
END_TEST

START_TEST(test_ata_identify_forms)
{
	uint8_t out[ATA_IDENTIFY_LEN];
	size_t n = strlen(words_ok);

	ck_assert_int_eq(ident_ata_identify_parse(words_ok, n, out), 0);
	ck_assert_uint_eq(out[510], 0xcd);
	ck_assert_uint_eq(out[511], 0xab);
	/* without the final newline */
	ck_assert_int_eq(ident_ata_identify_parse(words_ok, n - 1, out), 0);
	/* a 257th word, two blanks, a tab, a 3-digit word */
	ck_assert_int_eq(ident_ata_identify_parse(words_bad, strlen(words_bad), out), -EBADMSG);
	memcpy(words_bad, words_ok, n + 1);
	words_bad[4] = '\t';
	ck_assert_int_eq(ident_ata_identify_parse(words_bad, n, out), -EBADMSG);
	memcpy(words_bad, words_ok, n + 1);
	words_bad[3] = ' ';
	ck_assert_int_eq(ident_ata_identify_parse(words_bad, n, out), -EBADMSG);
	ck_assert_int_eq(ident_ata_identify_parse(NULL, 0, out), -EINVAL);
}
END_TEST

static Suite *ident_suite(void)
{
	Suite *s = suite_create("ident");
	TCase *tc = tcase_create("core");

	names = check_fixture_list(VPD_DIR, ".expect", &n_names);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_fixture, 0, (int)n_names);
	CHECK_ADD_LOOP(tc, test_fields, fields);
	tcase_add_test(tc, test_page_option);
	tcase_add_test(tc, test_designators);
	tcase_add_test(tc, test_args);
	tcase_add_test(tc, test_ata_identify);
	CHECK_ADD_LOOP(tc, test_ata_identify_parse, parse_cases);
	/* 256 words as libata prints them: "%04x" and ' ', '\n' after every 8th */
	for (int w = 0; w < 256; w++)
		snprintf(words_ok + w * 5, 6, "%04x%c", w == 255 ? 0xabcd : w,
		         (w + 1) % 8 ? ' ' : '\n');
	snprintf(words_bad, sizeof(words_bad), "%s0000\n", words_ok);
	tcase_add_test(tc, test_ata_identify_forms);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(ident_suite)
