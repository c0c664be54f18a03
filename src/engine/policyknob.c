/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "policyknob.h"

/* The values each knob accepts are errpolicy's (errknob_range(), errknob_validate()): one
 * definition for lund.conf, the hwdb and lunctl policy. */
const PolicyKnobInfo policy_knobs[_KNOB_MAX] = {
	[KNOB_TIMEOUT] = { "timeout", "LUND_TIMEOUT", ERRKNOB_TIMEOUT },
	[KNOB_EH_TIMEOUT] = { "eh_timeout", "LUND_EH_TIMEOUT", ERRKNOB_EH_TIMEOUT },
	[KNOB_MAX_RETRIES] = { "max_retries", "LUND_MAX_RETRIES", ERRKNOB_MAX_RETRIES },
	[KNOB_QUEUE_DEPTH] = { "queue_depth", "LUND_QUEUE_DEPTH", ERRKNOB_QUEUE_DEPTH },
	[KNOB_RETRY_LIMIT] = { "retry_limit", "LUND_RETRY_LIMIT", ERRKNOB_RETRY_LIMIT },
	[KNOB_FAILFAST] = { "failfast", "LUND_FAILFAST", ERRKNOB_FAILFAST },
};
