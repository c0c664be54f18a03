/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <string.h>

#include "fuzz.h"
#include "macro.h"
#include "prin.h"

/* The first byte picks the parser; the rest is what the device sent. For READ KEYS with READ
 * RESERVATION, the second byte splits the rest in two. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t keys[] = { 0x1, 0x1234 };
	PrinIdentity ids[3] = { { .protocol = PRIN_PROTO_ISCSI,
		                  .iscsi = "iqn.2026-12.lund.test:a" },
		                { .protocol = PRIN_PROTO_FC, .port = { 0x21 } },
		                { .protocol = PRIN_PROTO_SAS, .port = { 0x50 } } };
	char s[PRIN_DESCRIBE_MAX];
	PrinStatus st;
	size_t want;
	int r;

	/* Bounded by the CDB's 16-bit allocation length, twice for the split input. */
	if (outside_size_range(size, 1, 2 + 2 * PRIN_ALLOC_MAX))
		return 0;
	if (data[0] & 1) {
		size_t cut;

		if (size < 2)
			return 0;
		cut = MIN((size_t)data[1] * 4, size - 2);
		r = prin_parse_keys_reservation(data + 2, cut, data + 2 + cut, size - 2 - cut, keys,
		                                ELEMENTSOF(keys), &st);
	} else {
		if (prin_response_len(data + 1, size - 1, &want) == 0)
			fuzz_check(want >= PRIN_HEADER_LEN);
		r = prin_parse_full_status(data + 1, size - 1, ids, ELEMENTSOF(ids), keys,
		                           ELEMENTSOF(keys), &st);
		if (r == 0) {
			fuzz_check(prin_response_len(data + 1, size - 1, &want) == 0);
			fuzz_check(want <= size - 1);
			fuzz_check(!st.holder_us || st.reserved);
		}
	}
	if (r < 0)
		return 0;
	fuzz_check(!st.reserved || st.n_keys > 0 || !st.full_status);
	/* The documented maximum is enough for any status. */
	fuzz_check(prin_describe(&st, s, sizeof(s)) == 0);
	fuzz_touch_str(s);
	return 0;
}
