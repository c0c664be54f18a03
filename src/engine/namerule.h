/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Which rule names an LU in lund's own link tree, from the hardware database (lund.hwdb(7),
 * LUND_NAME_IDENTITY). By default an LU is named by its identity alone (the by-id names udev's
 * rules make, core/names.h), and LUs that claim one identity without page 0x83 proving them
 * one LU are clones whose shared names are quarantined (core/lupath.h). A device known to give
 * one serial to different media (a card reader that reports the same serial for every slot
 * and every unit) is marked "serial-path": lund then names it by its serial plus the place it
 * is reached through (core/names.h: names_serial_path()), so each medium keeps a name of its
 * own. A device whose page 0x83 designators do not survive a firmware update, while its unit
 * serial number does, is marked "unit-serial": lund names it as `scsi_id --page=0x80` would
 * (core/names.h: names_unit_serial()); its identity, and so its name records and their
 * aliases, stay those of its page 0x83. /dev/disk/by-id stays udev's either way.
 *
 * Two match strings are looked up: the USB device above the LU ("lund:usb:vXXXXpYYYY",
 * io/hwdb.h: hwdb_modalias_usb()), then the LU's own ("lund:scsi:t...", hwdb_modalias()); a
 * value of the later one wins. Nothing here logs.
 */

#include <errno.h>
#include <limits.h>
#include <stdbool.h>

#include "hwdb.h"
#include "ident.h"

#define NAME_RULE_HWDB_KEY "LUND_NAME_IDENTITY"

typedef enum NameRule {
	NAME_RULE_IDENTITY,    /* "identity": the by-id names, clones quarantined */
	NAME_RULE_SERIAL_PATH, /* "serial-path": serial plus ID_PATH_TAG in lund's tree */
	NAME_RULE_UNIT_SERIAL, /* "unit-serial": scsi_id --page=0x80's name in lund's tree */
	_NAME_RULE_MAX,
	_NAME_RULE_INVALID = -EINVAL,
} NameRule;

const char *name_rule_to_string(NameRule r);
NameRule name_rule_from_string(const char *s);

/* What the lookup matches on; @type -1 and NULL strings when unknown. */
typedef struct NameRuleQuery {
	int type;
	const char *vendor, *model, *revision; /* the SCSI device's sysfs attributes */
	bool have_usb;                         /* a USB device above the LU */
	unsigned usb_vendor, usb_product;      /* its idVendor, idProduct */
} NameRuleQuery;

/*
 * name_rule_lookup() - the rule for the LU described by @q in @h (NULL: no hwdb, the default
 * rule). A value that is not a rule's name is ignored (`lunctl check-config` reports it).
 * @ret_match (may be NULL) gets the match string whose entry set the rule, malloc'd, or NULL
 * when the rule is the default. Returns 0, -ENOMEM.
 */
int name_rule_lookup(Hwdb *h, const NameRuleQuery *q, NameRule *ret_rule, char **ret_match);

/*
 * name_rule_check() - an hwdb property line of a lund record, for the source checker:
 * -ENOENT when @key is not LUND_NAME_IDENTITY, -EINVAL when @value is no rule, 0 when valid.
 */
int name_rule_check(const char *key, const char *value);

/*
 * name_rule_unit_serial() - the unit-serial name of the LU whose pages @in holds (the INQUIRY
 * data and page 0x80 are what count; @in->page is ignored): ident_compute() as `scsi_id
 * --page=0x80` reads them, then names_unit_serial(). The identity is computed on the heap (a
 * few KiB; the daemon's loop calls this). Returns what names_unit_serial() returns, -ENOMEM.
 */
int name_rule_unit_serial(const ScsiIdentInput *in, char ret[static NAME_MAX + 1]);

/*
 * name_rule_name() - the name @rule gives an LU in lund's tree in place of its by-id base names
 * (lund(8), Naming contract): serial-path from its first base name @first and ID_PATH @id_path
 * (names_serial_path()), unit-serial from the pages @in holds (name_rule_unit_serial(); @in may
 * be NULL for any other rule). Returns 1 with the name in @ret; 0 with @ret empty when the rule
 * gives none (identity; no base name: nothing to rename; nothing to make the name of);
 * -ENOMEM.
 */
int name_rule_name(NameRule rule, const char *first, const char *id_path, const ScsiIdentInput *in,
                   char ret[static NAME_MAX + 1]);
