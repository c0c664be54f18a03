/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>

#include "fuzz.h"
#include "vpd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	VpdDesignator d;
	VpdHeader h;
	size_t off = 0, prev = 0, n = 0;
	int r;

	if (outside_size_range(size, 0, VPD_MAX_LEN))
		return 0;

	fuzz_touch_val((bool){ vpd83_is_pre_spc2(data, size) });
	if (vpd_parse_header(data, size, &h) < 0)
		return 0;

	while ((r = vpd83_next(data, size, &off, &d)) > 0) {
		/* Every designator lies inside the page, and the cursor only moves forward. */
		fuzz_check(d.desc == data + d.offset);
		fuzz_check(d.value == d.desc + 4);
		fuzz_check(d.offset + 4 + d.len <= VPD_HEADER_LEN + h.page_len);
		fuzz_check(off > prev);
		fuzz_check(d.code_set < 16 && d.association < 4 && d.type < 16 &&
		           d.protocol_id < 16);
		prev = off;
		fuzz_touch_val(d.piv);
		fuzz_touch(d.desc, 4 + d.len);
		n++;
	}
	fuzz_check(r == 0 || r == -EBADMSG || r == -ENODATA);
	fuzz_check(n <= h.page_len / 4);
	return 0;
}
