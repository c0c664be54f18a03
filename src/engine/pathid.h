/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * ID_PATH, ID_PATH_TAG and ID_PATH_ATA_COMPAT of a SCSI device as udev's path_id builtin
 * (systemd v252, Debian 12) sets them, computed from sysfs below a root dirfd: the device's
 * ancestors from the SCSI device up, each adding the component of its subsystem:
 *  - SCSI transports, told apart by the device path as path_id tells them: FC remote ports
 *    ("fc-<port_name>-lun-N"), SAS end devices ("sas-phyN-lun-N", "sas-exp<addr>-phyN-lun-N"
 *    behind an expander, "sas-<addr>-lun-N" on a wide port), iSCSI sessions
 *    ("ip-<addr>:<port>-iscsi-<target>-lun-N"), libata ("ata-<port>.<target>",
 *    "ata-<port>.<pmp>.0" behind a port multiplier, and "ata-<port>" as ID_PATH_ATA_COMPAT),
 *    Hyper-V ("vmbus-<guid>-lun-N"), FireWire SBP-2 ("ieee1394-0x<id>"), and every other host
 *    ("scsi-H:C:T:L" with H counted from the lowest host number under the same parent);
 *  - USB ("usb-0:<port path>:<config>.<interface>"), PCI ("pci-<address>"), platform, ACPI,
 *    AMBA, Xen, s390 (ccw, ccwgroup, scm, iucv), BCMA, serio and SPI parents; virtio is passed
 *    over ("pci-…-scsi-0:0:T:L" for virtio-scsi).
 * path_id sets nothing unless some ancestor gives a stable name (PCI, platform, ACPI, Xen, AMBA,
 * s390, or a SCSI transport with its own addresses): scsi_debug's pseudo adapter gets none.
 * Not reproduced: the cciss, nvme and s390 AP parents, which no SCSI device has, and the tape
 * mode suffixes ("-nst", "-stl"...) path_id adds for st/nst nodes: this is the LU's path.
 * Reads sysfs only, never the device.
 */

#include <stdbool.h>
#include <stddef.h>

typedef struct PathId {
	char *path;         /* ID_PATH; NULL when path_id sets none (then so are the others) */
	char *tag;          /* ID_PATH_TAG */
	char *ata_compat;   /* ID_PATH_ATA_COMPAT, or NULL */
	char *usb_revision; /* ID_PATH_WITH_USB_REVISION (udev 254 and later: ID_PATH with the USB
	                     * root hub's revision, "usbv2-0:..."), or NULL; ID_PATH never has it */
	bool virtual_dev;   /* the device lives below devices/virtual/: 60-persistent-storage.rules
	                     * does not run path_id for it, so no disk/by-path names */
} PathId;

void pathid_done(PathId *p);

/*
 * pathid_read() - the above for the SCSI device at @syspath (below @rootfd; a symlink such as
 * "sys/bus/scsi/devices/H:C:T:L" or "sys/block/sda" is resolved inside the root, as the
 * kernel's are). Returns 0 (with ret->path NULL when path_id sets nothing), -ENOENT when
 * @syspath does not exist, -ELOOP, -ENOMEM.
 */
int pathid_read(int rootfd, const char *syspath, PathId *ret);
/* pathid_read_dev() - the same for the device directory @devpath ("sys/devices/...", no
 * symlink in it: resolved already, as probe_resolve_full() finds it). -EINVAL for any other
 * path, -ENOMEM. */
int pathid_read_dev(int rootfd, const char *devpath, PathId *ret);

/* pathid_resolve() - @path below @rootfd with every symlink resolved inside the root, as a
 * path below it ("sys/devices/..."): 0, -ENOENT, -ELOOP, -ENOMEM. */
int pathid_resolve(int rootfd, const char *path, char **ret);
/* pathid_resolve_walk() - the same, a component at a time (readlinkat()): what
 * pathid_resolve() falls back to where the kernel cannot resolve inside a root. */
int pathid_resolve_walk(int rootfd, const char *path, char **ret);
