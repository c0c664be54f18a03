/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Kernel uevents through libudev's monitor on the *kernel* netlink group, so lund sees devices
 * with or without udevd. Subsystem filtering is done here, after the sequence number was looked
 * at, not in libudev: libudev drops filtered kernel messages before the caller sees them, and a
 * gap in SEQNUM would then be indistinguishable from a lost message. A lost message (ENOBUFS on
 * the socket, or a SEQNUM gap) asks the owner to resynchronise from sysfs.
 */

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "uevent.h"

/* udevd's own default: room for the uevent storm of a large array being added at once. */
#define MONITOR_RCVBUF_DEFAULT (128u * 1024u * 1024u)
/* Messages handled per wake-up before other event sources get a turn. */
#define MONITOR_BATCH 256

typedef struct Monitor Monitor;

typedef enum MonitorLoss {
	MONITOR_LOSS_ENOBUFS,    /* the receive buffer overflowed */
	MONITOR_LOSS_SEQNUM_GAP, /* a sequence number was skipped */
} MonitorLoss;

typedef struct MonitorStats {
	uint64_t received;   /* kernel messages read */
	uint64_t dispatched; /* passed the subsystem filter */
	uint64_t enobufs;
	uint64_t gaps;
	uint64_t last_seqnum;
	size_t rcvbuf; /* effective receive buffer (kernel's value) */
} MonitorStats;

typedef struct MonitorCallbacks {
	void (*event)(Monitor *m, const Uevent *ev, void *userdata);
	void (*loss)(Monitor *m, MonitorLoss what, uint64_t expected, uint64_t got, void *userdata);
	/* A receive error other than ENOBUFS/EAGAIN: the owner may log it. */
	void (*error)(Monitor *m, int error, void *userdata);
} MonitorCallbacks;

/*
 * monitor_new() - open and bind the monitor and attach it to @e. Events queue in the socket
 * from this point on, so open the monitor before the initial scan of sysfs.
 * @rcvbuf: receive buffer in bytes (0 = MONITOR_RCVBUF_DEFAULT); beyond net.core.rmem_max it
 * needs CAP_NET_ADMIN, else the kernel's limit applies.
 */
int monitor_new(sd_event *e, size_t rcvbuf, const MonitorCallbacks *cb, void *userdata,
                Monitor **ret);
Monitor *monitor_free(Monitor *m);
const MonitorStats *monitor_stats(const Monitor *m);

/* Only these subsystems reach the event callback. */
bool monitor_subsystem_wanted(const char *subsystem);

/* Uevents wait in the monitor's socket, not yet received (a poll() that never blocks). */
bool monitor_pending(const Monitor *m);
