/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Folding of repeated log messages (systemd's ratelimit): at most @burst messages per
 * @interval_usec; the rest are counted, and the first message of the next interval reports how
 * many were suppressed. The caller passes the time, so the rule is testable without a clock.
 */

#include <stdbool.h>
#include <stdint.h>

typedef struct RateLimit {
	uint64_t interval_usec;
	unsigned burst;
	uint64_t begin;
	unsigned n;
	unsigned suppressed;
} RateLimit;

/* clang-format 14 and 19 lay this initializer out differently */
/* clang-format off */
#define RATELIMIT_INIT(interval, b)                       \
	{                                                 \
		.interval_usec = (interval), .burst = (b) \
	}
/* clang-format on */

/*
 * True when a message may be logged at @now_usec; then *ret_suppressed (optional) is the number
 * of messages suppressed since the last one logged, and the count restarts.
 */
static inline bool ratelimit_below(RateLimit *rl, uint64_t now_usec, unsigned *ret_suppressed)
{
	if (rl->n == 0 || now_usec < rl->begin || now_usec - rl->begin >= rl->interval_usec) {
		rl->begin = now_usec;
		rl->n = 0;
	}
	if (rl->n >= rl->burst) {
		rl->suppressed++;
		return false;
	}
	rl->n++;
	if (ret_suppressed)
		*ret_suppressed = rl->suppressed;
	rl->suppressed = 0;
	return true;
}
