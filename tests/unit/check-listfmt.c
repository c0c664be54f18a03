/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * listfmt: what `lunctl list` must read and print exactly as lsscsi 0.31 (Debian 12) and 0.32 do:
 * the positional [H:C:T:L] filter (lsscsi's decode_filter_arg()), the -s size (size2string(),
 * powers of 1000, three significant figures cut, not rounded), the LU name after "sata:"
 * (get_lu_name()), the USB interface after "usb:" (get_usb_devname()). Rows marked "VM" are pages
 * captured in the VM (tests/fixtures/captured/) with the string lsscsi -t printed for them.
 */

#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "hostfacts.h"
#include "lunctl-list-fmt.h"

#define A LIST_ANY

static const struct {
	const char *args[5];
	size_t n;
	int ret;
	int64_t h, c, t;
	bool lun_any;
	uint64_t lun;
} filter_cases[] = {
	{ {}, 0, 0, A, A, A, true, 0 },
	{ { "2" }, 1, 0, 2, A, A, true, 0 },
	{ { "host3" }, 1, 0, 3, A, A, true, 0 },
	{ { "HOST3" }, 1, 0, 3, A, A, true, 0 },
	{ { "2:0" }, 1, 0, 2, 0, A, true, 0 },
	{ { "2:0:1" }, 1, 0, 2, 0, 1, true, 0 },
	{ { "2:0:1:7" }, 1, 0, 2, 0, 1, false, 7 },
	{ { "[2:0:1:7]" }, 1, 0, 2, 0, 1, false, 7 },
	{ { "*:*:*:1" }, 1, 0, A, A, A, false, 1 },
	{ { "-:-:3" }, 1, 0, A, A, 3, true, 0 },
	{ { "?:1" }, 1, 0, A, 1, A, true, 0 },
	{ { ":0" }, 1, 0, A, 0, A, true, 0 },
	{ { "0:0:0:0x4005000000000000" }, 1, 0, 0, 0, 0, false, 0x4005000000000000 },
	{ { "0:0:0:18446744073709551615" }, 1, 0, 0, 0, 0, false, UINT64_MAX },
	{ { "4294967295" }, 1, 0, 4294967295, A, A, true, 0 },
	/* lsscsi's separate fields */
	{ { "2", "0", "1", "0x10" }, 4, 0, 2, 0, 1, false, 16 },
	{ { "2", "-" }, 2, 0, 2, A, A, true, 0 },
	{ { "*", "*", "*", "3" }, 4, 0, A, A, A, false, 3 },
	/* refused */
	{ { "" }, 1, -EINVAL },
	{ { "x" }, 1, -EINVAL },
	{ { "2:a" }, 1, -EINVAL },
	{ { "-1" }, 1, -EINVAL },
	{ { "+1" }, 1, -EINVAL },
	{ { " 1:2" }, 1, 0, 1, 2, A, true, 0 },
	{ { "1:2 " }, 1, -EINVAL },
	{ { "1:2:3:4:5" }, 1, -EINVAL },
	{ { "[2:0" }, 1, -EINVAL },
	{ { "4294967296" }, 1, -EINVAL },
	{ { "0:0:0:18446744073709551616" }, 1, -EINVAL },
	{ { "0:0:0:0x" }, 1, -EINVAL },
	{ { "0x1" }, 1, -EINVAL }, /* hexadecimal is for the LUN only, as lsscsi has it */
	{ { "2:0", "1" }, 2, -EINVAL },
	{ { "1", "2", "3", "4", "5" }, 5, -EINVAL },
	{ { "host" }, 1, -EINVAL },
};

START_TEST(test_filter)
{
	ListFilter f = { 99, 99, 99, 99, false };
	char err[256] = "";
	int r;

	r = list_filter_parse((char *const *)filter_cases[_i].args, filter_cases[_i].n, &f, err,
	                      sizeof(err));
	ck_assert_msg(r == filter_cases[_i].ret, "row %d: %d (%s)", _i, r, err);
	if (r < 0) {
		ck_assert_msg(strlen(err) > 0, "row %d: no reason", _i);
		ck_assert_int_eq(f.host, 99); /* untouched */
		return;
	}
	ck_assert_int_eq(f.host, filter_cases[_i].h);
	ck_assert_int_eq(f.channel, filter_cases[_i].c);
	ck_assert_int_eq(f.target, filter_cases[_i].t);
	ck_assert_int_eq(f.lun_any, filter_cases[_i].lun_any);
	if (!f.lun_any)
		ck_assert_uint_eq(f.lun, filter_cases[_i].lun);
}
END_TEST

