/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * shared/log.c: a device string with an ESC or a newline is written escaped on one line, in the
 * message and in the device fields; repeated warnings of one call site are folded and the next
 * one logged carries the suppressed count. stderr is a temporary file; the clock is injected.
 */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check-util.h"
#include "log.h"
#include "macro.h"

static uint64_t fake_now;

static uint64_t fake_clock(void)
{
	return fake_now;
}

/* Run @fn with stderr going to a file; return what it wrote. */
static char *capture(void (*fn)(void))
{
	char path[] = "/tmp/check-log-XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	char *buf = calloc(1, 1 << 16);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	fn();
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	f = fdopen(fd, "r");
	rewind(f);
	ck_assert_int_ge(fread(buf, 1, (1 << 16) - 1, f), 0);
	fclose(f);
	unlink(path);
	return buf;
}

static void log_hostile(void)
{
	LogDevice dev = { .hctl = "0:0:0:0\n1:0:0:0" };

	log_setup("lund", LOG_TARGET_STDERR, LOG_DEBUG);
	log_device_info(&dev, "vendor \"%s\"", "EVIL\x1b[31m\nlund: fake line");
}

START_TEST(test_escape)
{
	_cleanup_free_ char *out = capture(log_hostile);
	_cleanup_free_ char *e = log_escape("a\x1b\n\x7f"
	                                    "b");
	_cleanup_free_ char *u = log_escape("caf\xc3\xa9 \xff\xc3(\xed\xa0\x80 \xe2\x82");

	ck_assert_str_eq(e, "a\\x1b\\x0a\\x7fb");
	/* valid UTF-8 kept; a stray byte, a cut sequence, a surrogate escaped byte by byte */
	ck_assert_str_eq(u, "caf\xc3\xa9 \\xff\\xc3(\\xed\\xa0\\x80 \\xe2\\x82");
	ck_assert_str_eq(out, "lund: 0:0:0:0\\x0a1:0:0:0: vendor \"EVIL\\x1b[31m\\x0alund: fake "
	                      "line\"\n");
}
END_TEST

/* Longer than the formatting buffer on the stack: formatted in full, escaped as any other. */
static void log_long(void)
{
	char v[2001];

	memset(v, 'x', sizeof(v) - 1);
	v[sizeof(v) - 2] = '\n';
	v[sizeof(v) - 1] = 0;
	log_setup("lund", LOG_TARGET_STDERR, LOG_DEBUG);
	log_info("%s|%d", v, 7);
}

START_TEST(test_long)
{
	_cleanup_free_ char *out = capture(log_long);
	char want[2048] = "lund: ";

	memset(want + 6, 'x', 1999);
	strcpy(want + 6 + 1999, "\\x0a|7\n");
	ck_assert_str_eq(out, want);
}
END_TEST

/* A message given whole ("%s", which log_full() takes as it is): long and hostile alike are
 * written in full and escaped. */
static void log_whole(void)
{
	char v[2001];

	memset(v, 'y', sizeof(v) - 1);
	v[0] = '\x1b';
	v[sizeof(v) - 1] = 0;
	log_setup("lund", LOG_TARGET_STDERR, LOG_DEBUG);
	log_info("%s", v);
}

START_TEST(test_whole)
{
	_cleanup_free_ char *out = capture(log_whole);
	char want[2100] = "lund: \\x1b";

	memset(want + strlen(want), 'y', 1999);
	strcpy(want + 10 + 1999, "\n");
	ck_assert_str_eq(out, want);
}
END_TEST

static void log_flood(void)
{
	log_setup("lund", LOG_TARGET_STDERR, LOG_DEBUG);
	log_set_clock(fake_clock);
	fake_now = 1000000;
	for (unsigned i = 0; i < 100; i++)
		log_warning("link %u failed, ignoring", i);
	/* errors are never folded */
	for (unsigned i = 0; i < 20; i++)
		log_error("error %u", i);
	fake_now += 11 * 1000000;
	log_warning("link %u failed, ignoring", 100u);
	log_set_clock(NULL);
}

START_TEST(test_fold)
{
	_cleanup_free_ char *out = capture(log_flood);
	unsigned warnings = 0, errors = 0;

	for (char *p = out; (p = strstr(p, "failed, ignoring")); p++)
		warnings++;
	for (char *p = out; (p = strstr(p, ": error ")); p++)
		errors++;
	ck_assert_uint_eq(warnings, 11);
	ck_assert_uint_eq(errors, 20);
	ck_assert_ptr_nonnull(
	        strstr(out, "lund: link 100 failed, ignoring (90 similar messages suppressed)\n"));
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_escape);
	tcase_add_test(tc, test_long);
	tcase_add_test(tc, test_whole);
	tcase_add_test(tc, test_fold);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(log_suite)
