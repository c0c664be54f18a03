/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Growing an array (systemd's GREEDY_REALLOC): the one way src/ grows its arrays. With a
 * capacity the array at least doubles, so n appends cost O(n) copies in all; without one it
 * grows to exactly what is needed, for arrays whose count is their size and that are kept per
 * LU (bench/README's heap per LU). The size is checked for overflow; on failure the array and
 * the capacity are left as they were.
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Makes *p hold at least @need elements of @size bytes. *allocated is its capacity in elements
 * and is updated; @allocated NULL means grow to exactly @need (the caller keeps no capacity, so
 * this reallocates every time). Returns 0, or -ENOMEM (also when @need * @size overflows).
 */
static inline int greedy_realloc(void **p, size_t *allocated, size_t need, size_t size)
{
	size_t a = need;
	void *q;

	if (allocated && need <= *allocated && *p)
		return 0;
	if (size == 0 || need == 0 || need > SIZE_MAX / size)
		return -ENOMEM;
	if (allocated) {
		if (a < 4)
			a = 4;
		if (*allocated <= SIZE_MAX / size / 2 && a < *allocated * 2)
			a = *allocated * 2;
	}
	q = reallocarray(*p, a, size);
	if (!q)
		return -ENOMEM;
	*p = q;
	if (allocated)
		*allocated = a;
	return 0;
}

/* GREEDY_REALLOC(v, n_allocated, n + 1) before v[n++] = x; n_allocated is a size_t. */
#define GREEDY_REALLOC(array, allocated, need) \
	greedy_realloc((void **)&(array), &(allocated), (need), sizeof((array)[0]))

/* Exactly @need elements: for arrays that keep no capacity, see above. */
#define GREEDY_REALLOC_EXACT(array, need) \
	greedy_realloc((void **)&(array), NULL, (need), sizeof((array)[0]))
