/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The time of a clock (CLOCK_MONOTONIC, CLOCK_REALTIME, ...) in microseconds: the one reader
 * of the daemon, lunctl and the log's folding. */

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_now_usec(clockid_t clock)
{
	struct timespec ts;

	(void)clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}
