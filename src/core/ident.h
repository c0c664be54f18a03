/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Persistent identifiers of a SCSI logical unit, computed from INQUIRY data and VPD pages the
 * way the peers compute them, so existing udev rules and /dev/disk/by-id names keep working:
 *
 *  - udev's scsi_id (systemd v252, Debian 12): `scsi_id --export --whitelisted -d DEV`,
 *    i.e. ID_SCSI, ID_VENDOR[_ENC], ID_MODEL[_ENC], ID_REVISION, ID_TYPE, ID_SERIAL,
 *    ID_SERIAL_SHORT, ID_WWN, ID_WWN_VENDOR_EXTENSION, ID_WWN_WITH_EXTENSION, ID_TARGET_PORT,
 *    ID_SCSI_SERIAL;
 *  - udev's ata_id (same release) for SAT disks, from the IDENTIFY DEVICE data embedded in
 *    VPD page 0x89 (SAT-5 10.4.2): ID_ATA, ID_BUS=ata, ID_MODEL, ID_SERIAL, ...;
 *  - sg3_utils 1.46 `sg_inq --export` (SCSI_* and SCSI_IDENT_*): computed at export time from
 *    the pages referenced here, see export.h.
 *
 * Pure: no I/O, no logging, no allocation. The result refers to the caller's page buffers
 * (ScsiIdent.in), which must outlive it.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vpd.h"

/* scsi_id's MAX_SERIAL_LEN: serial buffers hold at most 255 bytes plus NUL. */
#define IDENT_SERIAL_MAX 256
/* scsi_id's SCSI_INQ_BUFF_LEN: it asks for, and can see, at most 254 bytes of any page. */
#define IDENT_SCSI_ID_BUF_LEN 254

/* Which page scsi_id is told to use (`-p`); DEFAULT is what udev's rules run (page 0x00
 * decides: 0x83 first, then 0x80). */
typedef enum IdentPage {
	IDENT_PAGE_DEFAULT,
	IDENT_PAGE_80,
	IDENT_PAGE_83,
	IDENT_PAGE_83_PRE_SPC3,
	_IDENT_PAGE_MAX,
	_IDENT_PAGE_INVALID = -EINVAL,
} IdentPage;

/*
 * The raw responses, exactly as read (sysfs vpd_pg* attributes or SG_IO). A NULL page means
 * the device did not return it (not supported / command failed). Page 0x00 may be absent when
 * only the kernel's cache was read: set pg00_infer to let the pages present stand in for it.
 */
typedef struct ScsiIdentInput {
	const uint8_t *inquiry;
	size_t inquiry_len;
	const uint8_t *pg00;
	size_t pg00_len;
	const uint8_t *pg80;
	size_t pg80_len;
	const uint8_t *pg83;
	size_t pg83_len;
	const uint8_t *pg89;
	size_t pg89_len;
	/* IDENTIFY (PACKET) DEVICE data, 512 bytes as the device sent them (little-endian
	 * words), from libata's sysfs ata_device "id" (ident_ata_identify_parse()): what ata_id
	 * reads from an ATAPI device, for which libata's SAT layer has no page 0x89. Used only
	 * when there is no usable page 0x89; fills ScsiIdent.ata, never the scsi_id set. */
	const uint8_t *ata_identify;
	size_t ata_identify_len;
	IdentPage page;  /* scsi_id -p */
	bool pg00_infer; /* no page 0x00: assume it lists 0x80/0x83 iff those are present */
} ScsiIdentInput;

/* Where scsi_id found ID_SERIAL. */
typedef enum IdentSerialSource {
	IDENT_SERIAL_NONE,          /* no ID_SERIAL: scsi_id prints none */
	IDENT_SERIAL_PG83,          /* a page 0x83 designator, per the priority table */
	IDENT_SERIAL_PG83_PRE_SPC2, /* SCSI-2 style page 0x83 (EMC Symmetrix) */
	IDENT_SERIAL_PG80,          /* page 0x80, 'S' + vendor + model + serial */
	IDENT_SERIAL_LEFTOVER,      /* no attempt succeeded, but a failed one left bytes in
	                             * scsi_id's serial buffer, which it prints (e.g. "S"
	                             * alone when the vendor has a NUL byte) */
	_IDENT_SERIAL_SOURCE_MAX,
	_IDENT_SERIAL_SOURCE_INVALID = -EINVAL,
} IdentSerialSource;

/*
 * Values are NUL-terminated strings holding exactly the bytes scsi_id prints after "KEY=".
 * ID_SCSI, ID_VENDOR*, ID_MODEL*, ID_REVISION, ID_TYPE are always printed; ID_SERIAL and
 * ID_SERIAL_SHORT when have_serial; the others when non-empty. Some of them (wwn from an ASCII NAA
 * designator, scsi_serial) are raw device bytes: the export writer escapes what would break a line.
 */
