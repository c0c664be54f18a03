/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * ID_PATH, ID_PATH_TAG and ID_PATH_ATA_COMPAT (engine/pathid.h, core/pathtag.h) on fake sysfs
 * trees, one per transport, laid out as Linux 6.1 lays them out (devices with their uevent and
 * subsystem link, the class entries as links into devices/). The expected values are those of
 * systemd v252's path_id on such a tree; the VM scenario naming-udev compares the emulated HBAs
 * with udev itself.
 */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check-util.h"
#include "macro.h"
#include "pathid.h"
#include "pathtag.h"

static CheckTree tree;

static void setup(void)
{
	check_tree_new(&tree, "check-pathid");
}

static void teardown(void)
{
	check_tree_remove(&tree);
}

/* A relative symlink at @link (below the root) to @target (below the root). */
static void tree_symlink(const char *target, const char *link)
{
	char rel[4096] = "", dir[4096];
	const char *slash;

	for (const char *c = link; *c; c++)
		if (*c == '/')
			strcat(rel, "../");
	strcat(rel, target);
	slash = strrchr(link, '/');
	if (slash) {
		xsnprintf(dir, "%.*s", (int)(slash - link), link);
		check_tree_mkdirs(&tree, dir);
	}
	ck_assert_msg(symlinkat(rel, tree.fd, link) == 0, "symlink %s: %m", link);
}

/*
 * A tree from lines (paths below sys/):
 *   "D <devpath> [subsystem [devtype]]"  a device (uevent, subsystem link)
 *   "A <path> <value>"                   an attribute file
 *   "C <class>/<name> <devpath>"         a class entry linking to a device
 *   "L <path> <devpath>"                 any other link to a device (sys/bus/...)
 */
static void build(const char *const *lines)
{
	for (size_t i = 0; lines[i]; i++) {
		char kind, a[1024] = "", b[1024] = "", c[1024] = "", p[2048], q[2048];

		ck_assert_int_ge(sscanf(lines[i], "%c %1023s %1023s %1023s", &kind, a, b, c), 2);
		switch (kind) {
		case 'D':
			xsnprintf(p, "sys/%s/uevent", a);
			if (c[0])
				xsnprintf(q, "DEVTYPE=%s\n", c);
			else
				q[0] = 0;
			check_tree_put_str(&tree, p, q);
			if (b[0]) {
				xsnprintf(p, "sys/%s/subsystem", a);
				xsnprintf(q, "sys/bus/%s", b);
				check_tree_mkdirs(&tree, q);
				tree_symlink(q, p);
			}
			break;
		case 'A':
			xsnprintf(p, "sys/%s", a);
			xsnprintf(q, "%s\n", b);
			check_tree_put_str(&tree, p, q);
			break;
		case 'C':
		case 'L':
			xsnprintf(p, kind == 'C' ? "sys/class/%s" : "sys/%s", a);
			xsnprintf(q, "sys/%s", b);
			tree_symlink(q, p);
			break;
		default:
			ck_abort_msg("bad line %s", lines[i]);
		}
	}
}

typedef struct Case {
	const char *name;
	const char *const *tree;
	const char *lu; /* the device pathid_read() gets, below the root */
	const char *path, *tag, *compat;
} Case;

#define PCI  "devices/pci0000:00"
#define VIO  PCI "/0000:00:02.0/virtio1"
#define SAS  PCI "/0000:00:05.0/host0"
#define FC   PCI "/0000:00:1c.0/0000:03:00.0/host4/rport-4:0-2"
#define ISCS "devices/platform/host7/session3"
#define ATA  PCI "/0000:00:1f.2/ata3"
#define USB  PCI "/0000:00:04.0/usb2/2-1/2-1:1.0"

static const char *const virtio_tree[] = {
	"D " PCI,
	"D " PCI "/0000:00:02.0 pci",
	"D " VIO " virtio",
	"D " VIO "/host2 scsi scsi_host",
	"D " VIO "/host2/target2:0:1 scsi scsi_target",
	"D " VIO "/host2/target2:0:1/2:0:1:3 scsi scsi_device",
	"D " VIO "/host2/target2:0:1/2:0:1:16384 scsi scsi_device",
	"L bus/scsi/devices/2:0:1:3 " VIO "/host2/target2:0:1/2:0:1:3",
	NULL,
};

