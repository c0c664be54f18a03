/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * names: /dev/disk/by-id names per Debian 12's 60-persistent-storage.rules (systemd 252):
 *   KERNEL=="sd*|sr*", ENV{DEVTYPE}=="disk", ENV{ID_SERIAL}=="?*" -> $env{ID_BUS}-$env{ID_SERIAL}
 *   KERNEL=="sd*", ENV{DEVTYPE}=="partition" -> ...-part%n
 *   ENV{ID_WWN_WITH_EXTENSION}=="?*" -> wwn-$env{ID_WWN_WITH_EXTENSION}[-part%n]
 * with ID_BUS "ata" when ata_id ran (ATTRS{vendor}=="ATA") and "scsi" after scsi_id.
 * The ID_* values themselves are the ones the real scsi_id printed (tests/fixtures/vpd).
 */

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../peer/fixture-load.h"
#include "check-fixture.h"
#include "check-util.h"
#include "ident.h"
#include "macro.h"
#include "names.h"
#include "usbid.h"

#define VPD_DIR      FIXTURES_DIR "/vpd"
#define CAPTURED_DIR FIXTURES_DIR "/captured"

static const struct {
	const char *fixture;
	unsigned partition;
	bool cdrom;
	NamesBus bus;
	int ret;
	const char *n0, *n1;
} cases[] = {
	{ "qemu-hd-serial", 0, false, NAMES_BUS_SCSI, 0, "scsi-0QEMU_QEMU_HARDDISK_QM00001", NULL },
	{ "qemu-hd-serial", 3, false, NAMES_BUS_SCSI, 0, "scsi-0QEMU_QEMU_HARDDISK_QM00001-part3",
	  NULL },
	{ "qemu-hd-wwn", 0, false, NAMES_BUS_SCSI, 0, "scsi-35000c50015ea71ac",
	  "wwn-0x5000c50015ea71ac" },
	{ "qemu-hd-wwn", 1, false, NAMES_BUS_SCSI, 0, "scsi-35000c50015ea71ac-part1",
	  "wwn-0x5000c50015ea71ac-part1" },
	{ "netapp-naa6-ext", 0, false, NAMES_BUS_SCSI, 0, "scsi-3600a098038303044704824513476546e",
	  "wwn-0x600a098038303044704824513476546e" },
	{ "scsi-debug", 0, false, NAMES_BUS_SCSI, 0, "scsi-333333330000007d0",
	  "wwn-0x33333330000007d0" },
	{ "sat-ata-disk", 0, false, NAMES_BUS_ATA, 0, "ata-QEMU_HARDDISK_QM00001", NULL },
	{ "sat-ata-disk-wwn", 2, false, NAMES_BUS_ATA, 0, "ata-QEMU_HARDDISK_QM00005-part2",
	  "wwn-0x5000c500a1b2c3d4-part2" },
	{ "cdrom-noid", 0, true, NAMES_BUS_SCSI, 0, "scsi-0QEMU_QEMU_CD-ROM_drive-scsi0-0-1-0",
	  NULL },
	{ "cdrom-noid", 1, true, NAMES_BUS_SCSI, -EINVAL, NULL, NULL },
	{ "name-naa-eui", 0, false, NAMES_BUS_SCSI, 0, NULL, NULL }, /* no ID_SERIAL, no link */
	/* The ASCII NAA value reaches the name with LF -> '_' (udev's replace_chars). */
	{ "hostile-naa-ascii-lf", 0, false, NAMES_BUS_SCSI, 0, "scsi-36abc_ID_INJECT=1xyzzy",
	  "wwn-0x6abc_ID_INJECT=1xyzzy" },
	{ "hostile-vs-slash-dots", 0, false, NAMES_BUS_SCSI, 0, "scsi-0EVIL_SLASH_.._.._etc_passwd",
	  NULL },
};

START_TEST(test_by_id)
{
	ScsiIdent *id = calloc(1, sizeof(*id));
	ScsiIdentInput in;
	NamesContext nc;
	NamesList l;
	Fixture fx = {};

	ck_assert_int_eq(fixture_load(VPD_DIR, cases[_i].fixture, &fx), 0);
	in = (ScsiIdentInput){
		.inquiry = fx.buf[FX_INQUIRY],
		.inquiry_len = fx.len[FX_INQUIRY],
		.pg80 = fx.buf[FX_PG80],
		.pg80_len = fx.len[FX_PG80],
		.pg83 = fx.buf[FX_PG83],
		.pg83_len = fx.len[FX_PG83],
		.pg89 = fx.buf[FX_PG89],
		.pg89_len = fx.len[FX_PG89],
		.pg00_infer = true,
	};
	ck_assert_int_eq(ident_compute(&in, id), 0);
	ck_assert_int_eq(names_bus(id, 7), cases[_i].bus);
	nc = (NamesContext){ .id = id,
		             .scsi_level = 7,
		             .partition = cases[_i].partition,
		             .is_cdrom = cases[_i].cdrom };
	ck_assert_int_eq(names_by_id_full(&nc, &l), cases[_i].ret);
	if (cases[_i].ret == 0) {
		ck_assert_uint_eq(l.n, !!cases[_i].n0 + !!cases[_i].n1);
		if (cases[_i].n0)
			ck_assert_str_eq(l.name[0], cases[_i].n0);
		if (cases[_i].n1)
			ck_assert_str_eq(l.name[1], cases[_i].n1);
		for (size_t i = 0; i < l.n; i++)
			ck_assert_ptr_null(strchr(l.name[i], '/'));
	}
	free(id);
	fixture_done(&fx);
}
END_TEST

