/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/*
 * utf8_valid_char() - length of the valid UTF-8 sequence at @s, as udev (v252
 * utf8_encoded_valid_unichar()) judges it: 1 for ASCII, 2..4 for a valid multi-byte character
 * (no overlong forms, no surrogates, no U+FDD0..U+FDEF, no U+xxFFFE/F, <= U+10FFFF), or
 * -EINVAL. Never reads more than @len bytes; a NUL byte ends a sequence as udev's does. The
 * encoder of udev's values (core/escape.h) and the log's escaping share it.
 */

static inline size_t utf8_expected_len(uint8_t c)
{
	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		return 2;
	if ((c & 0xf0) == 0xe0)
		return 3;
	if ((c & 0xf8) == 0xf0)
		return 4;
	if ((c & 0xfc) == 0xf8)
		return 5;
	if ((c & 0xfe) == 0xfc)
		return 6;
	return 0;
}

static inline size_t utf8_len_of(uint32_t u)
{
	if (u < 0x80)
		return 1;
	if (u < 0x800)
		return 2;
	if (u < 0x10000)
		return 3;
	if (u < 0x200000)
		return 4;
	if (u < 0x4000000)
		return 5;
	return 6;
}

static inline int utf8_valid_char(const uint8_t *s, size_t len)
{
	size_t n;
	uint32_t u;

	if (!s || len == 0)
		return -EINVAL;
	n = utf8_expected_len(s[0]);
	if (n == 0 || n > len)
		return -EINVAL;
	if (n == 1)
		return 1;
	/* Every byte of the sequence must be a continuation byte pattern (top bit set); a NUL
	 * therefore ends the check before anything past it is read. */
	for (size_t i = 0; i < n; i++)
		if (!(s[i] & 0x80))
			return -EINVAL;
	u = s[0] & (0xff >> (n + 1));
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -EINVAL;
		u = (u << 6) | (s[i] & 0x3f);
	}
	/* Unicode: reject overlong forms, surrogates, non-characters and > U+10FFFF. */
	if (utf8_len_of(u) != n)
		return -EINVAL;
	if (u >= 0x110000 || (u & 0xfffff800) == 0xd800 || (u >= 0xfdd0 && u <= 0xfdef) ||
	    (u & 0xfffe) == 0xfffe)
		return -EINVAL;
	return (int)n;
}
