/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The one identify path shared by lund and every lunctl verb: an LU's pages (engine/probe.h:
 * the kernel's sysfs cache first, SG_IO second) -> identity (core/ident.h: scsi_id's and
 * ata_id's IDs) -> export lines (core/export.h: scsi_id's ID_* then sg_inq's SCSI_* set) ->
 * by-id names (core/names.h, with what udev's rules read besides the pages, engine/udevctx.h).
 * Whoever asks, the same device gets the same names and the same lines.
 *
 * Page 0x00 when it is missing. udev's scsi_id asks for page 0x00 first and, when the device
 * rejects it, tries nothing else: no ID_SERIAL at all (systemd src/udev/scsi_id/scsi_serial.c,
 * scsi_get_serial() after do_scsi_page0_inquiry() fails). The kernel reads page 0x00 first too
 * and caches vpd_pg80/vpd_pg83 only for the pages it lists; without page 0x00 it caches no VPD
 * page at all (drivers/scsi/scsi.c, scsi_attach_vpd()). So:
 *  - page 0x00 read (sysfs vpd_pg0 or SG_IO): it decides, as it does for scsi_id;
 *  - page 0x00 rejected by the device (SG_IO answered ILLEGAL REQUEST, -EOPNOTSUPP): nothing is
 *    supported, as scsi_id sees it; no page stands in for it;
 *  - page 0x00 not obtainable otherwise (a kernel too old to cache vpd_pg0, no command allowed,
 *    no node, a failed command): the pages the kernel cached stand in for it, because the
 *    kernel cached them only after its own page 0x00 listed them.
 * Identity.pg00_inferred says which applied.
 */

#include <stdbool.h>
#include <stddef.h>

#include "ident.h"
#include "names.h"
#include "pathid.h"
#include "probe.h"
#include "udevctx.h"

typedef struct IdentifyOptions {
	ProbeFlags flags;       /* PROBE_SYSFS_ONLY: never a command; PROBE_SGIO_ONLY: no cache */
	const UdevCtx *udev;    /* what udev's rules read besides the pages; NULL: read it from
	                         * sysfs below the root (udevctx_read_full()) */
	bool udev_lines_only;   /* export scsi_id's ID_* set only, not sg_inq's SCSI_* set */
	bool no_lines;          /* no export lines at all (Identity.lines stays empty) */
	bool no_names;          /* no by-id names (Identity.names empty, .serial/.wwn NULL): the
	                         * udev context (@udev) is then neither needed nor read */
	const UdevRules *rules; /* which udev rules files exist, when @udev is NULL; NULL: look
	                         * (udevctx_rules_read()) */
	bool have_scsi_level;   /* @scsi_level: the LU's sysfs scsi_level, read just now by the
	                         * caller (when @udev is NULL; 0 for an unreadable one) */
	unsigned scsi_level;
} IdentifyOptions;

typedef struct IdentifyBuffers IdentifyBuffers;

typedef struct Identity {
	/* identify_lu(): the pages, where each came from (source[]: cache / SG_IO / absent),
	 * why one is missing (error[]) and the commands sent. identify_pages(): empty, the
	 * caller's pages are used. */
	ProbeData pages;
	/* @udev, @id and @names are the calling thread's working buffers (@buffers), reused by
	 * its next identification once identity_done() gave them back. */
	IdentifyBuffers *buffers;
	UdevCtx *udev;
	ScsiIdent *id;      /* refers to the page buffers (ScsiIdent.in) */
	bool pg00_inferred; /* page 0x00 missing: the cached pages stood in for it (above) */

	/* The by-id names of the whole device as udev's rules make them, safe components;
	 * names_error < 0 when candidates existed but every one was refused (-EINVAL). */
	NamesList *names;
	int names_error;
	NamesBus bus; /* names_bus(): who supplied ID_SERIAL for the "<bus>-" name */
	char *serial; /* that ID_SERIAL, NULL when there is none */
	char *wwn;    /* "0x" ID_WWN_WITH_EXTENSION, NULL when there is none */

	/* udev's path_id for the LU (ID_PATH, ID_PATH_TAG, ID_PATH_ATA_COMPAT and, from udev 254
	 * on, ID_PATH_WITH_USB_REVISION), from sysfs below the root; empty when path_id sets
	 * nothing or the device path cannot be read. */
	PathId path;

	/* Every export line as "KEY=VALUE" (escaped, export.h), each NUL-terminated, packed one
	 * after the other in @lines (@lines_size bytes, @n_lines of them): first scsi_id's ID_*
	 * set (the first @n_udev_lines, @udev_size bytes), then sg_inq's SCSI_* set (none with
	 * IdentifyOptions.udev_lines_only). */
	char *lines;
	size_t n_lines, lines_size, n_udev_lines, udev_size;
} Identity;

void identity_done(Identity *i);

/*
 * identify_lu() - read the pages of @lu below @rootfd as @opts allow (probe_read()), then
 * identify_pages(). Returns 0; what probe_read() returns when not even the INQUIRY data could be
 * read; what identify_pages() returns.
 */
int identify_lu(int rootfd, const LuRef *lu, const IdentifyOptions *opts, Identity *ret);

/*
 * identify_pages() - identity, export lines and by-id names of @lu from @pages read already
 * (probe_read(); @pages->error[] decides page 0x00, above). @pages must outlive @ret.
 * Returns 0 (possibly without names: a device without an identifier has none), -ENODATA
 * without INQUIRY data, -ENOMEM.
 */
int identify_pages(int rootfd, const LuRef *lu, const ProbeData *pages, const IdentifyOptions *opts,
                   Identity *ret);

/* The line after @prev (NULL: the first) of @i's export lines; NULL after the last. With
 * @udev_only, only scsi_id's ID_* set. */
const char *identity_next_line(const Identity *i, const char *prev, bool udev_only);