static char long_value[300];

static const struct {
	const char *prefix, *value;
	unsigned partition;
	int ret;
	const char *name;
} comp[] = {
	{ "scsi-", "a/b", 0, 11, "scsi-a\\x2fb" },
	{ "scsi-", "a b\tc", 0, 10, "scsi-a_b_c" },
	{ "scsi-", "x\\x2fy", 0, 11, "scsi-x\\x2fy" }, /* already escaped: kept */
	{ "scsi-", "caf\xc3\xa9", 0, 10, "scsi-caf\xc3\xa9" },
	{ "scsi-", "\xff", 0, 6, "scsi-_" },
	{ "", ".", 0, -EINVAL, NULL },
	{ "", "..", 0, -EINVAL, NULL },
	{ "", "...", 0, 3, "..." },
	{ "", "/", 0, 4, "\\x2f" },
	{ "scsi-", "", 0, -EINVAL, NULL },
	{ "wwn-", "0x5000c500a1b2c3d4", 12, 29, "wwn-0x5000c500a1b2c3d4-part12" },
	{ "scsi-", long_value, 0, -EINVAL, NULL }, /* 5 + 251 > NAME_MAX */
};

START_TEST(test_component)
{
	char out[NAME_MAX + 1];

	ck_assert_int_eq(names_component(comp[_i].prefix, comp[_i].value, comp[_i].partition, out),
	                 comp[_i].ret);
	if (comp[_i].name)
		ck_assert_str_eq(out, comp[_i].name);
}
END_TEST

START_TEST(test_name_max)
{
	char v[NAME_MAX + 1], out[NAME_MAX + 1];

	memset(v, 'a', 250);
	v[250] = 0;
	ck_assert_int_eq(names_component("scsi-", v, 0, out), NAME_MAX); /* exactly 255 */
	ck_assert_int_eq(names_component("scsi-", v, 1, out), -EINVAL);  /* -part1 overflows */
	v[249] = '/';                                                    /* 1 byte -> 4 */
	ck_assert_int_eq(names_component("scsi-", v, 0, out), -EINVAL);
	ck_assert_str_eq(names_bus_name(NAMES_BUS_ATA), "ata");
	ck_assert_ptr_null(names_bus_name(_NAMES_BUS_MAX));
}
END_TEST

/*
 * names_by_id_full() on the devices of the VM SAN (tests/fixtures/captured/<dir>, the SCSI
 * responses and the kernel's cached sysfs copies), with sg3-utils-udev's rules installed as in
 * the naming-udev scenario. Expected: the /dev/disk/by-id links Debian 12's udev (252.39) with
 * sg3-utils-udev 1.46 made for that device in tests/vm/scenarios/naming-udev.sh (udev.map of the
 * run on 2026-12-03; the node names are that run's). The scsi_id view reads the sysfs copy
 * first and asks the device for the rest (as lunctl does); 55-scsi-sg3_id.rules sees only the
 * sysfs copies.
 */
typedef struct UsbRow {
	const char *manufacturer, *product, *serial; /* the usb_device's attributes */
} UsbRow;

static const UsbRow usb_qemu_stick = { "QEMU", "QEMU USB HARDDRIVE", "USBSTICK0001" };
static const UsbRow usb_qemu_bot = { "QEMU", "QEMU USB HARDDRIVE", "CARDREADER01" };

