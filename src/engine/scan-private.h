/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the pieces of the scan engine share; callers use scan.h only.
 *
 *   scan.c         scan_run(): defaults, the result (flattened, sorted, counted), and the
 *                  recording of actions and events every piece goes through;
 *   scan-plan.c    what to scan: selectors, hosts and targets from sysfs and the transport
 *                  classes, the LUs the kernel has, the target probes of each host;
 *   scan-target.c  one target: REPORT LUNS or a sequential probe, and the add, remove (with its
 *                  in-use checks) and resize decisions;
 *   scan-ids.c     SCAN_IDS: INQUIRY and VPD against the kernel's cached copies;
 *   scan-pool.c    the worker threads and their job queue;
 *   scan-io.c      scan_io_default: SG_IO and sysfs writes.
 *
 * Locking: Scan.lock guards every field below it in Scan, and the events; workers take it only
 * to queue, record and emit, never around I/O.
 */

#include <dirent.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"
#include "scan.h"

/* SPC: REPORT LUNS header is 8 bytes; a first read for 512 LUNs covers nearly every target, the
 * re-read takes what the header asks for, up to 16384 LUNs. */
#define REPORT_LUNS_FIRST (8u + 512u * 8u)
#define REPORT_LUNS_MAX   (8u + 16384u * 8u)

typedef struct TargetJob {
	ScanTarget t;
	/* The target's LUs from its host's listing, taken after the host's target probes, so
	 * the target job need not list sysfs again (one listing per host, not per target). */
	ScanLu *lus;
	size_t n_lus;
	bool listed;
	/* What REPORT LUNS answered (sorted) and which of it the kernel lacks, kept while the
	 * job waits for its host's writer. */
	uint64_t *rep, *missing;
	size_t n_rep, n_missing;
	struct TargetJob *next_write; /* in Scan.writes */
} TargetJob;

typedef struct Job {
	bool is_host;
	size_t index; /* into hosts[] or targets[] */
} Job;

typedef struct Scan {
	const ScanContext *ctx;
	const ScanIo *io;
	ScanPolicy pol;
	ScanFlags flags;
	const ScanSelector *sel;
	size_t n_sel;
	int rootfd;

	pthread_mutex_t lock;
	pthread_cond_t cond;      /* a job queued, or the pool done: for the workers */
	pthread_cond_t pool_cond; /* the pool done (CLOCK_MONOTONIC): for scan_pool_run() */

	ScanHost *hosts;
	size_t n_hosts;
	TargetJob **targets;
	size_t n_targets, cap_targets;
	ScanAction *actions;
	size_t n_actions, cap_actions;

	Job *queue;
	size_t q_head, q_len, q_cap;
	unsigned running;
	unsigned targets_done;
	unsigned commands;
	int fatal; /* ENOMEM and the like while queueing */

	/* LUs a target probe instantiated: added by this scan, so not "unchanged" later. */
	char (*probe_added)[64];
	size_t n_probe_added;

	/* Target jobs whose adds and removals wait for their host's writer (scan-target.c),
	 * in order, and which hosts have one at work (parallel to hosts[]). */
	TargetJob *writes_head, *writes_tail;
	bool *host_writing;
} Scan;

/* Length of an INQUIRY string field without its trailing blanks. */
static inline size_t scan_field_len(const char *p, size_t n)
{
	while (n > 0 && p[n - 1] == ' ')
		n--;
	return n;
}

/*
 * Format a sysfs path. A path that does not fit becomes "", which every *at() call refuses
 * (ENOENT), so a truncated name can never address a different file. 0 or -ENAMETOOLONG.
 */
int scan_pathfmt(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);

/* scan.c: recording. *_locked() want s->lock held; the others take it. */
bool scan_was_probe_added(Scan *s, const char *hctl);
/* Record @lu as added by this scan's probe of its target (the probe's write is the action that
 * added it, so it is not "unchanged" later), for @reason (scan-plan.c). */
void scan_record_added(Scan *s, const ScanLu *lu, const char *reason);
void scan_emit_locked(Scan *s, ScanEvent *ev);
void scan_debug(Scan *s, const char *fmt, ...) _printf_(2, 3);
int scan_record_action(Scan *s, const ScanAction *a);
void scan_action_init(ScanAction *a, ScanActionKind kind, const ScanLu *lu);
/* Record a check of @lu that failed with @error, and which (printf-style @fmt). */
void scan_record_failure(Scan *s, ScanActionKind kind, const ScanLu *lu, int error, const char *fmt,
                         ...) _printf_(5, 6);
/* Write @a (unless a dry run) and record it. */
int scan_apply(Scan *s, ScanAction *a);

/* scan-plan.c */
bool scan_sel_match(const ScanSelector *sel, size_t n_sel, unsigned h, int64_t c, int64_t t,
                    int64_t l);
bool scan_whole_target_selected(const Scan *s, const ScanTarget *t);
void scan_lus_free(ScanLu *v, size_t n);
int scan_list_lus(int rootfd, unsigned host, int64_t channel, int64_t target, ScanLu **ret,
                  size_t *ret_n);
int scan_lu_details(int rootfd, ScanLu *lu);
/* What sending a command to @lu needs: its sg node and, with @want_type, its peripheral
 * device type (scan_lu_details() reads these and its block device). */
void scan_lu_node(int rootfd, ScanLu *lu, bool want_type);
bool scan_lu_exists(int rootfd, unsigned h, unsigned c, unsigned t, uint64_t l);
int scan_list_hosts(Scan *s);
void scan_probe_action(ScanAction *a, unsigned host, const char *c, const char *t, const char *l,
                       const char *reason);
/* Find the host's targets, probe those the kernel lacks (SCAN_ADD), queue a job for each. */
void scan_run_host(Scan *s, ScanHost *host);

/* scan-target.c */
void scan_run_target(Scan *s, TargetJob *tj);

/* scan-ids.c: returns true when it planned or applied a rescan. */
bool scan_ids_check(Scan *s, ScanTarget *t, ScanLu *lu);

/* scan-pool.c */
int scan_push_job_locked(Scan *s, Job j);
/* Run the queued jobs (and those they queue) on up to pol.max_workers threads, to the end. */
int scan_pool_run(Scan *s);
