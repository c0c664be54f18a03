/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * usbid: udev's builtin usb_id (systemd v252) identity of a USB mass-storage LU from sysfs
 * strings. Rows marked "VM" are the ID_USB_SERIAL values udev (252.39) printed for the SAN's USB
 * disks in the naming-udev scenario (`udevadm info`, 2026-12-03); the others follow
 * udev-builtin-usb_id.c's rules as described in usbid.h.
 */

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "usbid.h"

static char long_serial[600];

static const struct {
	const char *name;
	UsbIdInput in;
	int ret;
	const char *serial, *vendor, *model, *serial_short, *instance;
} cases[] = {
	/* VM: sdo, QEMU usb-storage (interface 08/06/50) */
	{ "vm-stick",
	  { "08", "06", "QEMU    ", "QEMU HARDDISK   ", true, 0, 0, "46f4", "0001", "QEMU",
	    "QEMU USB HARDDRIVE", "USBSTICK0001" },
	  0,
	  "QEMU_QEMU_HARDDISK_USBSTICK0001-0:0",
	  "QEMU",
	  "QEMU_HARDDISK",
	  "USBSTICK0001",
	  "0:0" },
	/* VM: sdp, '/' in the SCSI model becomes '_' (replace_chars) */
	{ "vm-bot-sd",
	  { "08", "06", "Generic ", "SD/MMC Reader   ", true, 0, 0, "46f4", "0001", "QEMU",
	    "QEMU USB HARDDRIVE", "CARDREADER01" },
	  0,
	  "Generic_SD_MMC_Reader_CARDREADER01-0:0",
	  "Generic",
	  "SD_MMC_Reader",
	  "CARDREADER01",
	  "0:0" },
	/* VM: sdq, LUN 1 of the same reader */
	{ "vm-bot-cf",
	  { "08", "06", "Generic ", "CF Reader       ", true, 0, 1, "46f4", "0001", "QEMU",
	    "QEMU USB HARDDRIVE", "CARDREADER01" },
	  0,
	  "Generic_CF_Reader_CARDREADER01-0:1",
	  "Generic",
	  "CF_Reader",
	  "CARDREADER01",
	  "0:1" },
	/* ATAPI subclass (2) takes the SCSI strings too */
	{ "atapi",
	  { "08", "02", "HL-DT-ST", "DVDRAM GP57EB40 ", true, 0, 0, "0e8d", "1887", NULL, NULL,
	    "K1234" },
	  0,
	  "HL-DT-ST_DVDRAM_GP57EB40_K1234-0:0",
	  "HL-DT-ST",
	  "DVDRAM_GP57EB40",
	  "K1234",
	  "0:0" },
	/* UFI floppy (subclass 4): USB manufacturer/product, no instance */
	{ "ufi",
	  { "08", "04", "TEAC    ", "FD-05PUB        ", true, 0, 0, "0644", "0000", "TEAC Corp.",
	    "USB Floppy", "0001" },
	  0,
	  "TEAC_Corp._USB_Floppy_0001",
	  "TEAC_Corp.",
	  "USB_Floppy",
	  "0001",
	  "" },
	/* no manufacturer/product strings: idVendor/idProduct */
	{ "ids-only",
	  { "08", "01", NULL, NULL, false, 0, 0, "abcd", "1234", NULL, NULL, NULL },
	  0,
	  "abcd_1234",
	  "abcd",
	  "1234",
	  "",
	  "" },
	/* serial with ',' or a byte > 0x7f: dropped whole */
	{ "serial-comma",
	  { "08", "06", "VEND    ", "MOD             ", true, 0, 0, "1111", "2222", NULL, NULL,
	    "12,34" },
	  0,
	  "VEND_MOD-0:0",
	  "VEND",
	  "MOD",
	  "",
	  "0:0" },
	{ "serial-high",
	  { "08", "06", "VEND    ", "MOD             ", true, 0, 0, "1111", "2222", NULL, NULL,
	    "12\xc3\xa9" },
	  0,
	  "VEND_MOD-0:0",
	  "VEND",
	  "MOD",
	  "",
	  "0:0" },
	/* inner whitespace runs collapse to one '_', leading/trailing dropped */
	{ "serial-spaces",
	  { "08", "06", "  A B   ", "M  N            ", true, 2, 3, "1111", "2222", NULL, NULL,
	    "  S  1  " },
	  0,
	  "A_B_M_N_S_1-2:3",
	  "A_B",
	  "M_N",
	  "S_1",
	  "2:3" },
	/* a blank SCSI vendor falls back to the USB manufacturer */
	{ "blank-vendor",
	  { "08", "06", "        ", "MOD             ", true, 0, 0, "1111", "2222", "Maker", NULL,
	    NULL },
	  0,
	  "Maker_MOD-0:0",
	  "Maker",
	  "MOD",
	  "",
	  "0:0" },
	/* usb_id fails without idVendor/idProduct or an interface class */
	{ "no-idvendor",
	  { "08", "06", "V", "M", true, 0, 0, NULL, "2222", NULL, NULL, NULL },
	  -ENODATA,
	  NULL,
	  NULL,
	  NULL,
	  NULL,
	  NULL },
	{ "no-class",
	  { NULL, NULL, "V", "M", true, 0, 0, "1111", "2222", NULL, NULL, NULL },
	  -ENODATA,
	  NULL,
	  NULL,
	  NULL,
	  NULL,
	  NULL },
	/* longer than usb_id's 256-byte result: refused, not truncated */
	{ "too-long",
	  { "08", "06", "V", "M", true, 0, 0, "1111", "2222", NULL, NULL, long_serial },
	  -ENOBUFS,
	  NULL,
	  NULL,
	  NULL,
	  NULL,
	  NULL },
};

START_TEST(test_usbid)
{
	UsbId u;

	ck_assert_int_eq(usbid_compute(&cases[_i].in, &u), cases[_i].ret);
	if (cases[_i].ret < 0)
		return;
	ck_assert_str_eq(u.serial, cases[_i].serial);
	ck_assert_str_eq(u.vendor, cases[_i].vendor);
	ck_assert_str_eq(u.model, cases[_i].model);
	ck_assert_str_eq(u.serial_short, cases[_i].serial_short);
	ck_assert_str_eq(u.instance, cases[_i].instance);
}
END_TEST

START_TEST(test_usbid_args)
{
	UsbId u;

	ck_assert_int_eq(usbid_compute(NULL, &u), -EINVAL);
	ck_assert_int_eq(usbid_compute(&cases[0].in, NULL), -EINVAL);
}
END_TEST

static Suite *usbid_suite(void)
{
	Suite *s = suite_create("usbid");
	TCase *tc = tcase_create("core");

	memset(long_serial, 'x', 300);
	CHECK_ADD_LOOP(tc, test_usbid, cases);
	tcase_add_test(tc, test_usbid_args);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(usbid_suite)