static const struct {
	const char *dir;
	unsigned scsi_level;
	const UsbRow *usb;
	bool sg3, sg3_links;
	const char *names[12];
	const char *ata_id; /* tests/fixtures/ata/<file>: libata's IDENTIFY data, or NULL */
} udev_cases[] = {
	/* sda */
	{ "virtio-scsi-full",
	  6,
	  NULL,
	  true,
	  true,
	  { "scsi-35000c50015ea71a0", "wwn-0x5000c50015ea71a0",
	    "scsi-SLUND_VirtDisk_Full_VD0SER0001", "scsi-0LUND_VirtDisk_Full_VD0SER0001" } },
	/* sdb */
	{ "virtio-scsi-spaces",
	  6,
	  NULL,
	  true,
	  true,
	  { "scsi-0QEMU_QEMU_HARDDISK_SER_WITH_SPACES",
	    "scsi-SQEMU_QEMU_HARDDISK_SER_WITH_SPACES" } },
	/* sdc */
	{ "virtio-scsi-maxserial",
	  6,
	  NULL,
	  true,
	  true,
	  { "scsi-0QEMU_Max_Serial_ABCDEFGHIJKLMNOPQRST",
	    "scsi-SQEMU_Max_Serial_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" } },
	/* sdd */
	{ "virtio-scsi-longserial",
	  6,
	  NULL,
	  true,
	  true,
	  { "scsi-0QEMU_QEMU_HARDDISK_lund-devid-0003",
	    "scsi-SQEMU_QEMU_HARDDISK_SERIAL-LONGER-THAN-THIRTY-SIX-CHARAC" } },
	/* sdf: no identifier at all, no link */
	{ "virtio-scsi-noids", 6, NULL, true, true, {} },
	/* sdg */
	{ "pvscsi-spaces",
	  6,
	  NULL,
	  true,
	  true,
	  { "scsi-0A_B_P_Q_R_PV_SER_01", "scsi-SA_B_P_Q_R_PV_SER_01" } },
	/* sdh */
	{ "pvscsi-wwn",
	  6,
	  NULL,
	  true,
	  true,
	  { "scsi-0QEMU_QEMU_HARDDISK_PVSER00002", "scsi-35000c50055550001",
	    "scsi-SQEMU_QEMU_HARDDISK_PVSER00002", "wwn-0x5000c50055550001" } },
	/* sdi */
	{ "megasas-wwn",
	  6,
	  NULL,
	  true,
	  true,
	  { "scsi-0QEMU_QEMU_HARDDISK_MEGA000001", "scsi-35000c50022220001",
	    "scsi-SQEMU_QEMU_HARDDISK_MEGA000001", "wwn-0x5000c50022220001" } },
	/* sdj */
	{ "megasas-serial",
	  6,
	  NULL,
	  true,
	  true,
	  { "scsi-0QEMU_QEMU_HARDDISK_MEGA000002", "scsi-SQEMU_QEMU_HARDDISK_MEGA000002" } },
	/* sdk */
	{ "lsi53c895a-mpath",
	  6,
	  NULL,
	  true,
	  true,
	  { "scsi-0LUND_Multipath_MPATH00001", "scsi-35000c500deadbe01",
	    "scsi-SLUND_Multipath_MPATH00001", "wwn-0x5000c500deadbe01" } },
	/* sdl: SCSI_IDENT_LUN_ATA makes it ata-, as ata_id would */
	{ "ahci-disk",
	  6,
	  NULL,
	  true,
	  true,
	  { "ata-LUND_ATA_DISK_MODEL_0001_ATASER0123456789ABCD",
	    "scsi-0ATA_LUND_ATA_DISK_MO_ATASER0123456789ABCD",
	    "scsi-1ATA_LUND_ATA_DISK_MODEL_0001_ATASER0123456789ABCD", "scsi-35000c50044440001",
	    "scsi-SATA_LUND_ATA_DISK_MO_ATASER0123456789ABCD", "wwn-0x5000c50044440001" } },
	/* sdm */
	{ "mptsas1068-sas",
	  6,
	  NULL,
	  true,
	  true,
	  { "scsi-0SEAGATE_ST600MM0006_SAS0000001", "scsi-35000c50033330001",
	    "scsi-SSEAGATE_ST600MM0006_SAS0000001", "wwn-0x5000c50033330001" } },
	/* sdn */
	{ "mptsas1068-wwnonly",
	  6,
	  NULL,
	  true,
	  true,
	  { "scsi-35000c50033330011", "wwn-0x5000c50033330011" } },
	/* sdo, sdp, sdq: usb-storage caches no VPD page, so sg3's rules set no ID_SERIAL and
	 * usb_id's wins; scsi_id does not run */
	{ "usb-storage-stick",
	  6,
	  &usb_qemu_stick,
	  true,
	  true,
	  { "usb-QEMU_QEMU_HARDDISK_USBSTICK0001-0:0" } },
	{ "usb-bot-sd",
	  6,
	  &usb_qemu_bot,
	  true,
	  true,
	  { "usb-Generic_SD_MMC_Reader_CARDREADER01-0:0" } },
	{ "usb-bot-cf",
	  6,
	  &usb_qemu_bot,
	  true,
	  true,
	  { "usb-Generic_CF_Reader_CARDREADER01-0:1" } },
	/* sdr */
	{ "scsi_debug-a0-0-0-0",
	  7,
	  NULL,
	  true,
	  true,
	  { "scsi-333333330000007d0", "wwn-0x33333330000007d0", "scsi-SLinux_scsi_debug_2000",
	    "scsi-1Linux_scsi_debug_2000" } },
	/* sr0 */
	{ "virtio-scsi-cd", 6, NULL, true, true, { "scsi-0QEMU_QEMU_CD-ROM_VCD0001" } },
	/* sr1: the T10 designator of this LU alone carries nothing scsi_id takes */
	{ "lsi53c895a-cd", 6, NULL, true, true, {} },
	/* sr2: ata_id on IDENTIFY PACKET DEVICE (libata's sysfs copy) */
	{ "ahci-cd", 6, NULL, true, true, { "ata-LUND_DVD-ROM_ATAPI00001" }, "ahci-cd-dev4.0.id" },

	/* Without sg3-utils-udev: 60-persistent-storage.rules alone (expected by the rules, not
	 * captured in the VM, whose root has sg3-utils-udev). */
	{ "virtio-scsi-full",
	  6,
	  NULL,
	  false,
	  false,
	  { "scsi-35000c50015ea71a0", "wwn-0x5000c50015ea71a0" } },
	{ "usb-storage-stick",
	  6,
	  &usb_qemu_stick,
	  false,
	  false,
	  { "usb-QEMU_QEMU_HARDDISK_USBSTICK0001-0:0" } },
	{ "ahci-cd",
	  6,
	  NULL,
	  false,
	  false,
	  { "ata-LUND_DVD-ROM_ATAPI00001" },
	  "ahci-cd-dev4.0.id" },
	/* 55 without 58 (58 masked): the compat ID_SERIAL only */
	{ "megasas-wwn",
	  6,
	  NULL,
	  true,
	  false,
	  { "scsi-35000c50022220001", "wwn-0x5000c50022220001" } },
	/* scsi_level 4: 55-scsi-sg3_id.rules asks the device (sg_inq on the node) instead of
	 * reading sysfs, so the USB stick's pages count and its ID_SERIAL is sg3's; usb_id then
	 * adds only ID_USB_* and its usb- link. */
	{ "usb-storage-stick",
	  4,
	  &usb_qemu_stick,
	  true,
	  true,
	  { "scsi-0QEMU_QEMU_HARDDISK_USBSTICK0001", "usb-QEMU_QEMU_HARDDISK_USBSTICK0001-0:0",
	    "scsi-SQEMU_QEMU_HARDDISK_USBSTICK0001" } },
};