/* megasas-like: two hosts of one HBA, numbered after another HBA's. */
static const char *const rebase_tree[] = {
	"D " PCI,
	"D " PCI "/0000:00:1c.0 pci",
	"D " PCI "/0000:00:1c.0/0000:01:00.0 pci",
	"D " PCI "/0000:00:1c.0/0000:01:00.0/host5 scsi scsi_host",
	"D " PCI "/0000:00:1c.0/0000:01:00.0/host6 scsi scsi_host",
	"D " PCI "/0000:00:1c.0/0000:01:00.0/host6/target6:2:4 scsi scsi_target",
	"D " PCI "/0000:00:1c.0/0000:01:00.0/host6/target6:2:4/6:2:4:0 scsi scsi_device",
	NULL,
};

static const char *const sas_tree[] = {
	"D " PCI,
	"D " PCI "/0000:00:05.0 pci",
	"D " SAS " scsi scsi_host",
	"D " SAS "/phy-0:0 sas_phy",
	"D " SAS "/port-0:0",
	"D " SAS "/port-0:0/end_device-0:0",
	"D " SAS "/port-0:0/end_device-0:0/target0:0:0 scsi scsi_target",
	"D " SAS "/port-0:0/end_device-0:0/target0:0:0/0:0:0:0 scsi scsi_device",
	"C sas_port/port-0:0 " SAS "/port-0:0/sas_port/port-0:0",
	"A " SAS "/port-0:0/sas_port/port-0:0/num_phys 1",
	"C sas_device/end_device-0:0 " SAS "/port-0:0/end_device-0:0/sas_device/end_device-0:0",
	"A " SAS "/port-0:0/end_device-0:0/sas_device/end_device-0:0/phy_identifier 2",
	"A " SAS "/port-0:0/end_device-0:0/sas_device/end_device-0:0/sas_address "
	"0x5000c50033330002",
	/* behind an expander */
	"D " SAS "/port-0:1",
	"D " SAS "/port-0:1/expander-0:0",
	"D " SAS "/port-0:1/expander-0:0/port-0:0:12",
	"D " SAS "/port-0:1/expander-0:0/port-0:0:12/end_device-0:0:12",
	"D " SAS "/port-0:1/expander-0:0/port-0:0:12/end_device-0:0:12/target0:0:1 scsi "
	"scsi_target",
	"D " SAS "/port-0:1/expander-0:0/port-0:0:12/end_device-0:0:12/target0:0:1/0:0:1:1 scsi "
	"scsi_device",
	"C sas_device/expander-0:0 " SAS "/port-0:1/expander-0:0/sas_device/expander-0:0",
	"A " SAS "/port-0:1/expander-0:0/sas_device/expander-0:0/sas_address 0x500605b0000272bf",
	"C sas_port/port-0:0:12 " SAS "/port-0:1/expander-0:0/port-0:0:12/sas_port/port-0:0:12",
	"A " SAS "/port-0:1/expander-0:0/port-0:0:12/sas_port/port-0:0:12/num_phys 1",
	"C sas_device/end_device-0:0:12 " SAS
	"/port-0:1/expander-0:0/port-0:0:12/end_device-0:0:12/"
	"sas_device/end_device-0:0:12",
	"A " SAS
	"/port-0:1/expander-0:0/port-0:0:12/end_device-0:0:12/sas_device/end_device-0:0:12/"
	"phy_identifier 12",
	/* on a wide port */
	"D " SAS "/port-0:2",
	"D " SAS "/port-0:2/end_device-0:2",
	"D " SAS "/port-0:2/end_device-0:2/target0:0:2 scsi scsi_target",
	"D " SAS "/port-0:2/end_device-0:2/target0:0:2/0:0:2:0 scsi scsi_device",
	"C sas_port/port-0:2 " SAS "/port-0:2/sas_port/port-0:2",
	"A " SAS "/port-0:2/sas_port/port-0:2/num_phys 4",
	"C sas_device/end_device-0:2 " SAS "/port-0:2/end_device-0:2/sas_device/end_device-0:2",
	"A " SAS "/port-0:2/end_device-0:2/sas_device/end_device-0:2/sas_address "
	"0x5000c500aaaa0001",
	NULL,
};

