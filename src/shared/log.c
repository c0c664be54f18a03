/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "log.h"
#include "ratelimit.h"
#include "utf8.h"

/* Process-wide by nature, as a logging target is in every daemon; set once at start-up. */
static const char *log_ident = "lund";
static LogTarget log_target = LOG_TARGET_STDERR;
static int log_max_level = LOG_INFO;

void log_setup(const char *ident, LogTarget target, int max_level)
{
	log_ident = ident;
	if (target == LOG_TARGET_AUTO)
		target = getenv("JOURNAL_STREAM") ? LOG_TARGET_JOURNAL : LOG_TARGET_STDERR;
	log_target = target;
	log_max_level = max_level;
}

static uint64_t monotonic_now(void)
{
	return clock_now_usec(CLOCK_MONOTONIC);
}

/*
 * Warnings and notices are folded per call site (its format string): LOG_FOLD_BURST per
 * LOG_FOLD_INTERVAL_USEC, then counted, and the next one logged says how many were suppressed.
 * Errors and info are never folded.
 */
#define LOG_FOLD_SLOTS         64
#define LOG_FOLD_BURST         10
#define LOG_FOLD_INTERVAL_USEC (10u * 1000000u)

static struct {
	const char *fmt;
	RateLimit rl;
} log_fold[LOG_FOLD_SLOTS];
static pthread_mutex_t log_fold_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t (*log_now)(void) = monotonic_now;

void log_set_clock(uint64_t (*now_usec)(void))
{
	log_now = now_usec ?: monotonic_now;
}

/* Whether to log a message of @fmt now; *ret_suppressed how many of it were folded before. */
static bool log_fold_pass(const char *fmt, unsigned *ret_suppressed)
{
	size_t slot = ((uintptr_t)fmt >> 3) % LOG_FOLD_SLOTS;
	bool pass;

	*ret_suppressed = 0;
	pthread_mutex_lock(&log_fold_lock);
	if (log_fold[slot].fmt != fmt) {
		/* A new call site takes the slot; a collision only restarts the count. */
		log_fold[slot].fmt = fmt;
		log_fold[slot].rl =
		        (RateLimit)RATELIMIT_INIT(LOG_FOLD_INTERVAL_USEC, LOG_FOLD_BURST);
	}
	pass = ratelimit_below(&log_fold[slot].rl, log_now(), ret_suppressed);
	pthread_mutex_unlock(&log_fold_lock);
	return pass;
}

/* How many bytes at @q go out as they are: a printable ASCII byte or a whole valid UTF-8
 * character; 0 when the byte at @q is escaped. */
static size_t log_keep(const char *q)
{
	unsigned char c = (unsigned char)*q;
	int l;

	if (c < 0x20 || c == 0x7f)
		return 0;
	if (c < 0x80)
		return 1;
	l = utf8_valid_char((const uint8_t *)q, strnlen(q, 4));
	return l > 1 ? (size_t)l : 0;
}

char *log_escape(const char *s)
{
	size_t n = 0, k;
	char *e, *p;

	if (!s)
		return NULL;
	for (const char *q = s; *q; q += k ?: 1)
		n += (k = log_keep(q)) ?: 4;
	e = malloc(n + 1);
	if (!e)
		return NULL;
	p = e;
	for (const char *q = s; *q; q += k ?: 1) {
		k = log_keep(q);
		if (k == 0)
			p += sprintf(p, "\\x%02x", (unsigned char)*q);
		else
			p = mempcpy(p, q, k);
	}
	*p = 0;
	return e;
}

int log_get_max_level(void)
{
	return log_max_level;
}

/* "<ident>: [<hctl>: ]<msg>\n" to stderr in one write, without a second pass of printf. */
static void log_stderr(const char *ident, const char *hctl, const char *msg)
{
	_cleanup_free_ char *heap = NULL;
	size_t n = strlen(ident) + 2 + (hctl ? strlen(hctl) + 2 : 0) + strlen(msg) + 1;
	char stack[1024], *line = stack, *p;

	if (n >= sizeof(stack)) {
		line = heap = malloc(n + 1);
		if (!line)
			return;
	}
	p = stpcpy(stpcpy(line, ident), ": ");
	if (hctl)
		p = stpcpy(stpcpy(p, hctl), ": ");
	p = stpcpy(stpcpy(p, msg), "\n");
	(void)fwrite(line, 1, (size_t)(p - line), stderr);
}

