/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "macro.h"
#include "pathtag.h"

int pathtag_lun(uint64_t lun, char *out, size_t size)
{
	char buf[32];
	int n;

	assert_return(out, -EINVAL);

	if (lun < 256)
		n = snprintf(buf, sizeof(buf), "lun-%" PRIu64, lun);
	else
		/* The kernel's int holds the SAM LUN's first level in its low 16 bits and the
		 * second level above them (scsilun_to_int()); path_id writes them back in SAM
		 * order. */
		n = snprintf(buf, sizeof(buf), "lun-0x%04" PRIx64 "%04" PRIx64 "00000000",
		             lun & 0xffff, (lun >> 16) & 0xffff);
	if (n < 0 || (size_t)n >= size)
		return -ENOBUFS;
	memcpy(out, buf, (size_t)n + 1);
	return n;
}

static bool tag_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '-';
}

int pathtag_tag(const char *path, char *out, size_t size)
{
	size_t len, i = 0;

	assert_return(path && out, -EINVAL);

	len = strlen(path);
	if (size < len + 1)
		return -ENOBUFS;
	for (const char *p = path; *p; p++) {
		if (tag_char(*p))
			out[i++] = *p;
		else if (i > 0 && out[i - 1] != '_')
			out[i++] = '_';
	}
	while (i > 0 && out[i - 1] == '_')
		i--;
	out[i] = 0;
	return (int)i;
}

int pathtag_link_name(const char *value, const char *suffix, char *out, size_t size)
{
	size_t vl, sl;

	assert_return(value && out, -EINVAL);

	suffix = suffix ?: "";
	vl = strlen(value);
	sl = strlen(suffix);
	if (vl + sl == 0 || vl + sl > NAME_MAX)
		return -EINVAL;
	if (size < vl + sl + 1)
		return -ENOBUFS;
	memcpy(out, value, vl);
	memcpy(out + vl, suffix, sl + 1);
	(void)udev_replace_chars(out, "/ ");
	if (strchr(out, '/') || strchr(out, ' ') || streq(out, ".") || streq(out, "..")) {
		out[0] = 0;
		return -EINVAL;
	}
	return (int)(vl + sl);
}