static const char *const fc_tree[] = {
	"D " PCI,
	"D " PCI "/0000:00:1c.0 pci",
	"D " PCI "/0000:00:1c.0/0000:03:00.0 pci",
	"D " PCI "/0000:00:1c.0/0000:03:00.0/host4 scsi scsi_host",
	"D " FC,
	"D " FC "/target4:0:0 scsi scsi_target",
	"D " FC "/target4:0:0/4:0:0:7 scsi scsi_device",
	"D " FC "/target4:0:0/4:0:0:256 scsi scsi_device",
	"D " FC "/target4:0:0/4:0:0:1077952576 scsi scsi_device",
	"C fc_remote_ports/rport-4:0-2 " FC "/fc_remote_ports/rport-4:0-2",
	"A " FC "/fc_remote_ports/rport-4:0-2/port_name 0x50060e8016a8b300",
	"C fc_transport/target4:0:0 " FC "/target4:0:0/fc_transport/target4:0:0",
	"A " FC "/target4:0:0/fc_transport/target4:0:0/port_name 0x50060e8016a8b300",
	"A " FC "/target4:0:0/fc_transport/target4:0:0/node_name 0x50060e8016a8b000",
	NULL,
};

static const char *const iscsi_tree[] = {
	"D devices/platform",
	"D devices/platform/host7 scsi scsi_host",
	"D " ISCS,
	"D " ISCS "/target7:0:0 scsi scsi_target",
	"D " ISCS "/target7:0:0/7:0:0:1 scsi scsi_device",
	"C iscsi_session/session3 " ISCS "/iscsi_session/session3",
	"A " ISCS "/iscsi_session/session3/targetname iqn.2003-01.org.linux-iscsi.lund:san",
	"D " ISCS "/connection3:0",
	"C iscsi_connection/connection3:0 " ISCS "/connection3:0/iscsi_connection/connection3:0",
	"A " ISCS "/connection3:0/iscsi_connection/connection3:0/persistent_address 10.0.2.15",
	"A " ISCS "/connection3:0/iscsi_connection/connection3:0/persistent_port 3260",
	NULL,
};

static const char *const ata_tree[] = {
	"D " PCI,
	"D " PCI "/0000:00:1f.2 pci",
	"D " ATA,
	"C ata_port/ata3 " ATA "/ata_port/ata3",
	"A " ATA "/ata_port/ata3/port_no 3",
	"D " ATA "/host2 scsi scsi_host",
	"D " ATA "/host2/target2:0:0 scsi scsi_target",
	"D " ATA "/host2/target2:0:0/2:0:0:0 scsi scsi_device",
	"D " ATA "/host2/target2:0:1 scsi scsi_target",
	"D " ATA "/host2/target2:0:1/2:0:1:0 scsi scsi_device",
	"D " ATA "/host2/target2:2:0 scsi scsi_target",
	"D " ATA "/host2/target2:2:0/2:2:0:0 scsi scsi_device",
	NULL,
};

static const char *const usb_tree[] = {
	"D " PCI,
	"D " PCI "/0000:00:04.0 pci",
	"D " PCI "/0000:00:04.0/usb2 usb usb_device",
	"D " PCI "/0000:00:04.0/usb2/2-1 usb usb_device",
	"D " USB " usb usb_interface",
	"D " USB "/host3 scsi scsi_host",
	"D " USB "/host3/target3:0:0 scsi scsi_target",
	"D " USB "/host3/target3:0:0/3:0:0:1 scsi scsi_device",
	NULL,
};

static const char *const debug_tree[] = {
	"D devices/pseudo_0",
	"D devices/pseudo_0/adapter0 pseudo",
	"D devices/pseudo_0/adapter0/host1 scsi scsi_host",
	"D devices/pseudo_0/adapter0/host1/target1:0:0 scsi scsi_target",
	"D devices/pseudo_0/adapter0/host1/target1:0:0/1:0:0:0 scsi scsi_device",
	NULL,
};

