/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * VPD pages (SPC-6 7.7). Every length a device supplies is checked against the bytes that are
 * really there before it is used: the page length against the buffer, each designation
 * descriptor's length against what is left of the page.
 */

#include <errno.h>
#include <string.h>

#include "macro.h"
#include "unaligned.h"
#include "vpd.h"

int vpd_parse_header(const uint8_t *buf, size_t len, VpdHeader *ret)
{
	size_t page_len;

	assert_return(buf || len == 0, -EINVAL);
	assert_return(ret, -EINVAL);

	if (len < VPD_HEADER_LEN)
		return -EBADMSG;

	/* SPC-6 7.7.1: PAGE LENGTH (bytes 2..3) counts the bytes after the header. */
	page_len = unaligned_read_be16(buf + 2);
	if (page_len > len - VPD_HEADER_LEN)
		return -EBADMSG;

	*ret = (VpdHeader){
		.qualifier = buf[0] >> 5,
		.type = buf[0] & 0x1f,
		.page = buf[1],
		.page_len = page_len,
	};
	return 0;
}

/* Validate the header and check that this is the page the caller asked for. Returns the
 * offset just past the page (header included, at most VPD_MAX_LEN), or -errno. */
static int vpd_page_end(const uint8_t *buf, size_t len, uint8_t page)
{
	VpdHeader h;
	int r;

	r = vpd_parse_header(buf, len, &h);
	if (r < 0)
		return r;
	if (h.page != page)
		return -ENODATA;
	return (int)(VPD_HEADER_LEN + h.page_len);
}

int vpd00_parse(const uint8_t *buf, size_t len, VpdSupported *ret)
{
	VpdSupported s = {};
	int end;

	assert_return(ret, -EINVAL);

	end = vpd_page_end(buf, len, 0x00);
	if (end < 0)
		return end;

	/* SPC-6 7.7.16: one byte per supported page code. Duplicates are counted once. */
	for (int i = VPD_HEADER_LEN; i < end; i++) {
		uint8_t p = buf[i];

		if (s.bitmap[p / 8] & (1u << (p % 8)))
			continue;
		s.bitmap[p / 8] |= 1u << (p % 8);
		s.count++;
	}

	*ret = s;
	return 0;
}

bool vpd_supported_has(const VpdSupported *s, uint8_t page)
{
	if (!s)
		return false;
	return s->bitmap[page / 8] & (1u << (page % 8));
}

int vpd80_parse(const uint8_t *buf, size_t len, const uint8_t **ret_serial, size_t *ret_len)
{
	int end;

	assert_return(ret_serial, -EINVAL);
	assert_return(ret_len, -EINVAL);

	end = vpd_page_end(buf, len, 0x80);
	if (end < 0)
		return end;

	/* SPC-6 7.7.18: PRODUCT SERIAL NUMBER fills the page; it may be empty. */
	*ret_serial = buf + VPD_HEADER_LEN;
	*ret_len = (size_t)end - VPD_HEADER_LEN;
	return 0;
}

int vpd83_next(const uint8_t *buf, size_t len, size_t *offset, VpdDesignator *ret)
{
	size_t off, end, dlen;
	const uint8_t *d;
	int r;

	assert_return(offset, -EINVAL);
	assert_return(ret, -EINVAL);

	/* Re-validated on every call: it is cheap and the cursor must never outrun the page. */
	r = vpd_page_end(buf, len, 0x83);
	if (r < 0)
		return r;

	end = (size_t)r;
	off = MAX(*offset, (size_t)VPD_HEADER_LEN);
	if (off >= end)
		return 0;

	/* SPC-6 7.7.6.1: a descriptor is a 4-byte header plus DESIGNATOR LENGTH bytes. Both the
	 * header and the designator must fit in what is left of the page. */
	if (end - off < 4)
		return -EBADMSG;
	d = buf + off;
	dlen = d[3];
	if (dlen > end - off - 4)
		return -EBADMSG;

	*ret = (VpdDesignator){
		.protocol_id = d[0] >> 4,
		.code_set = d[0] & 0x0f,
		.piv = d[1] & 0x80,
		.association = (d[1] >> 4) & 0x03,
		.type = d[1] & 0x0f,
		.desc = d,
		.value = d + 4,
		.len = dlen,
		.offset = off,
	};
	*offset = off + 4 + dlen;
	return 1;
}

bool vpd83_is_pre_spc2(const uint8_t *buf, size_t len)
{
	/* udev's scsi_id (scsi_serial.c, do_scsi_page83_inquiry()): byte 6 is the reserved byte 2
	 * of the first SPC-2+ designation descriptor, so non-zero there means the SCSI-2 style page
	 * whose body is a bare identifier (EMC Symmetrix puts its OUI there). */
	if (!buf || len < 7)
		return false;
	if (buf[1] != 0x83)
		return false;
	return buf[6] != 0;
}

/* SAT-5 table 174 (ATA Information VPD page) byte offsets. */
#define VPD89_SAT_VENDOR   8
#define VPD89_SAT_PRODUCT  16
#define VPD89_SAT_REVISION 32
#define VPD89_COMMAND_CODE 56
#define VPD89_IDENTIFY     60

/* The field at [off, off + size) lies wholly inside the page that ends at end. */
#define HAVE(off, size) ((size_t)end >= (size_t)(off) + (size))