START_TEST(test_filter_match)
{
	ListFilter f;
	char a1[] = "2:-:1", a2[] = "*:*:*:1";
	char *args[] = { a1 };

	ck_assert_int_eq(list_filter_parse(args, 1, &f, NULL, 0), 0);
	ck_assert(list_filter_match(&f, 2, 0, 1, 0));
	ck_assert(list_filter_match(&f, 2, 5, 1, 99));
	ck_assert(!list_filter_match(&f, 2, 0, 0, 0));
	ck_assert(!list_filter_match(&f, 3, 0, 1, 0));
	ck_assert(list_filter_match_host(&f, 2));
	ck_assert(!list_filter_match_host(&f, 1));

	args[0] = a2;
	ck_assert_int_eq(list_filter_parse(args, 1, &f, NULL, 0), 0);
	ck_assert(list_filter_match(&f, 7, 1, 4, 1));
	ck_assert(!list_filter_match(&f, 7, 1, 4, 0));
	ck_assert(list_filter_match_host(&f, 7));
}
END_TEST

static const struct {
	uint64_t bytes;
	const char *s;
} size_cases[] = {
	{ 0, "0B" },
	{ 512, "512B" },
	{ 999, "999B" },
	{ 1000, "1.00kB" },
	{ 1023, "1.02kB" },
	{ 1999, "1.99kB" },
	{ 10000, "10.0kB" },
	{ 99999, "99.9kB" },
	{ 100000, "100kB" },
	{ 999999, "999kB" },
	{ 1000000, "1.00MB" },
	{ 8388608, "8.38MB" },       /* scsi_debug's default 8 MiB */
	{ 1073741824, "1.07GB" },    /* 1 GiB */
	{ 8589934592, "8.58GB" },    /* 8 GiB: cut, where rounding would give 8.59 */
	{ 10737418240, "10.7GB" },   /* 10 GiB */
	{ 107374182400, "107GB" },   /* 100 GiB */
	{ 1999999999999, "1.99TB" }, /* never rounded up to 2.00TB */
	{ 4000787030016, "4.00TB" }, /* a "4 TB" disk */
	{ 1000000000000000000, "1.00EB" },
	{ UINT64_MAX, "18.4EB" },
};