static const char *const platform_tree[] = {
	"D devices/platform",
	"D devices/platform/soc",
	"D devices/platform/soc/fe300000.sata platform",
	"D devices/platform/soc/fe300000.sata/host0 scsi scsi_host",
	"D devices/platform/soc/fe300000.sata/host0/target0:0:0 scsi scsi_target",
	"D devices/platform/soc/fe300000.sata/host0/target0:0:0/0:0:0:0 scsi scsi_device",
	NULL,
};

#define VMB  "devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00"
#define GUID "f8b3781b-1e82-4818-a1c3-63d806ec15bb"
static const char *const hyperv_tree[] = {
	"D devices/LNXSYSTM:00 acpi",
	"D devices/LNXSYSTM:00/LNXSYBUS:00 acpi",
	"D devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00 acpi",
	"D " VMB " acpi",
	"D " VMB "/" GUID " vmbus",
	"A " VMB "/" GUID "/device_id {" GUID "}",
	"D " VMB "/" GUID "/host0 scsi scsi_host",
	"D " VMB "/" GUID "/host0/target0:0:0 scsi scsi_target",
	"D " VMB "/" GUID "/host0/target0:0:0/0:0:0:2 scsi scsi_device",
	NULL,
};

static const char *const firewire_tree[] = {
	"D " PCI,
	"D " PCI "/0000:00:1e.0 pci",
	"D " PCI "/0000:00:1e.0/fw1 firewire",
	"D " PCI "/0000:00:1e.0/fw1/fw1.0 firewire",
	"D " PCI "/0000:00:1e.0/fw1/fw1.0/host9 scsi scsi_host",
	"D " PCI "/0000:00:1e.0/fw1/fw1.0/host9/target9:0:0 scsi scsi_target",
	"D " PCI "/0000:00:1e.0/fw1/fw1.0/host9/target9:0:0/9:0:0:0 scsi scsi_device",
	"A " PCI "/0000:00:1e.0/fw1/fw1.0/host9/target9:0:0/9:0:0:0/ieee1394_id "
	"0800460104a3c5b2:0:0",
	NULL,
};

static const char *const virtual_tree[] = {
	"D devices/virtual",
	"D devices/virtual/host0 scsi scsi_host",
	"D devices/virtual/host0/target0:0:0 scsi scsi_target",
	"D devices/virtual/host0/target0:0:0/0:0:0:0 scsi scsi_device",
	NULL,
};

