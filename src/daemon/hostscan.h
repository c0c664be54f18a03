/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Host scans off the event loop. Under scsi_mod.scan=manual the kernel scans nothing, so the
 * daemon scans every host at start-up and each host (or transport target) that appears later.
 * A scan takes seconds (the kernel's probe of each new LU, REPORT LUNS per target), far longer
 * than the loop may stall: the engine (engine/scan.h) runs in one background thread, and what it
 * decides comes back to the loop through an eventfd, one action at a time, in the loop's thread.
 *
 * Scans run one after the other; requests made meanwhile are merged (a request for every host
 * absorbs the others) and run when the current scan ends. Host scans only add LUs (SCAN_ADD):
 * nothing is ever removed on these triggers. Target rescans (unit attentions, error
 * thresholds) queue here too, with their own flags, so the loop never waits for a scan.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "scan.h"

typedef struct HostScanner HostScanner;

typedef struct HostScanCallbacks {
	/* One decision of the engine (never a PROBE), in the loop's thread. */
	void (*action)(void *userdata, const ScanAction *a);
	/* A scan ended: @r is scan_run()'s return value, @res its result (only when r >= 0).
	 * @host is the host scanned, or SCAN_ANY for all; @reason what was given to queue. */
	void (*done)(void *userdata, int64_t host, const char *reason, int r,
	             const ScanResult *res);
} HostScanCallbacks;

int host_scanner_new(sd_event *e, int rootfd, const HostScanCallbacks *cb, void *userdata,
                     HostScanner **ret);

/* The engine's I/O (engine/scan.h); NULL: scan_io_default. For tests; set before queueing. */
void host_scanner_set_io(HostScanner *s, const ScanIo *io, void *io_userdata);

/*
 * The scan policy (quirks; copied) and a mutex the scan thread holds for the whole of each
 * scan, so that the owner's own scans, taking the same mutex, never run beside it. Either may
 * be NULL. Set before queueing.
 */
void host_scanner_set_policy(HostScanner *s, const ScanPolicy *pol, pthread_mutex_t *serialize);

/* Waits for a running scan to end (it cannot be interrupted), then frees. NULL is fine. */
HostScanner *host_scanner_free(HostScanner *s);

/*
 * host_scanner_shutdown() - free @s once its running scan ends, waiting @grace_usec at most.
 * A scan whose kernel write does not return within that is left running, detached; its thread
 * frees the scanner when (if ever) the write returns. Returns -ETIMEDOUT then, 0 when freed.
 * Either way @s is gone for the caller. What the scan uses beyond the scanner (the root fd, the
 * serialize mutex, the policy's userdata) must outlive it: the process is about to exit.
 */
int host_scanner_shutdown(HostScanner *s, uint64_t grace_usec);

/* Scan threads alive in the process, abandoned ones included. */
unsigned host_scanner_live_threads(void);

/*
 * host_scanner_queue() - scan @host (SCAN_ANY: every host) for new LUs. @reason is a static
 * string kept for the done callback. Starts at once when idle. Returns 0 or -errno.
 */
int host_scanner_queue(HostScanner *s, int64_t host, const char *reason);

/*
 * host_scanner_queue_full() - any scan off the loop: @sel (one selector; host SCAN_ANY: every
 * host) with @flags (engine/scan.h). A request equal to a queued one, or covered by a queued
 * scan of every host with the same flags, is merged into it. @reason is a static string.
 */
int host_scanner_queue_full(HostScanner *s, const ScanSelector *sel, ScanFlags flags,
                            const char *reason);

/* Requests waiting behind the running scan. */
size_t host_scanner_n_queued(const HostScanner *s);
bool host_scanner_running(const HostScanner *s);

/* A scan is running or queued. */
bool host_scanner_busy(const HostScanner *s);

/* Scans finished since creation. */
unsigned host_scanner_n_done(const HostScanner *s);
