/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <string.h>

#include "errevent.h"
#include "fuzz.h"
#include "uevent.h"

/* The input is one message off the kernel's uevent socket, as lund's monitor receives it (a
 * message of anyone's: the sender is checked, but the bytes are the device's and the kernel's). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[8192];
	const char *props[ERREVENT_PROPS_MAX + 1];
	UeventReactions what;
	Uevent ev;
	int r;

	if (outside_size_range(size, 0, sizeof(buf)))
		return 0;
	memcpy(buf, data, size);

	r = uevent_parse(buf, size, props, sizeof(props) / sizeof(props[0]), &ev);
	fuzz_check(r == 0 || r == -EBADMSG);
	if (r < 0)
		return 0;
	fuzz_check(ev.action && ev.devpath && ev.subsystem && ev.seqnum > 0);
	fuzz_check(ev.n_props <= sizeof(props) / sizeof(props[0]));
	for (size_t i = 0; i < ev.n_props; i++) {
		fuzz_check(ev.props[i] >= buf && ev.props[i] < buf + size);
		fuzz_check(strchr(ev.props[i], '='));
	}
	fuzz_check(ev.action > buf && ev.action < buf + size);
	what = uevent_reactions(&ev);
	fuzz_touch_val(what);
	return 0;
}
