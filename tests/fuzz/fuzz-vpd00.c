/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "fuzz.h"
#include "vpd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	VpdSupported s;
	VpdHeader h;
	size_t n = 0;

	if (outside_size_range(size, 0, VPD_MAX_LEN))
		return 0;
	if (vpd_parse_header(data, size, &h) == 0)
		fuzz_check(VPD_HEADER_LEN + h.page_len <= size);
	if (vpd00_parse(data, size, &s) < 0)
		return 0;

	for (unsigned p = 0; p < 256; p++)
		n += vpd_supported_has(&s, (uint8_t)p);
	fuzz_check(n == s.count);
	fuzz_check(s.count <= h.page_len);
	return 0;
}
