/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "macro.h"

/*
 * The name of an enum value and back, from a table of names indexed by value (systemd's
 * DEFINE_STRING_TABLE_LOOKUP): @func(v) is @table[v], NULL out of range; @func(s) is the index
 * of the entry equal to @s, (@type)-EINVAL (the enum's _INVALID) when none is or @s is NULL.
 */
#define DEFINE_STRING_TABLE_TO_STRING(func, type, table)                            \
	const char *func(type i)                                                    \
	{                                                                           \
		return i >= 0 && (size_t)i < ELEMENTSOF(table) ? (table)[i] : NULL; \
	}
#define DEFINE_STRING_TABLE_FROM_STRING(func, type, table)          \
	type func(const char *s)                                    \
	{                                                           \
		for (size_t i = 0; s && i < ELEMENTSOF(table); i++) \
			if (streq(s, (table)[i]))                   \
				return (type)i;                     \
		return (type)-EINVAL;                               \
	}
