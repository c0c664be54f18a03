/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * /dev/disk/by-id link names as Debian 12's 60-persistent-storage.rules (systemd 252) derives
 * them from the properties scsi_id / ata_id export, and lund's own /dev/scsi/by-id names.
 *
 * The rules, for KERNEL sd*|sr* on the scsi bus:
 *   - ATTRS{vendor}=="ATA" (INQUIRY vendor, trailing blanks ignored), or an MMC device
 *     (type 5) with scsi_level 6..9, run ata_id first; if it yields ID_SERIAL, ID_BUS="ata";
 *   - otherwise scsi_id runs and ID_BUS="scsi";
 *   - disk:      "<ID_BUS>-<ID_SERIAL>"            (sd* and sr*)
 *   - partition: "<ID_BUS>-<ID_SERIAL>-part<N>"    (sd* only)
 *   - disk/partition with ID_WWN_WITH_EXTENSION: "wwn-0x...[-part<N>]".
 * udev substitutes the value into SYMLINK and applies udev_replace_chars(value, "/ "), so
 * '/' survives there and would create a subdirectory; lund never does that (below).
 *
 * Safety (lund's deliberate choice): each name is one path component. A byte udev would keep
 * that cannot be in a component, '/', is written "\x2f" as udev's encode_devnode_name() writes
 * it; whitespace and other bytes outside the allowlist become '_' exactly as udev's
 * udev_replace_chars() makes them. A name that would then be empty, "." or "..", or longer
 * than NAME_MAX (255) bytes, is refused with -EINVAL (udev would fail symlink() with
 * ENAMETOOLONG, i.e. create no link either).
 */

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "ident.h"
#include "usbid.h"

/* bus-serial, wwn, usb, and sg3-utils-udev's nine (S, four NAA, EUI-64, name, T10, vendor):
 * 12 per node at most, with room to spare. */
#define NAMES_MAX 16

typedef enum NamesBus {
	NAMES_BUS_SCSI, /* scsi_id (or sg3-utils-udev's compat rules) supplied ID_SERIAL */
	NAMES_BUS_ATA,  /* ata_id (or sg3's SCSI_IDENT_LUN_ATA) supplied ID_SERIAL: "ata-" */
	NAMES_BUS_USB,  /* usb_id supplied ID_SERIAL: "usb-" */
	_NAMES_BUS_MAX,
	_NAMES_BUS_INVALID = -EINVAL,
} NamesBus;

typedef struct NamesList {
	char name[NAMES_MAX][NAME_MAX + 1];
	size_t n;
} NamesList;

/*
 * names_bus() - which bus udev's rules give the device: NAMES_BUS_ATA when @id->ata.valid
 * (ata_id succeeded) and the rules would run ata_id (INQUIRY vendor "ATA", or type 5 with
 * @scsi_level 6..9 as sysfs shows it), else NAMES_BUS_SCSI.
 */
NamesBus names_bus(const ScsiIdent *id, unsigned scsi_level);

/*
 * names_component() - build one safe path component "<prefix><value>[-partN]" as described
 * above. @value is a NUL-terminated string as udev would substitute it.
 * Returns the length written to @ret (NAME_MAX + 1 bytes), or -EINVAL.
 */
int names_component(const char *prefix, const char *value, unsigned partition,
                    char ret[static NAME_MAX + 1]);

const char *names_bus_name(NamesBus b);

/*
 * names_serial_path() - the name lund gives, in its own link tree, an LU of a device the hwdb
 * marks as giving one serial to different media (lund.hwdb(7), LUND_NAME_IDENTITY):
 * "<@name>-<ID_PATH_TAG of @id_path>", its serial's by-id name made unique by the place the LU
 * is reached through (path_id's ID_PATH: for USB the port path and the LUN). @name is the LU's
 * first by-id name as names_by_id_full() makes it ("<ID_BUS>-<ID_SERIAL>" when it has a
 * serial); the tag is pathtag_tag()'s. The whole goes through names_component() once more, so
 * whatever @name holds, the result is escaped as udev escapes a by-id name (a safe name comes
 * out unchanged) and is always one safe path component.
 * Returns the length written to @ret, or -EINVAL: an argument missing or empty, a path without
 * a tag, or a name that would exceed NAME_MAX or be refused by names_component().
 */
int names_serial_path(const char *name, const char *id_path, char ret[static NAME_MAX + 1]);
/*
 * names_serial_path_other() - is by-id base name @base a serial-path name of an LU whose first
 * by-id name is @name, made through another path than @id_path ("<name>-<another tag>")? Such a
 * name belongs to another medium of the same identity.
 */
bool names_serial_path_other(const char *name, const char *id_path, const char *base);

/*
 * names_unit_serial() - the name lund gives, in its own link tree, an LU of a device the hwdb
 * marks as naming itself by its unit serial number (lund.hwdb(7), LUND_NAME_IDENTITY=
 * unit-serial): "scsi-<ID_SERIAL>" with ID_SERIAL exactly as `scsi_id --page=0x80` prints it
 * (what an /etc/scsi_id.config line "options=--page=0x80" gives udev): 'S', the INQUIRY vendor
 * (8 bytes) and product (16 bytes), then the serial of VPD page 0x80, blanks trimmed and runs of
 * blanks made one '_', other bytes udev does not allow made '_'. @id80 is computed with
 * ScsiIdentInput.page = IDENT_PAGE_80 (ident_compute()), which reproduces scsi_id's reading of
 * the page byte for byte. The result is a names_component() component (one safe path
 * component, escaped as a by-id name is).
 * Returns the length written to @ret, or:
 *  -ENODATA  page 0x80 gives no serial of its own: not read or rejected, not page 0x80 (byte 1),
 *            longer than scsi_id's serial buffer, a vendor or product holding a NUL byte
 *            (scsi_id prints "S" alone), or a serial that is empty or blank (scsi_id prints
 *            "S<vendor>_<product>", one name for every such device). udev would make
 *            "scsi-S" / "scsi-S<vendor>_<product>" there; lund makes no such name (lund(8));
 *  -EINVAL   no @id80, or the name refused by names_component().
 */
int names_unit_serial(const ScsiIdent *id80, char ret[static NAME_MAX + 1]);

/*
 * Everything the rules look at, for names_by_id_full(). The chain it reproduces, in rule-file
 * order (Debian 12: systemd 252's 60-persistent-storage.rules, and sg3-utils-udev 1.46's
 * 55-scsi-sg3_id.rules and 58-scsi-sg3_symlink.rules when installed):
 *
 *  1. 55-scsi-sg3_id.rules (@sg3 != NULL) imports `sg_inq --export` of the INQUIRY data and of
 *     the sysfs vpd_pg80/vpd_pg83 attributes (of the device itself when scsi_level is 4), then
 *     sets ID_SERIAL when nothing has: SCSI_IDENT_LUN_ATA with ID_BUS=ata; else, with
 *     ID_BUS=scsi, the first of "3"NAA_REGEXT, "3"NAA_REG, "3"NAA_EXT, "2"EUI64, "8"NAME, "1"T10,
 *     "3"NAA_LOCAL, "0"<SCSI_VENDOR>_<SCSI_MODEL>_<LUN_VENDOR>,
 * "S"<SCSI_VENDOR>_<SCSI_MODEL>_<SERIAL>; and ID_WWN_WITH_EXTENSION from the first NAA of REGEXT,
 * REG, EXT, LOCAL. sg3-utils-udev 1.48 (@sg3_src_filter, Debian 13) takes the last four (T10,
 * NAA local, vendor-specific, serial) only as .SCSI_ID_SERIAL_SRC allows, "T" by default; one it
 * skips still sets ID_BUS=scsi, so that usb_id below leaves ID_SERIAL to scsi_id.
 *  2. 60-persistent-storage.rules, each step only while ID_SERIAL is unset: ata_id (names_bus()'s
 *     conditions, or a USB parent with removable 0) when it succeeds (@id->ata.valid);
 *     usb_id on a USB parent (always runs; sets ID_BUS=usb and ID_SERIAL only when ID_BUS is
 *     unset); scsi_id.
 *  3. Links: "<ID_BUS>-<ID_SERIAL>", "wwn-<ID_WWN_WITH_EXTENSION>", "usb-<ID_USB_SERIAL>", then
 *     58-scsi-sg3_symlink.rules (@sg3_symlinks): "scsi-S<SCSI_VENDOR>_<SCSI_MODEL>_<SERIAL>",
 *     "scsi-3<NAA_REGEXT|REG|EXT>", "scsi-2<EUI64>", "scsi-8<NAME>", "scsi-1<T10>",
 *     "scsi-3<NAA_LOCAL>", "scsi-0<SCSI_VENDOR>_<SCSI_MODEL>_<LUN_VENDOR>" for each value set
 *     (1.48: the 'S', "1", NAA local and '0' forms only as .SCSI_SYMLINK_SRC allows: none by
 *     default).
 * A name made twice is listed once.
 */
typedef struct NamesContext {
	const ScsiIdent *id;  /* scsi_id's and ata_id's view (required) */
	unsigned scsi_level;  /* the SCSI device's sysfs scsi_level */
	unsigned partition;   /* 0: the whole device */
	bool is_cdrom;        /* an sr* node: no partitions */
	bool removable;       /* the block device's removable attribute (ata_id on USB) */
	const UsbId *usb;     /* usb_id's identity; NULL when there is no USB parent or
	                       * usb_id would fail */
	const ScsiIdent *sg3; /* 55-scsi-sg3_id.rules installed: identity computed from the
	                       * pages it reads (INQUIRY, vpd_pg80, vpd_pg83); NULL: not
	                       * installed */
	bool sg3_symlinks;    /* 58-scsi-sg3_symlink.rules installed (needs @sg3) */
	bool sg3_src_filter;  /* sg3-utils-udev 1.48's rules (.SCSI_ID_SERIAL_SRC and
	                       * .SCSI_SYMLINK_SRC) at their defaults: of the ambiguous
	                       * sources (T10, NAA local, vendor-specific, VPD 0x80 serial)
	                       * only T10 sets ID_SERIAL, and none makes a link of its own;
	                       * each still sets ID_BUS=scsi (see above) */
} NamesContext;

/*
 * names_by_id_full() - the by-id names udev's rules make for the node described by @ctx (see
 * above), safe components as names_component() makes them.
 * Returns 0 with @ret filled; -EINVAL for a partition of a cdrom, bad arguments, or when names
 * were expected but every one was refused for safety.
 */
int names_by_id_full(const NamesContext *ctx, NamesList *ret);
