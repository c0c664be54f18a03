/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Host scans off the event loop. Under scsi_mod.scan=manual the kernel scans nothing, so the
 * daemon scans every host at start-up and each host (or transport target) that appears later.
 * A scan takes seconds (the kernel's probe of each new LU, REPORT LUNS per target), far longer
 * than the loop may stall: the engine (engine/scan.h) runs as a job of the scanner's own worker
 * (worker.h, one thread), and what it decides comes back to the loop through an eventfd, one
 * action at a time, in the loop's thread, before the job's own result.
 *
 * Scans run one after the other; requests made meanwhile are merged (a request for every host
 * absorbs the others) and run when the current scan ends. Clients' requests (`lunctl rescan`)
 * queue here too, unmerged, each answered by the owner when its scan ends. Host scans only add LUs
 * (SCAN_ADD): nothing is ever removed on these triggers. Target rescans (unit attentions, error
 * thresholds) queue here too, with their own flags, so the loop never waits for a scan.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "scan.h"

typedef struct HostScanner HostScanner;

/* Requests from outside (control clients) waiting at most; each is answered when refused. */
#define HOST_SCAN_QUEUE_MAX 32

/* One scan, queued or running. */
typedef struct HostScanRequest {
	ScanSelector *sel; /* n_sel selectors (owned); n_sel 0: every host */
	size_t n_sel;
	ScanFlags flags;
	ScanPolicy pol; /* timeout_ms, max_workers, seq_max_lun (0: defaults); quirks are set */
	char *reason;   /* for logs and status */
	void *owner;    /* the submitter's own request (a client waiting), NULL for lund's own */
	bool progress;  /* hand HOST_BEGIN and TARGET_DONE events to the loop too */
	uint64_t queued_usec, started_usec; /* CLOCK_MONOTONIC; started 0 while queued */
} HostScanRequest;

/* The host a request scans, SCAN_ANY when it is every host or more than one. */
int64_t host_scan_request_host(const HostScanRequest *req);

typedef struct HostScanCallbacks {
	/* One event of the engine in the loop's thread: every ACTION (never a PROBE), and
	 * HOST_BEGIN and TARGET_DONE (their targets_done/targets_total set). */
	void (*event)(void *userdata, const HostScanRequest *req, const ScanEvent *ev);
	/* A scan ended: @r is scan_run()'s return value, @res its result (only when r >= 0).
	 * -ECANCELED: an owned request its owner no longer wanted (never ran). */
	void (*done)(void *userdata, const HostScanRequest *req, int r, const ScanResult *res);
	/* Asked before an owned request starts: false drops it (done with -ECANCELED).
	 * May be NULL. */
	bool (*wanted)(void *userdata, const HostScanRequest *req);
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
 * A scan whose kernel write does not return within that is left running, detached; its worker
 * thread frees the scanner when (if ever) the write returns. Returns -ETIMEDOUT then, 0 when
 * freed. Either way @s is gone for the caller. What the scan uses beyond the scanner (the root
 * fd, the serialize mutex, the policy's userdata) must outlive it: the process is about to exit.
 * A scan its worker has not taken up yet is dropped, as the queued ones are: none starts
 * once shutdown has begun. The scan's thread is a worker's (worker_live_threads() counts it
 * until it ends).
 */
int host_scanner_shutdown(HostScanner *s, uint64_t grace_usec);

/*
 * host_scanner_queue() - scan @host (SCAN_ANY: every host) for new LUs. @reason (copied) is
 * given back to the done callback. Starts at once when idle. Returns 0 or -errno.
 */
int host_scanner_queue(HostScanner *s, int64_t host, const char *reason);

/*
 * host_scanner_queue_full() - any scan off the loop: @sel (one selector; host SCAN_ANY: every
 * host) with @flags (engine/scan.h). A request equal to a queued one, or covered by a queued
 * scan of every host with the same flags, is merged into it. @reason is copied.
 */
int host_scanner_queue_full(HostScanner *s, const ScanSelector *sel, ScanFlags flags,
                            const char *reason);

/*
 * host_scanner_submit() - queue a scan for a client: @req's selectors, flags, policy, reason,
 * owner and progress are copied (queued_usec/started_usec are set here). Owned requests are
 * never merged, and at most HOST_SCAN_QUEUE_MAX of them wait: -EBUSY beyond. The done callback
 * gets the request back with its owner, in the loop's thread, when it ends.
 */
int host_scanner_submit(HostScanner *s, const HostScanRequest *req);

/* Drop the queued request of @owner (a running one cannot be stopped): 0, -EBUSY when it
 * runs, -ENOENT when there is none. The done callback is not called. */
int host_scanner_cancel(HostScanner *s, const void *owner);

/* The running request, or NULL; the @i-th waiting one, or NULL. */
const HostScanRequest *host_scanner_current(const HostScanner *s);
const HostScanRequest *host_scanner_queued(const HostScanner *s, size_t i);

/* Requests waiting behind the running scan. */
size_t host_scanner_n_queued(const HostScanner *s);
bool host_scanner_running(const HostScanner *s);

/* A scan is running or queued. */
bool host_scanner_busy(const HostScanner *s);

/* Scans finished since creation. */
unsigned host_scanner_n_done(const HostScanner *s);
