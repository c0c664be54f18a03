/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "lunctl-fail.h"
#include "lunctl-rescan-range.h"
#include "macro.h"

void range_list_done(RangeList *l)
{
	l->v = mfree(l->v);
	l->n = 0;
}

/* A decimal number of @n bytes at @s, digits only. */
static bool number(const char *s, size_t n, uint64_t *ret)
{
	uint64_t v = 0;

	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*ret = v;
	return true;
}

int range_list_parse(const char *s, uint64_t max, const char *what, RangeList *ret, char *err,
                     size_t err_size)
{
	RangeList l = {};
	const char *p, *end;

	assert_return(s && what && ret, -EINVAL);

	if (*s == 0)
		return fail(err, err_size, "empty %s list", what);
	for (p = s;; p = end + 1) {
		const char *dash;
		size_t n;
		Range r;

		end = strchrnul(p, ',');
		n = (size_t)(end - p);
		if (n == 0)
			return range_list_done(&l),
			       fail(err, err_size, "'%s': empty element in the %s list", s, what);
		dash = memchr(p, '-', n);
		if (!number(p, dash ? (size_t)(dash - p) : n, &r.lo) ||
		    (dash && !number(dash + 1, (size_t)(end - dash - 1), &r.hi)))
			return range_list_done(&l),
			       fail(err, err_size,
			            "'%.*s' is not a %s number or range (N or N-M, digits only)",
			            (int)n, p, what);
		if (!dash)
			r.hi = r.lo;
		if (r.lo > r.hi)
			return range_list_done(&l),
			       fail(err, err_size, "'%.*s': the %s range runs backwards", (int)n, p,
			            what);
		if (r.hi > max)
			return range_list_done(&l),
			       fail(err, err_size,
			            "'%.*s': %s %" PRIu64 " is above the largest, %" PRIu64, (int)n,
			            p, what, r.hi, max);
		if (GREEDY_REALLOC_EXACT(l.v, l.n + 1) < 0)
			return range_list_done(&l), -ENOMEM;
		l.v[l.n++] = r;
		if (*end == 0)
			break;
	}
	*ret = l;
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const Range *x = a, *y = b;

	return CMP(x->lo, y->lo) ?: CMP(x->hi, y->hi);
}

/* The ranges sorted and merged, in a new array of *ret_n. */
static Range *merged(const RangeList *l, size_t *ret_n)
{
	Range *v = l->n ? malloc(l->n * sizeof(*v)) : NULL;
	size_t n = 0;

	*ret_n = 0;
	if (!v)
		return NULL;
	memcpy(v, l->v, l->n * sizeof(*v));
	qsort(v, l->n, sizeof(*v), range_cmp);
	for (size_t i = 0; i < l->n; i++) {
		if (n > 0 && (v[n - 1].hi == UINT64_MAX || v[i].lo <= v[n - 1].hi + 1)) {
			v[n - 1].hi = MAX(v[n - 1].hi, v[i].hi);
			continue;
		}
		v[n++] = v[i];
	}
	*ret_n = n;
	return v;
}

uint64_t range_list_count(const RangeList *l)
{
	_cleanup_free_ Range *v = NULL;
	uint64_t total = 0;
	size_t n;

	v = merged(l, &n);
	for (size_t i = 0; i < n; i++) {
		uint64_t c = v[i].hi - v[i].lo;

		if (c == UINT64_MAX || total > UINT64_MAX - c - 1)
			return UINT64_MAX;
		total += c + 1;
	}
	return total;
}

int range_list_values(const RangeList *l, size_t max_n, uint64_t **ret, size_t *ret_n)
{
	_cleanup_free_ Range *v = NULL;
	uint64_t *out, count = range_list_count(l);
	size_t n, k = 0;

	if (count > max_n)
		return -E2BIG;
	if (count == 0) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	v = merged(l, &n);
	out = malloc(count * sizeof(*out));
	if (!v || !out) {
		free(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		for (uint64_t x = v[i].lo;; x++) {
			out[k++] = x;
			if (x == v[i].hi)
				break;
		}
	*ret = out;
	*ret_n = k;
	return 0;
}
