/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * The policy knobs lund sets on every LU from lund.conf(5) and lund.hwdb(7): their key in each
 * and the attribute behind them: the LU's own (io/errpolicy.h, which also holds the values each
 * accepts) or its transport's, the iSCSI session's or FC remote port's (tportknob.h). One table
 * for the daemon's policy engine (daemon/policy-apply.c) and the configuration check
 * (confcheck.h).
 */

#include <stddef.h>

#include "errpolicy.h"
#include "tportknob.h"

typedef enum PolicyKnob {
	KNOB_TIMEOUT,
	KNOB_EH_TIMEOUT,
	KNOB_MAX_RETRIES,
	KNOB_QUEUE_DEPTH,
	KNOB_RETRY_LIMIT, /* the companion patchset's (kernel/): checked by errpolicy */
	KNOB_FAILFAST,
	KNOB_RECOVERY_TMO, /* the transport's (tportknob.h) from here on */
	KNOB_FAST_IO_FAIL_TMO,
	KNOB_DEV_LOSS_TMO,
	_KNOB_MAX,
} PolicyKnob;

typedef struct PolicyKnobInfo {
	const char *conf_key; /* lund.conf */
	const char *hwdb_key; /* lund.hwdb */
	ErrKnob errknob;      /* the LU's attribute, or _ERRKNOB_INVALID */
	TportKnob tportknob;  /* the transport's attribute, or _TPORT_KNOB_INVALID */
} PolicyKnobInfo;

extern const PolicyKnobInfo policy_knobs[_KNOB_MAX];

/* policy_knob_is_transport() - @k is set on the LU's iSCSI session or FC remote port. */
bool policy_knob_is_transport(PolicyKnob k);

/* policy_knob_validate() - @value for @k in its canonical form (errknob_validate() or
 * tport_knob_validate()): 0, -EINVAL, -ENOBUFS. */
int policy_knob_validate(PolicyKnob k, const char *value, char *ret, size_t size);

/* policy_knob_help() - the values @k accepts, for messages. */
const char *policy_knob_help(PolicyKnob k);
