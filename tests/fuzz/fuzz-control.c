/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A control request line (lund(8), CONTROL PROTOCOL) as any local client may send it:
 * control_request_parse() must take any bytes, refuse what it cannot use with the errors it
 * promises, and hand back only arguments within their limits.
 */

#include <errno.h>
#include <string.h>

#include "control-request.h"
#include "control.h"
#include "fuzz.h"
#include "macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_(control_request_done) ControlRequest req = {};
	json_object *o = NULL;
	bool ro;
	int r;

	if (outside_size_range(size, 0, CONTROL_REQUEST_MAX + 16))
		return 0;
	r = control_request_parse((const char *)data, size, &o, &req);
	fuzz_check(r == 0 || r == -EBADMSG || r == -EOPNOTSUPP || r == -EINVAL || r == -E2BIG ||
	           r == -EMSGSIZE || r == -ENOMEM);
	if (size > CONTROL_REQUEST_MAX)
		fuzz_check(r == -EMSGSIZE);
	if (r < 0) {
		fuzz_check(o == NULL);
		return 0;
	}
	fuzz_check(o != NULL && json_object_is_type(o, json_type_object));
	fuzz_check(control_command_to_string(req.cmd) != NULL);
	ro = control_command_read_only(req.cmd);
	fuzz_touch_val(ro);
	switch (req.cmd) {
	case CONTROL_LIST:
		fuzz_check(req.limit <= CONTROL_LIST_LIMIT_MAX);
		break;
	case CONTROL_NAMES:
		fuzz_check(req.device && req.device[0] && strlen(req.device) < 4096);
		fuzz_touch_str(req.device);
		break;
	case CONTROL_RESCAN:
		fuzz_check(req.n_selectors <= CONTROL_SELECTORS_MAX);
		fuzz_check(req.n_selectors == 0 || req.selectors);
		fuzz_touch(req.selectors, req.n_selectors * sizeof(*req.selectors));
		fuzz_check(req.policy.timeout_ms <= 3600000 && req.policy.max_workers <= 256 &&
		           req.policy.seq_max_lun <= 100000);
		fuzz_check(req.flags & (SCAN_ADD | SCAN_REMOVE | SCAN_RESIZE | SCAN_IDS));
		break;
	default:
		break;
	}
	json_object_put(o);
	return 0;
}
