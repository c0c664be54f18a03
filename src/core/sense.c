/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Sense data (SPC-6 4.4). Fixed format (4.4.3) has its fields at fixed offsets; descriptor
 * format (4.4.2) is an 8-byte header and a list of typed descriptors. Both carry an ADDITIONAL
 * SENSE LENGTH that the device may overstate; nothing is read past min(received, claimed).
 */

#include <errno.h>
#include <string.h>

#include "macro.h"
#include "sense.h"
#include "unaligned.h"

/* SPC-6 4.4.2 table 28: descriptor types handled here. */
#define SENSE_DESC_INFORMATION        0x00
#define SENSE_DESC_COMMAND_SPECIFIC   0x01
#define SENSE_DESC_SENSE_KEY_SPECIFIC 0x02
#define SENSE_DESC_FRU                0x03
#define SENSE_DESC_STREAM             0x04
#define SENSE_DESC_BLOCK              0x05
#define SENSE_DESC_DIRECT_ACCESS      0x0d /* SBC-4 4.18.2 */

/* Bytes of additional sense data that can be used: bounded by what arrived and what the device
 * claims. Sets *truncated when the claim exceeds what arrived. */
static size_t sense_limit(const uint8_t *buf, size_t len, bool *truncated)
{
	size_t claimed;

	if (len < 8)
		return len;
	claimed = 8 + (size_t)buf[7];
	if (claimed > len) {
		*truncated = true;
		return len;
	}
	return claimed;
}

static void parse_fixed(const uint8_t *buf, size_t len, ScsiSense *s)
{
	size_t end = sense_limit(buf, len, &s->truncated);

	/* SPC-6 4.4.3 table 45. Byte 2 exists: checked by the caller. */
	s->filemark = buf[2] & 0x80;
	s->eom = buf[2] & 0x40;
	s->ili = buf[2] & 0x20;
	s->key = buf[2] & 0x0f;
	if (len >= 8)
		s->additional_len = buf[7];
	/* The INFORMATION field (bytes 3..6) sits in the header, before byte 7. */
	if (end >= 7) {
		s->info_valid = buf[0] & 0x80;
		s->information = unaligned_read_be32(buf + 3);
	}
	if (end >= 12) {
		s->cmd_info_valid = true;
		s->cmd_info = unaligned_read_be32(buf + 8);
	}
	if (end >= 14) {
		s->asc = buf[12];
		s->ascq = buf[13];
		s->have_asc = true;
	}
	if (end >= 15)
		s->fru = buf[14];
	if (end >= 18) {
		s->sks_valid = buf[15] & 0x80;
		memcpy(s->sks, buf + 15, 3);
	}
	s->len = end;
}

int sense_next_descriptor(const uint8_t *buf, size_t len, size_t *offset, SenseDescriptor *ret)
{
	bool truncated = false;
	size_t end, off, dlen;

	assert_return(buf || len == 0, -EINVAL);
	assert_return(offset, -EINVAL);
	assert_return(ret, -EINVAL);

	if (len < 1)
		return -EBADMSG;
	if ((buf[0] & 0x7f) != 0x72 && (buf[0] & 0x7f) != 0x73)
		return -ENODATA;

	end = sense_limit(buf, len, &truncated);
	off = MAX(*offset, (size_t)8);
	if (off >= end)
		return 0;

	/* SPC-6 4.4.2: each descriptor is DESCRIPTOR TYPE, ADDITIONAL LENGTH, then that many
	 * bytes; both header bytes and the body must lie inside the additional sense data. */
	if (end - off < 2)
		return -EBADMSG;
	dlen = buf[off + 1];
	if (dlen > end - off - 2)
		return -EBADMSG;

	*ret = (SenseDescriptor){
		.type = buf[off],
		.desc = buf + off,
		.len = dlen,
		.offset = off,
	};
	*offset = off + 2 + dlen;
	return 1;
}

static void apply_descriptor(const SenseDescriptor *d, ScsiSense *s)
{
	const uint8_t *p = d->desc;

	switch (d->type) {
	case SENSE_DESC_INFORMATION:
		/* SPC-6 4.4.2.2: ADDITIONAL LENGTH 0Ah, VALID in byte 2, INFORMATION bytes 4..11.
		 */
		if (d->len < 0x0a)
			return;
		s->info_valid = p[2] & 0x80;
		s->information = unaligned_read_be64(p + 4);
		return;
	case SENSE_DESC_COMMAND_SPECIFIC:
		if (d->len < 0x0a)
			return;
		s->cmd_info_valid = true;
		s->cmd_info = unaligned_read_be64(p + 4);
		return;
	case SENSE_DESC_SENSE_KEY_SPECIFIC:
		/* SPC-6 4.4.2.4: ADDITIONAL LENGTH 06h, SKSV and the 3 bytes at 4..6. */
		if (d->len < 0x06)
			return;
		s->sks_valid = p[4] & 0x80;
		memcpy(s->sks, p + 4, 3);
		return;
	case SENSE_DESC_FRU:
		if (d->len < 0x02)
			return;
		s->fru = p[3];
		return;
	case SENSE_DESC_STREAM:
		/* SSC-5: FILEMARK, EOM, ILI in byte 3. */
		if (d->len < 0x02)
			return;
		s->filemark = p[3] & 0x80;
		s->eom = p[3] & 0x40;
		s->ili = p[3] & 0x20;
		return;
	case SENSE_DESC_BLOCK:
		/* SBC-4 4.18.3: ILI in byte 3. */
		if (d->len < 0x02)
			return;
		s->ili = p[3] & 0x20;
		return;
	case SENSE_DESC_DIRECT_ACCESS:
		/* SBC-4 4.18.2: ADDITIONAL LENGTH 16h; VALID/ILI byte 2, SKS 4..6, FRU 7,
		 * INFORMATION 8..15, COMMAND-SPECIFIC INFORMATION 16..23. */
		if (d->len < 0x16)
			return;
		s->info_valid = p[2] & 0x80;
		s->ili = p[2] & 0x20;
		s->sks_valid = p[4] & 0x80;
		memcpy(s->sks, p + 4, 3);
		s->fru = p[7];
		s->information = unaligned_read_be64(p + 8);
		s->cmd_info_valid = true;
		s->cmd_info = unaligned_read_be64(p + 16);
		return;
	default:
		return;
	}
}

