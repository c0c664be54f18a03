/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "ptrtable.h"
#include "strhash.h"
#include "strpool.h"

typedef struct StrEntry {
	uint32_t hash;
	unsigned refs;
	char s[];
} StrEntry;

struct StrPool {
	PtrTable table;
};

static uint32_t entry_hash(const void *e)
{
	return ((const StrEntry *)e)->hash;
}

StrPool *strpool_new(void)
{
	StrPool *p = calloc(1, sizeof(*p));

	if (p)
		p->table = PTRTABLE_INIT(entry_hash);
	return p;
}

StrPool *strpool_free(StrPool *p)
{
	if (!p)
		return NULL;
	for (size_t i = 0; i < p->table.n_slots; i++)
		free(p->table.slots[i]);
	ptrtable_done(&p->table);
	free(p);
	return NULL;
}

const char *strpool_get(StrPool *p, const char *s)
{
	uint32_t h;
	size_t len;
	StrEntry *e;

	if (!s)
		return NULL;
	h = str_hash_fnv1a(s);
	for (size_t i = ptrtable_home(&p->table, h); (e = ptrtable_at(&p->table, i));
	     i = ptrtable_next(&p->table, i))
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
	if (ptrtable_insert(&p->table, e) < 0) {
		free(e);
		return NULL;
	}
	return e->s;
}

void strpool_put(StrPool *p, const char *s)
{
	StrEntry *e;

	if (!s)
		return;
	e = (StrEntry *)(s - offsetof(StrEntry, s));
	if (--e->refs > 0)
		return;
	ptrtable_delete(&p->table, e);
	free(e);
}
