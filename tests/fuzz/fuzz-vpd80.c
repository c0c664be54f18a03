/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "fuzz.h"
#include "vpd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *serial;
	size_t len;

	if (outside_size_range(size, 0, VPD_MAX_LEN))
		return 0;
	if (vpd80_parse(data, size, &serial, &len) < 0)
		return 0;

	fuzz_check(serial == data + VPD_HEADER_LEN);
	fuzz_check(VPD_HEADER_LEN + len <= size);
	fuzz_touch(serial, len);
	return 0;
}
