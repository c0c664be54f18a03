/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What a SCSI host is, read from sysfs (below a root fd) where lsscsi 0.31/0.32 reads it (its
 * transport_init()), so that `lunctl list -H -t`, lund.conf(5)'s driver= and transport= match
 * keys and `lsscsi -H -t` agree: the host's driver and its transport. Used by lunctl list and
 * by the daemon, which reads each host's facts once, when the host appears.
 */

#include <stddef.h>

/* The word transport= matches for a host whose transport class lsscsi does not name: virtio,
 * scsi_debug, most RAID HBAs. */
#define HOSTFACTS_TRANSPORT_NONE "none"

typedef struct HostFacts {
	char *driver;    /* proc_name, else the device's driver; NULL when unknown */
	char *transport; /* as lsscsi -H -t prints it ("sas:0x...", "iscsi:", "usb:1-1:1.0"),
	                  * "" when it prints none */
	char kind[16];   /* its hostfacts_transport_kind(): "fc", "sas", ..., "none" */
} HostFacts;

/* hostfacts_read() - @ret (zeroed first) with host @h's facts. Returns 0, -ENOMEM. A fact
 * sysfs does not give is NULL (driver) or "" (transport), not an error. */
int hostfacts_read(int rootfd, unsigned h, HostFacts *ret);
void hostfacts_done(HostFacts *f);

/* hostfacts_driver() - host @h's driver (scsi_host proc_name, else the name of the driver its
 * device is bound to), malloc'd; NULL when unknown or out of memory. */
char *hostfacts_driver(int rootfd, unsigned h);

/* hostfacts_transport() - the transport lsscsi -H -t prints for host @h, "" when none: 0 with a
 * malloc'd string, -ENOMEM. */
int hostfacts_transport(int rootfd, unsigned h, char **ret);

/*
 * hostfacts_transport_kind() - the kind of a transport string as hostfacts_transport() or an
 * LU's transport gives it: its part before the first ':' ("fc", "fcoe", "sas", "iscsi", "spi",
 * "srp", "sata", "ata", "usb", "sbp"); an iSCSI target port name (no ':' before its ','), as an
 * LU's transport is, is "iscsi"; "" and NULL are HOSTFACTS_TRANSPORT_NONE. Written to @buf
 * (@size bytes): 0, -ENOBUFS.
 */
int hostfacts_transport_kind(const char *transport, char *buf, size_t size);

/* hostfacts_fc_string() - lsscsi's "fc:PORT_NAME,PORT_ID" ("fcoe:" when the host's symbolic
 * name says " over ") from the FC object at sysfs directory @dir of the host at @host_dir;
 * "" when either is missing. 0 with a malloc'd string, -ENOMEM. */
int hostfacts_fc_string(int rootfd, const char *dir, const char *host_dir, char **ret);

/* hostfacts_ata_prefix() - lsscsi's "crude check" on a driver name: "sata:" for ahci and
 * sata_*, "ata:" for any other name holding "ata", NULL for the rest (and for NULL). */
const char *hostfacts_ata_prefix(const char *proc_name);

/*
 * hostfacts_usb_name() - the USB interface lsscsi prints after "usb:" ("1-1:1.0"), from the path
 * an LU's or a host's sysfs link points to: when it contains "usb", the component before the
 * first "/host". Returns 0 (an empty name when there is no "/host"), -ENOENT when the path is
 * not under USB, -ENOBUFS.
 */
int hostfacts_usb_name(const char *devpath, char *buf, size_t size);
