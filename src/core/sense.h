/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Sense data (SPC-6 4.4): fixed (response codes 70h/71h) and descriptor (72h/73h) formats.
 * Pure: no I/O, no allocation, no logging.
 *
 * Sense arrives truncated routinely (the HBA's sense buffer, SG_IO's mx_sb_len), and a sense key
 * is still worth having then, so sense_parse() decodes every field whose bytes are present, as
 * the kernel's scsi_normalize_sense() does, and says what was cut off instead of failing.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SPC: the additional sense length is one byte, so sense data is at most 8 + 255 bytes. */
#define SENSE_MAX_LEN 263

/* SPC-6 table 51. */
typedef enum SenseKey {
	SENSE_KEY_NO_SENSE = 0x0,
	SENSE_KEY_RECOVERED_ERROR = 0x1,
	SENSE_KEY_NOT_READY = 0x2,
	SENSE_KEY_MEDIUM_ERROR = 0x3,
	SENSE_KEY_HARDWARE_ERROR = 0x4,
	SENSE_KEY_ILLEGAL_REQUEST = 0x5,
	SENSE_KEY_UNIT_ATTENTION = 0x6,
	SENSE_KEY_DATA_PROTECT = 0x7,
	SENSE_KEY_BLANK_CHECK = 0x8,
	SENSE_KEY_VENDOR_SPECIFIC = 0x9,
	SENSE_KEY_COPY_ABORTED = 0xa,
	SENSE_KEY_ABORTED_COMMAND = 0xb,
	SENSE_KEY_VOLUME_OVERFLOW = 0xd,
	SENSE_KEY_MISCOMPARE = 0xe,
	SENSE_KEY_COMPLETED = 0xf,
} SenseKey;

typedef struct ScsiSense {
	uint8_t response_code; /* 0x70..0x73 */
	bool descriptor;       /* 72h/73h */
	bool deferred;         /* 71h/73h: the error belongs to an earlier command */
	uint8_t key;
	uint8_t asc, ascq;
	bool have_asc; /* ASC and ASCQ were inside the data */
	bool filemark, eom, ili;
	bool info_valid; /* fixed: VALID bit; descriptor: information descriptor present */
	uint64_t information;
	bool cmd_info_valid;
	uint64_t cmd_info;     /* command-specific information */
	bool sks_valid;        /* SKSV */
	uint8_t sks[3];        /* sense-key specific bytes, SKSV bit included */
	uint8_t fru;           /* field replaceable unit code */
	size_t additional_len; /* ADDITIONAL SENSE LENGTH as sent */
	size_t len;            /* bytes decoded: min(received, 8 + additional_len) */
	bool truncated;        /* the additional sense length, or a descriptor, ran past the data */
} ScsiSense;

/*
 * sense_parse() - decode fixed or descriptor format sense data.
 * Needs the response code and the key: at least 3 bytes for fixed, 2 for descriptor format.
 * Fields beyond what arrived are left zero/false and ->truncated is set when the device said
 * there was more than arrived, or a descriptor's length ran past the additional sense data (the
 * descriptor walk stops there; descriptors before it are used).
 * Returns 0; -EBADMSG for an unknown response code (including 7Fh vendor specific) or too few
 * bytes; -EINVAL on bad arguments.
 */
int sense_parse(const uint8_t *buf, size_t len, ScsiSense *ret);

/* One descriptor of descriptor-format sense data (SPC-6 4.4.2). */
typedef struct SenseDescriptor {
	uint8_t type;
	const uint8_t *desc; /* the whole descriptor, 2-byte header included */
	size_t len;          /* ADDITIONAL LENGTH (bytes after the header) */
	size_t offset;       /* offset in the sense data */
} SenseDescriptor;

/*
 * sense_next_descriptor() - walk descriptor-format sense data.
 * @offset: cursor, 0 before the first call. Returns 1 with @ret, 0 at the end of the additional
 * sense data (bounded by both @len and the additional sense length), -EBADMSG when a
 * descriptor's length runs past it (or a 1-byte partial header), -ENODATA for fixed format.
 */
int sense_next_descriptor(const uint8_t *buf, size_t len, size_t *offset, SenseDescriptor *ret);

/* Sense-key specific field helpers (SPC-6 4.4.2.4). -ENODATA unless SKSV is set and the key
 * gives the field that meaning. */
/* NOT READY / NO SENSE: progress indication, 0..65535 of 65536. */
int sense_progress(const ScsiSense *s, uint16_t *ret);

/* "NO SENSE", "NOT READY", ...; NULL for key > 0xf. */
const char *sense_key_name(uint8_t key);

/* The kernel's SDEV_UA= uevent value for a UNIT ATTENTION with this ASC/ASCQ, as
 * scsi_report_sense() sends it ("REPORTED_LUNS_DATA_HAS_CHANGED", ...); NULL if the kernel
 * sends none for it. */
const char *sense_ua_event(uint8_t asc, uint8_t ascq);