/* Whether @s needs log_escape(). Every message passes here: a table lookup per byte. */
static bool log_needs_escape(const char *s)
{
	static const bool bad[256] = {
		[0x01 ... 0x1f] = true,
		[0x7f ... 0xff] = true, /* beyond ASCII: escaped unless valid UTF-8 */
	};

	if (!s)
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (bad[*p])
			return true;
	return false;
}

/* @s as it may be logged: @s itself when it needs no escaping, else log_escape()'s copy, kept
 * in *@buf for the caller to free. NULL for NULL or on ENOMEM. */
static const char *log_safe(const char *s, char **buf)
{
	if (!log_needs_escape(s))
		return s;
	*buf = log_escape(s);
	return *buf;
}

int log_full(int level, int error, const LogDevice *dev, const char *message_id, const char *fmt,
             ...)
{
	_cleanup_free_ char *heap_msg = NULL;
	char stack_msg[512];
	const char *msg = stack_msg;
	int saved_errno = errno;
	va_list ap;
	int r;

	if (error > 0)
		error = -error;
	if (level > log_max_level)
		return error;

	if (streq(fmt, "%s")) {
		/* A message the caller put together (one per link written): nothing to format. */
		va_start(ap, fmt);
		msg = va_arg(ap, const char *) ?: "(null)";
		va_end(ap);
		r = 0;
	} else {
		/* %m in a format refers to the error passed in, not to whatever errno is. */
		errno = error < 0 ? -error : saved_errno;
		va_start(ap, fmt);
		r = vsnprintf(stack_msg, sizeof(stack_msg), fmt, ap);
		va_end(ap);
	}
	if (r >= (int)sizeof(stack_msg)) {
		/* Longer than most: formatted again, in full. */
		errno = error < 0 ? -error : saved_errno;
		va_start(ap, fmt);
		r = vasprintf(&heap_msg, fmt, ap);
		va_end(ap);
		if (r < 0)
			heap_msg = NULL;
		msg = heap_msg;
	}
	if (r < 0 || !msg) {
		errno = saved_errno;
		return error;
	}

	{
		/* Device strings reach messages and fields: no byte may split or colour a line. */
		_cleanup_free_ char *emsg_buf = NULL, *ehctl_buf = NULL, *enode_buf = NULL,
		                    *ewwid_buf = NULL, *folded = NULL;
		const char *emsg = log_safe(msg, &emsg_buf);
		char *eextra_buf[LOG_EXTRA_MAX + 1];
		const char *eextra[LOG_EXTRA_MAX + 1];
		size_t n_extra = 0;
		LogDevice edev = {};
		unsigned suppressed = 0;

		if (!emsg) {
			errno = saved_errno;
			return error;
		}
		if ((level == LOG_WARNING || level == LOG_NOTICE) &&
		    !log_fold_pass(fmt, &suppressed)) {
			errno = saved_errno;
			return error;
		}
		if (suppressed > 0 &&
		    asprintf(&folded, "%s (%u similar messages suppressed)", emsg, suppressed) >= 0)
			emsg = folded;
		else if (suppressed > 0)
			folded = NULL;
		if (dev) {
			edev = (LogDevice){
				.hctl = log_safe(dev->hctl, &ehctl_buf),
				.devnode = log_safe(dev->devnode, &enode_buf),
				.wwid = log_safe(dev->wwid, &ewwid_buf),
			};
			for (; dev->extra && n_extra < LOG_EXTRA_MAX && dev->extra[n_extra];
			     n_extra++) {
				eextra_buf[n_extra] = NULL;
				eextra[n_extra] =
				        log_safe(dev->extra[n_extra], &eextra_buf[n_extra]);
			}
			eextra[n_extra] = NULL;
			edev.extra = eextra;
		}
		if (log_target == LOG_TARGET_JOURNAL && log_journal_send)
			log_journal_send(level, error, dev ? &edev : NULL, message_id, log_ident,
			                 emsg);
		else
			log_stderr(log_ident, dev ? edev.hctl : NULL, emsg);
		for (size_t i = 0; i < n_extra; i++)
			free(eextra_buf[i]);
	}

	errno = saved_errno;
	return error;
}