uint16_t ata_identify_word(const uint8_t *identify, unsigned word)
{
	return (uint16_t)(identify[word * 2] | identify[word * 2 + 1] << 8);
}

/* ATA8-ACS 7.16: IDENTIFY DEVICE strings hold two characters per 16-bit little-endian word,
 * the first character in the high byte; on the wire that is byte 2n+1 before byte 2n. */
void ata_identify_string(const uint8_t *identify, unsigned first_word, unsigned n_words, char *out)
{
	const uint8_t *p = identify + first_word * 2;

	for (unsigned i = 0; i < n_words; i++) {
		out[2 * i] = (char)p[2 * i + 1];
		out[2 * i + 1] = (char)p[2 * i];
	}
	out[2 * n_words] = '\0';
}

int vpd89_parse(const uint8_t *buf, size_t len, VpdAtaInfo *ret)
{
	VpdAtaInfo a = {};
	int end;

	assert_return(ret, -EINVAL);

	end = vpd_page_end(buf, len, 0x89);
	if (end < 0)
		return end;

	/* Each field is taken only when all of its bytes are inside the page. */
	if (HAVE(VPD89_SAT_VENDOR, sizeof(a.sat_vendor)))
		memcpy(a.sat_vendor, buf + VPD89_SAT_VENDOR, sizeof(a.sat_vendor));
	if (HAVE(VPD89_SAT_PRODUCT, sizeof(a.sat_product)))
		memcpy(a.sat_product, buf + VPD89_SAT_PRODUCT, sizeof(a.sat_product));
	if (HAVE(VPD89_SAT_REVISION, sizeof(a.sat_revision)))
		memcpy(a.sat_revision, buf + VPD89_SAT_REVISION, sizeof(a.sat_revision));
	if (HAVE(VPD89_COMMAND_CODE, 1))
		a.command_code = buf[VPD89_COMMAND_CODE];

	if (HAVE(VPD89_IDENTIFY, ATA_IDENTIFY_LEN)) {
		const uint8_t *id = buf + VPD89_IDENTIFY;

		/* ATA8-ACS table 45: serial words 10..19, firmware 23..26, model 27..46. */
		ata_identify_string(id, 10, 10, a.serial);
		ata_identify_string(id, 23, 4, a.firmware);
		ata_identify_string(id, 27, 20, a.model);
		a.have_identify = true;
		a.identify = id;
	}

	*ret = a;
	return 0;
}

int vpdb0_parse(const uint8_t *buf, size_t len, VpdBlockLimits *ret)
{
	VpdBlockLimits b = {};
	int end;

	assert_return(ret, -EINVAL);

	end = vpd_page_end(buf, len, 0xb0);
	if (end < 0)
		return end;

	/* SBC-4 6.6.4 table 262. Older devices send a 0x10-byte page (SBC-2/3 before the
	 * unmap fields), so every field is read only if it is fully inside the page. */
	if (HAVE(4, 1))
		b.wsnz = buf[4] & 0x01;
	if (HAVE(5, 1))
		b.max_compare_write = buf[5];
	if (HAVE(6, 2))
		b.opt_xfer_granularity = unaligned_read_be16(buf + 6);
	if (HAVE(8, 4))
		b.max_xfer_len = unaligned_read_be32(buf + 8);
	if (HAVE(12, 4))
		b.opt_xfer_len = unaligned_read_be32(buf + 12);
	if (HAVE(16, 4))
		b.max_prefetch_len = unaligned_read_be32(buf + 16);
	if (HAVE(20, 4))
		b.max_unmap_lba_count = unaligned_read_be32(buf + 20);
	if (HAVE(24, 4))
		b.max_unmap_block_desc_count = unaligned_read_be32(buf + 24);
	if (HAVE(28, 4))
		b.opt_unmap_granularity = unaligned_read_be32(buf + 28);
	if (HAVE(32, 4)) {
		uint32_t v = unaligned_read_be32(buf + 32);

		b.ugavalid = v & 0x80000000u;
		b.unmap_granularity_alignment = v & 0x7fffffffu;
	}
	if (HAVE(36, 8))
		b.max_write_same_len = unaligned_read_be64(buf + 36);
	if (HAVE(44, 4))
		b.max_atomic_xfer_len = unaligned_read_be32(buf + 44);
	if (HAVE(48, 4))
		b.atomic_alignment = unaligned_read_be32(buf + 48);
	if (HAVE(52, 4))
		b.atomic_xfer_len_granularity = unaligned_read_be32(buf + 52);

	*ret = b;
	return 0;
}

const char *vpd83_type_name(uint8_t type)
{
	static const char *const names[] = {
		"vendor specific",
		"T10 vendor ID",
		"EUI-64",
		"NAA",
		"relative target port",
		"target port group",
		"logical unit group",
		"MD5 logical unit",
		"SCSI name string",
		"protocol specific",
		"UUID",
	};

	return type < ELEMENTSOF(names) ? names[type] : "reserved";
}

const char *vpd83_association_name(uint8_t association)
{
	static const char *const names[] = { "logical unit", "target port", "target device",
		                             "reserved" };

	return names[association & 3];
}

const char *vpd83_code_set_name(uint8_t code_set)
{
	return code_set == 1   ? "binary"
	       : code_set == 2 ? "ASCII"
	       : code_set == 3 ? "UTF-8"
	                       : "reserved";
}
