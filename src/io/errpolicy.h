/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A logical unit's error-handling knobs in sysfs: what the stock kernel offers (the scsi_device's
 * timeout, eh_timeout and queue_depth, sd's max_retries, the ioerr_cnt/iotmo_cnt/iorequest_cnt
 * counters) and what the companion patchset (kernel/) adds (retry_limit, failfast, evt_error,
 * evt_error_burst, evt_error_interval_ms). Which exist is detected per LU at runtime: a knob is
 * present when its attribute is. All access goes through the root dirfd (sysfs.h). io/ does not
 * log: functions return -errno.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum ErrKnob {
	ERRKNOB_TIMEOUT,
	ERRKNOB_EH_TIMEOUT,
	ERRKNOB_MAX_RETRIES,
	ERRKNOB_QUEUE_DEPTH,
	ERRKNOB_RETRY_LIMIT,
	ERRKNOB_FAILFAST,
	ERRKNOB_EVT_ERROR,
	ERRKNOB_EVT_ERROR_BURST,
	ERRKNOB_EVT_ERROR_INTERVAL_MS,
	ERRKNOB_IOREQUEST_CNT,
	ERRKNOB_IOERR_CNT,
	ERRKNOB_IOTMO_CNT,
	_ERRKNOB_MAX,
	_ERRKNOB_INVALID = -EINVAL,
} ErrKnob;

const char *errknob_to_string(ErrKnob k);
ErrKnob errknob_from_string(const char *s);
/* errknob_writable() - false for the counters. */
bool errknob_writable(ErrKnob k);
/* errknob_patched() - true for the knobs only the companion patchset provides. */
bool errknob_patched(ErrKnob k);
/* errknob_disk_only() - true for sd's max_retries (absent on LUs sd does not drive). */
bool errknob_disk_only(ErrKnob k);
/* errknob_help() - the accepted values, for messages ("default|0..255"). */
const char *errknob_help(ErrKnob k);
/*
 * errknob_range() - the integer range @k accepts: the one definition lunctl policy, lund.conf and
 * the hwdb all check against. -EINVAL for failfast and the counters.
 */
int errknob_range(ErrKnob k, long *ret_min, long *ret_max);

/* Longest canonical value errknob_validate() produces ("transport,device,driver"). */
#define ERRKNOB_VALUE_MAX 32U

/*
 * errknob_validate() - check @value for @k against what the kernel accepts, without I/O, and
 * write its canonical form (what is written to sysfs) to @ret (@size bytes).
 * Integers are plain decimal (a '-' only for max_retries=-1); failfast is "none" or a set of
 * transport, device, driver separated by ',' or blanks ("none" alone). Returns 0, -EINVAL
 * (bad value, or @k is read-only), -ENOBUFS (@size too small).
 */
int errknob_validate(ErrKnob k, const char *value, char *ret, size_t size);

/* errknob_path() - @k's attribute below the LU at @syspath ("sys/bus/scsi/devices/H:C:T:L"). */
int errknob_path(const char *syspath, const char *hctl, ErrKnob k, char **ret);

typedef struct ErrPolicy {
	bool present[_ERRKNOB_MAX];
	char *value[_ERRKNOB_MAX]; /* as the kernel shows it, newline removed; NULL if absent */
	int error[_ERRKNOB_MAX];   /* why a present knob could not be read, 0 otherwise */
} ErrPolicy;

void errpolicy_done(ErrPolicy *p);

/*
 * errpolicy_read() - detect and read every knob of the LU. An absent attribute is not an error
 * (present[k] false); one that exists but cannot be read is recorded in error[k].
 * Returns 0, -ENOENT when the LU itself is gone, -ENOMEM.
 */
int errpolicy_read(int rootfd, const char *syspath, const char *hctl, ErrPolicy *ret);

/* errpolicy_has_patchset() - the companion patchset's attributes are there (retry_limit,
 * failfast and evt_error all present). */
bool errpolicy_has_patchset(const ErrPolicy *p);

/*
 * errpolicy_write() - validate @value and write it to @k. Nothing is written unless the value
 * is valid. Returns 0; -EINVAL (invalid value, or the kernel refused it: the attribute is left
 * as it was); -EOPNOTSUPP (this kernel or this LU lacks the knob); -errno.
 */
int errpolicy_write(int rootfd, const char *syspath, const char *hctl, ErrKnob k,
                    const char *value);
