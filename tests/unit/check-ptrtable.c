/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ptrtable: the open-addressing table behind the claims and the error tracker's index. Entries
 * with colliding hashes (long probe runs, runs wrapping round the end) inserted, found, and
 * taken out from every position in a shuffled order; every other entry stays findable and the
 * table grows and shrinks back. An entry replaced by a twin of the same hash leaves its slot to
 * it.
 */

#include <check.h>
#include <stdlib.h>

#include "check-util.h"
#include "macro.h"
#include "ptrtable.h"

typedef struct Entry {
	uint32_t hash;
	unsigned id;
	bool in;
} Entry;

static uint32_t entry_hash(const void *e)
{
	return ((const Entry *)e)->hash;
}

static bool found(const PtrTable *t, const Entry *e)
{
	for (size_t i = ptrtable_home(t, e->hash); ptrtable_at(t, i); i = ptrtable_next(t, i))
		if (ptrtable_at(t, i) == e)
			return true;
	return false;
}

static const uint32_t modulus[] = { 1, 7, 64, 1u << 31 };

START_TEST(test_ptrtable)
{
	enum { N = 1500 };
	Entry *v = calloc(N, sizeof(*v));
	unsigned *order = calloc(N, sizeof(*order));
	PtrTable t = PTRTABLE_INIT(entry_hash);

	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_nonnull(order);
	ck_assert_ptr_null(ptrtable_at(&t, ptrtable_home(&t, 5)));
	srand(4242 + (unsigned)_i);
	for (unsigned i = 0; i < N; i++) {
		/* hashes near the top of the table wrap their runs round to slot 0 */
		v[i] = (Entry){ .hash = (uint32_t)(i * 2654435761u) % modulus[_i] + 0xfffffff0u,
			        .id = i };
		ck_assert_int_eq(ptrtable_insert(&t, &v[i]), 0);
		v[i].in = true;
		order[i] = i;
	}
	ck_assert_uint_eq(t.n, N);
	ck_assert_uint_ge(t.n_slots * 3, N * 4);
	for (unsigned i = 0; i < N; i++) {
		Entry twin = v[i];

		ck_assert(found(&t, &v[i]));
		ptrtable_replace(&t, &v[i], &twin);
		ck_assert(found(&t, &twin) && !found(&t, &v[i]));
		ptrtable_replace(&t, &twin, &v[i]);
	}
	ck_assert_uint_eq(t.n, N);
	for (unsigned i = N - 1; i > 0; i--) {
		unsigned j = (unsigned)rand() % (i + 1), x = order[i];

		order[i] = order[j];
		order[j] = x;
	}
	for (unsigned k = 0; k < N; k++) {
		ptrtable_delete(&t, &v[order[k]]);
		v[order[k]].in = false;
		/* every few deletions, all that are left are still found, none that left is */
		if (k % 97 == 0 || k > N - 20)
			for (unsigned i = 0; i < N; i++)
				ck_assert_int_eq(found(&t, &v[i]), v[i].in);
	}
	ck_assert_uint_eq(t.n, 0);
	ck_assert_uint_le(t.n_slots, 16);
	ptrtable_done(&t);
	ck_assert_ptr_null(t.slots);
	free(order);
	free(v);
}
END_TEST

static Suite *ptrtable_suite(void)
{
	Suite *s = suite_create("ptrtable");
	TCase *tc = tcase_create("table");

	CHECK_ADD_LOOP(tc, test_ptrtable, modulus);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(ptrtable_suite)