/* CAPTURED_DIR/<dir>/<file>, or NULL when the file does not exist. */
static uint8_t *load_captured(const char *dir, const char *file, size_t *ret_len)
{
	char path[4096];
	uint8_t *b = malloc(FIXTURE_MAX);
	int n;

	ck_assert_ptr_nonnull(b);
	snprintf(path, sizeof(path), "%s/%s/%s", CAPTURED_DIR, dir, file);
	n = fixture_read_hex(path, b, FIXTURE_MAX);
	if (n == -ENOENT) {
		free(b);
		*ret_len = 0;
		return NULL;
	}
	ck_assert_int_ge(n, 0);
	*ret_len = (size_t)n;
	return b;
}

/* The kernel's %.8s / %.16s of the INQUIRY vendor and model, as the sysfs attributes give them
 * to usb_id (the trailing newline is not part of the value). */
static void inquiry_field(const uint8_t *inq, size_t len, size_t off, size_t n, char *out)
{
	size_t k = 0;

	for (; k < n && off + k < len && inq[off + k]; k++)
		out[k] = (char)inq[off + k];
	out[k] = 0;
}

START_TEST(test_udev_full)
{
	const char *dir = udev_cases[_i].dir;
	enum { INQ, PG00, PG80, PG83, PG89, S_INQ, S_PG00, S_PG80, S_PG83, S_PG89, _N };
	static const char *const files[_N] = {
		"inquiry.hex",        "pg00.hex",           "pg80.hex",
		"pg83.hex",           "pg89.hex",           "sysfs-inquiry.hex",
		"sysfs-vpd_pg0.hex",  "sysfs-vpd_pg80.hex", "sysfs-vpd_pg83.hex",
		"sysfs-vpd_pg89.hex",
	};
	uint8_t *b[_N];
	size_t l[_N];
	ScsiIdent *id = calloc(1, sizeof(*id)), *sg3 = calloc(1, sizeof(*sg3));
	uint8_t ata[ATA_IDENTIFY_LEN];
	bool have_ata = false;
	ScsiIdentInput in, in3;
	UsbIdInput ui;
	UsbId usb;
	NamesContext nc;
	NamesList nl;
	char vendor[9], model[17], path[PATH_MAX];
	size_t want = 0;

	ck_assert_ptr_nonnull(id);
	ck_assert_ptr_nonnull(sg3);
	for (int i = 0; i < _N; i++)
		b[i] = load_captured(dir, files[i], &l[i]);

	if (udev_cases[_i].ata_id) {
		_cleanup_free_ char *text = NULL;
		size_t n;

		xsnprintf(path, "%s/ata/%s", FIXTURES_DIR, udev_cases[_i].ata_id);
		text = check_read_file(path, false, &n);
		ck_assert_int_eq(ident_ata_identify_parse(text, n, ata), 0);
		have_ata = true;
	}

	/* lunctl: the sysfs copy when there is one, else the device's answer. */
#define PICK(s, d)  (b[s] ? b[s] : b[d])
#define PICKL(s, d) (b[s] ? l[s] : l[d])
	in = (ScsiIdentInput){
		.inquiry = PICK(S_INQ, INQ),
		.inquiry_len = PICKL(S_INQ, INQ),
		.pg00 = PICK(S_PG00, PG00),
		.pg00_len = PICKL(S_PG00, PG00),
		.pg80 = PICK(S_PG80, PG80),
		.pg80_len = PICKL(S_PG80, PG80),
		.pg83 = PICK(S_PG83, PG83),
		.pg83_len = PICKL(S_PG83, PG83),
		.pg89 = PICK(S_PG89, PG89),
		.pg89_len = PICKL(S_PG89, PG89),
		.ata_identify = have_ata ? ata : NULL,
		.ata_identify_len = have_ata ? sizeof(ata) : 0,
	};
	ck_assert_int_eq(ident_compute(&in, id), 0);
	in3 = in;
	if (udev_cases[_i].scsi_level != 4) {
		in3.pg80 = b[S_PG80];
		in3.pg80_len = l[S_PG80];
		in3.pg83 = b[S_PG83];
		in3.pg83_len = l[S_PG83];
	}
	ck_assert_int_eq(ident_compute(&in3, sg3), 0);

	nc = (NamesContext){
		.id = id,
		.scsi_level = udev_cases[_i].scsi_level,
		.is_cdrom = id->peripheral_type == 5,
		.sg3 = udev_cases[_i].sg3 ? sg3 : NULL,
		.sg3_symlinks = udev_cases[_i].sg3_links,
	};
	if (udev_cases[_i].usb) {
		unsigned target, lun;

		/* H:C:T:L from the capture's info "address:" line is not needed: usb-storage
		 * puts every LU at target 0, LUN as captured (the cf reader is LUN 1). */
		target = 0;
		lun = strstr(dir, "-cf") ? 1 : 0;
		inquiry_field(in.inquiry, in.inquiry_len, 8, 8, vendor);
		inquiry_field(in.inquiry, in.inquiry_len, 16, 16, model);
		ui = (UsbIdInput){
			.if_class = "08",
			.if_subclass = "06",
			.scsi_vendor = vendor,
			.scsi_model = model,
			.have_hctl = true,
			.target = target,
			.lun = lun,
			.id_vendor = "46f4",
			.id_product = "0001",
			.manufacturer = udev_cases[_i].usb->manufacturer,
			.product = udev_cases[_i].usb->product,
			.serial = udev_cases[_i].usb->serial,
		};
		ck_assert_int_eq(usbid_compute(&ui, &usb), 0);
		nc.usb = &usb;
	}

	ck_assert_int_eq(names_by_id_full(&nc, &nl), 0);
	for (; want < ELEMENTSOF(udev_cases[_i].names) && udev_cases[_i].names[want]; want++) {
		bool found = false;

		for (size_t k = 0; k < nl.n; k++)
			found = found || streq(nl.name[k], udev_cases[_i].names[want]);
		ck_assert_msg(found, "%s: missing %s", dir, udev_cases[_i].names[want]);
	}
	for (size_t k = 0; k < nl.n; k++) {
		bool found = false;

		for (size_t j = 0; j < want; j++)
			found = found || streq(nl.name[k], udev_cases[_i].names[j]);
		ck_assert_msg(found, "%s: extra name %s", dir, nl.name[k]);
		ck_assert_ptr_null(strchr(nl.name[k], '/'));
	}
	ck_assert_uint_eq(nl.n, want);

	for (int i = 0; i < _N; i++)
		free(b[i]);
	free(id);
	free(sg3);
}
END_TEST

