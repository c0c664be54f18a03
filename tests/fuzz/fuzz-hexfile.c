/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>

#include "fuzz.h"
#include "hexfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[HEXFILE_MAX_LEN];
	static const HexfileMode modes[] = { HEXFILE_AUTO, HEXFILE_HEX, HEXFILE_HEX_PLAIN };
	HexfileFormat f;
	size_t n;
	int r;

	/* A hex dump of the largest page is about 5 bytes per byte. */
	if (outside_size_range(size, 0, 6 * HEXFILE_MAX_LEN))
		return 0;

	fuzz_touch_val((bool){ hexfile_is_text(data, size) });
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		r = hexfile_parse_mode(data, size, modes[m], out, sizeof(out), &n, &f);
		fuzz_check(r == 0 || r == -EBADMSG || r == -ENOBUFS || r == -ENODATA);
		if (r < 0)
			continue;
		fuzz_check(n > 0 && n <= sizeof(out));
		fuzz_check(f == HEXFILE_FORMAT_BINARY || f == HEXFILE_FORMAT_HEX ||
		           f == HEXFILE_FORMAT_HEX_ADDRESSED);
		/* Hex text always shrinks: at least one character per nibble pair. */
		fuzz_check(f == HEXFILE_FORMAT_BINARY ? n == size : n <= size);
		fuzz_touch(out, n);

		/* A small buffer gives -ENOBUFS, never a silent prefix. */
		r = hexfile_parse_mode(data, size, modes[m], out, n - 1, &n, &f);
		fuzz_check(r == -ENOBUFS);
	}
	return 0;
}
