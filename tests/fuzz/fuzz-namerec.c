/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "macro.h"
#include "namerec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	NameRecSet s = {}, back = {}, out = {};
	NameChange *v = NULL;
	size_t bad, bad2, len, n;
	char *text;

	/* Well above any file a test writes; the parser's own limit is checked by check-namerec. */
	if (outside_size_range(size, 0, 64 * 1024))
		return 0;
	if (namerec_parse((const char *)data, size, &s, &bad) < 0)
		return 0;
	fuzz_check(bad <= size);

	/* Every record read can be written, and the written file reads back the same. */
	fuzz_check(namerec_format(&s, &text, &len) == 0);
	fuzz_check(len == strlen(text));
	fuzz_check(namerec_parse(text, len, &back, &bad2) == 0);
	fuzz_check(bad2 == 0 && back.n == s.n);
	for (size_t i = 0; i < s.n; i++) {
		fuzz_check(streq(s.rec[i].name, back.rec[i].name));
		fuzz_check(streq(s.rec[i].identity, back.rec[i].identity));
		fuzz_check(s.rec[i].state == back.rec[i].state);
		fuzz_check(namerec_set_find(&s, s.rec[i].name) == &s.rec[i]);
	}
	free(text);

	/* The rules on the file against itself with its aliases as names: total, and an
	 * accepted set has nothing pending. */
	for (size_t i = 0; i < back.n; i++)
		back.rec[i].state = NAMEREC_NAME;
	fuzz_check(namerec_diff(&s, &back, NULL, &v, &n) == 0);
	for (size_t i = 0; i < n; i++)
		fuzz_touch_str(namechange_kind_name(v[i].kind));
	free(v);
	fuzz_check(namerec_accept(&s, &back, NULL, &out) == 0);
	fuzz_check(namerec_diff(&out, &back, NULL, &v, &n) == 0);
	fuzz_check(n == 0);
	free(v);
	namerec_set_done(&out);
	fuzz_check(namerec_keep(&s, &back, &out) == 0);
	fuzz_check(out.n >= back.n);
	namerec_set_done(&out);
	namerec_set_done(&back);
	namerec_set_done(&s);
	return 0;
}