/* Partitions get "-partN" on every family; a cdrom has none. */
START_TEST(test_full_partition)
{
	size_t len;
	uint8_t *inq = load_captured("megasas-wwn", "sysfs-inquiry.hex", &len), *p83, *p80;
	size_t l83, l80;
	ScsiIdent *id = calloc(1, sizeof(*id));
	ScsiIdentInput in;
	NamesContext nc;
	NamesList nl;

	p80 = load_captured("megasas-wwn", "sysfs-vpd_pg80.hex", &l80);
	p83 = load_captured("megasas-wwn", "sysfs-vpd_pg83.hex", &l83);
	in = (ScsiIdentInput){ .inquiry = inq,
		               .inquiry_len = len,
		               .pg80 = p80,
		               .pg80_len = l80,
		               .pg83 = p83,
		               .pg83_len = l83,
		               .pg00_infer = true };
	ck_assert_int_eq(ident_compute(&in, id), 0);
	nc = (NamesContext){
		.id = id, .scsi_level = 6, .partition = 2, .sg3 = id, .sg3_symlinks = true
	};
	ck_assert_int_eq(names_by_id_full(&nc, &nl), 0);
	ck_assert_uint_eq(nl.n, 4);
	ck_assert_str_eq(nl.name[0], "scsi-35000c50022220001-part2");
	ck_assert_str_eq(nl.name[1], "wwn-0x5000c50022220001-part2");
	ck_assert_str_eq(nl.name[2], "scsi-SQEMU_QEMU_HARDDISK_MEGA000001-part2");
	ck_assert_str_eq(nl.name[3], "scsi-0QEMU_QEMU_HARDDISK_MEGA000001-part2");
	/* sg3-utils-udev 1.48 at its defaults: the serial ('S') and vendor-specific ('0') links
	 * are ambiguous and left out; the NAA name stays */
	nc.sg3_src_filter = true;
	ck_assert_int_eq(names_by_id_full(&nc, &nl), 0);
	ck_assert_uint_eq(nl.n, 2);
	ck_assert_str_eq(nl.name[0], "scsi-35000c50022220001-part2");
	ck_assert_str_eq(nl.name[1], "wwn-0x5000c50022220001-part2");
	nc.sg3_src_filter = false;
	nc.is_cdrom = true;
	ck_assert_int_eq(names_by_id_full(&nc, &nl), -EINVAL);
	ck_assert_int_eq(names_by_id_full(NULL, &nl), -EINVAL);
	free(inq);
	free(p80);
	free(p83);
	free(id);
}
END_TEST

