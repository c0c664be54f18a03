/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The pure parts of `lunctl list` that must read and print as lsscsi(8) 0.31 (Debian 12) and 0.32
 * do: the [H:C:T:L] filter, the -s size, the LU name lsscsi prints after "sata:"/"ata:", the USB
 * interface name after "usb:", the short device type names. No I/O: the callers read sysfs.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LIST_ANY (-1)

/* Which LUs a listing shows; LIST_ANY (or lun_any) matches every value of that field. */
typedef struct ListFilter {
	int64_t host, channel, target;
	uint64_t lun;
	bool lun_any;
} ListFilter;

/*
 * list_filter_parse() - lsscsi's positional filter: one argument "H", "H:C", "H:C:T" or
 * "H:C:T:L" (optionally in brackets, "hostH" for a host), or up to four arguments, one field
 * each. "-", "*", "?" or an empty field match anything; the LUN may be hexadecimal ("0x...").
 * No argument at all matches everything. Returns 0, or -EINVAL with @ret untouched and a
 * reason in @err (at most @err_size bytes, NUL-terminated).
 */
int list_filter_parse(char *const *args, size_t n_args, ListFilter *ret, char *err,
                      size_t err_size);

/* list_filter_match() - does the LU at H:C:T:L pass @f? */
bool list_filter_match(const ListFilter *f, unsigned host, unsigned channel, unsigned target,
                       uint64_t lun);

/* list_filter_match_host() - could an LU of @host pass @f (the host listing, --tree)? */
bool list_filter_match_host(const ListFilter *f, unsigned host);

/*
 * list_size_string() - @bytes as lsscsi -s prints them: powers of 1000 (B, kB, MB, GB, TB, PB,
 * EB), three significant figures, truncated, never rounded up ("8.58GB" for 8589934592 bytes,
 * "1.00GB" for 1000000000, "999MB", "512B"). Returns 0, or -ENOBUFS when @size is too small
 * (16 bytes always suffice).
 */
int list_size_string(uint64_t bytes, char *buf, size_t size);

/*
 * list_lu_name() - the logical unit name lsscsi prints after "sata:" or "ata:" (and for
 * --unit), from the kernel's vpd_pg83 attribute as lsscsi reads it (its first 512 bytes, in
 * @page/@len): an iSCSI SCSI name string, else the first NAA (hex), EUI-64 (hex), UUID or SCSI
 * name string designator of the LU, else an ASCII T10 vendor ID. An empty string when the page
 * gives none or is inconsistent (lsscsi prints nothing then). Returns 0, -ENOBUFS when @size is
 * too small (1024 always suffice).
 */
int list_lu_name(const uint8_t *page, size_t len, char *buf, size_t size);

/* list_path_component() - the component @up levels above the last one of @path (0: the last),
 * into @buf. Returns 0, -ENOENT when @path is not that deep, -ENOBUFS. */
int list_path_component(const char *path, unsigned up, char *buf, size_t size);

/* list_type_name() - lsscsi's short name of peripheral device type @pdt ("disk", "cd/dvd",
 * "enclosu", "(0xa)"), trailing blanks trimmed; "type???" for a value out of 0..31. */
const char *list_type_name(int pdt);
