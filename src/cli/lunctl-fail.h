/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "macro.h"

/* Why one of lunctl's pure parsers refuses its input: formatted into @err (at most @size bytes,
 * NUL-terminated; nothing when NULL). Returns -EINVAL, for the parser to return. */
_printf_(3, 4) static inline int fail(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (err && size > 0) {
		va_start(ap, fmt);
		vsnprintf(err, size, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}
