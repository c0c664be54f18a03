/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The one integer syntax of lund.conf(5), the hwdb and lunctl policy: decimal digits with an
 * optional '-' ("-0" is 0), no '+', blanks or leading zeros ("047" is refused, not read as 47:
 * elsewhere it reads as octal), at most 10 digits.
 */

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* parse_decimal() - @s as such an integer in [@min, @max]: 0, or -EINVAL (*ret untouched). */
static inline int parse_decimal(const char *s, long min, long max, long *ret)
{
	bool neg = *s == '-';
	long v = 0;
	size_t n;

	s += neg;
	n = strlen(s);
	if (n == 0 || n > 10 || (s[0] == '0' && n > 1))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	v = neg ? -v : v;
	if (v < min || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}
