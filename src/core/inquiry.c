/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Standard INQUIRY data (SPC-6 6.7.2). Devices and bridges send short responses (the SCSI-1 era
 * minimum is 5 bytes, some USB bridges stop anywhere before 36), so every field is decoded only
 * when all of its bytes arrived.
 */

#include <errno.h>
#include <string.h>

#include "inquiry.h"
#include "macro.h"

/* SPC-6 table 148 byte offsets. */
#define INQ_VENDOR_OFF   8
#define INQ_PRODUCT_OFF  16
#define INQ_REVISION_OFF 32

static size_t copy_field(uint8_t *dst, size_t dst_size, const uint8_t *buf, size_t len, size_t off)
{
	size_t n;

	if (len <= off)
		return 0;
	n = MIN(len - off, dst_size);
	memcpy(dst, buf + off, n);
	return n;
}

int inquiry_parse(const uint8_t *buf, size_t len, ScsiInquiry *ret)
{
	ScsiInquiry inq = {};

	assert_return(buf || len == 0, -EINVAL);
	assert_return(ret, -EINVAL);

	/* SPC: bytes 0..4 carry the type, RMB, version, format and the additional length. */
	if (len < INQUIRY_MIN_LEN)
		return -EBADMSG;

	inq.qualifier = buf[0] >> 5;
	inq.type = buf[0] & 0x1f;
	inq.rmb = buf[1] & 0x80;
	inq.version = buf[2];
	inq.normaca = buf[3] & 0x20;
	inq.hisup = buf[3] & 0x10;
	inq.response_format = buf[3] & 0x0f;
	/* SPC: ADDITIONAL LENGTH counts the bytes after byte 4. */
	inq.additional_len = (size_t)buf[4] + 5;

	if (len > 5) {
		inq.sccs = buf[5] & 0x80;
		inq.acc = buf[5] & 0x40;
		inq.tpgs = (buf[5] >> 4) & 0x03;
		inq.threepc = buf[5] & 0x08;
		inq.protect = buf[5] & 0x01;
	}
	if (len > 6) {
		inq.encserv = buf[6] & 0x40;
		inq.multip = buf[6] & 0x10;
	}
	if (len > 7)
		inq.cmdque = buf[7] & 0x02;

	inq.vendor_len = copy_field(inq.vendor, sizeof(inq.vendor), buf, len, INQ_VENDOR_OFF);
	inq.product_len = copy_field(inq.product, sizeof(inq.product), buf, len, INQ_PRODUCT_OFF);
	inq.revision_len =
	        copy_field(inq.revision, sizeof(inq.revision), buf, len, INQ_REVISION_OFF);

	*ret = inq;
	return 0;
}

/* SPC-6 table 150 (peripheral device type), spelled as the kernel's scsi_device_type() does
 * (without its column padding). */
static const char *const type_names[] = {
	[0x00] = "Direct-Access",
	[0x01] = "Sequential-Access",
	[0x02] = "Printer",
	[0x03] = "Processor",
	[0x04] = "WORM",
	[0x05] = "CD-ROM",
	[0x06] = "Scanner",
	[0x07] = "Optical Device",
	[0x08] = "Medium Changer",
	[0x09] = "Communications",
	[0x0a] = "ASC IT8",
	[0x0b] = "ASC IT8",
	[0x0c] = "RAID",
	[0x0d] = "Enclosure",
	[0x0e] = "Direct-Access-RBC",
	[0x0f] = "Optical card",
	[0x10] = "Bridge controller",
	[0x11] = "Object storage",
	[0x12] = "Automation/Drive",
	[0x13] = "Security Manager",
	[0x14] = "Direct-Access-ZBC",
	[0x1e] = "Well-known LUN",
	[0x1f] = "No Device",
};

const char *inquiry_type_name(uint8_t type)
{
	if (type >= ELEMENTSOF(type_names))
		return NULL;
	return type_names[type];
}

/* udev's ID_TYPE: systemd src/udev/scsi_id/scsi_id.c set_type() knows only these; everything
 * else, including ZBC disks and enclosures, is "generic". */
const char *inquiry_type_udev(uint8_t type)
{
	switch (type) {
	case 0x00: /* direct access */
	case 0x0e: /* simplified direct access (RBC) */
		return "disk";
	case 0x01:
		return "tape";
	case 0x04: /* write once */
	case 0x07: /* optical memory */
	case 0x0f: /* optical card */
		return "optical";
	case 0x05:
		return "cd";
	default:
		return "generic";
	}
}
