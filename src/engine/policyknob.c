/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>

#include "policyknob.h"

/* The values each knob accepts are errpolicy's (errknob_range(), errknob_validate()): one
 * definition for lund.conf, the hwdb and lunctl policy. */
const PolicyKnobInfo policy_knobs[_KNOB_MAX] = {
	[KNOB_TIMEOUT] = { "timeout", "LUND_TIMEOUT", ERRKNOB_TIMEOUT, _TPORT_KNOB_INVALID },
	[KNOB_EH_TIMEOUT] = { "eh_timeout", "LUND_EH_TIMEOUT", ERRKNOB_EH_TIMEOUT,
	                      _TPORT_KNOB_INVALID },
	[KNOB_MAX_RETRIES] = { "max_retries", "LUND_MAX_RETRIES", ERRKNOB_MAX_RETRIES,
	                       _TPORT_KNOB_INVALID },
	[KNOB_QUEUE_DEPTH] = { "queue_depth", "LUND_QUEUE_DEPTH", ERRKNOB_QUEUE_DEPTH,
	                       _TPORT_KNOB_INVALID },
	[KNOB_RETRY_LIMIT] = { "retry_limit", "LUND_RETRY_LIMIT", ERRKNOB_RETRY_LIMIT,
	                       _TPORT_KNOB_INVALID },
	[KNOB_FAILFAST] = { "failfast", "LUND_FAILFAST", ERRKNOB_FAILFAST, _TPORT_KNOB_INVALID },
	[KNOB_RECOVERY_TMO] = { "recovery_tmo", "LUND_RECOVERY_TMO", _ERRKNOB_INVALID,
	                        TPORT_RECOVERY_TMO },
	[KNOB_FAST_IO_FAIL_TMO] = { "fast_io_fail_tmo", "LUND_FAST_IO_FAIL_TMO", _ERRKNOB_INVALID,
	                            TPORT_FAST_IO_FAIL_TMO },
	[KNOB_DEV_LOSS_TMO] = { "dev_loss_tmo", "LUND_DEV_LOSS_TMO", _ERRKNOB_INVALID,
	                        TPORT_DEV_LOSS_TMO },
};

bool policy_knob_is_transport(PolicyKnob k)
{
	return k >= 0 && k < _KNOB_MAX && policy_knobs[k].tportknob >= 0;
}

int policy_knob_validate(PolicyKnob k, const char *value, char *ret, size_t size)
{
	if (k < 0 || k >= _KNOB_MAX)
		return -EINVAL;
	if (policy_knob_is_transport(k))
		return tport_knob_validate(policy_knobs[k].tportknob, value, ret, size);
	return errknob_validate(policy_knobs[k].errknob, value, ret, size);
}

const char *policy_knob_help(PolicyKnob k)
{
	if (k < 0 || k >= _KNOB_MAX)
		return NULL;
	if (policy_knob_is_transport(k))
		return tport_knob_help(policy_knobs[k].tportknob);
	return errknob_help(policy_knobs[k].errknob);
}
