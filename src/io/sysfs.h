/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * sysfs and /dev access, always relative to a root directory fd so tests can point it at an
 * unpacked tree (util-linux --sysroot style). Paths passed here never start with '/'.
 */

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "macro.h"

/* sysfs binary attributes such as vpd_pg83 are at most one VPD page. */
#define SYSFS_ATTR_MAX (4 + 65535)

/* sysfs_open_root() - open @root ("/" when NULL) as an O_PATH directory fd. */
int sysfs_open_root(const char *root);

/*
 * sysfs_read_attr() - read a whole attribute (binary safe) of at most @max bytes.
 * Returns 0 with a malloc'd buffer (NUL-terminated one past *ret_len), -ENOENT when absent,
 * -EFBIG when larger than @max, -errno otherwise.
 */
int sysfs_read_attr(int dirfd, const char *path, size_t max, uint8_t **ret_buf, size_t *ret_len);

/*
 * sysfs_read_fd() - what is left to read of @fd, up to EOF, as sysfs_read_attr() reads it: at most
 * @max bytes (-EFBIG when there is more), NUL-terminated one past *ret_len. Any readable fd.
 */
int sysfs_read_fd(int fd, size_t max, uint8_t **ret_buf, size_t *ret_len);

/* sysfs_read_string() - a text attribute with its trailing newline removed. */
int sysfs_read_string(int dirfd, const char *path, char **ret);

/*
 * sysfs_read_string_buf() - sysfs_read_string() into @buf (@size bytes, NUL-terminated), for
 * the attributes read on every uevent: no allocation. Returns 0, -ENOBUFS when the attribute
 * does not fit, -EBADMSG when it holds a NUL byte, -errno.
 */
int sysfs_read_string_buf(int dirfd, const char *path, char *buf, size_t size);
/* sysfs_attr_string_buf() - the same for attribute @attr of directory @dir. */
int sysfs_attr_string_buf(int dirfd, const char *dir, const char *attr, char *buf, size_t size);

/* sysfs_read_u64() - a decimal or 0x-prefixed integer attribute. */
int sysfs_read_u64(int dirfd, const char *path, uint64_t *ret);

/*
 * sysfs_attr_string() - attribute @attr of directory @dir (relative to @dirfd) as
 * sysfs_read_string() reads it, or NULL when it is absent or cannot be read; for the many
 * optional attributes callers treat as "unknown" either way.
 */
char *sysfs_attr_string(int dirfd, const char *dir, const char *attr);

/* sysfs_attr_u64() - attribute @attr of directory @dir as sysfs_read_u64() reads it. */
int sysfs_attr_u64(int dirfd, const char *dir, const char *attr, uint64_t *ret);

/* sysfs_write_attr() - write @value in a single write(2); short writes are errors. */
int sysfs_write_attr(int dirfd, const char *path, const char *value);

/*
 * sysfs_first_entry() - name of the first entry (sorted) in directory @path whose name starts with
 * @prefix (NULL: any, dot entries skipped). -ENOENT when there is none.
 */
int sysfs_first_entry(int dirfd, const char *path, const char *prefix, char **ret);
/*
 * sysfs_for_each_entry() - @fn for each entry of directory @path whose name starts with @prefix
 * (NULL: any; dot entries skipped), in the directory's order. Stops at the first error @fn
 * returns (< 0) and returns it; -errno when the directory cannot be read, else 0.
 */
int sysfs_for_each_entry(int dirfd, const char *path, const char *prefix,
                         int (*fn)(const char *name, void *userdata), void *userdata);

/*
 * sysfs_for_each_partition() - @fn(name, number) for each partition of block device @block of
 * the LU at @syspath: the entries of <@syspath>/block/<@block> named after @block that have a
 * "partition" attribute of 1..UINT32_MAX, in the directory's order. 0, also when the directory
 * is gone; the first error @fn returns (< 0); -ENOMEM; -errno when the directory cannot be read.
 */
int sysfs_for_each_partition(int dirfd, const char *syspath, const char *block,
                             int (*fn)(const char *name, unsigned number, void *userdata),
                             void *userdata);

/*
 * sysfs_opendir() - open directory @path below @dirfd for readdir(). Returns 0 with the DIR in
 * @ret (closedir() it), -errno otherwise (-ENOENT when it does not exist).
 * sysfs_opendir_flags() - the same with @flags (O_NOFOLLOW) added to the open(2) flags.
 */
int sysfs_opendir(int dirfd, const char *path, DIR **ret);
int sysfs_opendir_flags(int dirfd, const char *path, int flags, DIR **ret);

/*
 * sysfs_scsi_host_parse() - the number of a SCSI host directory name, "host<decimal>" as
 * sys/class/scsi_host lists them (no sign, no blanks, nothing after the digits). Returns 0 with
 * @ret set, -EINVAL for any other name or one beyond an unsigned int.
 */
int sysfs_scsi_host_parse(const char *name, unsigned *ret);

/* sysfs_link_basename() - last component of the target of symlink @path. */
int sysfs_link_basename(int dirfd, const char *path, char **ret);

/* sysfs_link_target() - the target of symlink @path (the whole path, not its last component),
 * malloc'd; NULL when it is no symlink, cannot be read or memory is short. */
char *sysfs_link_target(int dirfd, const char *path);

/* sysfs_is_dirf() - is the path printf(@fmt, ...) below @dirfd a directory (following
 * symlinks)? The path is left in @buf (PATH_MAX bytes) either way, for the caller to go on. */
_printf_(3, 4) bool sysfs_is_dirf(int dirfd, char *buf, const char *fmt, ...);
