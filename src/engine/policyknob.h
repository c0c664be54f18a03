/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * The policy knobs lund sets on every LU from lund.conf(5) and lund.hwdb(7): their key in each
 * and the attribute behind them (io/errpolicy.h, which also holds the values each accepts). One
 * table for the daemon's policy engine (daemon/policy-apply.c) and the configuration check
 * (confcheck.h).
 */

#include "errpolicy.h"

typedef enum PolicyKnob {
	KNOB_TIMEOUT,
	KNOB_EH_TIMEOUT,
	KNOB_MAX_RETRIES,
	KNOB_QUEUE_DEPTH,
	KNOB_RETRY_LIMIT, /* the companion patchset's (kernel/): checked by errpolicy */
	KNOB_FAILFAST,
	_KNOB_MAX,
} PolicyKnob;

typedef struct PolicyKnobInfo {
	const char *conf_key; /* lund.conf */
	const char *hwdb_key; /* lund.hwdb */
	ErrKnob errknob;
} PolicyKnobInfo;

extern const PolicyKnobInfo policy_knobs[_KNOB_MAX];