/* sg3's names pass through names_component(): a '/' in a vendor-specific designator never
 * makes a directory (udev's SYMLINK would); hostile fixture from tests/fixtures/vpd. */
START_TEST(test_full_hostile)
{
	ScsiIdent *id = calloc(1, sizeof(*id));
	ScsiIdentInput in;
	NamesContext nc;
	NamesList nl;
	Fixture fx = {};

	ck_assert_int_eq(fixture_load(VPD_DIR, "hostile-vs-slash-dots", &fx), 0);
	in = (ScsiIdentInput){
		.inquiry = fx.buf[FX_INQUIRY],
		.inquiry_len = fx.len[FX_INQUIRY],
		.pg80 = fx.buf[FX_PG80],
		.pg80_len = fx.len[FX_PG80],
		.pg83 = fx.buf[FX_PG83],
		.pg83_len = fx.len[FX_PG83],
		.pg00_infer = true,
	};
	ck_assert_int_eq(ident_compute(&in, id), 0);
	nc = (NamesContext){ .id = id, .scsi_level = 6, .sg3 = id, .sg3_symlinks = true };
	ck_assert_int_eq(names_by_id_full(&nc, &nl), 0);
	ck_assert_uint_ge(nl.n, 1);
	for (size_t i = 0; i < nl.n; i++) {
		ck_assert_ptr_null(strchr(nl.name[i], '/'));
		ck_assert_str_ne(nl.name[i], ".");
		ck_assert_str_ne(nl.name[i], "..");
	}
	free(id);
	fixture_done(&fx);
}
END_TEST

/*
 * names_serial_path(): the serial-path name (lund.hwdb(7), LUND_NAME_IDENTITY): the LU's first
 * by-id name (as names_component() made it from a hostile serial) plus "-" ID_PATH_TAG. The
 * result is escaped as udev escapes a by-id name; a safe by-id name comes out unchanged, and
 * whatever goes in, one component of the link directory comes out or nothing.
 */
#define USB_PATH "pci-0000:00:04.0-usb-0:1:1.0-scsi-0:0:0:1"
#define USB_TAG  "pci-0000_00_04_0-usb-0_1_1_0-scsi-0_0_0_1"

