/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One copy of each string many LUs share (INQUIRY vendor, model and revision, the device
 * state): every LU of an array has the same few, so the inventory keeps each once, counted.
 * Not thread-safe: the inventory's thread only.
 */

typedef struct StrPool StrPool;

StrPool *strpool_new(void);
/* Frees the pool and every string still in it. */
StrPool *strpool_free(StrPool *p);

/* strpool_get() - the pool's copy of @s, counted once more; NULL for NULL or on ENOMEM. */
const char *strpool_get(StrPool *p, const char *s);
/* strpool_put() - one count less on @s (from strpool_get() of @p, or NULL); freed at zero. */
void strpool_put(StrPool *p, const char *s);
