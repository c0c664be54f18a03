/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Kernel uevents as lund sees them, and what it does with each: one table from (ACTION,
 * SUBSYSTEM, DEVTYPE) to reactions, which the daemon's manager and inventory each carry out
 * their part of. Pure: no syscalls, no logging; the strings are the caller's.
 */

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A kernel uevent, as much of it as lund uses (all strings may be NULL). */
typedef struct Uevent {
	const char *action;
	const char *subsystem;
	const char *devtype;
	const char *devpath; /* "/devices/..." */
	const char *sdev_ua; /* SDEV_UA= */
	/* SYNTH_ARG_LUND=: "ids" on the synthetic change a scan sends after rescanning an LU
	 * whose IDs changed (engine/scan.h, SCAN_IDS) */
	const char *synth_lund;
	const char *modalias; /* MODALIAS= */
	/* SDEV_STATE=: the companion patchset's event of a device going offline (kernel/ patch 7;
	 * uevent_sdev_state_parse()) */
	const char *sdev_state;
	bool synthetic; /* SYNTH_UUID=: replayed through sysfs "uevent" (udevadm trigger) */
	uint64_t seqnum;
	/* Every KEY=VALUE of a change uevent that carries SDEV_ERROR (daemon/errors.h). */
	const char *const *props;
	size_t n_props;
} Uevent;

/* What lund does with a uevent. One uevent may call for several: they are done in this order. */
typedef enum UeventReaction {
	UEVENT_LOAD_DRIVERS, /* add of a scsi_device: its upper driver and sg, without udevd */
	UEVENT_REIDENTIFIED, /* change with SYNTH_ARG_LUND=ids: a scan had the IDs re-read */
	UEVENT_ERROR,        /* change with SDEV_ERROR: an error report (companion patchset) */
	UEVENT_STATE,        /* change of a scsi_device with SDEV_STATE: it went offline (ditto) */
	UEVENT_NEW_HOST,     /* add of a scsi_host: scan it when nobody else does */
	UEVENT_NEW_TARGET_PORT, /* add of a transport's target port: scan its host likewise */
	UEVENT_LU,              /* anything about a scsi_device */
	UEVENT_HOST_REMOVED,    /* remove of a scsi_target or scsi_host */
	UEVENT_NODE,            /* a node of an LU: block, scsi_generic, bsg, scsi_tape */
	UEVENT_HOLDER,          /* a whole block device that may hold LUs' nodes (a dm map) */
	_UEVENT_REACTION_MAX,
	_UEVENT_REACTION_INVALID = -EINVAL,
} UeventReaction;

/* A set of reactions, bit (1 << UeventReaction). */
typedef uint32_t UeventReactions;

/*
 * uevent_reactions() - every reaction the table lists for @ev's action, subsystem and devtype.
 * A reaction keyed on a property as well (UEVENT_REIDENTIFIED, UEVENT_ERROR, UEVENT_STATE) is
 * listed on the action (and device) alone: its handler looks at the property. An event without
 * an action calls for none.
 */
UeventReactions uevent_reactions(const Uevent *ev);

/*
 * uevent_devpath_host() - N of the first "hostN" component of @devpath (the kernel's host_no,
 * an unsigned int). Returns 0, or -ENOENT when there is none.
 */
int uevent_devpath_host(const char *devpath, unsigned *ret);

/*
 * uevent_devpath_hctl() - the last component of @devpath that is a scsi_device's H:C:T:L
 * (hctl_parse()), as a new string. Returns 0, -ENOENT when there is none, or -ENOMEM.
 */
int uevent_devpath_hctl(const char *devpath, char **ret);

/*
 * uevent_lu_devpath() - the directory of the scsi_device @devpath names, relative to the root
 * ("sys/devices/.../H:C:T:L"), in @ret; false when @devpath is not one: not below /devices/, an
 * empty, "." or ".." component, a last component that is no H:C:T:L, or too long.
 */
bool uevent_lu_devpath(const char *devpath, char ret[static PATH_MAX]);

/*
 * uevent_modalias_scsi_type() - the peripheral device type a scsi_device's MODALIAS carries
 * ("scsi:t-0x%02x": the kernel's sdev->type, the value of its sysfs "type"), 0..0x1f; -EINVAL
 * for NULL or any other form.
 */
int uevent_modalias_scsi_type(const char *modalias);

/*
 * uevent_devpath_dm() - the node of the device-mapper device @devpath names
 * ("/devices/virtual/block/dm-3" -> "dm-3", pointing into @devpath), or NULL when @devpath is
 * not one (dm-<decimal> directly below /devices/virtual/block/).
 */
const char *uevent_devpath_dm(const char *devpath);

/* The states SDEV_STATE= names: the kernel's own names of them, as sysfs "state" shows them. */
typedef enum UeventSdevState {
	UEVENT_SDEV_OFFLINE,           /* "offline": error recovery gave up, or user space */
	UEVENT_SDEV_TRANSPORT_OFFLINE, /* "transport-offline": the transport class gave up */
	_UEVENT_SDEV_STATE_MAX,
	_UEVENT_SDEV_STATE_INVALID = -EINVAL,
} UeventSdevState;

/*
 * uevent_sdev_state_parse() - the value of SDEV_STATE=. Returns 0; -ENODATA when @s is NULL (not
 * a state event); -EBADMSG for any other value (an empty one, another state, trailing bytes).
 */
int uevent_sdev_state_parse(const char *s, UeventSdevState *ret);
const char *uevent_sdev_state_to_string(UeventSdevState s);
