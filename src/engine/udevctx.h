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
	bool sg3_src_filter;    /* the installed 55-scsi-sg3_id.rules is sg3-utils 1.48's
	                         * (NamesContext.sg3_src_filter) */
	bool path_usb_revision; /* udev 254 or later (UdevRules): path_id sets
	                         * ID_PATH_WITH_USB_REVISION, the rules link it in by-path */
	bool sysfs_inquiry, sysfs_pg80, sysfs_pg83; /* the kernel's cached attributes exist (read
	                                             * only with sg3_id_rules) */
} UdevCtx;

/* Which of sg3-utils-udev's rules files udev reads (udevctx_rules_read(): a stat() or more of
 * each name in each of udev's five rules directories). */
typedef struct UdevRules {
	bool sg3_id;      /* 55-scsi-sg3_id.rules installed and not masked */
	bool sg3_symlink; /* 58-scsi-sg3_symlink.rules as well (only looked for with the first) */
	bool sg3_src_filter;    /* that 55-scsi-sg3_id.rules filters ambiguous IDs (sg3-utils 1.48:
	                         * it sets .SCSI_ID_SERIAL_SRC), read from the file udev reads */
	bool path_usb_revision; /* 60-persistent-storage.rules links ID_PATH_WITH_USB_REVISION:
	                         * udev 254 or later, whose path_id sets it */
} UdevRules;

void udevctx_rules_read(int rootfd, UdevRules *ret);

#define UDEVCTX_RULES_DIRS 5
/* udevd looks at its rules directories at most every 3 s (v252 manager's event loop) */
#define UDEVCTX_RULES_CHECK_USEC (3 * UINT64_C(1000000))

typedef struct UdevRulesStamp {
	uint64_t ino, dev;
	int64_t mtime_sec, ctime_sec;
	long mtime_nsec, ctime_nsec;
} UdevRulesStamp;

/*
 * UdevRulesCache - UdevRules read once and kept, for a process that identifies many LUs (lund),
 * decided again as udevd decides to reload its rules: when one of the rules directories
 * changed (an entry added, removed, renamed, a link made), looked at no more often than every
 * UDEVCTX_RULES_CHECK_USEC. Zero-initialised; udevctx_rules_forget() makes the next call read
 * the files whatever the directories say (a reload). Not thread-safe: its owner hands the
 * UdevRules it got to other threads.
 */
typedef struct UdevRulesCache {
	UdevRules rules;
	UdevRulesStamp stamp[UDEVCTX_RULES_DIRS];
	uint64_t checked_usec; /* when the directories were last looked at (@now_usec's clock) */
	bool valid;
} UdevRulesCache;

void udevctx_rules_cached(UdevRulesCache *c, int rootfd, uint64_t now_usec, UdevRules *ret);
void udevctx_rules_forget(UdevRulesCache *c);

/* What the caller knows already, so that udevctx_read_full() does not read it again. */
typedef struct UdevCtxKnown {
	const UdevRules *rules; /* NULL: look at the rules files */
	const ProbeData *pages; /* the pages read for the LU: one read from the kernel's cache
	                         * proves its attribute exists */
	bool have_scsi_level;   /* @scsi_level is the LU's sysfs scsi_level, read just now */
	unsigned scsi_level;
} UdevCtxKnown;

/*
 * udevctx_read_full() - gather the above for @lu, with what @known (NULL: nothing) says. Missing
 * attributes are not errors (they leave the field at its default); returns 0, or -ENOMEM.
 */
int udevctx_read_full(int rootfd, const LuRef *lu, const UdevCtxKnown *known, UdevCtx *ret);

/*
 * udevctx_names() - the by-id names for the whole device of @lu, from @ctx, the probed @d and the
 * identity @id computed from it (with @ctx's ata_identify passed in ScsiIdentInput). Computes
 * the identity sg3-utils-udev's rules would see (only the pages they read) itself.
 * Returns what names_by_id_full() returns, or -ENOMEM.
 */
int udevctx_names(const UdevCtx *ctx, const LuRef *lu, const ScsiIdent *id, NamesList *ret);
