/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What `lunctl list` reads from sysfs besides the identity, as lsscsi(8) reads it: the
 * transport (-t), the size (-s), the peripheral device type, the hosts (-H). Every path is
 * relative to @rootfd (--root). (lunctl-list-sysfs.c)
 */

#include <stdbool.h>
#include <stdint.h>

/* The transport lsscsi -t prints for the LU at @hctl on host @h: "sas:0x...", "fc:0x...,0x...",
 * "iqn...,t,0x1", "usb:1-1:1.0", "sata:<LU name>", "spi:<target>"; "" when lsscsi prints none.
 * Returns 0 with a malloc'd string, -ENOMEM. */
int list_lu_transport(int rootfd, const char *hctl, unsigned h, unsigned t, char **ret);

/* The transport lsscsi -H -t prints for host @h ("sas:0x...", "sata:", "usb:1-1:1.0", ...),
 * "" when none. Returns 0 with a malloc'd string, -ENOMEM. */
int list_host_transport(int rootfd, unsigned h, char **ret);

/* The peripheral device type in sysfs ("type"), -1 when unreadable or out of 0..31. */
int list_lu_pdt(int rootfd, const char *hctl);
/* The LU's sysfs "state" (running, offline, transport-offline, blocked, ...), NULL when unknown. */
char *list_lu_state(int rootfd, const char *hctl);

/* The size in bytes lsscsi -s shows for an LU of type @pdt with block device @block (NULL:
 * none): only direct-access types (disk, cd/dvd, sim dsk, zbc). Returns 0, -ENODATA when it
 * shows none ("-"). */
int list_lu_size(int rootfd, int pdt, const char *block, uint64_t *ret);

/* The host's driver (proc_name, else the device's driver), NULL when unknown or ENOMEM. */
char *list_host_driver(int rootfd, unsigned h);
