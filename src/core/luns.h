/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * REPORT LUNS parameter data (SPC-6 6.33) and the SAM-5 LUN structure (SAM-5 4.7).
 * Pure: no I/O, no allocation, no logging. Entries returned point into the caller's buffer.
 *
 * Errors: -EBADMSG malformed/truncated, -ERANGE index out of range, -ENOBUFS output too small,
 * -EINVAL bad arguments.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SPC: 4-byte LUN LIST LENGTH, 4 reserved bytes, then 8-byte entries. */
#define LUNS_HEADER_LEN 8
#define LUN_SIZE        8
#define LUN_LEVELS      4

/* The 8-byte LUN as it travels on the wire (first level first). */
typedef struct ScsiLun {
	uint8_t b[LUN_SIZE];
} ScsiLun;

typedef struct LunList {
	const uint8_t *entries; /* first entry, inside the caller's buffer */
	size_t count;           /* entries in the list */
	size_t list_len;        /* LUN LIST LENGTH as sent (bytes) */
} LunList;

/*
 * luns_report_len() - total response length the device wants to send (8 + LUN LIST LENGTH), so
 * the I/O layer can re-issue REPORT LUNS with a larger allocation length.
 * Returns 0 and *ret_len; -EBADMSG if @len < 8.
 */
int luns_report_len(const uint8_t *buf, size_t len, size_t *ret_len);

/*
 * luns_parse_report() - check a REPORT LUNS response.
 * The LUN LIST LENGTH must fit in @len: a truncated list is -EBADMSG, never a shorter list (a
 * LUN missing from a truncated list must not look removed). Bytes after the list are ignored;
 * a list length that is not a multiple of 8 is -EBADMSG.
 */
int luns_parse_report(const uint8_t *buf, size_t len, LunList *ret);

/* luns_report_get() - the @i-th entry. Returns 0, or -ERANGE if @i >= count. */
int luns_report_get(const LunList *list, size_t i, ScsiLun *ret);

/* SAM-5 table 11: ADDRESS METHOD, byte 0 bits 7..6 of each level. */
typedef enum LunAddressMethod {
	LUN_ADDR_PERIPHERAL = 0x0,
	LUN_ADDR_FLAT = 0x1,
	LUN_ADDR_LOGICAL_UNIT = 0x2,
	LUN_ADDR_EXTENDED = 0x3,
} LunAddressMethod;

/* SAM-5 table 20: extended logical unit addressing, by LENGTH and EXTENDED ADDRESS METHOD. */
typedef enum LunExtendedKind {
	LUN_EXT_WELL_KNOWN,    /* length 00b, method 1h: W-LUN, 2 bytes */
	LUN_EXT_FLAT,          /* length 01b, method 2h: extended flat space, 4 bytes */
	LUN_EXT_LONG_FLAT,     /* length 10b, method 2h: long extended flat space, 6 bytes */
	LUN_EXT_NOT_SPECIFIED, /* length 11b, method fh: logical unit not specified, 8 bytes */
	LUN_EXT_RESERVED,      /* any other combination */
} LunExtendedKind;

/* SPC-6 table 717 (well known logical units). */
#define LUN_WLUN_REPORT_LUNS         0x01
#define LUN_WLUN_ACCESS_CONTROLS     0x02
#define LUN_WLUN_TARGET_LOG_PAGES    0x03
#define LUN_WLUN_SECURITY_PROTOCOL   0x04
#define LUN_WLUN_MANAGEMENT_PROTOCOL 0x05
#define LUN_WLUN_TARGET_COMMANDS     0x06

typedef struct LunLevel {
	uint8_t method; /* LunAddressMethod */
	uint8_t size;   /* bytes this level occupies: 2, or 4/6/8 for extended addressing */
	/* LUN_ADDR_PERIPHERAL: bus = BUS IDENTIFIER; bus 0 -> lun = the LUN (byte 1),
	 *                      otherwise target = TARGET/LUN byte (a target behind bus @bus).
	 * LUN_ADDR_FLAT:       lun = 14-bit flat space LUN.
	 * LUN_ADDR_LOGICAL_UNIT: target (6 bits), bus (3 bits), lun (5 bits).
	 * LUN_ADDR_EXTENDED:   ext_kind, ext_length (bits 5..4), ext_method (bits 3..0) and
	 *                      lun = W-LUN number, extended (24-bit) or long (40-bit) flat LUN,
	 *                      or the raw extended address bytes for reserved kinds. */
	uint8_t bus;
	uint8_t target;
	uint64_t lun;
	uint8_t ext_kind; /* LunExtendedKind */
	uint8_t ext_length;
	uint8_t ext_method;
} LunLevel;

typedef struct LunAddress {
	LunLevel level[LUN_LEVELS];
	size_t n_levels; /* 1..4: levels up to the last non-zero one */
} LunAddress;

/*
 * lun_decode() - decode the SAM-5 LUN structure.
 * Trailing all-zero levels are not counted (SAM-5: a single level LUN has zero second to fourth
 * levels), the first level always is. Reserved address forms decode (LUN_EXT_RESERVED), they are
 * the caller's to judge. Returns 0, or -EBADMSG when an extended address (4, 6 or 8 bytes) at a
 * lower level would run past the 8 bytes.
 */
int lun_decode(const ScsiLun *lun, LunAddress *ret);

/* True for the well known logical unit form (byte 0 == 0xc1). */
bool lun_is_wlun(const ScsiLun *lun);
/* SPC name of W-LUN @wlun ("REPORT LUNS", ...), NULL if reserved. */
const char *lun_wlun_name(uint8_t wlun);

/* The Linux 64-bit LUN as the kernel's scsilun_to_int()/int_to_scsilun() map it: level n (bytes
 * 2n, 2n+1) becomes bits 16n+15..16n, each level kept big-endian. Exact inverses of each other,
 * so every 8-byte LUN has exactly one Linux number (the REPORT LUNS W-LUN is 0xc101). */
uint64_t lun_to_linux(const ScsiLun *lun);
ScsiLun lun_from_linux(uint64_t lun);

/* T10 hex form: "0x" and 16 lower-case hex digits, e.g. "0x4001000000000000". */
#define LUN_HEX_STRLEN (2 + 2 * LUN_SIZE + 1)
int lun_format_hex(const ScsiLun *lun, char *buf, size_t size);

/*
 * lun_parse_hex() - parse the T10 hex form: optional "0x"/"0X", 1..16 hex digits, nothing else.
 * Fewer than 16 digits are the leading bytes (padded on the right with zeros, as the form is
 * read from the first level); an odd count is -EINVAL. Returns 0 or -EINVAL.
 */
int lun_parse_hex(const char *s, ScsiLun *ret);

/*
 * lun_describe() - a one-line human description, levels separated by "; ", e.g.
 * "flat space LUN 1" or "peripheral bus 2 target 3; peripheral LUN 0x05" or
 * "well known LUN: REPORT LUNS". Returns 0, -ENOBUFS if it does not fit in @size (the buffer
 * then holds a truncated, NUL-terminated string), -EBADMSG as lun_decode().
 */
#define LUN_DESCRIBE_MAX 256
int lun_describe(const ScsiLun *lun, char *buf, size_t size);

/*
 * hctl_parse() - a scsi_device's name as the kernel gives it, "H:C:T:L" in decimal and nothing
 * else: host, channel and target below 2^32, the LUN an unsigned 64-bit integer (Linux's LUN
 * number, lun_to_linux()). Any output may be NULL (to test the form only). 0 or -EINVAL.
 */
int hctl_parse(const char *s, unsigned *h, unsigned *c, unsigned *t, uint64_t *l);