static const Case cases[] = {
	{ "virtio-scsi", virtio_tree, "sys/bus/scsi/devices/2:0:1:3",
	  "pci-0000:00:02.0-scsi-0:0:1:3", "pci-0000_00_02_0-scsi-0_0_1_3", NULL },
	{ "virtio-scsi large LUN: scsi-H:C:T:L keeps the number", virtio_tree,
	  "sys/" VIO "/host2/target2:0:1/2:0:1:16384", "pci-0000:00:02.0-scsi-0:0:1:16384",
	  "pci-0000_00_02_0-scsi-0_0_1_16384", NULL },
	{ "host number rebased on the HBA's first host, innermost PCI function", rebase_tree,
	  "sys/" PCI "/0000:00:1c.0/0000:01:00.0/host6/target6:2:4/6:2:4:0",
	  "pci-0000:01:00.0-scsi-1:2:4:0", "pci-0000_01_00_0-scsi-1_2_4_0", NULL },
	{ "SAS end device on an HBA phy", sas_tree,
	  "sys/" SAS "/port-0:0/end_device-0:0/target0:0:0/0:0:0:0",
	  "pci-0000:00:05.0-sas-phy2-lun-0", "pci-0000_00_05_0-sas-phy2-lun-0", NULL },
	{ "SAS end device behind an expander", sas_tree,
	  "sys/" SAS "/port-0:1/expander-0:0/port-0:0:12/end_device-0:0:12/target0:0:1/0:0:1:1",
	  "pci-0000:00:05.0-sas-exp0x500605b0000272bf-phy12-lun-1",
	  "pci-0000_00_05_0-sas-exp0x500605b0000272bf-phy12-lun-1", NULL },
	{ "SAS wide port", sas_tree, "sys/" SAS "/port-0:2/end_device-0:2/target0:0:2/0:0:2:0",
	  "pci-0000:00:05.0-sas-0x5000c500aaaa0001-lun-0",
	  "pci-0000_00_05_0-sas-0x5000c500aaaa0001-lun-0", NULL },
	{ "FC remote port", fc_tree, "sys/" FC "/target4:0:0/4:0:0:7",
	  "pci-0000:03:00.0-fc-0x50060e8016a8b300-lun-7",
	  "pci-0000_03_00_0-fc-0x50060e8016a8b300-lun-7", NULL },
	{ "FC LUN 256", fc_tree, "sys/" FC "/target4:0:0/4:0:0:256",
	  "pci-0000:03:00.0-fc-0x50060e8016a8b300-lun-0x0100000000000000",
	  "pci-0000_03_00_0-fc-0x50060e8016a8b300-lun-0x0100000000000000", NULL },
	{ "FC two-level LUN", fc_tree, "sys/" FC "/target4:0:0/4:0:0:1077952576",
	  "pci-0000:03:00.0-fc-0x50060e8016a8b300-lun-0x4040404000000000",
	  "pci-0000_03_00_0-fc-0x50060e8016a8b300-lun-0x4040404000000000", NULL },
	{ "iSCSI session", iscsi_tree, "sys/" ISCS "/target7:0:0/7:0:0:1",
	  "ip-10.0.2.15:3260-iscsi-iqn.2003-01.org.linux-iscsi.lund:san-lun-1",
	  "ip-10_0_2_15_3260-iscsi-iqn_2003-01_org_linux-iscsi_lund_san-lun-1", NULL },
	{ "ATA master", ata_tree, "sys/" ATA "/host2/target2:0:0/2:0:0:0",
	  "pci-0000:00:1f.2-ata-3.0", "pci-0000_00_1f_2-ata-3_0", "pci-0000:00:1f.2-ata-3" },
	{ "ATA slave", ata_tree, "sys/" ATA "/host2/target2:0:1/2:0:1:0",
	  "pci-0000:00:1f.2-ata-3.1", "pci-0000_00_1f_2-ata-3_1", "pci-0000:00:1f.2-ata-3" },
	{ "ATA behind a port multiplier", ata_tree, "sys/" ATA "/host2/target2:2:0/2:2:0:0",
	  "pci-0000:00:1f.2-ata-3.2.0", "pci-0000_00_1f_2-ata-3_2_0", "pci-0000:00:1f.2-ata-3" },
	{ "USB mass storage", usb_tree, "sys/" USB "/host3/target3:0:0/3:0:0:1",
	  "pci-0000:00:04.0-usb-0:1:1.0-scsi-0:0:0:1", "pci-0000_00_04_0-usb-0_1_1_0-scsi-0_0_0_1",
	  NULL },
	{ "scsi_debug: no stable parent, no ID_PATH", debug_tree,
	  "sys/devices/pseudo_0/adapter0/host1/target1:0:0/1:0:0:0", NULL, NULL, NULL },
	{ "platform HBA", platform_tree,
	  "sys/devices/platform/soc/fe300000.sata/host0/target0:0:0/0:0:0:0",
	  "platform-fe300000.sata-scsi-0:0:0:0", "platform-fe300000_sata-scsi-0_0_0_0", NULL },
	{ "Hyper-V storvsc", hyperv_tree, "sys/" VMB "/" GUID "/host0/target0:0:0/0:0:0:2",
	  "acpi-VMBUS:00-vmbus-f8b3781b1e824818a1c363d806ec15bb-lun-2",
	  "acpi-VMBUS_00-vmbus-f8b3781b1e824818a1c363d806ec15bb-lun-2", NULL },
	{ "FireWire SBP-2", firewire_tree,
	  "sys/" PCI "/0000:00:1e.0/fw1/fw1.0/host9/target9:0:0/9:0:0:0",
	  "pci-0000:00:1e.0-ieee1394-0x0800460104a3c5b2:0:0",
	  "pci-0000_00_1e_0-ieee1394-0x0800460104a3c5b2_0_0", NULL },
	{ "virtual host", virtual_tree, "sys/devices/virtual/host0/target0:0:0/0:0:0:0", NULL, NULL,
	  NULL },
};

