/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The lists rescan-scsi-bus.sh takes for --hosts, --channels, --ids and --luns, "A[-B][,C[-D]]...",
 * and the scan selectors they expand to. Pure: no I/O.
 */

#include <stddef.h>
#include <stdint.h>

typedef struct Range {
	uint64_t lo, hi; /* inclusive */
} Range;

typedef struct RangeList {
	Range *v;
	size_t n;
} RangeList;

void range_list_done(RangeList *l);

/*
 * range_list_parse() - "0-3,5" into ranges, each value at most @max. No blanks, no empty
 * element, no range that runs backwards; overlapping ranges are allowed (a value is still
 * selected once). Returns 0 with @ret filled (range_list_done() it), -EINVAL with a reason in
 * @err naming @what ("host", "LUN") and the offending element, -ENOMEM.
 */
int range_list_parse(const char *s, uint64_t max, const char *what, RangeList *ret, char *err,
                     size_t err_size);

/* range_list_count() - how many distinct values @l selects (UINT64_MAX when more). */
uint64_t range_list_count(const RangeList *l);

/*
 * range_list_values() - the distinct values of @l, ascending, at most @max_n of them.
 * Returns 0 with a malloc'd array, -E2BIG when there are more than @max_n, -ENOMEM.
 */
int range_list_values(const RangeList *l, size_t max_n, uint64_t **ret, size_t *ret_n);
