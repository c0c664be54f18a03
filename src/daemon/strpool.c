/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "strhash.h"
#include "strpool.h"

typedef struct StrEntry {
	struct StrEntry *next;
	uint32_t hash;
	unsigned refs;
	char s[];
} StrEntry;

struct StrPool {
	StrEntry **buckets;
	size_t n_buckets; /* a power of two, at least the number of entries */
	size_t n;
};

#define STRPOOL_MIN_BUCKETS 16

StrPool *strpool_new(void)
{
	StrPool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->buckets = calloc(STRPOOL_MIN_BUCKETS, sizeof(*p->buckets));
	if (!p->buckets) {
		free(p);
		return NULL;
	}
	p->n_buckets = STRPOOL_MIN_BUCKETS;
	return p;
}

StrPool *strpool_free(StrPool *p)
{
	if (!p)
		return NULL;
	for (size_t i = 0; i < p->n_buckets; i++)
		for (StrEntry *e = p->buckets[i], *next; e; e = next) {
			next = e->next;
			free(e);
		}
	free(p->buckets);
	free(p);
	return NULL;
}

/* Twice the buckets; on ENOMEM the pool just stays as it is (longer chains). */
static void strpool_grow(StrPool *p)
{
	size_t n = p->n_buckets * 2;
	StrEntry **b = calloc(n, sizeof(*b));

	if (!b)
		return;
	for (size_t i = 0; i < p->n_buckets; i++)
		for (StrEntry *e = p->buckets[i], *next; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	free(p->buckets);
	p->buckets = b;
	p->n_buckets = n;
}

const char *strpool_get(StrPool *p, const char *s)
{
	uint32_t h;
	size_t len;
	StrEntry *e;

	if (!s)
		return NULL;
	h = str_hash_fnv1a(s);
	for (e = p->buckets[h & (p->n_buckets - 1)]; e; e = e->next)
		if (e->hash == h && streq(e->s, s)) {
			if (e->refs == UINT_MAX)
				return NULL;
			e->refs++;
			return e->s;
		}
	len = strlen(s);
	e = malloc(offsetof(StrEntry, s) + len + 1);
	if (!e)
		return NULL;
	e->hash = h;
	e->refs = 1;
	memcpy(e->s, s, len + 1);
	if (p->n >= p->n_buckets)
		strpool_grow(p);
	e->next = p->buckets[h & (p->n_buckets - 1)];
	p->buckets[h & (p->n_buckets - 1)] = e;
	p->n++;
	return e->s;
}

void strpool_put(StrPool *p, const char *s)
{
	StrEntry *e, **link;

	if (!s)
		return;
	e = (StrEntry *)(s - offsetof(StrEntry, s));
	if (--e->refs > 0)
		return;
	for (link = &p->buckets[e->hash & (p->n_buckets - 1)]; *link; link = &(*link)->next)
		if (*link == e) {
			*link = e->next;
			break;
		}
	p->n--;
	free(e);
}
