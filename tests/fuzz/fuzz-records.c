/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lund's link records (io/links.h) as anyone with write access to the run dir may leave them:
 * the name of a record directory (an escaped link directory) and the value of a record entry
 * (the link targets that count as lund's, one per line). The bytes up to the first NUL are both.
 * Promises checked: a name maps back to one directory, which escapes to a name that maps back to
 * it again; every directory survives escaping and unescaping; every line of a record is found
 * in it.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "links.h"
#include "macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *s = NULL, *dir = NULL, *esc = NULL, *back = NULL;
	int r;

	if (outside_size_range(size, 0, 16 * 1024))
		return 0;
	s = strndup((const char *)data, size);
	if (!s)
		return 0;

	/* a record directory found under the run dir */
	r = links_record_dir_unescape(s, &dir);
	fuzz_check(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r == 0) {
		fuzz_check(strlen(dir) <= strlen(s));
		r = links_record_dir_escape(dir, &esc);
		fuzz_check(r == 0 || r == -ENOMEM);
		if (r == 0) {
			r = links_record_dir_unescape(esc, &back);
			fuzz_check(r == 0 || r == -ENOMEM);
			fuzz_check(r < 0 || streq(back, dir));
		}
	}
	esc = mfree(esc);
	back = mfree(back);

	/* a link directory lund is given: its records are found again under the name */
	r = links_record_dir_escape(s, &esc);
	fuzz_check(r == 0 || r == -ENOMEM);
	if (r == 0) {
		fuzz_check(!strchr(esc, '/'));
		r = links_record_dir_unescape(esc, &back);
		fuzz_check(r == 0 || r == -ENOMEM);
		fuzz_check(r < 0 || streq(back, s));
	}

	/* a record entry's value: each of its lines is one of its targets */
	for (const char *p = s; p;) {
		const char *e = strchr(p, '\n');
		_cleanup_free_ char *line = strndup(p, e ? (size_t)(e - p) : strlen(p));

		if (line)
			fuzz_check(links_record_has(s, line));
		p = e ? e + 1 : NULL;
	}
	r = links_target_valid(s);
	fuzz_touch_val(r);
	r = links_name_valid(s);
	fuzz_touch_val(r);
	return 0;
}
