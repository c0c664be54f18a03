/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>

#include "fuzz.h"
#include "sense.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	SenseDescriptor d;
	ScsiSense s;
	size_t off = 0;
	uint16_t v;
	int r;

	if (outside_size_range(size, 0, 2 * SENSE_MAX_LEN))
		return 0;

	while ((r = sense_next_descriptor(data, size, &off, &d)) > 0) {
		fuzz_check(d.desc == data + d.offset);
		fuzz_check(d.offset + 2 + d.len <= size);
		fuzz_touch(d.desc, 2 + d.len);
	}
	fuzz_check(r == 0 || r == -EBADMSG || r == -ENODATA);

	if (sense_parse(data, size, &s) < 0)
		return 0;
	fuzz_check(s.len <= size && s.len <= SENSE_MAX_LEN);
	fuzz_check(s.key < 16);
	fuzz_touch_val(s.response_code);
	fuzz_touch_val(s.descriptor);
	fuzz_touch_val(s.deferred);
	fuzz_touch_val(s.have_asc);
	fuzz_touch_val(s.filemark);
	fuzz_touch_val(s.eom);
	fuzz_touch_val(s.ili);
	fuzz_touch_val(s.info_valid);
	fuzz_touch_val(s.information);
	fuzz_touch_val(s.cmd_info_valid);
	fuzz_touch_val(s.cmd_info);
	fuzz_touch_val(s.sks_valid);
	fuzz_touch(s.sks, sizeof(s.sks));
	fuzz_touch_val(s.fru);
	fuzz_touch_val(s.additional_len);
	fuzz_touch_val(s.truncated);
	fuzz_touch_str(sense_key_name(s.key));
	fuzz_touch_str(sense_ua_event(s.asc, s.ascq));
	if (sense_progress(&s, &v) == 0)
		fuzz_touch_val(v);
	return 0;
}
