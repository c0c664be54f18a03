/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The string rules of udev's path_id builtin (systemd v252, Debian 12) that need no sysfs: the
 * LUN component, ID_PATH_TAG from ID_PATH, and the disk/by-path names 60-persistent-storage.rules
 * makes from ID_PATH and ID_PATH_ATA_COMPAT. The sysfs walk that builds ID_PATH is
 * engine/pathid.h. Pure: no I/O, no logging; outputs written only on success.
 */

#include <stddef.h>
#include <stdint.h>

/*
 * pathtag_lun() - path_id's LUN component for the LUN number the kernel puts in the device's
 * name (H:C:T:L): "lun-N" below 256 (SAM peripheral addressing, bus 0), else the first two
 * levels of the 8-byte SAM LUN path_id rebuilds from the kernel's int: "lun-0x%04x%04x00000000"
 * with the low 16 bits first (only the low 32 bits of @lun count, as in path_id).
 * Returns the output length, or -ENOBUFS when @size is too small (at least 28 bytes suffice).
 */
int pathtag_lun(uint64_t lun, char *out, size_t size);

/*
 * pathtag_tag() - ID_PATH_TAG from @path: ASCII letters, digits and '-' are kept; every run of
 * other bytes becomes one '_', except at the start (dropped) and at the end (dropped).
 * Returns the output length (possibly 0), or -ENOBUFS when @size < strlen(@path) + 1.
 */
int pathtag_tag(const char *path, char *out, size_t size);

/*
 * pathtag_link_name() - the name below disk/by-path/ a SYMLINK+="disk/by-path/$env{KEY}@suffix"
 * rule makes from @value: udev's replacement of bytes outside its devnode allowlist (keeping
 * '/' and ' ', escape.h udev_replace_chars()) applied to value and suffix together. Returns the
 * length, -ENOBUFS, or -EINVAL when udev would not make one link directly in that directory
 * from it (empty, a ' ' that splits it into several names, a '/' that makes a subdirectory,
 * "." or "..", longer than NAME_MAX): lund makes no such link.
 */
int pathtag_link_name(const char *value, const char *suffix, char *out, size_t size);
