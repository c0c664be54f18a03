/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * An open-addressing table of pointers: linear probing over a power of two of slots kept at most
 * 3/4 full (grown by doubling, shrunk by half when an eighth full), deletion by backward shift
 * (no tombstones). 8 bytes a slot and no node per entry, where a tsearch() tree costs a 32-byte
 * node each. Each entry keeps its own hash, which @hash_of reads; the table neither owns nor
 * compares entries: a lookup walks the probe run of a hash and compares itself:
 *
 *	for (size_t i = ptrtable_home(t, h); ptrtable_at(t, i); i = ptrtable_next(t, i))
 *		if (...matches ptrtable_at(t, i)...)
 */
typedef uint32_t (*ptrtable_hash_fn)(const void *entry);

typedef struct PtrTable {
	void **slots; /* NULL: empty */
	size_t n_slots, n;
	ptrtable_hash_fn hash_of;
} PtrTable;

#define PTRTABLE_INIT(fn) ((PtrTable){ .hash_of = (fn) })

/* Adds @entry (not already in); -ENOMEM only when no slot is left and the table cannot grow. */
int ptrtable_insert(PtrTable *t, void *entry);
/* Takes out @entry, which must be in the table. */
void ptrtable_delete(PtrTable *t, const void *entry);
/* Puts @new, of the same hash, in the slot of @old, which must be in the table. */
void ptrtable_replace(PtrTable *t, const void *old, void *new);
/* Frees the slots (not the entries). */
void ptrtable_done(PtrTable *t);

static inline size_t ptrtable_home(const PtrTable *t, uint32_t hash)
{
	return t->n_slots ? hash & (t->n_slots - 1) : 0;
}

static inline size_t ptrtable_next(const PtrTable *t, size_t i)
{
	return (i + 1) & (t->n_slots - 1);
}

/* The entry in slot @i, NULL for an empty slot or an empty table. */
static inline void *ptrtable_at(const PtrTable *t, size_t i)
{
	return t->n_slots ? t->slots[i] : NULL;
}
