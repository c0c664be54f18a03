/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The one place the daemon turns what it read from a logical unit into identifiers and link
 * names: a narrow adapter over engine/identify.h, the identify path `lunctl id`, `lunctl list`
 * and `lunctl names` use, so the daemon names devices exactly as they and udev's rules do. It
 * keeps only what the inventory holds per LU: a few strings and the bytes of the pages scsi_id
 * reads.
 */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ident.h"
#include "identify.h"
#include "lupath.h"
#include "namerule.h"
#include "pathid.h"
#include "probe.h"
#include "udevctx.h"

typedef struct LuNaming {
	char *serial;    /* ID_SERIAL, NULL when the device gives none */
	char *wwn;       /* ID_WWN_WITH_EXTENSION as "0x...", or NULL */
	const char *bus; /* "scsi" or "ata" (static, names_bus_name()) */
	char **names;    /* base link names ("scsi-...", "wwn-0x..."), @n_names of them */
	/* udev's path_id (engine/pathid.h): ID_PATH and ID_PATH_ATA_COMPAT, NULL when unset;
	 * @path_virtual: below devices/virtual/, where udev's rules make no disk/by-path name. */
	char *id_path, *id_path_ata_compat;
	char *id_path_usb_revision; /* ID_PATH_WITH_USB_REVISION (udev 254 on), or NULL */
	/* scsi_id's view, as `lunctl list` shows it, kept as the part of the pages it is made of
	 * (@scsi_pages_size bytes, lu_naming_scsi_id() computes it from them when a client asks):
	 * the first 36 bytes of the INQUIRY data and the first 254 of pages 0x00, 0x80 and 0x83,
	 * which is all scsi_id reads of them. NULL when naming failed. These bytes, not a later
	 * read of sysfs, are what the view, the unit-serial name and the path keys come from, so
	 * each stays what the LU was named from. lu_compute_names() puts every string and array
	 * here in one allocation, which starts with these bytes: the one lu_naming_done() frees. */
	uint8_t *scsi_pages;
	/* Page 0x83's LU and target-port designators (core/lupath.h: lupath_keys()), which tell
	 * paths to one LU from clones; NULL without a usable page 0x83. Kept only when
	 * @scsi_pages holds less than the whole page; when it holds it all (@keys_in_pages),
	 * lu_naming_relation() derives them from it, only ever needed when two LUs want one
	 * name. */
	char *lu_key, *port_key;
	unsigned n_names;
	unsigned short scsi_pages_size;
	/* The USB device above the LU (idVendor, idProduct), for the hwdb's lund:usb: match
	 * (lund.hwdb(7)); @have_usb_ids false when there is none. */
	unsigned short usb_vendor, usb_product;
	bool have_usb_ids : 1;
	bool path_virtual : 1;
	bool keys_in_pages : 1;
} LuNaming;

void lu_naming_done(LuNaming *n);

/* lu_naming_scsi_id() - @n's scsi_id view, from its kept pages through the identify path `lunctl
 * id --export` takes (engine/identify.h: identify_pages()): ret->id (ID_TYPE, ID_VENDOR,
 * ID_MODEL, ID_REVISION, and ID_SERIAL when id->have_serial; its pages not kept, id->in empty)
 * and every line of `scsi_id --export` (identity_next_line(ret, prev, true)). Returns 0,
 * -ENODATA when @n has none (naming failed), -ENOMEM. */
int lu_naming_scsi_id(const LuNaming *n, Identity *ret);

/* lu_naming_rule_name() - @n's name under the hwdb's naming rule @rule (engine/namerule.h:
 * name_rule_name(), unit-serial from the pages @n keeps). Returns 1 with the name, 0 when the
 * rule gives none, -EINVAL, -ENOMEM. */
int lu_naming_rule_name(const LuNaming *n, NameRule rule, char ret[static NAME_MAX + 1]);

/* lu_naming_path_keys() - @n's page 0x83 keys (lupath_keys()), each NULL without a usable
 * page 0x83, allocated. Returns 0 or -ENOMEM. */
int lu_naming_path_keys(const LuNaming *n, char **ret_lu, char **ret_port);

/* lu_naming_relation() - paths or clones (core/lupath.h: lupath_relation()) by @a's and @b's
 * page 0x83 keys; clones when out of memory for the keys, as without a usable page 0x83. */
LuRelation lu_naming_relation(const LuNaming *a, const LuNaming *b);

/* Same IDs, names and scsi_id view. */
bool lu_naming_equal(const LuNaming *a, const LuNaming *b);

/*
 * lu_compute_names() - IDs, export properties and base names of one LU from the pages @pd read
 * for @ref, through the identify path lunctl uses too (engine/identify.h: identify_pages()),
 * with what udev's rules read besides the pages from sysfs below @rootfd, so the names are
 * /dev/disk/by-id's. @scsi_level is the LU's sysfs scsi_level as the caller read it just now
 * (0 when unreadable), used as udev's rules read it, not read again; @is_cdrom is read from
 * sysfs there, the argument kept for the inventory's call. @rules: which udev rules files exist,
 * as the caller's cache says (NULL: looked at).
 * Returns 0 (possibly with no names: a device without any identifier gets none), -ENODATA when
 * @pd has no INQUIRY data, -errno.
 */
int lu_compute_names(int rootfd, const LuRef *ref, const ProbeData *pd, unsigned scsi_level,
                     bool is_cdrom, const UdevRules *rules, LuNaming *ret);
