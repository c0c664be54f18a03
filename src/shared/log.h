/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Logging for the daemon and the CLI (the core and io/ never log). To stderr for the CLI and for
 * a daemon run from a terminal, to the journal with structured fields otherwise. Every function
 * returns the negative error it was given, so call sites can `return log_error_errno(r, ...)`.
 */

#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

#include "macro.h"

typedef enum LogTarget {
	LOG_TARGET_STDERR,
	LOG_TARGET_JOURNAL,
	LOG_TARGET_AUTO, /* journal when stderr is connected to it (JOURNAL_STREAM), else stderr */
} LogTarget;

void log_setup(const char *ident, LogTarget target, int max_level);
int log_get_max_level(void);

/*
 * Every message and journal field is written with bytes below 0x20, 0x7f and every byte that is
 * not part of a valid UTF-8 character as \xNN (device strings reach them: an ESC or a newline
 * from a device must not colour or split a line, nor a stray byte make the journal store a
 * field as binary or a terminal print garbage).
 * log_escape() is that escaping; malloc'd, NULL for NULL or on ENOMEM.
 */
char *log_escape(const char *s);

/*
 * Warnings and notices are folded per call site: 10 per 10 s, then counted; the next one
 * logged ends "(N similar messages suppressed)". log_set_clock() replaces the monotonic clock
 * the folding reads (tests; NULL restores it).
 */
void log_set_clock(uint64_t (*now_usec)(void));

/* Structured fields of a device-related entry; any may be NULL. */
typedef struct LogDevice {
	const char *hctl;
	const char *devnode;
	const char *wwid;
	/* More journal fields, "KEY=VALUE", NULL-terminated (at most LOG_EXTRA_MAX are sent);
	 * only the journal gets them, so the message must say the same in words. */
	const char *const *extra;
} LogDevice;

#define LOG_EXTRA_MAX 16

int log_full(int level, int error, const LogDevice *dev, const char *message_id, const char *fmt,
             ...) _printf_(5, 6);

#define log_error_errno(error, ...)   log_full(LOG_ERR, (error), NULL, NULL, __VA_ARGS__)
#define log_warning_errno(error, ...) log_full(LOG_WARNING, (error), NULL, NULL, __VA_ARGS__)
#define log_debug_errno(error, ...)   log_full(LOG_DEBUG, (error), NULL, NULL, __VA_ARGS__)
#define log_error(...)                log_full(LOG_ERR, 0, NULL, NULL, __VA_ARGS__)
#define log_warning(...)              log_full(LOG_WARNING, 0, NULL, NULL, __VA_ARGS__)
#define log_notice(...)               log_full(LOG_NOTICE, 0, NULL, NULL, __VA_ARGS__)
#define log_info(...)                 log_full(LOG_INFO, 0, NULL, NULL, __VA_ARGS__)
#define log_debug(...)                log_full(LOG_DEBUG, 0, NULL, NULL, __VA_ARGS__)

#define log_device_full(level, error, dev, ...) log_full((level), (error), (dev), NULL, __VA_ARGS__)
#define log_device_error_errno(dev, error, ...) \
	log_device_full(LOG_ERR, (error), (dev), __VA_ARGS__)
#define log_device_warning_errno(dev, error, ...) \
	log_device_full(LOG_WARNING, (error), (dev), __VA_ARGS__)
#define log_device_info(dev, ...)  log_device_full(LOG_INFO, 0, (dev), __VA_ARGS__)
#define log_device_debug(dev, ...) log_device_full(LOG_DEBUG, 0, (dev), __VA_ARGS__)

/*
 * The journal backend lives in log-journal.c, linked only into programs that log to the
 * journal (the daemon), so that lunctl does not load libsystemd and its compression and crypto
 * libraries for every device udev asks it about. Without it, LOG_TARGET_JOURNAL writes to
 * stderr.
 */
void log_journal_send(int level, int error, const LogDevice *dev, const char *message_id,
                      const char *ident, const char *msg) __attribute__((weak));
