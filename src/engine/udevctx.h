/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What udev's rules look at beyond the INQUIRY data and VPD pages, read from sysfs and the rules
 * directories through the root dirfd, for names_by_id_full() (core/names.h):
 *  - scsi_level, and the block device's removable attribute;
 *  - the USB interface and device above the LU (usb_id's inputs, core/usbid.h);
 *  - libata's IDENTIFY data of the ATA device behind the LU (sys/class/ata_device/devN.M/id),
 *    which is what ata_id reads from an ATAPI device;
 *  - which of sg3-utils-udev's rules files are installed, and which VPD attributes the kernel
 *    cached (55-scsi-sg3_id.rules reads only those).
 * Shared by the CLI verbs; no SCSI command is sent.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ident.h"
#include "names.h"
#include "probe.h"
#include "usbid.h"

typedef struct UdevCtx {
	unsigned scsi_level;
	bool removable;
	bool have_usb; /* a USB parent for which usb_id succeeds */
	UsbId usb;
	/* idVendor and idProduct of the USB device above the LU (lund.hwdb(7)'s lund:usb:
	 * match), whether or not usb_id succeeds */
	bool have_usb_ids;
	unsigned usb_vendor, usb_product;
	bool have_ata_identify; /* libata's IDENTIFY data was read */
	uint8_t ata_identify[ATA_IDENTIFY_LEN];
	bool sg3_id_rules;      /* 55-scsi-sg3_id.rules installed and not masked */
	bool sg3_symlink_rules; /* 58-scsi-sg3_symlink.rules installed and not masked */
	bool sysfs_inquiry, sysfs_pg80, sysfs_pg83; /* the kernel's cached attributes exist (read
	                                             * only with sg3_id_rules) */
} UdevCtx;

/*
 * udevctx_read() - gather the above for @lu. Missing attributes are not errors (they leave the
 * field at its default); returns 0, or -ENOMEM.
 */
int udevctx_read(int rootfd, const LuRef *lu, UdevCtx *ret);

/*
 * udevctx_names() - the by-id names for the whole device of @lu, from @ctx, the probed @d and the
 * identity @id computed from it (with @ctx's ata_identify passed in ScsiIdentInput). Computes
 * the identity sg3-utils-udev's rules would see (only the pages they read) itself.
 * Returns what names_by_id_full() returns, or -ENOMEM.
 */
int udevctx_names(const UdevCtx *ctx, const LuRef *lu, const ScsiIdent *id, NamesList *ret);
