/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <string.h>

#include "fuzz.h"
#include "luns.h"

static void one_lun(const ScsiLun *lun)
{
	char hex[LUN_HEX_STRLEN], desc[LUN_DESCRIBE_MAX];
	ScsiLun back;
	LunAddress a;

	/* Linux number and T10 hex form are both exact round trips. */
	back = lun_from_linux(lun_to_linux(lun));
	fuzz_check(memcmp(back.b, lun->b, LUN_SIZE) == 0);
	fuzz_check(lun_format_hex(lun, hex, sizeof(hex)) == 0);
	fuzz_check(lun_parse_hex(hex, &back) == 0);
	fuzz_check(memcmp(back.b, lun->b, LUN_SIZE) == 0);

	fuzz_touch_val((bool){ lun_is_wlun(lun) });
	if (lun_decode(lun, &a) < 0) {
		fuzz_check(lun_describe(lun, desc, sizeof(desc)) < 0);
		return;
	}
	fuzz_check(a.n_levels >= 1 && a.n_levels <= LUN_LEVELS);
	for (size_t i = 0, used = 0; i < a.n_levels; i++) {
		const LunLevel *l = &a.level[i];

		used += l->size;
		fuzz_check(used <= LUN_SIZE);
		fuzz_touch_val(l->method);
		fuzz_touch_val(l->bus);
		fuzz_touch_val(l->target);
		fuzz_touch_val(l->lun);
		fuzz_touch_val(l->ext_kind);
		fuzz_touch_val(l->ext_length);
		fuzz_touch_val(l->ext_method);
		if (l->ext_kind == LUN_EXT_WELL_KNOWN)
			fuzz_touch_str(lun_wlun_name((uint8_t)l->lun));
	}
	/* The documented maximum is enough for any LUN. */
	fuzz_check(lun_describe(lun, desc, sizeof(desc)) == 0);
	fuzz_touch_str(desc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	LunList list;
	size_t want;

	/* Bounded well above the kernel's 64 KiB REPORT LUNS buffer. */
	if (outside_size_range(size, 0, 8 + 8 * 16384))
		return 0;

	/* The input as one LUN too, so the structure decoder sees every byte pattern. */
	if (size >= LUN_SIZE) {
		ScsiLun lun;

		memcpy(lun.b, data, LUN_SIZE);
		one_lun(&lun);
	}

	if (luns_report_len(data, size, &want) < 0)
		return 0;
	if (luns_parse_report(data, size, &list) < 0)
		return 0;
	fuzz_check(want <= size);
	fuzz_check(LUNS_HEADER_LEN + list.count * LUN_SIZE <= size);
	for (size_t i = 0; i < list.count; i++) {
		ScsiLun lun;

		fuzz_check(luns_report_get(&list, i, &lun) == 0);
		one_lun(&lun);
	}
	return 0;
}
