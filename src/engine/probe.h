/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Identify one logical unit: resolve what the admin named (a device node, a sysfs path or
 * H:C:T:L) to the SCSI device, then gather its INQUIRY data and VPD pages. The kernel's cached
 * sysfs attributes come first (no SCSI command at all); SG_IO is used only for what the kernel
 * did not cache. Shared by the daemon and the CLI.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct LuRef {
	char *hctl; /* "H:C:T:L" */
	unsigned host, channel, target;
	uint64_t lun;
	/* relative to the root: "sys/bus/scsi/devices/H:C:T:L", or the device's own directory
	 * when the caller named it (probe_resolve_at()) */
	char *syspath;
	char *sg;    /* "sg3", or NULL when sg is not bound */
	char *block; /* "sda" / "sr0", or NULL */
	char *tape;  /* "st0", or NULL */
	/* The SCSI device's directory, "sys/devices/...", when probe_resolve_full() learnt it on
	 * the way (a device node's sys/dev link names it); NULL otherwise. */
	char *devpath;
	bool sg_lazy; /* sg not looked up yet (PROBE_RESOLVE_SG_LAZY): @sg NULL says nothing */
	/* no node looked up (PROBE_RESOLVE_NO_NODES): @sg, @block, @tape NULL say nothing */
	bool nodes_lazy;
	/* The kernel's cached INQUIRY data ("inquiry", never empty) once probe_keep_inquiry()
	 * read it: probe_read() takes it from here instead of sysfs. */
	uint8_t *inquiry;
	size_t inquiry_len;
	/* With PROBE_RESOLVE_DIRFD: an O_PATH descriptor of the LU's directory (@syspath), which
	 * its attributes are opened relative to (one path component each instead of the
	 * directory's ten); closed by lu_ref_done(). */
	bool has_dirfd;
	int dirfd;
} LuRef;

void lu_ref_done(LuRef *lu);

typedef enum ProbeResolveFlags {
	/* Look the sg node up only when a command needs it (probe_read()): for outputs that
	 * print no node names, a directory listing saved. */
	PROBE_RESOLVE_SG_LAZY = 1 << 0,
	/* Look no node up (@sg, @block and @tape stay NULL, nodes_lazy set): the caller learns
	 * them from their own uevents, which follow the LU's add, or probe_resolve_nodes(). */
	PROBE_RESOLVE_NO_NODES = 1 << 1,
	/* Keep the LU's directory open (LuRef.dirfd). */
	PROBE_RESOLVE_DIRFD = 1 << 2,
	/* With a device directory the caller has just learnt from the kernel (its add uevent):
	 * taken as it is, not checked (no system call); the first read finds out when the LU
	 * has gone since. Not with PROBE_RESOLVE_DIRFD. */
	PROBE_RESOLVE_TRUSTED = 1 << 3,
} ProbeResolveFlags;

/*
 * probe_resolve() - find the LU behind @arg: /dev/sdX (a partition resolves to its disk),
 * /dev/srN, /dev/stN, /dev/nstN, /dev/sgN, /dev/bsg/H:C:T:L, a /sys path inside the SCSI device,
 * or H:C:T:L. Returns 0, -ENOENT (no such device), -ENODEV (exists but is not a SCSI LU),
 * -EINVAL (not a form we know).
 */
int probe_resolve(int rootfd, const char *arg, LuRef *ret);
/* probe_resolve_full() - probe_resolve() as @flags ask. */
int probe_resolve_full(int rootfd, const char *arg, ProbeResolveFlags flags, LuRef *ret);
/* probe_resolve_at() - probe_resolve_full() of the LU whose directory the caller knows:
 * @devpath ("sys/devices/.../H:C:T:L" below the root, as a uevent names it; NULL: not known)
 * becomes @syspath and @devpath when it exists, the bus's entry is used when it does not. */
int probe_resolve_at(int rootfd, const char *arg, const char *devpath, ProbeResolveFlags flags,
                     LuRef *ret);
/* probe_resolve_nodes() - look up the nodes of @lu (resolved with PROBE_RESOLVE_NO_NODES) that
 * it does not have, as @flags ask: 0 or -ENOMEM; a node that is not there stays NULL. */
int probe_resolve_nodes(int rootfd, LuRef *lu, ProbeResolveFlags flags);
/* probe_open_dir() - open @lu's directory for its attributes (LuRef.dirfd) if it is not open
 * yet: 0, -ENOENT when the LU is gone, -errno. */
int probe_open_dir(int rootfd, LuRef *lu);
/* probe_keep_inquiry() - read the kernel's cached INQUIRY data of @lu into lu->inquiry (once):
 * 0, -ENODATA when it is empty, or as sysfs_read_attr() fails. */
int probe_keep_inquiry(int rootfd, LuRef *lu);
/* probe_attr_at() - where @lu's attribute @attr is opened from: @lu's directory descriptor and
 * @attr itself when it has one, @rootfd and "@syspath/@attr" (in @buf) otherwise; NULL when
 * the path does not fit @size. */
const char *probe_attr_at(const LuRef *lu, int rootfd, const char *attr, char *buf, size_t size,
                          int *ret_dirfd);

typedef enum ProbePage {
	PROBE_INQUIRY,
	PROBE_PG00,
	PROBE_PG80,
	PROBE_PG83,
	PROBE_PG89,
	PROBE_PGB0,
	_PROBE_PAGE_MAX,
	_PROBE_PAGE_INVALID = -EINVAL,
} ProbePage;

typedef enum ProbeSource {
	PROBE_SOURCE_NONE,  /* not available: the device lacks it */
	PROBE_SOURCE_SYSFS, /* the kernel's cached copy */
	PROBE_SOURCE_SGIO,  /* asked the device */
} ProbeSource;

typedef struct ProbeData {
	uint8_t *buf[_PROBE_PAGE_MAX];
	size_t len[_PROBE_PAGE_MAX];
	ProbeSource source[_PROBE_PAGE_MAX];
	int error[_PROBE_PAGE_MAX]; /* why a page is missing (-errno), 0 otherwise */
	unsigned commands;          /* SCSI commands issued */
	/* Pages (1 << ProbePage) the kernel had not cached and a command would have been sent
	 * for, had PROBE_SYSFS_ONLY not forbidden it: what a full probe_read() would ask the
	 * device. 0 when the cache was enough. */
	unsigned uncached;
} ProbeData;

void probe_data_done(ProbeData *d);

typedef enum ProbeFlags {
	PROBE_SYSFS_ONLY = 1 << 0,    /* never send a command */
	PROBE_SGIO_ONLY = 1 << 1,     /* ignore the kernel's cache (compare, or stale cache) */
	PROBE_IDENTITY_ONLY = 1 << 2, /* only the pages an identity is computed from: not the
	                               * block limits page (PROBE_PGB0 stays absent, error 0) */
} ProbeFlags;

/*
 * probe_read() - gather INQUIRY and the VPD pages that identify @lu.
 * A page missing from sysfs is read with SG_IO unless the kernel's cached page 0x00 shows the
 * device does not support it. Returns 0 when at least the INQUIRY data is available, else the
 * error that prevented it (with PROBE_SYSFS_ONLY: the INQUIRY data is not cached, a command
 * would be needed for it).
 */
int probe_read(int rootfd, const LuRef *lu, ProbeFlags flags, ProbeData *ret);

const char *probe_page_name(ProbePage p);
const char *probe_source_name(ProbeSource s);
