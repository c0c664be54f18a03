/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * engine/namerule.c: the hwdb's naming rule (LUND_NAME_IDENTITY) looked up on the USB device's
 * VID:PID and on the SCSI vendor/model, in a compiled hwdb built here byte by byte (systemd's
 * hwdb-internal.h layout, as check-hwdb.c builds it); and the USB VID:PID read by
 * udevctx_read_full() through a fake sysfs tree, as lund and lunctl read it.
 */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check-util.h"
#include "hwdb.h"
#include "macro.h"
#include "namerule.h"
#include "udevctx.h"

#define HDR_LEN  80u
#define NODE_LEN 24u
#define CHILD    16u
#define VALUE    16u

static void put64(uint8_t *p, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A compiled hwdb of one record: "@prefix*" with property @key=@value. Returns its length. */
static size_t build(uint8_t *buf, size_t size, const char *prefix, const char *key,
                    const char *value)
{
	size_t s_prefix = HDR_LEN, s_key = s_prefix + strlen(prefix) + 1,
	       s_value = s_key + 1 + strlen(key) + 1, s_empty = s_value + strlen(value) + 1,
	       strings_end = (s_empty + 1 + 7) & ~(size_t)7, root = strings_end,
	       leaf = root + NODE_LEN + CHILD, len = leaf + NODE_LEN + VALUE;

	ck_assert_uint_le(len, size);
	memset(buf, 0, len);
	memcpy(buf, "KSLPHHRH", 8);
	put64(buf + 8, 252);
	put64(buf + 16, len);
	put64(buf + 24, HDR_LEN);
	put64(buf + 32, NODE_LEN);
	put64(buf + 40, CHILD);
	put64(buf + 48, VALUE);
	put64(buf + 56, root);
	put64(buf + 64, len - root);
	put64(buf + 72, strings_end - HDR_LEN);
	memcpy(buf + s_prefix, prefix, strlen(prefix) + 1);
	buf[s_key] = ' ';
	memcpy(buf + s_key + 1, key, strlen(key) + 1);
	memcpy(buf + s_value, value, strlen(value) + 1);
	/* root: the prefix, one child '*' -> leaf */
	put64(buf + root, s_prefix);
	buf[root + 8] = 1;
	buf[root + NODE_LEN] = '*';
	put64(buf + root + NODE_LEN + 8, leaf);
	/* leaf: empty prefix, one value */
	put64(buf + leaf, s_empty);
	put64(buf + leaf + 16, 1);
	put64(buf + leaf + NODE_LEN, s_key);
	put64(buf + leaf + NODE_LEN + 8, s_value);
	return len;
}

static Hwdb *open_hwdb(const char *prefix, const char *key, const char *value)
{
	uint8_t buf[512];
	size_t len = build(buf, sizeof(buf), prefix, key, value);
	char path[] = "/tmp/check-namerule-XXXXXX";
	int fd = mkstemp(path);
	Hwdb *h = NULL;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
	ck_assert_int_eq(hwdb_validate(buf, len), 0);
	ck_assert_int_eq(hwdb_open(path, &h), 0);
	unlink(path);
	return h;
}

static const struct {
	const char *prefix, *value; /* the hwdb's one record */
	NameRuleQuery q;
	NameRule rule;
	const char *match; /* the match string that chose it, NULL for the default */
} cases[] = {
	/* QEMU's USB mass storage (46f4:0001): the USB match */
	{ "lund:usb:v46F4p0001",
	  "serial-path",
	  { 0, "QEMU", "QEMU HARDDISK", "2.5+", true, 0x46f4, 0x0001 },
	  NAME_RULE_SERIAL_PATH,
	  "lund:usb:v46F4p0001" },
	/* Alcor Micro 058f:6366, a glob on the product */
	{ "lund:usb:v058Fp63",
	  "serial-path",
	  { 0, "Generic", "Flash Card Reader", "1.00", true, 0x058f, 0x6366 },
	  NAME_RULE_SERIAL_PATH,
	  "lund:usb:v058Fp6366" },
	/* another product of the vendor, and no USB device at all */
	{ "lund:usb:v058Fp63",
	  "serial-path",
	  { 0, "Generic", "Flash Card Reader", "1.00", true, 0x058f, 0x9360 },
	  NAME_RULE_IDENTITY,
	  NULL },
	{ "lund:usb:v46F4p0001",
	  "serial-path",
	  { 0, "QEMU", "QEMU HARDDISK", "2.5+", false, 0x46f4, 0x0001 },
	  NAME_RULE_IDENTITY,
	  NULL },
	/* SCSI vendor/model: the INQUIRY strings as hwdb_modalias() writes them */
	{ "lund:scsi:t0:vGeneric:mSD/MMC",
	  "serial-path",
	  { 0, "Generic", "SD/MMC Reader", "2.5+", false, 0, 0 },
	  NAME_RULE_SERIAL_PATH,
	  "lund:scsi:t0:vGeneric:mSD/MMC Reader:r2.5+" },
	{ "lund:scsi:t0:vGeneric:mSD/MMC",
	  "serial-path",
	  { 5, "Generic", "SD/MMC Reader", "2.5+", false, 0, 0 },
	  NAME_RULE_IDENTITY,
	  NULL },
	/* unit-serial on an array's vendor/model (its page 0x83 changes with the firmware) */
	{ "lund:scsi:t0:vACME:mRAID5",
	  "unit-serial",
	  { 0, "ACME", "RAID5 LUN", "4.01", false, 0, 0 },
	  NAME_RULE_UNIT_SERIAL,
	  "lund:scsi:t0:vACME:mRAID5 LUN:r4.01" },
	{ "lund:scsi:t0:vACME:mRAID5",
	  "unit-serial",
	  { 0, "ACME", "RAID6 LUN", "4.01", false, 0, 0 },
	  NAME_RULE_IDENTITY,
	  NULL },
	/* an explicit "identity", and a value that is no rule (ignored) */
	{ "lund:usb:v46F4p0001",
	  "identity",
	  { 0, "QEMU", "QEMU HARDDISK", "2.5+", true, 0x46f4, 0x0001 },
	  NAME_RULE_IDENTITY,
	  NULL },
	{ "lund:usb:v46F4p0001",
	  "serial+path",
	  { 0, "QEMU", "QEMU HARDDISK", "2.5+", true, 0x46f4, 0x0001 },
	  NAME_RULE_IDENTITY,
	  NULL },
};

START_TEST(test_lookup)
{
	Hwdb *h = open_hwdb(cases[_i].prefix, NAME_RULE_HWDB_KEY, cases[_i].value);
	_cleanup_free_ char *match = NULL;
	NameRule rule = _NAME_RULE_INVALID;

	ck_assert_int_eq(name_rule_lookup(h, &cases[_i].q, &rule, &match), 0);
	ck_assert_int_eq(rule, cases[_i].rule);
	if (cases[_i].match)
		ck_assert_str_eq(match, cases[_i].match);
	else
		ck_assert_ptr_null(match);
	hwdb_free(h);
}
END_TEST

/* No hwdb: the default rule, no match; the rules by name, and the source checker's verdicts. */
START_TEST(test_no_hwdb)
{
	const NameRuleQuery q = { 0, "QEMU", "QEMU HARDDISK", "2.5+", true, 0x46f4, 0x0001 };
	char *match = (char *)"x";
	NameRule rule = _NAME_RULE_INVALID;

	ck_assert_int_eq(name_rule_lookup(NULL, &q, &rule, &match), 0);
	ck_assert_int_eq(rule, NAME_RULE_IDENTITY);
	ck_assert_ptr_null(match);
	ck_assert_str_eq(name_rule_to_string(NAME_RULE_SERIAL_PATH), "serial-path");
	ck_assert_int_eq(name_rule_from_string("identity"), NAME_RULE_IDENTITY);
	ck_assert_int_eq(name_rule_from_string("Serial-Path"), _NAME_RULE_INVALID);
	ck_assert_int_eq(name_rule_from_string(NULL), _NAME_RULE_INVALID);
	ck_assert_ptr_null(name_rule_to_string(_NAME_RULE_MAX));
	ck_assert_int_eq(name_rule_check("LUND_NAME_IDENTITY", "serial-path"), 0);
	ck_assert_str_eq(name_rule_to_string(NAME_RULE_UNIT_SERIAL), "unit-serial");
	ck_assert_int_eq(name_rule_from_string("unit-serial"), NAME_RULE_UNIT_SERIAL);
	ck_assert_int_eq(name_rule_check("LUND_NAME_IDENTITY", "unit-serial"), 0);
	ck_assert_int_eq(name_rule_check("LUND_NAME_IDENTITY", "unit_serial"), -EINVAL);
	ck_assert_int_eq(name_rule_check("LUND_NAME_IDENTITY", ""), -EINVAL);
	ck_assert_int_eq(name_rule_check("LUND_TIMEOUT", "5"), -ENOENT);
}
END_TEST

/*
 * name_rule_unit_serial(): the pages as lund has them (page 0x00 inferred, the default page asked
 * for) give scsi_id --page=0x80's name, not the identity's; no INQUIRY data or no page 0x80 no
 * name.
 */
START_TEST(test_unit_serial)
{
	static const uint8_t inq[36] = { 0x00, 0,   6,   2,   31,  0,   0,   0,   'A',
		                         'C',  'M', 'E', ' ', ' ', ' ', ' ', 'R', 'A',
		                         'I',  'D', '5', ' ', 'L', 'U', 'N', ' ', ' ',
		                         ' ',  ' ', ' ', ' ', ' ', '4', '.', '0', '1' };
	static const uint8_t pg80[] = { 0,   0x80, 0,   12,  ' ', 'U', 'S', 'N',
		                        '-', '0',  '0', '0', '1', ' ', ' ', ' ' };
	/* NAA 6 designator: the identity, which the rule does not use */
	static const uint8_t pg83[] = { 0, 0x83, 0, 20, 0x01, 0x03, 0, 16, 0x60, 0x01, 0x40, 0x50,
		                        0, 0,    0, 0,  0,    0,    0, 0,  0,    0,    0,    1 };
	ScsiIdentInput in = {
		.inquiry = inq,
		.inquiry_len = sizeof(inq),
		.pg80 = pg80,
		.pg80_len = sizeof(pg80),
		.pg83 = pg83,
		.pg83_len = sizeof(pg83),
		.page = IDENT_PAGE_DEFAULT,
		.pg00_infer = true,
	};
	char name[NAME_MAX + 1];

	ck_assert_int_eq(name_rule_unit_serial(&in, name),
	                 (int)strlen("scsi-SACME_RAID5_LUN_USN-0001"));
	ck_assert_str_eq(name, "scsi-SACME_RAID5_LUN_USN-0001");
	in.pg80 = NULL;
	ck_assert_int_eq(name_rule_unit_serial(&in, name), -ENODATA);
	in.pg80 = pg80;
	in.inquiry = NULL;
	ck_assert_int_eq(name_rule_unit_serial(&in, name), -ENODATA);
}
END_TEST

/* udevctx_read_full() on a USB mass-storage tree: the VID:PID of the usb_device above the LU, and
 * usb_id's inputs, the same from the LU's sys/bus/scsi/devices link and from its own directory
 * (the form the daemon keeps: probe_resolve_at()). */
#define PCI      "sys/devices/pci0000:00/0000:00:04.0"
#define UDEV_DEV PCI "/usb2/2-1"
#define UDEV_IF  UDEV_DEV "/2-1:1.0"
#define TARGET   UDEV_IF "/host3/target3:0:0"
#define SDEV     TARGET "/3:0:0:1"

static const struct {
	const char *id_vendor, *id_product;
	bool have;
	unsigned vendor, product;
} usb_cases[] = {
	{ "46f4\n", "0001\n", true, 0x46f4, 0x0001 },
	{ "058F\n", "6366\n", true, 0x058f, 0x6366 },
	/* not the kernel's four hex digits: no VID:PID, so no lund:usb: match */
	{ "46f4\n", "00012\n", false, 0, 0 },
	{ "zz00\n", "0001\n", false, 0, 0 },
	{ "\n", "0001\n", false, 0, 0 },
	{ NULL, "0001\n", false, 0, 0 },
};

START_TEST(test_usb_ids)
{
	CheckTree t;
	UdevCtx c, dir;
	LuRef lu = { .hctl = (char *)"3:0:0:1",
		     .host = 3,
		     .target = 0,
		     .lun = 1,
		     .syspath = (char *)"sys/bus/scsi/devices/3:0:0:1" };

	check_tree_new(&t, "namerule");
	check_tree_put_lu(&t, &(CheckLu){ .hctl = "3:0:0:1",
	                                  .parent = TARGET + strlen("sys/devices/"),
	                                  .vendor = "QEMU",
	                                  .model = "QEMU HARDDISK" });
	check_tree_put_str(&t, UDEV_IF "/bInterfaceClass", "08\n");
	check_tree_put_str(&t, UDEV_IF "/bInterfaceSubClass", "06\n");
	if (usb_cases[_i].id_vendor)
		check_tree_put_str(&t, UDEV_DEV "/idVendor", usb_cases[_i].id_vendor);
	check_tree_put_str(&t, UDEV_DEV "/idProduct", usb_cases[_i].id_product);
	check_tree_put_str(&t, UDEV_DEV "/serial", "CLONE0000001\n");

	ck_assert_int_eq(udevctx_read_full(t.fd, &lu, NULL, &c), 0);
	ck_assert(c.have_usb_ids == usb_cases[_i].have);
	if (usb_cases[_i].have) {
		ck_assert_uint_eq(c.usb_vendor, usb_cases[_i].vendor);
		ck_assert_uint_eq(c.usb_product, usb_cases[_i].product);
		ck_assert(c.have_usb);
	}

	lu.syspath = (char *)SDEV;
	ck_assert_int_eq(udevctx_read_full(t.fd, &lu, NULL, &dir), 0);
	ck_assert(dir.have_usb == c.have_usb && dir.have_usb_ids == c.have_usb_ids);
	ck_assert(dir.usb_vendor == c.usb_vendor && dir.usb_product == c.usb_product);
	if (c.have_usb)
		ck_assert_str_eq(dir.usb.serial, c.usb.serial);
	check_tree_remove(&t);
}
END_TEST

static Suite *namerule_suite(void)
{
	Suite *s = suite_create("namerule");
	TCase *tc = tcase_create("core");

	CHECK_ADD_LOOP(tc, test_lookup, cases);
	tcase_add_test(tc, test_no_hwdb);
	tcase_add_test(tc, test_unit_serial);
	CHECK_ADD_LOOP(tc, test_usb_ids, usb_cases);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(namerule_suite)
