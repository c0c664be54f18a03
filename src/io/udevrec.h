/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Name records for udev: the names lund gives one device node, in a file udev's rules import
 * (rules/59-lund.rules, lund(8) UDEV), so that udev makes the links and records them in its
 * database (DEVLINKS) and systemd makes .device units for them.
 *
 * One file per device node in a record directory (e.g. <run-dir>/udev), named by the node's
 * kind and number: "b8:0" for a block device, "c21:0" for a character device, so that a rule
 * finds it as "b$major:$minor". The file holds one property per name, LUND_LINK_0 ... up to
 * UDEVREC_MAX_LINKS - 1, in the order given, each a path relative to /dev
 * ("scsi/by-id/scsi-35000c500a1b2c3d4"):
 *
 *     LUND_LINK_0="scsi/by-id/scsi-35000c500a1b2c3d4"
 *
 * One name per property, so a name can never become two links or another udev key. Each path
 * is checked and escaped before it is written: its directory part is one of a few plain
 * components (no "..", no "." component, no empty one, not absolute), and every byte of the
 * name outside udev's devnode allowlist ([A-Za-z0-9#+-.:=@_]) and outside a well-formed "\xHH"
 * sequence is written as "\xHH" (udev's own encoding, which udev keeps as it is), so a record
 * holds no whitespace, quote, '$', '%' or '/' of a name. A file is written as a temporary file
 * in the same directory renamed over the name, so udev reads either the old or the new record.
 *
 * io/ does not log: errors are returned.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The most names one node's record holds (59-lund.rules reads as many properties). */
#define UDEVREC_MAX_LINKS 16

/*
 * udevrec_key() - the record name of node @devnum, a block device when @block, else a
 * character device: "b8:0" or "c21:0". @size must be at least UDEVREC_KEY_MAX.
 * Returns 0, or -ENOBUFS.
 */
#define UDEVREC_KEY_MAX 32
int udevrec_key(bool block, dev_t devnum, char *buf, size_t size);

/* udevrec_key_valid() - 0 if @key is a record name udevrec_key() makes, else -EINVAL. */
int udevrec_key_valid(const char *key);

/*
 * udevrec_escape_link() - the record form of link @name in directory @dir (relative to /dev,
 * e.g. "scsi/by-id"): "<dir>/<name escaped>", malloc'd in @ret. Returns 0, -EINVAL for a
 * directory that is not a plain relative path or a name that is empty, "." or "..", or
 * -ENOMEM.
 */
int udevrec_escape_link(const char *dir, const char *name, char **ret);

/*
 * udevrec_format() - the record text for @n links (already escaped, udevrec_escape_link()),
 * malloc'd in @ret. Returns 0, -ENOBUFS when @n exceeds UDEVREC_MAX_LINKS, -EINVAL when a link
 * is not in record form (a byte udev would split on or interpret), or -ENOMEM.
 */
int udevrec_format(const char *const *links, size_t n, char **ret);

/*
 * udevrec_write() - make record @key in directory @dirfd hold @text (udevrec_format()),
 * atomically (temporary file, fsync-less rename: the directory is on a tmpfs). Returns 1 when
 * the file changed, 0 when it already held @text, -EINVAL for a bad key, -errno otherwise.
 */
int udevrec_write(int dirfd, const char *key, const char *text);

/* udevrec_remove() - remove record @key. Returns 1 when removed, 0 when there was none,
 * -EINVAL for a bad key, -errno otherwise. */
int udevrec_remove(int dirfd, const char *key);

/*
 * udevrec_uevent_path() - the sysfs uevent file of record @key's device, relative to the root:
 * "sys/dev/block/8:0/uevent". malloc'd in @ret; 0, -EINVAL or -ENOMEM.
 */
int udevrec_uevent_path(const char *key, char **ret);
