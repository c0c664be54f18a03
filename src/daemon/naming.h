/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The one place the daemon turns what it read from a logical unit into identifiers and link
 * names. It is a narrow adapter over the pure core (core/ident.h computes the scsi_id-exact IDs,
 * core/names.h derives the by-id names and escapes them), so the daemon names devices exactly
 * as `lunctl id` and udev's rules do.
 */

#include <stdbool.h>
#include <stddef.h>

#include "probe.h"

typedef struct LuNaming {
	char *serial; /* ID_SERIAL, NULL when the device gives none */
	char *wwn;    /* ID_WWN_WITH_EXTENSION as "0x...", or NULL */
	char *bus;    /* "scsi" or "ata" */
	char **names; /* base link names ("scsi-...", "wwn-0x..."), @n_names of them */
	size_t n_names;
	/* scsi_id's view, as `lunctl list` shows it: ID_TYPE, ID_VENDOR, ID_MODEL, ID_REVISION
	 * and ID_SERIAL (NULL when scsi_id prints none) unescaped, and every property of
	 * `scsi_id --export` as "KEY=VALUE" (escaped as exported), @n_props of them, packed one
	 * after the other, each NUL-terminated, in @props (@props_size bytes in all): one
	 * allocation per LU, not one per property. */
	char *id_type, *id_vendor, *id_model, *id_revision, *id_serial;
	char *props;
	size_t n_props, props_size;
} LuNaming;

void lu_naming_done(LuNaming *n);

/* The next "KEY=VALUE" of @n's properties after @prev (NULL: the first); NULL after the last. */
const char *lu_naming_next_prop(const LuNaming *n, const char *prev);

/* Same IDs, names and scsi_id view. */
bool lu_naming_equal(const LuNaming *a, const LuNaming *b);

/*
 * lu_compute_names() - IDs and base names of one LU from its INQUIRY data and VPD pages, and
 * what else udev's rules read (engine/udevctx.h: USB parent, ATA IDENTIFY data, installed
 * rule files) from sysfs below @rootfd for the LU @ref, so the names are /dev/disk/by-id's.
 * @scsi_level: the scsi_device's sysfs scsi_level (decides whether udev would run ata_id);
 * @is_cdrom: the LU's block node is an sr device.
 * Returns 0 (possibly with no names: a device without any identifier gets none), -ENODATA when
 * @pd has no INQUIRY data, -errno.
 */
int lu_compute_names(int rootfd, const LuRef *ref, const ProbeData *pd, unsigned scsi_level,
                     bool is_cdrom, LuNaming *ret);
