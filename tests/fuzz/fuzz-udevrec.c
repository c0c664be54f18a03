/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "udevrec.h"

/* What udev must never see in a record value: a byte it splits on, ends the value with, or
 * substitutes. */
static bool record_safe(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f || strchr("\"'$%`", *s))
			return false;
	return true;
}

static void check_record(const char *link)
{
	const char *links[] = { link };
	char *text = NULL;
	size_t len;

	fuzz_check(udevrec_format(links, 1, &text) == 0);
	len = strlen(text);
	fuzz_check(strncmp(text, "LUND_LINK_0=\"", 13) == 0);
	fuzz_check(len == 13 + strlen(link) + 2);
	fuzz_check(text[len - 2] == '"' && text[len - 1] == '\n');
	fuzz_check(!strstr(link, "/../") && !strstr(link, "/./") && link[0] != '/');
	free(text);
}

/* The input is a link directory and a name separated by a NUL (no NUL: a name in
 * "scsi/by-id"); the name comes from device data. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *link = NULL, *text = NULL;
	const char *dir = "scsi/by-id", *name;
	size_t nul;
	int r;

	if (outside_size_range(size, 0, 4096))
		return 0;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	nul = strlen(buf);
	name = buf;
	if (nul < size) {
		dir = buf;
		name = buf + nul + 1;
	}

	r = udevrec_escape_link(dir, name, &link);
	fuzz_check(r == 0 || r == -EINVAL);
	if (r == 0) {
		fuzz_check(record_safe(link));
		fuzz_check(strncmp(link, dir, strlen(dir)) == 0 && link[strlen(dir)] == '/');
		fuzz_check(!strchr(link + strlen(dir) + 1, '/'));
		check_record(link);
		free(link);
	}

	/* the raw input as a link in record form: taken only when safe */
	{
		const char *links[] = { name };

		r = udevrec_format(links, 1, &text);
		fuzz_check(r == 0 || r == -EINVAL);
		if (r == 0) {
			fuzz_check(record_safe(name));
			check_record(name);
			free(text);
		}
	}
	free(buf);
	return 0;
}
