/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Per-device policy defaults from the hardware database (lund.hwdb(7)), looked up with sd-hwdb
 * as udev's hwdb builtin does. A logical unit's match string is
 *
 *     lund:scsi:t<type>:v<vendor>:m<model>:r<revision>
 *
 * (type in decimal, INQUIRY strings with trailing blanks removed and every byte outside
 * printable ASCII, and ':' itself, written '_'), so hwdb files match with globs such as
 * "lund:scsi:t0:vSEAGATE:mST600MM*:*". io/ does not log: lookups return -errno.
 */

#include <stddef.h>
#include <stdint.h>

typedef struct Hwdb Hwdb;

/*
 * hwdb_open() - the compiled database at @path (hwdb.bin), or the system's (NULL: the paths
 * sd_hwdb_new() searches). The whole file is checked with hwdb_validate() first and sd-hwdb
 * maps the file that was checked. Returns 0, -ENOENT when there is none, -EBADMSG when it is
 * corrupt, -errno.
 */
int hwdb_open(const char *path, Hwdb **ret);
Hwdb *hwdb_free(Hwdb *h);

/*
 * hwdb_validate() - whether @buf of @len bytes is a compiled hwdb sd-hwdb can search safely:
 * header and entry sizes sane, every node, child entry, value entry and string inside the
 * file, no cycle, depth at most 4096. Returns 0, -EBADMSG.
 */
int hwdb_validate(const uint8_t *buf, size_t len);

/* hwdb_modalias() - the match string of an LU (see above); malloc'd, NULL on ENOMEM. */
char *hwdb_modalias(int type, const char *vendor, const char *model, const char *revision);

/*
 * hwdb_modalias_usb() - the match string of the USB device an LU is behind:
 * "lund:usb:v<idVendor>p<idProduct>" with four upper-case hex digits each, as udev's usb:v
 * modaliases spell them (lund.hwdb(7)); malloc'd, NULL on ENOMEM.
 */
char *hwdb_modalias_usb(unsigned vendor, unsigned product);

typedef void (*HwdbPropertyFn)(const char *key, const char *value, void *userdata);

/*
 * hwdb_lookup() - call @fn for every property of every entry matching @modalias (keys with
 * their leading space removed, as sd-hwdb gives them). Returns the number of properties, or
 * -errno. Lookups are serialised (sd-hwdb iterates with state inside the object), so threads
 * may share one Hwdb; @fn runs with the lock held and must not look up again.
 */
int hwdb_lookup(Hwdb *h, const char *modalias, HwdbPropertyFn fn, void *userdata);
