/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Standard INQUIRY data (SPC-6 6.7.2). Pure parser: no I/O, no allocation, no logging.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SPC: the standard INQUIRY data is at least 5 bytes; vendor/product/revision end at byte 36. */
#define INQUIRY_MIN_LEN 5
#define INQUIRY_STD_LEN 36

typedef struct ScsiInquiry {
	uint8_t qualifier;       /* byte 0 bits 7..5: peripheral qualifier */
	uint8_t type;            /* byte 0 bits 4..0: peripheral device type */
	bool rmb;                /* removable medium */
	uint8_t version;         /* byte 2 */
	uint8_t response_format; /* byte 3 bits 3..0 */
	bool normaca, hisup;
	size_t additional_len; /* byte 4 + 5: length the device claims */
	/* (= buf[4] + 5, the total length claimed; fields are decoded from the bytes actually
	 * received, never from this claim) */
	bool sccs, acc, threepc, protect;
	uint8_t tpgs; /* byte 5 bits 5..4 */
	bool encserv, multip, cmdque;
	/* Raw bytes as sent (not trimmed, not NUL-terminated); *_len is how many were present,
	 * fewer than the field size only when the response was shorter than 36 bytes. */
	uint8_t vendor[8];
	size_t vendor_len;
	uint8_t product[16];
	size_t product_len;
	uint8_t revision[4];
	size_t revision_len;
} ScsiInquiry;

/*
 * inquiry_parse() - decode standard INQUIRY data.
 * @buf, @len: the response as received.
 * @ret: filled on success only.
 * Returns 0, or -EBADMSG when @len < INQUIRY_MIN_LEN.
 */
int inquiry_parse(const uint8_t *buf, size_t len, ScsiInquiry *ret);

/* SPC peripheral device type names as the kernel's scsi_device_type() and udev's ID_TYPE use.
 * inquiry_type_name(): "Direct-Access", "CD-ROM", ...; NULL if reserved/unknown.
 * inquiry_type_udev(): udev's ID_TYPE ("disk", "tape", "cd", "optical", "generic", ...). */
const char *inquiry_type_name(uint8_t type);
const char *inquiry_type_udev(uint8_t type);