START_TEST(test_pathid)
{
	const Case *c = &cases[_i];
	_cleanup_(pathid_done) PathId p = {};

	build(c->tree);
	ck_assert_msg(pathid_read(tree.fd, c->lu, &p) == 0, "%s", c->name);
	ck_assert_msg(streq_ptr(p.path, c->path), "%s: ID_PATH %s, want %s", c->name,
	              p.path ?: "(none)", c->path ?: "(none)");
	ck_assert_msg(streq_ptr(p.tag, c->tag), "%s: ID_PATH_TAG %s, want %s", c->name,
	              p.tag ?: "(none)", c->tag ?: "(none)");
	ck_assert_msg(streq_ptr(p.ata_compat, c->compat), "%s: ID_PATH_ATA_COMPAT %s, want %s",
	              c->name, p.ata_compat ?: "(none)", c->compat ?: "(none)");
}
END_TEST

/* The walk from the device's directory (pathid_read_dev(): what a device node's sys/dev link
 * names) gives what the walk from the bus link gives. */
START_TEST(test_pathid_dev)
{
	const Case *c = &cases[_i];
	_cleanup_(pathid_done) PathId p = {}, q = {};
	_cleanup_free_ char *dev = NULL;

	build(c->tree);
	ck_assert_int_eq(pathid_resolve(tree.fd, c->lu, &dev), 0);
	ck_assert_msg(strneq(dev, "sys/devices/", strlen("sys/devices/")), "%s: %s", c->name, dev);
	ck_assert_int_eq(pathid_read(tree.fd, c->lu, &p), 0);
	ck_assert_int_eq(pathid_read_dev(tree.fd, dev, &q), 0);
	ck_assert_msg(streq_ptr(p.path, q.path) && streq_ptr(p.tag, q.tag) &&
	                      streq_ptr(p.ata_compat, q.ata_compat) &&
	                      p.virtual_dev == q.virtual_dev,
	              "%s: %s / %s", c->name, p.path ?: "(none)", q.path ?: "(none)");
	/* only a device directory, never a link to resolve */
	if (!strneq(c->lu, "sys/devices/", strlen("sys/devices/")))
		ck_assert_int_eq(pathid_read_dev(tree.fd, c->lu, &q), -EINVAL);
}
END_TEST

/* Each walk reads the tree as it is: a host that went is not counted from, and a device that
 * took another's path is read as what it is now. */
START_TEST(test_tree_changes)
{
	static const char *const platform_again[] = {
		"D " PCI "/0000:00:1c.0/0000:01:00.0 platform",
		"D " PCI "/0000:00:1c.0/0000:01:00.0/host6 scsi scsi_host",
		"D " PCI "/0000:00:1c.0/0000:01:00.0/host6/target6:2:4 scsi scsi_target",
		"D " PCI "/0000:00:1c.0/0000:01:00.0/host6/target6:2:4/6:2:4:0 scsi scsi_device",
		NULL,
	};
	const char *lu = "sys/" PCI "/0000:00:1c.0/0000:01:00.0/host6/target6:2:4/6:2:4:0";
	PathId p = {};

	build(rebase_tree);
	ck_assert_int_eq(pathid_read(tree.fd, lu, &p), 0);
	ck_assert_str_eq(p.path, "pci-0000:01:00.0-scsi-1:2:4:0");
	pathid_done(&p);

	/* host5, the HBA's first, goes: host6 is counted from itself now */
	check_tree_rm(&tree, "sys/" PCI "/0000:00:1c.0/0000:01:00.0/host5");
	ck_assert_int_eq(pathid_read(tree.fd, lu, &p), 0);
	ck_assert_str_eq(p.path, "pci-0000:01:00.0-scsi-0:2:4:0");
	pathid_done(&p);

	/* the HBA goes and another device takes its path (a platform device here): the walk
	 * reads its new subsystem */
	check_tree_rm(&tree, "sys/" PCI "/0000:00:1c.0/0000:01:00.0");
	build(platform_again);
	ck_assert_int_eq(pathid_read(tree.fd, lu, &p), 0);
	ck_assert_str_eq(p.path, "pci-0000:00:1c.0-platform-0000:01:00.0-scsi-0:2:4:0");
	pathid_done(&p);
}
END_TEST

