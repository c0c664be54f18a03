/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdlib.h>

#include "ptrtable.h"

static void put(void **slots, size_t n_slots, void *entry, uint32_t hash)
{
	size_t i = hash & (n_slots - 1);

	while (slots[i])
		i = (i + 1) & (n_slots - 1);
	slots[i] = entry;
}

/* Rehash into @n_slots slots (a power of two, more than t->n). */
static int resize(PtrTable *t, size_t n_slots)
{
	void **slots = calloc(n_slots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_slots; i++)
		if (t->slots[i])
			put(slots, n_slots, t->slots[i], t->hash_of(t->slots[i]));
	free(t->slots);
	t->slots = slots;
	t->n_slots = n_slots;
	return 0;
}

/* The slot of @entry, which must be in the table. */
static size_t slot_of(const PtrTable *t, const void *entry)
{
	size_t i = ptrtable_home(t, t->hash_of(entry));

	while (t->slots[i] != entry)
		i = ptrtable_next(t, i);
	return i;
}

int ptrtable_insert(PtrTable *t, void *entry)
{
	/* Grown at 3/4 full; a failed growth is fine while a slot stays free. */
	if ((t->n + 1) * 4 > t->n_slots * 3 && resize(t, t->n_slots ? t->n_slots * 2 : 16) < 0 &&
	    t->n + 1 >= t->n_slots)
		return -ENOMEM;
	put(t->slots, t->n_slots, entry, t->hash_of(entry));
	t->n++;
	return 0;
}

void ptrtable_delete(PtrTable *t, const void *entry)
{
	size_t mask = t->n_slots - 1, i = slot_of(t, entry);

	/* Move back the entries of the probe run that would no longer be found: one stays when
	 * its home slot @k lies cyclically in (i, j]. */
	for (size_t j = (i + 1) & mask; t->slots[j]; j = (j + 1) & mask) {
		size_t k = t->hash_of(t->slots[j]) & mask;

		if (i <= j ? i < k && k <= j : i < k || k <= j)
			continue;
		t->slots[i] = t->slots[j];
		i = j;
	}
	t->slots[i] = NULL;
	t->n--;
	/* Shrunk when an eighth full, so a host that went away gives its memory back. */
	if (t->n_slots > 16 && t->n * 8 < t->n_slots)
		(void)resize(t, t->n_slots / 2);
}

void ptrtable_replace(PtrTable *t, const void *old, void *new)
{
	t->slots[slot_of(t, old)] = new;
}

void ptrtable_done(PtrTable *t)
{
	free(t->slots);
	t->slots = NULL;
	t->n_slots = t->n = 0;
}