typedef struct ScsiIdent {
	char vendor[9];                /* ID_VENDOR */
	char vendor_enc[33];           /* ID_VENDOR_ENC: 8 bytes, each at most "\xNN" */
	char model[17];                /* ID_MODEL */
	char model_enc[65];            /* ID_MODEL_ENC */
	char revision[5];              /* ID_REVISION */
	const char *type;              /* ID_TYPE: "disk", "tape", "optical", "cd", "generic" */
	uint8_t peripheral_type;       /* INQUIRY byte 0 bits 4..0 */
	bool have_serial;              /* ID_SERIAL and ID_SERIAL_SHORT are printed
	                                * (ID_SERIAL_SHORT may then be empty) */
	char serial[IDENT_SERIAL_MAX]; /* ID_SERIAL (whitespace and chars replaced) */
	char serial_short[IDENT_SERIAL_MAX]; /* ID_SERIAL_SHORT */
	char wwn[17];                        /* ID_WWN without the "0x" */
	char wwn_vendor_extension[17];       /* ID_WWN_VENDOR_EXTENSION without the "0x" */
	char target_port[8];                 /* ID_TARGET_PORT: hex target port group */
	char scsi_serial[IDENT_SERIAL_MAX];  /* ID_SCSI_SERIAL: raw page 0x80 serial (C string) */
	IdentSerialSource serial_source;
	char serial_type;   /* first byte of ID_SERIAL: '3' NAA, '2' EUI-64, '1' T10 vendor ID,
	                     * '0' vendor specific, 'S' page 0x80; '\0' when none */
	bool pg83_walked;   /* scsi_id walked page 0x83's designators (page 0x00 listed it) */
	long serial_offset; /* byte offset in page 0x83 of the designator ID_SERIAL came from;
	                     * -1 when it came from elsewhere */

	/* udev ata_id on the IDENTIFY data of page 0x89 (valid when ata.valid). lund reproduces
	 * the identity lines only, not ata_id's ID_ATA_FEATURE_SET_* / ID_ATA_SATA* set. */
	struct {
		bool valid;
		bool packet;           /* IDENTIFY PACKET DEVICE (ATAPI) */
		const char *type;      /* ID_TYPE from IDENTIFY word 0 */
		char model[41];        /* ID_MODEL */
		char model_enc[161];   /* ID_MODEL_ENC */
		char revision[9];      /* ID_REVISION */
		char serial[41 + 21];  /* ID_SERIAL: model + "_" + serial, or model */
		char serial_short[21]; /* ID_SERIAL_SHORT */
		char wwn[17];          /* ID_WWN / ID_WWN_WITH_EXTENSION, no "0x" */
	} ata;

	/* The input, kept for the sg_inq --export set (export.h). */
	ScsiIdentInput in;
} ScsiIdent;

/*
 * ident_compute() - compute everything above from @in.
 * Returns 0 with @ret filled; -ENODATA if @in->inquiry is NULL (scsi_id prints nothing at all
 * then); -EINVAL on bad arguments. Malformed VPD pages never fail the call: they are treated
 * exactly as scsi_id treats them (usually: no ID_SERIAL), which is the point.
 */
int ident_compute(const ScsiIdentInput *in, ScsiIdent *ret);

const char *ident_serial_source_name(IdentSerialSource s);

/*
 * ident_ata_identify_parse() - libata's sysfs ata_device "id" attribute (drivers/ata/
 * libata-transport.c: the 256 IDENTIFY words in host order, each as 4 hex digits, separated by
 * one blank or newline) into the raw little-endian byte form that ScsiIdentInput.ata_identify
 * takes. @text, @len: the attribute as read (a trailing newline is fine).
 * Returns 0 with @ret filled; -EBADMSG when it is not exactly 256 such words.
 */
int ident_ata_identify_parse(const char *text, size_t len, uint8_t ret[static ATA_IDENTIFY_LEN]);

/* What scsi_id made of one page 0x83 designator (lunctl names --why). */
typedef enum IdentDesigVerdict {
	IDENT_DESIG_USED,      /* ID_SERIAL came from it (and ID_WWN when it is an NAA) */
	IDENT_DESIG_OUTRANKED, /* a row of scsi_id's table accepts it, below the one used */
	IDENT_DESIG_TPG,       /* target port group: ID_TARGET_PORT only, never a name */
	IDENT_DESIG_ASSOC,     /* associated with a target port or the target device */
	IDENT_DESIG_TYPE,      /* a type the table lacks (port, LU group, MD5, SCSI name, UUID) */
	IDENT_DESIG_CODE_SET,  /* a code set other than binary or ASCII (UTF-8) */
	IDENT_DESIG_TOO_LONG,  /* longer than scsi_id's serial buffer holds */
	IDENT_DESIG_UNSEEN,    /* past the 254 bytes scsi_id reads of the page */
	IDENT_DESIG_NOT_TRIED, /* scsi_id never walked the page (page 0x00, SCSI-2 format) */
	_IDENT_DESIG_MAX,
	_IDENT_DESIG_INVALID = -EINVAL,
} IdentDesigVerdict;

typedef struct IdentDesignator {
	size_t offset; /* of its header in page 0x83 */
	uint8_t type;  /* SPC-6 Table 589 */
	uint8_t assoc; /* 0 logical unit, 1 target port, 2 target device */
	uint8_t code_set;
	uint8_t naa; /* NAA field, for type 3 */
	size_t len;  /* designator length */
	int row;     /* the first row of scsi_id's table (0-based, 0 = target port group)
	              * that accepts it, -1 none */
	IdentDesigVerdict verdict;
} IdentDesignator;

/*
 * ident_designators() - the designators of @id's page 0x83 as the device sent them, each with
 * what scsi_id made of it. Fills at most @max; returns how many.
 */
size_t ident_designators(const ScsiIdent *id, IdentDesignator *ret, size_t max);
const char *ident_designator_verdict_name(IdentDesigVerdict v);
