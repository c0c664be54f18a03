/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <string.h>

#include "errevent.h"
#include "fuzz.h"

/* The input is a uevent's property block: entries separated by NUL or newline, as the kernel's
 * uevent socket and `udevadm monitor --property` show them. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[4 * ERREVENT_LINE_MAX + 1];
	const char *props[ERREVENT_PROPS_MAX + 2];
	size_t n = 0;
	ErrEvent e;
	int r;

	if (outside_size_range(size, 0, sizeof(buf) - 1))
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;

	for (size_t i = 0, start = 0; i <= size && n < sizeof(props) / sizeof(props[0]); i++) {
		if (i < size && buf[i] != '\n' && buf[i] != 0)
			continue;
		buf[i] = 0;
		props[n++] = buf + start;
		start = i + 1;
	}

	r = errevent_parse(props, n, &e);
	fuzz_check(r == 0 || r == -EBADMSG || r == -ENODATA);
	if (r < 0)
		return 0;
	/* known or not, the class is a bounded name, and a known one's name is its own */
	fuzz_check(errclass_name_valid(e.class_name, strnlen(e.class_name, sizeof(e.class_name))));
	fuzz_check(errclass_from_string(e.class_name) == e.class);
	fuzz_check(e.error >= 1 && e.error <= 4095);
	fuzz_check(e.sk <= 0xf);
	fuzz_touch_val(e);
	return 0;
}
