/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>

/* FNV-1a (32 bits) of the string @s: the hash of the tables keyed by a string. */
static inline uint32_t str_hash_fnv1a(const char *s)
{
	uint32_t h = 2166136261U;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 16777619U;
	return h;
}