START_TEST(test_size)
{
	char buf[16];

	ck_assert_int_eq(list_size_string(size_cases[_i].bytes, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, size_cases[_i].s);
}
END_TEST

START_TEST(test_size_nobufs)
{
	char buf[5];

	ck_assert_int_eq(list_size_string(8589934592, buf, sizeof(buf)), -ENOBUFS);
	ck_assert_int_eq(list_size_string(512, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "512B");
}
END_TEST

/* Hex bytes of a fixture ("#" comments skipped) into @buf. */
static size_t read_hex(const char *rel, uint8_t *buf, size_t size)
{
	char path[PATH_MAX];
	_cleanup_free_ char *text = NULL;
	size_t n = 0;
	char *p, *end;

	xsnprintf(path, "%s/%s", FIXTURES_DIR, rel);
	text = check_read_file(path, true, NULL);
	for (p = text; *p;) {
		unsigned long v;

		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		v = strtoul(p, &end, 16);
		ck_assert_msg(end != p && v <= 0xff, "%s: not hex at '%.8s'", rel, p);
		ck_assert_uint_lt(n, size);
		buf[n++] = (uint8_t)v;
		p = end;
	}
	return n;
}

static const struct {
	const char *fixture; /* tests/fixtures/..., or NULL: the bytes below */
	uint8_t page[64];
	size_t len;
	const char *name;
} name_cases[] = {
	/* VM: ahci-disk, lsscsi -t printed "sata:5000c50044440001" (the NAA, not the T10 ID
	 * that comes first) */
	{ "captured/ahci-disk/sysfs-vpd_pg83.hex", {}, 0, "5000c50044440001" },
	/* VM: LIO over iSCSI, an NAA 16 and a target port name: the NAA */
	{ "captured/lio-iscsi-fileio/sysfs-vpd_pg83.hex",
	  {},
	  0,
	  "600140510de000000000000000000000" },
	{ NULL,
	  { 0x00, 0x83, 0x00, 0x0c, 0x01, 0x03, 0x00, 0x08, 0x50, 0x01, 0x23, 0x45, 0x67, 0x89,
	    0xab, 0xcd },
	  16,
	  "500123456789abcd" },
	/* the page length does not account for every byte read: nothing, as lsscsi */
	{ NULL,
	  { 0x00, 0x83, 0x00, 0x0c, 0x01, 0x03, 0x00, 0x08, 0x50, 0x01, 0x23, 0x45, 0x67, 0x89,
	    0xab, 0xcd, 0x00 },
	  17,
	  "" },
	/* an NAA of a length NAA never has: nothing */
	{ NULL,
	  { 0x00, 0x83, 0x00, 0x0b, 0x01, 0x03, 0x00, 0x07, 0x50, 0x01, 0x23, 0x45, 0x67, 0x89,
	    0xab },
	  15,
	  "" },
	/* a designator longer than the page: nothing, and no read past it */
	{ NULL,
	  { 0x00, 0x83, 0x00, 0x0c, 0x01, 0x03, 0x00, 0x40, 0x50, 0x01, 0x23, 0x45, 0x67, 0x89,
	    0xab, 0xcd },
	  16,
	  "" },
	/* EUI-64 */
	{ NULL,
	  { 0x00, 0x83, 0x00, 0x0c, 0x01, 0x02, 0x00, 0x08, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
	    0x66, 0x77 },
	  16,
	  "0011223344556677" },
	/* T10 vendor ID only (ASCII, at least 8 bytes) */
	{ NULL,
	  { 0x00, 0x83, 0x00, 0x10, 0x02, 0x01, 0x00, 0x0c, 'A', 'T',
	    'A',  ' ',  ' ',  ' ',  ' ',  ' ',  'Q',  'E',  'M', 'U' },
	  20,
	  "ATA     QEMU" },
	/* T10 vendor ID shorter than a vendor: nothing */
	{ NULL, { 0x00, 0x83, 0x00, 0x08, 0x02, 0x01, 0x00, 0x04, 'A', 'T', 'A', ' ' }, 12, "" },
	/* an LU SCSI name string with an iSCSI target port name (PIV, protocol 5): the name */
	{ NULL,
	  { 0x00, 0x83, 0x00, 0x14, 0x03, 0x08, 0x00, 0x08, 'i', 'q', 'n', '.',
	    'l',  'u',  'n',  0x00, 0x53, 0x98, 0x00, 0x04, 'i', 'q', 'n', 0x00 },
	  24,
	  "iqn.lun" },
	/* an LU SCSI name string and an NAA, no iSCSI port: the NAA */
	{ NULL,
	  { 0x00, 0x83, 0x00, 0x14, 0x01, 0x03, 0x00, 0x08, 0x50, 0x01, 0x23, 0x45,
	    0x67, 0x89, 0xab, 0xcd, 0x03, 0x08, 0x00, 0x04, 'n',  'a',  'm',  'e' },
	  24,
	  "500123456789abcd" },
	/* an LU SCSI name string alone: the name */
	{ NULL,
	  { 0x00, 0x83, 0x00, 0x08, 0x03, 0x08, 0x00, 0x04, 'n', 'a', 'm', 'e' },
	  12,
	  "name" },
	/* UUID of the wrong length: "??" */
	{ NULL,
	  { 0x00, 0x83, 0x00, 0x08, 0x01, 0x0a, 0x00, 0x04, 0x10, 0x00, 0x00, 0x00 },
	  12,
	  "??" },
	{ NULL,
	  { 0x00, 0x83, 0x00, 0x16, 0x01, 0x0a, 0x00, 0x12, 0x10, 0x00, 0x01, 0x02, 0x03,
	    0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10 },
	  26,
	  "01020304-0506-0708-090a-0b0c0d0e0f10" },
	/* not page 0x83, or just a header */
	{ NULL, { 0x00, 0x80, 0x00, 0x04, 'a', 'b', 'c', 'd', 'e' }, 9, "" },
	{ NULL, { 0x00, 0x83, 0x00, 0x00 }, 4, "" },
};

START_TEST(test_lu_name)
{
	uint8_t page[4096];
	size_t len = name_cases[_i].len;
	char buf[1024];

	if (name_cases[_i].fixture)
		len = read_hex(name_cases[_i].fixture, page, sizeof(page));
	else
		memcpy(page, name_cases[_i].page, len);
	ck_assert_int_eq(list_lu_name(page, len, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, name_cases[_i].name);
}
END_TEST

START_TEST(test_lu_name_nobufs)
{
	static const uint8_t page[] = { 0x00, 0x83, 0x00, 0x0c, 0x01, 0x03, 0x00, 0x08,
		                        0x50, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd };
	char buf[17];

	ck_assert_int_eq(list_lu_name(page, sizeof(page), buf, 16), -ENOBUFS);
	ck_assert_int_eq(list_lu_name(page, sizeof(page), buf, 17), 0);
	ck_assert_str_eq(buf, "500123456789abcd");
}
END_TEST

static const struct {
	const char *path;
	int ret;
	const char *name;
} usb_cases[] = {
	/* VM: QEMU usb-storage on the xhci controller; lsscsi -t printed "usb:1-1:1.0" */
	{ "../../../devices/pci0000:00/0000:00:05.0/usb1/1-1/1-1:1.0/host6/target6:0:0/6:0:0:0", 0,
	  "1-1:1.0" },
	{ "/sys/devices/pci0000:00/0000:00:05.0/usb2/2-1/2-1.3/2-1.3:1.0/host7/scsi_host/host7", 0,
	  "2-1.3:1.0" },
	{ "../../../devices/pci0000:00/0000:00:04.0/virtio1/host2/target2:0:0/2:0:0:0", -ENOENT,
	  NULL },
	{ "/usb", 0, "" },
	{ "usb/host1", 0, "" }, /* no component before "/host": lsscsi prints "usb:" */
	{ "/hostusb", 0, "" },
};

START_TEST(test_usb)
{
	char buf[64] = "x";

	ck_assert_int_eq(hostfacts_usb_name(usb_cases[_i].path, buf, sizeof(buf)),
	                 usb_cases[_i].ret);
	if (usb_cases[_i].ret == 0)
		ck_assert_str_eq(buf, usb_cases[_i].name);
}
END_TEST

/* A host read at its scsi_host "add" uevent: an iSCSI host before its transport class
 * registered iscsi_host/hostN is iSCSI already, as it is after. */
START_TEST(test_hostfacts_iscsi_early)
{
	_cleanup_(hostfacts_done) HostFacts early = {}, late = {}, ata = {};
	CheckTree tree;

	check_tree_new(&tree, "check-listfmt-hostfacts");
	check_tree_put_str(&tree, "sys/class/scsi_host/host5/proc_name", "iscsi_tcp\n");
	check_tree_put_str(&tree, "sys/class/scsi_host/host6/proc_name", "ahci\n");
	ck_assert_int_eq(hostfacts_read(tree.fd, 5, &early), 0);
	ck_assert_str_eq(early.kind, "iscsi");
	ck_assert_str_eq(early.driver, "iscsi_tcp");
	check_tree_mkdirs(&tree, "sys/class/iscsi_host/host5");
	ck_assert_int_eq(hostfacts_read(tree.fd, 5, &late), 0);
	ck_assert_str_eq(late.kind, "iscsi");
	ck_assert_int_eq(hostfacts_read(tree.fd, 6, &ata), 0);
	ck_assert_str_eq(ata.kind, "sata");
	check_tree_remove(&tree);
}
END_TEST

START_TEST(test_component)
{
	const char *p = "../../devices/pci0/0000:00:06.0/host0/port-0:0/end_device-0:0/"
	                "target0:0:0/0:0:0:0";
	char buf[64];

	ck_assert_int_eq(list_path_component(p, 0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0:0:0:0");
	ck_assert_int_eq(list_path_component(p, 2, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "end_device-0:0");
	ck_assert_int_eq(list_path_component("a/b/", 1, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "a");
	ck_assert_int_eq(list_path_component("a/b", 2, buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(list_path_component("/", 0, buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(list_path_component(p, 2, buf, 8), -ENOBUFS);
}
END_TEST

START_TEST(test_type)
{
	ck_assert_str_eq(list_type_name(0), "disk");
	ck_assert_str_eq(list_type_name(5), "cd/dvd");
	ck_assert_str_eq(list_type_name(0xd), "enclosu");
	ck_assert_str_eq(list_type_name(0xa), "(0xa)");
	ck_assert_str_eq(list_type_name(0x1f), "no dev");
	ck_assert_str_eq(list_type_name(32), "type???");
	ck_assert_str_eq(list_type_name(-1), "type???");
}
END_TEST

static Suite *listfmt_suite(void)
{
	Suite *s = suite_create("listfmt");
	TCase *tc = tcase_create("core");

	CHECK_ADD_LOOP(tc, test_filter, filter_cases);
	tcase_add_test(tc, test_filter_match);
	CHECK_ADD_LOOP(tc, test_size, size_cases);
	tcase_add_test(tc, test_size_nobufs);
	CHECK_ADD_LOOP(tc, test_lu_name, name_cases);
	tcase_add_test(tc, test_lu_name_nobufs);
	CHECK_ADD_LOOP(tc, test_usb, usb_cases);
	tcase_add_test(tc, test_hostfacts_iscsi_early);
	tcase_add_test(tc, test_component);
	tcase_add_test(tc, test_type);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(listfmt_suite)