static const struct {
	const char *prefix, *serial; /* the by-id name names_component() makes of them */
	const char *path;
	const char *want; /* NULL: refused with -EINVAL */
} serial_path_cases[] = {
	{ "usb-", "QEMU_QEMU_HARDDISK_CLONE0000001-0:0", USB_PATH,
	  "usb-QEMU_QEMU_HARDDISK_CLONE0000001-0:0-" USB_TAG },
	{ "scsi-", "0Generic_SD_MMC_Reader_CARDREADER01", USB_PATH,
	  "scsi-0Generic_SD_MMC_Reader_CARDREADER01-" USB_TAG },
	/* udev's replacements: whitespace and bytes outside its allowlist become '_', '/' is
	 * written as encode_devnode_name() writes it */
	{ "scsi-", "SGeneric Card  Reader", USB_PATH, "scsi-SGeneric_Card__Reader-" USB_TAG },
	{ "usb-", "a/b", USB_PATH, "usb-a\\x2fb-" USB_TAG },
	{ "usb-", "../../etc/passwd", USB_PATH, "usb-..\\x2f..\\x2fetc\\x2fpasswd-" USB_TAG },
	{ "usb-", "..", USB_PATH, "usb-..-" USB_TAG },
	{ "usb-", "x\n*?\"$(id)", USB_PATH, "usb-x______id_-" USB_TAG },
	{ "ata-",
	  "m\xc3\xa9"
	  "dia",
	  USB_PATH,
	  "ata-m\xc3\xa9"
	  "dia-" USB_TAG },
	/* the path's tag is path_id's: runs of other bytes one '_' */
	{ "usb-", "S", "../..//x y", "usb-S-x_y" },
	/* nothing to build from */
	{ "usb-", "S", "", NULL },
	{ "usb-", "S", "///", NULL },
	{ "usb-", "S", NULL, NULL },
};

START_TEST(test_serial_path)
{
	char base[NAME_MAX + 1], name[NAME_MAX + 1];
	int r;

	ck_assert_int_ge(names_component(serial_path_cases[_i].prefix, serial_path_cases[_i].serial,
	                                 0, base),
	                 0);
	r = names_serial_path(base, serial_path_cases[_i].path, name);
	if (!serial_path_cases[_i].want) {
		ck_assert_int_eq(r, -EINVAL);
		return;
	}
	ck_assert_int_ge(r, 0);
	ck_assert_str_eq(name, serial_path_cases[_i].want);
	ck_assert_int_eq(r, (int)strlen(name));
}
END_TEST

/* Raw hostile names (not made by names_component()), long names and paths: the result is at
 * most NAME_MAX, has no '/', is never "." or "..", or is refused. */
START_TEST(test_serial_path_hostile)
{
	char serial[1024], path[600], name[NAME_MAX + 1];

	ck_assert_int_eq(names_serial_path("../x", "p", name), (int)strlen("..\\x2fx-p"));
	ck_assert_str_eq(name, "..\\x2fx-p");
	ck_assert_int_eq(names_serial_path("a b\n", "p", name), (int)strlen("a_b_-p"));
	ck_assert_str_eq(name, "a_b_-p");
	ck_assert_int_eq(names_serial_path("", "p", name), -EINVAL);
	ck_assert_int_eq(names_serial_path(NULL, "p", name), -EINVAL);
	for (size_t sl = 1; sl < sizeof(serial) - 1; sl += 7) {
		for (size_t i = 0; i < sl; i++)
			serial[i] = "a/ ."[i % 4];
		serial[sl] = 0;
		for (size_t pl = 1; pl < sizeof(path) - 1; pl += 61) {
			int r;

			memset(path, 'p', pl);
			path[pl] = 0;
			r = names_serial_path(serial, path, name);
			if (r < 0) {
				ck_assert_int_eq(r, -EINVAL);
				continue;
			}
			ck_assert_int_le(r, NAME_MAX);
			ck_assert_int_eq((int)strlen(name), r);
			ck_assert_ptr_null(strchr(name, '/'));
			ck_assert(!streq(name, ".") && !streq(name, ".."));
		}
	}
	/* exactly NAME_MAX fits, one more does not */
	memset(serial, 's', NAME_MAX - 2);
	serial[NAME_MAX - 2] = 0;
	ck_assert_int_eq(names_serial_path(serial, "p", name), NAME_MAX);
	strcat(serial, "s");
	ck_assert_int_eq(names_serial_path(serial, "p", name), -EINVAL);
}
END_TEST

/*
 * lund.hwdb's unit-serial rule: "scsi-" + ID_SERIAL as `scsi_id --page=0x80` prints it (the peer
 * test tests/peer/scsi-id-page80.sh holds these ID_SERIAL values against the real scsi_id), or
 * no name where page 0x80 gives no serial of its own.
 */
