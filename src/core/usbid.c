/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * udev's usb_id identity of a USB mass-storage LU (see usbid.h), from sysfs strings.
 */

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "macro.h"
#include "usbid.h"

/* usb_id's cleanup of every string: whitespace runs to '_', then the devnode allowlist. */
static void usbid_clean(const char *s, char *out, size_t size)
{
	int r = udev_replace_whitespace(s, size - 1, out, size);

	assert(r >= 0);
	(void)r;
	(void)udev_replace_chars(out, NULL);
}

/* usb_id parses the class attributes as hex (strtoul(..., 16)); anything else counts as 0. */
static unsigned long usbid_hex(const char *s)
{
	char *end;
	unsigned long v;

	if (isempty(s))
		return 0;
	v = strtoul(s, &end, 16);
	return v;
}

/* usb_id drops the whole serial when any byte is outside 0x20..0x7f or is ',' (Microsoft's
 * rules for USB serial numbers). */
static bool usbid_serial_ok(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p > 0x7f || *p == ',')
			return false;
	return true;
}

int usbid_compute(const UsbIdInput *in, UsbId *ret)
{
	UsbId u = {};
	unsigned long subclass = 0;
	size_t n;
	int k;

	assert_return(in && ret, -EINVAL);
	if (!in->if_class || !in->id_vendor || !in->id_product)
		return -ENODATA;

	/* Class 8 = mass storage; its subclass 6 = SCSI transparent, 2 = ATAPI (USB MSC
	 * overview 1.4, table 1): only then does usb_id take the SCSI device's strings. */
	if (usbid_hex(in->if_class) == 8 && in->if_subclass)
		subclass = usbid_hex(in->if_subclass);
	if ((subclass == 6 || subclass == 2) && in->have_hctl && in->scsi_vendor) {
		usbid_clean(in->scsi_vendor, u.vendor, sizeof(u.vendor));
		if (in->scsi_model) {
			usbid_clean(in->scsi_model, u.model, sizeof(u.model));
			k = snprintf(u.instance, sizeof(u.instance), "%u:%llu", in->target,
			             in->lun);
			assert(k > 0 && (size_t)k < sizeof(u.instance));
		}
	}

	if (u.vendor[0] == '\0')
		usbid_clean(in->manufacturer ?: in->id_vendor, u.vendor, sizeof(u.vendor));
	if (u.model[0] == '\0')
		usbid_clean(in->product ?: in->id_product, u.model, sizeof(u.model));
	if (in->serial && usbid_serial_ok(in->serial))
		usbid_clean(in->serial, u.serial_short, sizeof(u.serial_short));

	k = snprintf(u.serial, sizeof(u.serial), "%s_%s%s%s%s%s", u.vendor, u.model,
	             u.serial_short[0] ? "_" : "", u.serial_short, u.instance[0] ? "-" : "",
	             u.instance);
	if (k < 0)
		return -EINVAL;
	n = (size_t)k;
	if (n >= sizeof(u.serial))
		return -ENOBUFS;
	*ret = u;
	return 0;
}
