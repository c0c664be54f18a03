/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <string.h>

#include "fuzz.h"
#include "vpd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	VpdAtaInfo a;

	if (outside_size_range(size, 0, VPD_MAX_LEN))
		return 0;
	if (vpd89_parse(data, size, &a) < 0)
		return 0;

	fuzz_touch(a.sat_vendor, sizeof(a.sat_vendor));
	fuzz_touch(a.sat_product, sizeof(a.sat_product));
	fuzz_touch(a.sat_revision, sizeof(a.sat_revision));
	fuzz_touch_val(a.command_code);
	fuzz_touch_val(a.have_identify);
	/* Always terminated, whatever the device sent. */
	fuzz_check(memchr(a.model, 0, sizeof(a.model)));
	fuzz_check(memchr(a.serial, 0, sizeof(a.serial)));
	fuzz_check(memchr(a.firmware, 0, sizeof(a.firmware)));
	fuzz_touch_str(a.model);
	fuzz_touch_str(a.serial);
	fuzz_touch_str(a.firmware);
	return 0;
}