static void parse_descriptor(const uint8_t *buf, size_t len, ScsiSense *s)
{
	SenseDescriptor d;
	size_t off = 0;
	int r;

	/* SPC-6 4.4.2 table 27. Byte 1 exists: checked by the caller. */
	s->key = buf[1] & 0x0f;
	if (len >= 4) {
		s->asc = buf[2];
		s->ascq = buf[3];
		s->have_asc = true;
	}
	if (len >= 8)
		s->additional_len = buf[7];
	s->len = sense_limit(buf, len, &s->truncated);

	while ((r = sense_next_descriptor(buf, len, &off, &d)) > 0)
		apply_descriptor(&d, s);
	if (r < 0)
		s->truncated = true;
}

int sense_parse(const uint8_t *buf, size_t len, ScsiSense *ret)
{
	ScsiSense s = {};

	assert_return(buf || len == 0, -EINVAL);
	assert_return(ret, -EINVAL);

	if (len < 1)
		return -EBADMSG;

	s.response_code = buf[0] & 0x7f;
	switch (s.response_code) {
	case 0x70:
	case 0x71:
		if (len < 3)
			return -EBADMSG;
		s.deferred = s.response_code == 0x71;
		parse_fixed(buf, len, &s);
		break;
	case 0x72:
	case 0x73:
		if (len < 2)
			return -EBADMSG;
		s.descriptor = true;
		s.deferred = s.response_code == 0x73;
		parse_descriptor(buf, len, &s);
		break;
	default:
		return -EBADMSG;
	}

	*ret = s;
	return 0;
}

/* The 16-bit field in sense-key specific bytes 1..2, present when SKSV is set and the sense key
 * is one of @keys (a bit per key, KEY()). */
#define KEY(k) (1u << SENSE_KEY_##k)
static int sks_value(const ScsiSense *s, unsigned keys, uint16_t *ret)
{
	assert_return(s, -EINVAL);
	assert_return(ret, -EINVAL);

	if (!s->sks_valid || s->key > 0xf || !(keys & 1u << s->key))
		return -ENODATA;
	*ret = unaligned_read_be16(s->sks + 1);
	return 0;
}

int sense_progress(const ScsiSense *s, uint16_t *ret)
{
	/* SPC-6 4.4.2.4.4: PROGRESS INDICATION for NO SENSE and NOT READY. */
	return sks_value(s, KEY(NO_SENSE) | KEY(NOT_READY), ret);
}

/* SPC-6 table 51. Ch was EQUAL, now obsolete. */
static const char *const sense_keys[16] = {
	[0x0] = "NO SENSE",        [0x1] = "RECOVERED ERROR", [0x2] = "NOT READY",
	[0x3] = "MEDIUM ERROR",    [0x4] = "HARDWARE ERROR",  [0x5] = "ILLEGAL REQUEST",
	[0x6] = "UNIT ATTENTION",  [0x7] = "DATA PROTECT",    [0x8] = "BLANK CHECK",
	[0x9] = "VENDOR SPECIFIC", [0xa] = "COPY ABORTED",    [0xb] = "ABORTED COMMAND",
	[0xc] = "OBSOLETE",        [0xd] = "VOLUME OVERFLOW", [0xe] = "MISCOMPARE",
	[0xf] = "COMPLETED",
};

const char *sense_key_name(uint8_t key)
{
	if (key >= ELEMENTSOF(sense_keys))
		return NULL;
	return sense_keys[key];
}

/* The subset of unit attentions the kernel's scsi_report_sense() turns into SDEV_UA uevents
 * (drivers/scsi/scsi_error.c, sdev_evt_send() strings). 29h is matched on ASC alone. */
const char *sense_ua_event(uint8_t asc, uint8_t ascq)
{
	switch (asc << 8 | ascq) {
	case 0x3f03:
		return "INQUIRY_DATA_HAS_CHANGED";
	case 0x3f0e:
		return "REPORTED_LUNS_DATA_HAS_CHANGED";
	case 0x3807:
		return "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED";
	case 0x2a01:
		return "MODE_PARAMETERS_CHANGED";
	case 0x2a06:
		return "ASYMMETRIC_ACCESS_STATE_CHANGED";
	case 0x2a09:
		return "CAPACITY_DATA_HAS_CHANGED";
	}
	if (asc == 0x29)
		return "POWER_ON_RESET_OCCURRED";
	return NULL;
}
