/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Command failures the kernel reports (the companion patchset's SDEV_ERROR change uevents,
 * core/errevent.h): each is logged as a structured journal entry, counted per LU for `lunctl
 * status`, and checked against one configurable threshold (N errors of a class within T
 * seconds), whose crossing is logged and can take the LU offline or ask for a target rescan.
 * On a patched kernel the per-class counters (errors/<class>) are polled instead, unless events
 * are preferred (lund --error-events), which switches them on (evt_error=1).
 * The classes are whatever the kernel offers (errors/'s files, SDEV_ERROR_CLASS): the known
 * ones (ErrClass) keep their policy, any other valid name is counted and shown under its own
 * (core/errevent.h: ErrClassTable, bounded to ERRCLASS_TABLE_MAX names for all LUs).
 */

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "errevent.h"
#include "log.h"

typedef enum ErrorAction {
	ERROR_ACTION_LOG,     /* only log the crossing */
	ERROR_ACTION_OFFLINE, /* set the LU's state to offline */
	ERROR_ACTION_RESCAN,  /* ask the owner to rescan the LU's target */
	_ERROR_ACTION_MAX,
	_ERROR_ACTION_INVALID = -EINVAL,
} ErrorAction;

typedef struct ErrorThreshold {
	ErrClass class;      /* which errors count */
	unsigned count;      /* N, 1..1000 */
	unsigned window_sec; /* T, 1..86400 */
	ErrorAction action;
} ErrorThreshold;

/* The default: 10 transport errors within 60 s are logged. */
#define ERROR_THRESHOLD_DEFAULT ((ErrorThreshold){ ERRCLASS_TRANSPORT, 10, 60, ERROR_ACTION_LOG })

/*
 * error_threshold_parse() - "CLASS:N/T:ACTION", e.g. "transport:5/60:offline" (ACTION is log,
 * offline or rescan). Returns 0 or -EINVAL.
 */
int error_threshold_parse(const char *s, ErrorThreshold *ret);
const char *error_action_to_string(ErrorAction a);

typedef struct ErrorTracker ErrorTracker;

/* @rescan is called for ERROR_ACTION_RESCAN with the LU's H:C:T:L; NULL: logged only. */
typedef int (*ErrorRescanFn)(const char *hctl, void *userdata);

int error_tracker_new(int rootfd, const ErrorThreshold *threshold, ErrorRescanFn rescan,
                      void *userdata, ErrorTracker **ret);
ErrorTracker *error_tracker_free(ErrorTracker *t);

/* The directory of the LU @hctl below the root, as its owner knows it (with the same userdata);
 * NULL: not known. */
typedef const char *(*ErrorDirFn)(const char *hctl, void *userdata);
/* error_tracker_set_dir_fn() - where a round reads an LU's counters from: @dir's answer, the
 * bus's entry (sys/bus/scsi/devices/H:C:T:L, a symlink that sysfs resolves afresh at each
 * lookup through it) when it has none. */
void error_tracker_set_dir_fn(ErrorTracker *t, ErrorDirFn dir);

/* The block node of the LU @hctl ("sda"), NULL: none. */
typedef const char *(*ErrorBlockFn)(const char *hctl, void *userdata);
/* error_tracker_set_block_fn() - with it, a round of polled counters (below) skips LUs whose
 * disk did no I/O the block layer counted (proc/diskstats, read once per round) since their
 * counters were last read, except every 12th round, which reads every LU: a failure of a
 * command the block layer does not count (SG_IO) on an idle disk is seen within 12 rounds. */
void error_tracker_set_block_fn(ErrorTracker *t, ErrorBlockFn block);

/* A round just read the counters of the LU @hctl: the owner reads its sysfs "state" too. */
typedef void (*ErrorStateFn)(const char *hctl, void *userdata);
/* error_tracker_set_state_fn() - on a stock kernel, nothing tells when the kernel offlines an LU
 * (the patchset's SDEV_STATE uevent is missing): a round that reads an LU's ioerr_cnt/iotmo_cnt
 * calls @state for it, for its state to be read as well. The same gating applies (an idle
 * disk's LU is read only by the every-12th-round sweep): one more small read per LU read, none
 * per idle LU. */
void error_tracker_set_state_fn(ErrorTracker *t, ErrorStateFn state);

/*
 * error_tracker_handle() - one change uevent of a scsi_device (@props: its KEY=VALUE strings).
 * Returns 0 when it is not an error event, 1 when it was counted, -EBADMSG when it claims to be
 * one but is malformed (logged and dropped), -errno.
 */
int error_tracker_handle(ErrorTracker *t, const char *hctl, const LogDevice *dev,
                         const char *const *props, size_t n, uint64_t now_usec);

/*
 * error_tracker_enable() - start watching the LU at @syspath. Where the kernel counts final
 * failures per class (the patchset's errors/<class>), those counters are polled and no event is
 * switched on (returns 2): an error event is a change uevent that udev's 60-block.rules turns
 * into a re-probe of the failing disk. Otherwise, or with error_tracker_prefer_events(), error
 * events are switched on where the kernel has evt_error (returns 1); on a stock kernel the
 * LU's ioerr_cnt/iotmo_cnt are polled (returns 0; said once per daemon, at LOG_NOTICE): with a
 * loop (error_tracker_attach_event()) their first reading is taken once nothing more urgent is
 * pending, or by the next round, whichever comes first, and what they counted until then is
 * not reported; without one, at once. -errno.
 */
void error_tracker_prefer_events(ErrorTracker *t, bool events);
int error_tracker_enable(ErrorTracker *t, const char *syspath, const char *hctl);

/*
 * error_tracker_poll() - read the counters of every LU watched without events and log and
 * count what grew since the last poll: errors/<class> on a patched kernel (each class counted
 * as events of that class are, towards the threshold too); on a stock kernel ioerr_cnt and
 * iotmo_cnt, where a grown iotmo_cnt counts as that many timeout errors and ioerr_cnt, which
 * says nothing of the class, is counted and logged only. Returns the number of LUs whose
 * counters grew.
 */
int error_tracker_poll(ErrorTracker *t, uint64_t now_usec);
/*
 * error_tracker_poll_slice() - the same, in slices: the next @max watched LUs of the round under
 * way (a new round starts after the last one ended); *@ret_done when this slice ended the
 * round. LUs forgotten meanwhile are skipped, ones added meanwhile wait for the next round.
 * Returns the number of LUs whose counters grew in this slice.
 */
int error_tracker_poll_slice(ErrorTracker *t, uint64_t now_usec, size_t max, bool *ret_done);
/*
 * error_tracker_round_waits() - whether the round due now waits an interval: LUs were watched
 * since the last round began (their counters read as they came, or about to be), and
 * fewer than three rounds in a row have waited, so that a stream of new LUs delays the reads of
 * the others by three intervals at most. Counts the round as waited (or not) and starts a new
 * count of LUs added; error_tracker_attach_event()'s timer asks before each round.
 */
bool error_tracker_round_waits(ErrorTracker *t);
/* LUs whose counters are polled (LUs without counters are not read at all). */
size_t error_tracker_n_watched(const ErrorTracker *t);
/* Of those, the LUs whose counters' first reading is still to be taken. */
size_t error_tracker_n_baseline(const ErrorTracker *t);

/* error_tracker_attach_event() - poll every @interval_usec on @event, in slices of a few ms
 * (error_tracker_poll_slice()), not at all while no LU has counters; new LUs' first readings
 * in slices too, at idle priority. */
int error_tracker_attach_event(ErrorTracker *t, sd_event *event, uint64_t interval_usec);

/* error_tracker_kernel_may_change() - the SCSI core may be another from now on (its last LU
 * went away, so its module may have been replaced): what error_tracker_enable() found the
 * kernel to lack is asked again of the next LU. */
void error_tracker_kernel_may_change(ErrorTracker *t);

/* error_tracker_forget() - the LU is gone. */
void error_tracker_forget(ErrorTracker *t, const char *hctl);

/* error_tracker_lu_json() - the LU's counters, NULL when it never had an error. */
json_object *error_tracker_lu_json(ErrorTracker *t, const char *hctl);
/* error_tracker_json() - {"H:C:T:L": counters, ...} plus the threshold, for `status`. */
json_object *error_tracker_json(ErrorTracker *t);
