/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Vital product data pages (SPC-6 7.7): 0x00, 0x80, 0x83, 0x89 (SAT-5), 0xb0 (SBC-4).
 * Pure parsers: no I/O, no allocation, no logging. Values returned as pointers point into the
 * caller's buffer and live as long as it does. Every length the device supplies is checked
 * against the bytes that are actually there before it is used.
 *
 * Errors: -EBADMSG malformed/truncated, -ENODATA page is not the one asked for or field absent,
 * -ENOBUFS output would not fit.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SPC: page length is a 16-bit field after a 4-byte header. */
#define VPD_HEADER_LEN 4
#define VPD_MAX_LEN    (VPD_HEADER_LEN + 65535)

typedef struct VpdHeader {
	uint8_t qualifier;
	uint8_t type;
	uint8_t page;
	size_t page_len; /* bytes after the header, as the device declared and as present */
} VpdHeader;

/*
 * vpd_parse_header() - validate a VPD page header.
 * Returns 0; -EBADMSG if @len < 4 or the declared page length runs past @len (a truncated
 * page is never decoded silently: the I/O layer re-reads with a larger allocation length).
 * Bytes after 4 + page_len are ignored.
 */
int vpd_parse_header(const uint8_t *buf, size_t len, VpdHeader *ret);

/* Page 0x00: supported VPD pages. */
typedef struct VpdSupported {
	uint8_t bitmap[256 / 8];
	size_t count; /* distinct page codes listed (a duplicate is counted once) */
} VpdSupported;
int vpd00_parse(const uint8_t *buf, size_t len, VpdSupported *ret);
bool vpd_supported_has(const VpdSupported *s, uint8_t page);

/* Page 0x80: unit serial number; @ret_serial points at the raw (untrimmed) bytes. An empty
 * serial (page length 0) is returned as success with *ret_len == 0; the caller decides.
 * -ENODATA if the page code is not 0x80 (same for every vpdXX_parse() and its page). */
int vpd80_parse(const uint8_t *buf, size_t len, const uint8_t **ret_serial, size_t *ret_len);

/* Page 0x83 designators (SPC-6 7.7.6). */
typedef enum VpdCodeSet {
	VPD_CODE_SET_BINARY = 1,
	VPD_CODE_SET_ASCII = 2,
	VPD_CODE_SET_UTF8 = 3,
} VpdCodeSet;

typedef enum VpdAssociation {
	VPD_ASSOC_LU = 0,
	VPD_ASSOC_TARGET_PORT = 1,
	VPD_ASSOC_TARGET_DEVICE = 2,
} VpdAssociation;

typedef struct VpdDesignator {
	uint8_t protocol_id; /* byte 0 bits 7..4; meaningful only when piv is set */
	uint8_t code_set;    /* byte 0 bits 3..0 */
	bool piv;            /* byte 1 bit 7 */
	uint8_t association; /* byte 1 bits 5..4 */
	uint8_t type;        /* byte 1 bits 3..0 */
	const uint8_t *desc; /* the whole descriptor, header included */
	const uint8_t *value;
	size_t len;    /* designator length (byte 3) */
	size_t offset; /* offset of the descriptor in the page */
} VpdDesignator;

/*
 * vpd83_next() - walk page 0x83 designation descriptors.
 * @buf, @len: the whole page including its 4-byte header, validated with vpd_parse_header().
 * @offset: cursor, 0 before the first call; advanced on success.
 * Returns 1 with @ret filled, 0 at the end of the page, -EBADMSG when a descriptor's length runs
 * past the page (the walk stops; descriptors already returned stay valid). 1..3 trailing bytes
 * (a partial descriptor header) are -EBADMSG too. -EBADMSG/-ENODATA also when @buf is not a
 * valid page 0x83 at all; the header is re-checked on every call, so the cursor can never
 * outrun the page. Zero-length designators are returned (value points at the next byte, len 0).
 */
int vpd83_next(const uint8_t *buf, size_t len, size_t *offset, VpdDesignator *ret);

/* The names SPC-6 gives a designator's type (Table 589), association and code set (Table 590):
 * "NAA", "target port", "binary"; "reserved" for the values it does not name. */
const char *vpd83_type_name(uint8_t type);
const char *vpd83_association_name(uint8_t association);
const char *vpd83_code_set_name(uint8_t code_set);

/*
 * vpd83_is_pre_spc2() - true for the SCSI-2 style page some old arrays send: no descriptor
 * headers, the page body being a bare identifier (udev's scsi_id and sg3_utils treat byte 6 !=
 * 0 as this format).
 */
bool vpd83_is_pre_spc2(const uint8_t *buf, size_t len);

/* Page 0x89: ATA information (SAT-5 10.4.2). Strings point into the embedded IDENTIFY DEVICE
 * data, which stores each 16-bit word with its two ASCII bytes swapped: the caller gets them
 * already in reading order in the ret_ buffers. */
typedef struct VpdAtaInfo {
	uint8_t sat_vendor[8];
	uint8_t sat_product[16];
	uint8_t sat_revision[4];
	uint8_t command_code; /* 0xec IDENTIFY DEVICE, 0xa1 IDENTIFY PACKET DEVICE */
	/* Strings are copied untrimmed (ATA pads with spaces); a NUL from the device ends them
	 * early. All zero unless have_identify. Fields whose bytes are missing on a short page
	 * are left zero. */
	char model[41];     /* IDENTIFY words 27..46, byte-swapped into order, NUL-terminated */
	char serial[21];    /* words 10..19 */
	char firmware[9];   /* words 23..26 */
	bool have_identify; /* the 512-byte IDENTIFY data was present */
	const uint8_t *identify; /* those 512 bytes inside the caller's buffer, NULL without them */
} VpdAtaInfo;
int vpd89_parse(const uint8_t *buf, size_t len, VpdAtaInfo *ret);

/* Size of IDENTIFY (PACKET) DEVICE data (ATA8-ACS 7.16, 7.17). */
#define ATA_IDENTIFY_LEN 512

/*
 * ata_identify_word() - word @word of IDENTIFY data @identify (ATA_IDENTIFY_LEN bytes, words
 * least significant byte first, ATA8-ACS 3.3.5).
 * ata_identify_string() - @n_words words from @first_word as the string they hold (ATA8-ACS
 * 3.3.10: the first character in each word's high byte) into @out, which takes 2 * @n_words + 1
 * bytes; untrimmed, NUL-terminated.
 */
uint16_t ata_identify_word(const uint8_t *identify, unsigned word);
void ata_identify_string(const uint8_t *identify, unsigned first_word, unsigned n_words, char *out);

/* Page 0xb0: block limits (SBC-4 6.6.4). Fields absent on a short page are 0. */
typedef struct VpdBlockLimits {
	bool wsnz;
	uint8_t max_compare_write;
	uint16_t opt_xfer_granularity;
	uint32_t max_xfer_len;
	uint32_t opt_xfer_len;
	uint32_t max_prefetch_len;
	uint32_t max_unmap_lba_count;
	uint32_t max_unmap_block_desc_count;
	uint32_t opt_unmap_granularity;
	bool ugavalid;
	uint32_t unmap_granularity_alignment;
	uint64_t max_write_same_len;
	uint32_t max_atomic_xfer_len;
	uint32_t atomic_alignment;
	uint32_t atomic_xfer_len_granularity;
} VpdBlockLimits;
int vpdb0_parse(const uint8_t *buf, size_t len, VpdBlockLimits *ret);
