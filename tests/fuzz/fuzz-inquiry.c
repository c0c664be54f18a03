/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "fuzz.h"
#include "inquiry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ScsiInquiry inq;

	/* SPC: allocation length is 16 bits, the kernel asks for at most 255. */
	if (outside_size_range(size, 0, 65535))
		return 0;
	if (inquiry_parse(data, size, &inq) < 0)
		return 0;

	fuzz_check(inq.vendor_len <= sizeof(inq.vendor));
	fuzz_check(inq.product_len <= sizeof(inq.product));
	fuzz_check(inq.revision_len <= sizeof(inq.revision));
	fuzz_check(inq.type < 0x20 && inq.qualifier < 8 && inq.tpgs < 4);
	fuzz_touch_val(inq.qualifier);
	fuzz_touch_val(inq.rmb);
	fuzz_touch_val(inq.version);
	fuzz_touch_val(inq.response_format);
	fuzz_touch_val(inq.normaca);
	fuzz_touch_val(inq.hisup);
	fuzz_touch_val(inq.additional_len);
	fuzz_touch_val(inq.sccs);
	fuzz_touch_val(inq.acc);
	fuzz_touch_val(inq.threepc);
	fuzz_touch_val(inq.protect);
	fuzz_touch_val(inq.encserv);
	fuzz_touch_val(inq.multip);
	fuzz_touch_val(inq.cmdque);
	fuzz_touch(inq.vendor, inq.vendor_len);
	fuzz_touch(inq.product, inq.product_len);
	fuzz_touch(inq.revision, inq.revision_len);
	fuzz_touch_str(inquiry_type_name(inq.type));
	fuzz_touch_str(inquiry_type_udev(inq.type));
	return 0;
}