START_TEST(test_virtual_flag)
{
	_cleanup_(pathid_done) PathId p = {}, q = {};

	build(virtual_tree);
	build(virtio_tree);
	ck_assert_int_eq(pathid_read(tree.fd, "sys/devices/virtual/host0/target0:0:0/0:0:0:0", &p),
	                 0);
	ck_assert(p.virtual_dev);
	ck_assert_int_eq(pathid_read(tree.fd, "sys/bus/scsi/devices/2:0:1:3", &q), 0);
	ck_assert(!q.virtual_dev);
}
END_TEST

/* What a hostile or broken tree does: no crash, no path outside the root, an error. */
START_TEST(test_broken_trees)
{
	_cleanup_(pathid_done) PathId p = {};
	_cleanup_free_ char *r = NULL;

	check_tree_mkdirs(&tree, "sys/bus/scsi/devices");
	ck_assert_int_eq(symlinkat("loop", tree.fd, "sys/bus/scsi/devices/loop"), 0);
	ck_assert_int_eq(pathid_read(tree.fd, "sys/bus/scsi/devices/loop", &p), -ELOOP);
	ck_assert_int_eq(pathid_read(tree.fd, "sys/bus/scsi/devices/9:9:9:9", &p), -ENOENT);
	/* ".." and absolute links stay inside the root */
	ck_assert_int_eq(symlinkat("/../../../sys", tree.fd, "sys/bus/scsi/devices/up"), 0);
	ck_assert_int_eq(pathid_resolve(tree.fd, "sys/bus/scsi/devices/up/bus/../../../..", &r), 0);
	ck_assert_str_eq(r, "");

	/* iSCSI connection missing: the session gives no ID_PATH */
	build(iscsi_tree);
	check_tree_rm(&tree, "sys/class/iscsi_connection");
	ck_assert_int_eq(pathid_read(tree.fd, "sys/" ISCS "/target7:0:0/7:0:0:1", &p), 0);
	ck_assert_ptr_null(p.path);
}
END_TEST

/* The kernel's resolution inside the root (openat2) and the component walk agree on every path
 * of a tree of relative, absolute, "..", looping and dangling links. */
START_TEST(test_resolve_same_as_walk)
{
	static const char *const dirs[] = { "a/b/c", "d/e", "a/f" };
	static const char *const links[][2] = {
		{ "a/l1", "../d" },        { "a/b/l2", "/a/f" },      { "d/e/l3", "../../.." },
		{ "d/loop", "loop" },      { "a/dang", "/nowhere" },  { "a/b/c/l4", "../../b/./c" },
		{ "l5", "a/b/../../d/e" }, { "d/l6", "/../../a/l1" }, { "a/f/l7", "../l1/e/l3/a" },
	};
	static const char *const comps[] = { "a",  "b",  "c",  "d",    "e",    "f",
		                             "l1", "l2", "l3", "loop", "dang", "l4",
		                             "l5", "l6", "l7", "..",   ".",    "" };
	unsigned seed = 42, agreed = 0, found = 0, errs[3] = {};

	for (size_t i = 0; i < ELEMENTSOF(dirs); i++)
		check_tree_mkdirs(&tree, dirs[i]);
	for (size_t i = 0; i < ELEMENTSOF(links); i++)
		ck_assert_int_eq(symlinkat(links[i][1], tree.fd, links[i][0]), 0);

	for (unsigned n = 0; n < 3000; n++) {
		_cleanup_free_ char *fast = NULL, *walk = NULL;
		char path[256] = "";
		unsigned k = 1 + rand_r(&seed) % 6;
		int rf, rw;

		for (unsigned j = 0; j < k; j++) {
			if (j > 0)
				strcat(path, "/");
			strcat(path, comps[rand_r(&seed) % ELEMENTSOF(comps)]);
		}
		rf = pathid_resolve(tree.fd, path, &fast);
		rw = pathid_resolve_walk(tree.fd, path, &walk);
		ck_assert_msg(rf == rw, "%s: openat2 %d, walk %d", path, rf, rw);
		if (rf == 0) {
			ck_assert_msg(streq(fast, walk), "%s: openat2 '%s', walk '%s'", path, fast,
			              walk);
			found++;
		} else
			errs[rf == -ENOENT ? 0 : rf == -ELOOP ? 1 : 2]++;
		agreed++;
	}
	ck_assert_uint_eq(agreed, 3000);
	/* ... and both kinds of failure: a dangling link and a loop */
	ck_assert_msg(errs[0] > 0, "found %u enoent %u eloop %u other %u", found, errs[0], errs[1],
	              errs[2]);
	ck_assert_uint_gt(errs[1], 0);
	ck_assert_uint_gt(found, 150); /* the sample reaches resolvable paths, not only errors */
}
END_TEST