static const struct {
	const char *fixture;
	int ret;
	const char *name;
} unit_serial_cases[] = {
	{ "qemu-hd-wwn", 0, "scsi-SQEMU_QEMU_HARDDISK_QM00002" },
	/* an LF and a NUL in the serial: whitespace made '_', the NUL ends it */
	{ "hostile-pg80-lf-nul", 0, "scsi-SEVIL_SERIALLF_AB12_ID_INJECT=1" },
	/* blanks around it, a tab, CR LF inside: trimmed, each run one '_' */
	{ "hostile-pg80-fallback-lf", 0, "scsi-SEVIL_SER80_SN_12_ID_X=1" },
	/* blank serial: scsi_id prints "S<vendor>_<product>", one name for every such device */
	{ "hostile-pg80-allspaces", -ENODATA, NULL },
	/* longer than scsi_id's 256-byte serial buffer holds with vendor and product */
	{ "hostile-pg80-long", -ENODATA, NULL },
	/* no page 0x80 at all */
	{ "eui64-8", -ENODATA, NULL },
};

START_TEST(test_unit_serial)
{
	ScsiIdent *id = calloc(1, sizeof(*id));
	ScsiIdentInput in;
	char name[NAME_MAX + 1] = "";
	Fixture fx = {};
	int r;

	ck_assert_ptr_nonnull(id);
	ck_assert_int_eq(fixture_load(VPD_DIR, unit_serial_cases[_i].fixture, &fx), 0);
	fixture_ident_input(&fx, &in);
	in.page = IDENT_PAGE_80;
	ck_assert_int_eq(ident_compute(&in, id), 0);
	r = names_unit_serial(id, name);
	if (unit_serial_cases[_i].ret < 0)
		ck_assert_int_eq(r, unit_serial_cases[_i].ret);
	else {
		ck_assert_str_eq(name, unit_serial_cases[_i].name);
		ck_assert_int_eq(r, (int)strlen(unit_serial_cases[_i].name));
		/* the name is "scsi-" + scsi_id's ID_SERIAL, which needs no escaping */
		ck_assert_str_eq(name + 5, id->serial);
	}
	/* the default page gives another identity: the rule must not fall back to it */
	in.page = IDENT_PAGE_DEFAULT;
	ck_assert_int_eq(ident_compute(&in, id), 0);
	if (id->serial_source != IDENT_SERIAL_PG80)
		ck_assert_int_eq(names_unit_serial(id, name), -ENODATA);
	free(id);
	fixture_done(&fx);
}
END_TEST

/* Vendor or product with a NUL byte: scsi_id's append_vendor_model() fails and it prints "S"
 * alone; lund makes no name. A '/' in the serial never makes a path separator. */
START_TEST(test_unit_serial_hostile)
{
	uint8_t inq[36] = { 0x00, 0, 6, 2, 31 };
	static const uint8_t pg80_slash[] = {
		0, 0x80, 0, 8, '.', '.', '/', 'e', 't', 'c', ' ', ' '
	};
	ScsiIdent *id = calloc(1, sizeof(*id));
	char name[NAME_MAX + 1];
	ScsiIdentInput in = {
		.inquiry = inq,
		.inquiry_len = sizeof(inq),
		.pg80 = pg80_slash,
		.pg80_len = sizeof(pg80_slash),
		.page = IDENT_PAGE_80,
	};

	ck_assert_ptr_nonnull(id);
	memcpy(inq + 8, "VEND\0R  PRODUCT         1.00", 8 + 16 + 4);
	ck_assert_int_eq(ident_compute(&in, id), 0);
	ck_assert_str_eq(id->serial, "S");
	ck_assert_int_eq(names_unit_serial(id, name), -ENODATA);

	memcpy(inq + 8, "VENDOR  PRODUCT         1.00", 8 + 16 + 4);
	ck_assert_int_eq(ident_compute(&in, id), 0);
	ck_assert_int_gt(names_unit_serial(id, name), 0);
	ck_assert_ptr_null(strchr(name, '/'));
	ck_assert_str_eq(name, "scsi-SVENDOR_PRODUCT_.._etc");
	ck_assert_int_eq(names_unit_serial(NULL, name), -EINVAL);
	free(id);
}
END_TEST

static Suite *names_suite(void)
{
	Suite *s = suite_create("names");
	TCase *tc = tcase_create("core");

	memset(long_value, 'x', 251);
	CHECK_ADD_LOOP(tc, test_by_id, cases);
	CHECK_ADD_LOOP(tc, test_component, comp);
	CHECK_ADD_LOOP(tc, test_udev_full, udev_cases);
	tcase_add_test(tc, test_full_partition);
	tcase_add_test(tc, test_full_hostile);
	tcase_add_test(tc, test_name_max);
	CHECK_ADD_LOOP(tc, test_serial_path, serial_path_cases);
	tcase_add_test(tc, test_serial_path_hostile);
	CHECK_ADD_LOOP(tc, test_unit_serial, unit_serial_cases);
	tcase_add_test(tc, test_unit_serial_hostile);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(names_suite)
