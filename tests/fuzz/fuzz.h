/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by the fuzz targets (systemd's fuzz.h pattern). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs outside [min, max] are not interesting: a parser's answer to them is fixed. */
static inline bool outside_size_range(size_t size, size_t min, size_t max)
{
	return size < min || size > max;
}

/* Read every byte of a result so the sanitizers see any read out of bounds, and the compiler
 * cannot drop the work. */
static volatile uint8_t fuzz_sink;

static inline void fuzz_touch(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint8_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc ^= b[i];
	fuzz_sink ^= acc;
}

#define fuzz_touch_val(v) fuzz_touch(&(v), sizeof(v))

static inline void fuzz_touch_str(const char *s)
{
	if (!s)
		return;
	while (*s)
		fuzz_sink ^= (uint8_t)*s++;
}

/* An invariant a parser promised: abort so libFuzzer and the replayer report it. */
#define fuzz_check(expr)         \
	do {                     \
		if (!(expr))     \
			abort(); \
	} while (false)
