/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The identity udev's builtin usb_id (systemd v252, udev-builtin-usb_id.c) gives a SCSI disk or
 * cdrom behind a USB mass-storage interface, computed from the sysfs attributes it reads:
 *
 *   - interface class 8 (mass storage) with subclass 6 (SCSI transparent) or 2 (ATAPI): vendor
 *     and model are the SCSI device's "vendor"/"model" attributes and the instance is the SCSI
 *     "<target>:<lun>" ("some broken devices have the same identifiers for all LUNs");
 *   - otherwise (or when the SCSI attributes are missing) the USB device's "manufacturer" and
 *     "product", falling back to "idVendor"/"idProduct", and no instance;
 *   - the serial is the USB device's "serial" attribute, unless it holds a byte < 0x20, > 0x7f
 *     or ',' (then none);
 *   - each string goes through udev_replace_whitespace() and udev_replace_chars(NULL);
 *   - ID_USB_SERIAL (and ID_SERIAL when usb_id sets ID_BUS=usb) is
 *     "<vendor>_<model>[_<serial>][-<instance>]".
 *
 * 60-persistent-storage.rules (v252) runs usb_id for every sd and sr node with a USB parent and
 * links "usb-$env{ID_USB_SERIAL}"; usb_id sets ID_BUS=usb and ID_SERIAL (the same string) only when
 * no earlier rule set ID_BUS, so scsi_id does not run then (names.h has the chain).
 *
 * Pure: no I/O, no allocation, no logging.
 */

#include <stdbool.h>
#include <stddef.h>

/* The sysfs attributes usb_id reads, as NUL-terminated strings with the kernel's trailing newline
 * removed; NULL when the attribute does not exist. */
typedef struct UsbIdInput {
	const char *if_class;    /* interface bInterfaceClass (hex) */
	const char *if_subclass; /* interface bInterfaceSubClass (hex) */
	const char *scsi_vendor; /* SCSI device "vendor" */
	const char *scsi_model;  /* SCSI device "model" */
	bool have_hctl;          /* the SCSI device's name parsed as H:C:T:L */
	unsigned target;
	unsigned long long lun;
	const char *id_vendor;    /* USB device idVendor */
	const char *id_product;   /* USB device idProduct */
	const char *manufacturer; /* USB device manufacturer */
	const char *product;      /* USB device product */
	const char *serial;       /* USB device serial */
} UsbIdInput;

/* usb_id's buffers: vendor/model 64 bytes, serial UTIL_NAME_SIZE (512), the result 256. */
#define USBID_STR_MAX    64
#define USBID_SERIAL_MAX 512
#define USBID_ID_MAX     256

typedef struct UsbId {
	char vendor[USBID_STR_MAX];          /* ID_USB_VENDOR */
	char model[USBID_STR_MAX];           /* ID_USB_MODEL */
	char serial_short[USBID_SERIAL_MAX]; /* ID_USB_SERIAL_SHORT, may be empty */
	char instance[USBID_STR_MAX];        /* ID_USB_INSTANCE, may be empty */
	char serial[USBID_ID_MAX];           /* ID_USB_SERIAL */
} UsbId;

/*
 * usbid_compute() - usb_id's identity from @in.
 * Returns 0 with @ret filled; -ENODATA when usb_id would fail (no idVendor or idProduct, or no
 * interface class); -ENOBUFS when the result exceeds usb_id's 256-byte buffer (udev would
 * truncate it; lund refuses rather than guess); -EINVAL on bad arguments.
 */
int usbid_compute(const UsbIdInput *in, UsbId *ret);
