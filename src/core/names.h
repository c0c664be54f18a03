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

#define NAMES_MAX 4 /* bus-serial, wwn: two names per node, with room to spare */

typedef enum NamesBus {
        NAMES_BUS_SCSI, /* scsi_id supplied ID_SERIAL: "scsi-" */
        NAMES_BUS_ATA,  /* ata_id supplied ID_SERIAL: "ata-" */
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
 * names_by_id() - the by-id names for a whole device (@partition == 0) or partition N.
 * @id: computed identity; @bus: from names_bus(); @is_cdrom: an sr* node (no partitions).
 * Fills @ret with 0..2 names: "<bus>-<serial>[-partN]" when there is an ID_SERIAL, then
 * "wwn-0x<wwn+ext>[-partN]" when there is an ID_WWN_WITH_EXTENSION.
 * Returns 0; -EINVAL for a partition of a cdrom. A candidate refused for safety (see above) is
 * left out and reported by returning -EINVAL only if no name at all could be made while one was
 * expected; use names_component() to learn why.
 */
int names_by_id(const ScsiIdent *id, NamesBus bus, unsigned partition, bool is_cdrom,
                NamesList *ret);

/*
 * names_component() - build one safe path component "<prefix><value>[-partN]" as described
 * above. @value is a NUL-terminated string as udev would substitute it.
 * Returns the length written to @ret (NAME_MAX + 1 bytes), or -EINVAL.
 */
int names_component(const char *prefix, const char *value, unsigned partition,
                    char ret[static NAME_MAX + 1]);

const char *names_bus_name(NamesBus b);
