/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Identifying one LU off the event loop: a job is a copy of what its identification needs, made
 * in the loop's thread (lu_identify_job_new()), run in any thread (lu_identify_job_run(), which
 * touches nothing but the job: no inventory, no LU), and read back in the loop's thread, where
 * the inventory decides whether the result still applies (inventory_identify_done(), by the
 * job's token).
 *
 * Two kinds of job, each run in threads of its own (IdentifyThreads, below): a
 * cache-only job reads the kernel's cached pages and sends no SCSI command, so it never waits
 * for a device; any other job may send commands and wait as long as the device does. A
 * cache-only job that finds the kernel cached too little, and a job that had no node to send
 * commands to while its LU has one by now, end without names: the LU is asked again with
 * commands (lu_identify_job_reask()).
 *
 * The LuRef readers below are the ones the inventory reads an LU with in the loop, so that both
 * read the same attributes the same way.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "naming.h"
#include "pathid.h"
#include "probe.h"
#include "udevctx.h"

typedef struct Lu Lu;
typedef struct LuIdentifyJob LuIdentifyJob;

/* What describes the LU, as a job with read_info read it. */
typedef struct LuIdentifyInfo {
	int error; /* -ENOENT: the LU's directory was not there; the rest is unset */
	int type;  /* -1: unknown */
	unsigned scsi_level;
	char vendor[64], model[64], revision[64], state[64];
	bool vendor_ok, model_ok, revision_ok, state_ok; /* false: unreadable */
} LuIdentifyInfo;

/*
 * lu_identify_job_new() - a job for @lu as the inventory knows it (its strings copied, its
 * Lu.identify_token the job's token; with Lu.info_pending it reads what describes the LU
 * first: LuIdentifyInfo), to read below @rootfd with @flags (PROBE_SYSFS_ONLY: a cache-only
 * job), with @rules (copied).
 * Returns 0, -EINVAL (Lu.hctl is no H:C:T:L) or -ENOMEM.
 */
int lu_identify_job_new(const Lu *lu, int rootfd, ProbeFlags flags, const UdevRules *rules,
                        LuIdentifyJob **ret);
/* In any thread: read the pages (SG_IO for what the kernel did not cache, unless cache-only)
 * and derive the names. Touches nothing but @job. */
void lu_identify_job_run(LuIdentifyJob *job);
void lu_identify_job_free(LuIdentifyJob *job);

const char *lu_identify_job_hctl(const LuIdentifyJob *job);
uint64_t lu_identify_job_token(const LuIdentifyJob *job);
/* The job reads the kernel's cached pages and sends no command: it never waits for a device,
 * so it need not queue behind those that do. */
bool lu_identify_job_cache_only(const LuIdentifyJob *job);

/* After lu_identify_job_run(): what describes the LU, NULL when the job was not to read it;
 * the caller may take its strings in place. */
LuIdentifyInfo *lu_identify_job_info(LuIdentifyJob *job);
/*
 * lu_identify_job_reask() - after lu_identify_job_run(): whether the LU must be identified
 * again with commands, its names not being in this result: a cache-only job found the kernel
 * cached too little, or the job had no node to send commands to and the LU has one now
 * (@lu_has_node: its node's uevent came while the job ran).
 */
bool lu_identify_job_reask(const LuIdentifyJob *job, bool lu_has_node);
/*
 * lu_identify_job_result() - after lu_identify_job_run(): the names, moved to @ret_naming, the
 * SCSI commands sent and whether a page could not be read for want of a node. Returns the
 * identification's result: 0, or -errno (no names then).
 */
int lu_identify_job_result(LuIdentifyJob *job, LuNaming *ret_naming, unsigned *ret_commands,
                           bool *ret_no_node);

/*
 * lu_identify_names() - @ref's names (@naming) from the pages in @pd, for which probe_read()
 * returned @r; *@no_node when a page could not be read for want of a node. Returns 0 or -errno.
 */
int lu_identify_names(int rootfd, const LuRef *ref, const ProbeData *pd, int r, unsigned scsi_level,
                      bool is_cdrom, const UdevRules *rules, LuNaming *naming, bool *no_node);

/* The LU's peripheral device type ("type"), -1 when unreadable or out of range. */
int lu_ref_type(int rootfd, const LuRef *ref);
/* The LU's "scsi_level", 0 when unreadable or out of range. */
unsigned lu_ref_scsi_level(int rootfd, const LuRef *ref);
/*
 * lu_ref_read_strings() - the vendor, model, revision and state of the LU @ref names into @info
 * (the *_ok flags say which could be read). The kernel prints the first three from its cached
 * INQUIRY data: taken from that data when @ref holds it (LuRef.inquiry, probe_keep_inquiry()),
 * which identification reads anyway, instead of one attribute each.
 */
void lu_ref_read_strings(int rootfd, const LuRef *ref, LuIdentifyInfo *info);

/*
 * IdentifyThreads - where jobs run off the loop: jobs that may send commands in
 * IDENTIFY_THREADS threads, each bounded by IDENTIFY_TIMEOUT_USEC (its end is then -ETIMEDOUT,
 * reported at the deadline while the job runs on and its result is dropped); cache-only jobs in
 * threads of their own, no more than there are CPUs, with no deadline, so that they never queue
 * behind a device that takes its time. Each job's end comes back in the loop's thread through
 * the done function, after which the job is freed. A kind of job whose threads could not be had
 * runs in the caller's thread, its end reported before identify_threads_submit() returns.
 */

/* Identification with SG_IO: a handful of commands, each with its own 20 s timeout in the
 * kernel; past this the LU is left unidentified (no names) until an event re-probes it. */
#define IDENTIFY_TIMEOUT_USEC (30 * 1000 * 1000ULL)
/* Identifications run side by side: one device that does not answer holds one thread. */
#define IDENTIFY_THREADS 4

typedef struct IdentifyThreads IdentifyThreads;
/* In the loop's thread: @job ended with @error (0, -ETIMEDOUT); freed after this returns. */
typedef void (*IdentifyDoneFn)(LuIdentifyJob *job, int error, void *userdata);

/* identify_threads_new() - no thread yet (identify_threads_start()). Returns 0 or -ENOMEM. */
int identify_threads_new(sd_event *e, IdentifyDoneFn done, void *userdata, IdentifyThreads **ret);
/* identify_threads_start() - the threads for cache-only jobs (@cache_only) or for the others.
 * Returns 0, or -errno: such jobs then run in the caller's thread. */
int identify_threads_start(IdentifyThreads *t, bool cache_only);
/* identify_threads_submit() - run @job off the loop. Takes @job. Returns 0, or -errno when it
 * could not be queued (@job is freed, no end is reported). */
int identify_threads_submit(IdentifyThreads *t, LuIdentifyJob *job);
/*
 * identify_threads_stop() - drop the queued jobs of one kind (their ends are not reported) and
 * wait @grace_usec at most for the running ones: worker_shutdown()'s contract (-ETIMEDOUT when
 * one is still in the kernel). No-op for threads already stopped or never started.
 */
int identify_threads_stop(IdentifyThreads *t, bool cache_only, uint64_t grace_usec);
/* Stops what still runs (no grace) and frees @t; NULL is fine. */
IdentifyThreads *identify_threads_free(IdentifyThreads *t);
