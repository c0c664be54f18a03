/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * KEY=VALUE export of a ScsiIdent, in the peers' order:
 *  - EXPORT_UDEV: what `scsi_id --export --whitelisted` prints (systemd v252), or, with
 *    EXPORT_UDEV_ATA and an ATA IDENTIFY available, what udev's rules end up with for a SAT
 *    disk (ata_id's subset lund reproduces, ID_BUS=ata).
 *  - EXPORT_SG_INQ: sg3_utils 1.46 `sg_inq --export` on the INQUIRY data, then page 0x80, then
 *    page 0x83 (SCSI_TPGS, SCSI_TYPE, SCSI_VENDOR[_ENC], SCSI_MODEL[_ENC], SCSI_REVISION,
 *    SCSI_IDENT_SERIAL, SCSI_IDENT_<LUN|PORT|TARGET>_<type>).
 *
 * Safety guarantee: every value handed to the callback has been through escape_value(): it
 * contains no byte < 0x20, no 0x7f and no invalid UTF-8, so no device byte can end a line early
 * or start a new key. Keys are fixed ASCII. Where a peer prints a value on one clean line, lund
 * prints the same bytes; where the peer's line breaks (LF, CR, NUL, control bytes, invalid
 * UTF-8), lund prints one line with those bytes as "\xNN".
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ident.h"

typedef enum ExportFlags {
	EXPORT_UDEV = 1 << 0,
	EXPORT_SG_INQ = 1 << 1,
	EXPORT_UDEV_ATA = 1 << 2, /* SAT disk: ata_id's properties replace scsi_id's */
} ExportFlags;

/* Longest key lund emits ("SCSI_IDENT_TARGET_UAS_INTERFACE_NUMBER") plus NUL, rounded up. */
#define EXPORT_KEY_MAX 48
/*
 * Callback for each property. @key and @value are NUL-terminated and safe (see above).
 * Return < 0 to stop the export; that value is returned by export_ident().
 */
typedef int (*export_fn)(const char *key, const char *value, void *userdata);

/*
 * export_ident() - emit the properties selected by @flags, udev set first.
 * Returns 0, or the first negative value the callback returned.
 */
int export_ident(const ScsiIdent *id, ExportFlags flags, export_fn cb, void *userdata);

/*
 * export_to_buffer() - the same as "KEY=VALUE\n" lines in @buf (NUL-terminated).
 * Returns 0 and the length without NUL in @ret_len; -ENOBUFS if it would not fit (then @buf
 * holds an unspecified prefix and must not be used).
 */
int export_to_buffer(const ScsiIdent *id, ExportFlags flags, char *buf, size_t size,
                     size_t *ret_len);

/*
 * export_line_append() - format one "KEY=VALUE\n" line at @buf + *@pos, escaping the value
 * with escape_value(). For callers printing their own properties with the same guarantee.
 * Returns 0 (advancing *@pos), -EINVAL for a key that is not [A-Z0-9_]+, -ENOBUFS.
 */
int export_line_append(char *buf, size_t size, size_t *pos, const char *key, const uint8_t *value,
                       size_t len);