static const struct {
	const char *in, *out;
} tags[] = {
	{ "pci-0000:00:1f.2-ata-1.0", "pci-0000_00_1f_2-ata-1_0" },
	{ "..a::b..", "a_b" },
	{ "___", "" },
	{ "ip-[fe80::1]:3260-iscsi-x", "ip-_fe80_1_3260-iscsi-x" },
	{ "a\xc3\xa9z", "a_z" },
	{ "-Az09-", "-Az09-" },
};

START_TEST(test_tag)
{
	char out[64];

	ck_assert_int_eq(pathtag_tag(tags[_i].in, out, sizeof(out)), (int)strlen(tags[_i].out));
	ck_assert_str_eq(out, tags[_i].out);
}
END_TEST

START_TEST(test_lun)
{
	char out[32];

	ck_assert_int_eq(pathtag_lun(0, out, sizeof(out)), 5);
	ck_assert_str_eq(out, "lun-0");
	ck_assert_int_gt(pathtag_lun(255, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "lun-255");
	ck_assert_int_gt(pathtag_lun(256, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "lun-0x0100000000000000");
	ck_assert_int_gt(pathtag_lun(0x4001, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "lun-0x4001000000000000");
	/* only the low 32 bits, as path_id keeps them */
	ck_assert_int_gt(pathtag_lun(UINT64_C(0x1234567800010002), out, sizeof(out)), 0);
	ck_assert_str_eq(out, "lun-0x0002000100000000");
	ck_assert_int_eq(pathtag_lun(256, out, 22), -ENOBUFS);
}
END_TEST

START_TEST(test_link_name)
{
	char out[300], big[300];

	ck_assert_int_gt(pathtag_link_name("pci-0000:00:1f.2-ata-1", "-part2", out, sizeof(out)),
	                 0);
	ck_assert_str_eq(out, "pci-0000:00:1f.2-ata-1-part2");
	/* bytes outside udev's allowlist become '_' */
	ck_assert_int_gt(pathtag_link_name("ip-a*b$c", NULL, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "ip-a_b_c");
	/* a value that would make a subdirectory, two links or none: no link */
	ck_assert_int_eq(pathtag_link_name("ip-a/b", NULL, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(pathtag_link_name("ip-a b", NULL, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(pathtag_link_name("ip-a\tb", NULL, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(pathtag_link_name("..", NULL, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(pathtag_link_name("", NULL, out, sizeof(out)), -EINVAL);
	memset(big, 'a', 256);
	big[256] = 0;
	ck_assert_int_eq(pathtag_link_name(big, NULL, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(pathtag_link_name("abc", NULL, out, 3), -ENOBUFS);
}
END_TEST

static Suite *pathid_suite(void)
{
	Suite *s = suite_create("pathid");
	TCase *tc = tcase_create("sysfs");
	TCase *pure = tcase_create("strings");

	tcase_add_checked_fixture(tc, setup, teardown);
	CHECK_ADD_LOOP(tc, test_pathid, cases);
	CHECK_ADD_LOOP(tc, test_pathid_dev, cases);
	tcase_add_test(tc, test_tree_changes);
	tcase_add_test(tc, test_virtual_flag);
	tcase_add_test(tc, test_broken_trees);
	tcase_add_test(tc, test_resolve_same_as_walk);
	suite_add_tcase(s, tc);

	CHECK_ADD_LOOP(pure, test_tag, tags);
	tcase_add_test(pure, test_lun);
	tcase_add_test(pure, test_link_name);
	suite_add_tcase(s, pure);
	return s;
}

CHECK_MAIN(pathid_suite)
