/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

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

int log_get_max_level(void)
{
	return log_max_level;
}

int log_full(int level, int error, const LogDevice *dev, const char *message_id, const char *fmt,
             ...)
{
	_cleanup_free_ char *msg = NULL;
	int saved_errno = errno;
	va_list ap;
	int r;

	if (error > 0)
		error = -error;
	if (level > log_max_level)
		return error;

	/* %m in a format refers to the error passed in, not to whatever errno happens to be. */
	errno = error < 0 ? -error : saved_errno;
	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0) {
		errno = saved_errno;
		return error;
	}

	if (log_target == LOG_TARGET_JOURNAL && log_journal_send)
		log_journal_send(level, error, dev, message_id, log_ident, msg);
	else if (dev && dev->hctl)
		fprintf(stderr, "%s: %s: %s\n", log_ident, dev->hctl, msg);
	else
		fprintf(stderr, "%s: %s\n", log_ident, msg);

	errno = saved_errno;
	return error;
}
