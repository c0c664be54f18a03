/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "fuzz.h"
#include "vpd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	VpdBlockLimits b;

	if (outside_size_range(size, 0, VPD_MAX_LEN))
		return 0;
	if (vpdb0_parse(data, size, &b) < 0)
		return 0;

	fuzz_touch_val(b.wsnz);
	fuzz_touch_val(b.max_compare_write);
	fuzz_touch_val(b.opt_xfer_granularity);
	fuzz_touch_val(b.max_xfer_len);
	fuzz_touch_val(b.opt_xfer_len);
	fuzz_touch_val(b.max_prefetch_len);
	fuzz_touch_val(b.max_unmap_lba_count);
	fuzz_touch_val(b.max_unmap_block_desc_count);
	fuzz_touch_val(b.opt_unmap_granularity);
	fuzz_touch_val(b.ugavalid);
	fuzz_touch_val(b.unmap_granularity_alignment);
	fuzz_touch_val(b.max_write_same_len);
	fuzz_touch_val(b.max_atomic_xfer_len);
	fuzz_touch_val(b.atomic_alignment);
	fuzz_touch_val(b.atomic_xfer_len_granularity);
	fuzz_check(b.unmap_granularity_alignment < 0x80000000u);
	return 0;
}
