/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Command failures the kernel reports (the companion patchset's SDEV_ERROR change uevents,
 * core/errevent.h): each is logged as a structured journal entry, counted per LU for `lunctl
 * status`, and checked against one configurable threshold (N errors of a class within T
 * seconds), whose crossing is logged and can take the LU offline or ask for a target rescan.
 * On LUs that have the patchset's attributes the events are switched on (evt_error=1).
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

/*
 * error_tracker_handle() - one change uevent of a scsi_device (@props: its KEY=VALUE strings).
 * Returns 0 when it is not an error event, 1 when it was counted, -EBADMSG when it claims to be
 * one but is malformed (logged and dropped), -errno.
 */
int error_tracker_handle(ErrorTracker *t, const char *hctl, const LogDevice *dev,
                         const char *const *props, size_t n, uint64_t now_usec);

/*
 * error_tracker_enable() - switch error events on for the LU at @syspath when the kernel has
 * the patchset's evt_error attribute. Returns 1 when enabled, 0 when the attribute is missing
 * (said once per daemon, at LOG_NOTICE): the LU's ioerr_cnt/iotmo_cnt are then polled instead
 * (see error_tracker_poll()). -errno.
 */
int error_tracker_enable(ErrorTracker *t, const char *syspath, const char *hctl);

/*
 * error_tracker_poll() - the stock kernel's substitute for error events: read ioerr_cnt and
 * iotmo_cnt of every LU without them and log and count what grew since the last poll. A grown
 * iotmo_cnt counts as that many timeout errors for the threshold; ioerr_cnt says nothing of the
 * class, so it is counted and logged only. Returns the number of LUs whose counters grew.
 */
int error_tracker_poll(ErrorTracker *t, uint64_t now_usec);

/* error_tracker_attach_event() - poll every @interval_usec on @event. */
int error_tracker_attach_event(ErrorTracker *t, sd_event *event, uint64_t interval_usec);

/* error_tracker_forget() - the LU is gone. */
void error_tracker_forget(ErrorTracker *t, const char *hctl);

/* error_tracker_lu_json() - the LU's counters, NULL when it never had an error. */
json_object *error_tracker_lu_json(ErrorTracker *t, const char *hctl);
/* error_tracker_json() - {"H:C:T:L": counters, ...} plus the threshold, for `status`. */
json_object *error_tracker_json(ErrorTracker *t);
