/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * engine/confcheck.c: lund.conf and hwdb sources checked line by line. Each hostile line is
 * reported at its line number, clean files report nothing, and the lund.conf and hwdb lund
 * ships are clean.
 */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "confcheck.h"
#include "macro.h"

#define SOURCE_ROOT FIXTURES_DIR "/../.."

static char seen[4096];

static void on_problem(const char *path, unsigned line, const char *message, void *userdata)
{
	size_t n = strlen(seen);

	(void)path;
	(void)userdata;
	snprintf(seen + n, sizeof(seen) - n, "%u:%s\n", line, message);
}

static int check_text(bool hwdb, const char *text)
{
	CheckTree t;
	char path[PATH_MAX];
	int r;

	seen[0] = 0;
	check_tree_new(&t, "check-confcheck");
	check_tree_put_str(&t, "f", text);
	xsnprintf(path, "%s/f", t.path);
	r = hwdb ? hwdb_check_file(path, on_problem, NULL)
	         : conf_check_file(path, on_problem, NULL);
	check_tree_remove(&t);
	return r;
}

/* lines that must each be reported, by line number */
static bool reported(unsigned line, const char *needle)
{
	char key[32];
	const char *p = seen;

	xsnprintf(key, "%u:", line);
	while ((p = strstr(p, key))) {
		if ((p == seen || p[-1] == '\n') && strstr(p, needle) &&
		    strstr(p, needle) < (strchr(p, '\n') ?: p + strlen(p)))
			return true;
		p++;
	}
	return false;
}

START_TEST(test_conf)
{
	static const char conf[] = "# comment\n"                  /* 1 */
	                           "timeout = 30\n"               /* 2: outside */
	                           "[defaults]\n"                 /* 3 */
	                           "timeout = 30\n"               /* 4 */
	                           "max_retries = 6\n"            /* 5: range */
	                           "failfast = transport,bogus\n" /* 6 */
	                           "scan_sparse = maybe\n"        /* 7 */
	                           "scan_max_lun = 99999\n"       /* 8 */
	                           "frobnicate = 1\n"             /* 9: unknown */
	                           "vendor = ACME\n"              /* 10: not in defaults */
	                           "[device \"old raid\"]\n"      /* 11 */
	                           "vendor = ACME*\n"             /* 12 */
	                           "retry_limit = default\n"      /* 13 */
	                           "eh_timeout = 0\n"             /* 14: range */
	                           "[control]\n"                  /* 15 */
	                           "read_group = 0\n"             /* 16 */
	                           "colour = blue\n"              /* 17 */
	                           "[weird]\n"                    /* 18 */
	                           "x = 1\n";                     /* 19: said at 18 */
	/* iniparser refuses a file with one of these, and lund ignores all of it: these alone are
	 * reported, never the lines lund does not read */
	static const char broken[] = "[defaults]\n"     /* 1 */
	                             "frobnicate = 1\n" /* 2 */
	                             "not a key line\n" /* 3 */
	                             "[defaults\n"      /* 4 */
	                             "   = 5\n";        /* 5 */

	ck_assert_int_eq(check_text(false, conf), 10);
	ck_assert(reported(2, "outside a section"));
	ck_assert(reported(5, "max_retries"));
	ck_assert(reported(5, "-1..5"));
	ck_assert(reported(6, "failfast"));
	ck_assert(reported(7, "yes or no"));
	ck_assert(reported(8, "scan_max_lun"));
	ck_assert(reported(9, "unknown key \"frobnicate\""));
	ck_assert(reported(10, "select a [device]"));
	ck_assert(reported(14, "eh_timeout"));
	ck_assert(reported(17, "colour"));
	ck_assert(reported(18, "unknown section [weird]"));
	ck_assert(!reported(4, ""));
	ck_assert(!reported(12, ""));
	ck_assert(!reported(13, ""));
	ck_assert(!reported(16, ""));
	ck_assert(!reported(19, ""));
	ck_assert_int_eq(check_text(false, broken), 3);
	ck_assert(reported(3, "syntax error: \"not a key line\""));
	ck_assert(reported(4, "syntax error: \"[defaults\""));
	ck_assert(reported(5, "syntax error"));
	ck_assert(!reported(2, ""));

	ck_assert_int_eq(check_text(false, "[defaults]\ntimeout = \"60\"\nscan_sparse = on\n"), 0);
	/* multipath.conf's reservation_key: hex keys or "file", in [defaults] only */
	ck_assert_int_eq(check_text(false, "[defaults]\nreservation_key = 0x1234 file\n"), 0);
	ck_assert_int_eq(check_text(false, "[defaults]\nreservation_key = 0x0\n"), 1);
	ck_assert(reported(2, "invalid reservation_key \"0x0\""));
	ck_assert_int_eq(check_text(false, "[device x]\nreservation_key = 0x1\n"), 1);
	ck_assert(reported(2, "unknown key \"reservation_key\""));

	/* iniparser stops at a line longer than it reads (1023 bytes), and refuses the file */
	{
		char *text = malloc(5000 + 64);

		ck_assert_ptr_nonnull(text);
		strcpy(text, "[defaults]\n# ");
		memset(text + strlen(text), 'x', 5000);
		strcpy(text + strlen("[defaults]\n# ") + 5000, "\nbogus = 1\n");
		ck_assert_int_eq(check_text(false, text), 1);
		ck_assert(reported(2, "input line too long"));
		free(text);
	}
	ck_assert_int_eq(check_text(false, ""), 0);
}
END_TEST

START_TEST(test_hwdb)
{
	static const char hwdb[] = "# x\n"                     /* 1 */
	                           "lund:scsi:t0:vACME:m*:*\n" /* 2 */
	                           " LUND_TIMEOUT=60\n"        /* 3 */
	                           " LUND_MAX_RETRIES=9\n"     /* 4 */
	                           " LUND_BOGUS=1\n"           /* 5 */
	                           " LUND_SCAN_SPARSE=yes\n"   /* 6 */
	                           "\n"                        /* 7 */
	                           "usb:v1234*\n"              /* 8: not lund's */
	                           " ID_FOO=1\n"               /* 9 */
	                           "\n"                        /* 10 */
	                           "lund:acme\n"               /* 11 */
	                           " LUND_TIMEOUT=x\n"         /* 12 */
	                           "\n"                        /* 13 */
	                           " LUND_TIMEOUT=5\n"         /* 14: no record */
	                           "lund:scsi:t1:*\n"          /* 15 */
	                           "usb:v9*\n"                 /* 16: mixed */
	                           " LUND_QUEUE_DEPTH=0\n"     /* 17 */
	                           "lund:scsi:t2:*\n"          /* 18 */
	                           " =1\n";                    /* 19 */

	ck_assert_int_eq(check_text(true, hwdb), 9);
	ck_assert(reported(4, "LUND_MAX_RETRIES"));
	ck_assert(reported(5, "unknown property \"LUND_BOGUS\""));
	ck_assert(reported(11, "lund:scsi:"));
	ck_assert(reported(12, "LUND_TIMEOUT"));
	ck_assert(reported(14, "outside a record"));
	ck_assert(reported(16, "mixing"));
	ck_assert(reported(17, "LUND_QUEUE_DEPTH"));
	ck_assert(reported(18, "right after properties"));
	ck_assert(reported(19, "property line"));
	ck_assert(!reported(3, ""));
	ck_assert(!reported(9, ""));
}
END_TEST

/* The transport timeouts: the session's or remote port's, checked as the LU's knobs are. */
START_TEST(test_transport)
{
	static const char conf[] = "[defaults]\n"                 /* 1 */
	                           "recovery_tmo = 5\n"           /* 2 */
	                           "recovery_tmo = off\n"         /* 3 */
	                           "recovery_tmo = 3601\n"        /* 4: range */
	                           "fast_io_fail_tmo = off\n"     /* 5 */
	                           "fast_io_fail_tmo = 601\n"     /* 6: range */
	                           "dev_loss_tmo = 60\n"          /* 7 */
	                           "dev_loss_tmo = off\n"         /* 8: no "off" */
	                           "[device \"san\"]\n"           /* 9 */
	                           "vendor = LIO-ORG\n"           /* 10 */
	                           "recovery_tmo = 5s\n";         /* 11 */
	static const char hwdb[] = "lund:scsi:t0:vLIO-ORG:m*:*\n" /* 1 */
	                           " LUND_RECOVERY_TMO=5\n"       /* 2 */
	                           " LUND_DEV_LOSS_TMO=0\n"       /* 3: range */
	                           " LUND_FAST_IO_FAIL_TMO=5\n";  /* 4 */

	/* a key set again in a section: the last one holds, the others are reported */
	ck_assert_int_eq(check_text(false, conf), 8);
	ck_assert(reported(2, "recovery_tmo is set again on line 4"));
	ck_assert(reported(3, "recovery_tmo is set again on line 4"));
	ck_assert(reported(4, "off|0..3600"));
	ck_assert(reported(5, "fast_io_fail_tmo is set again on line 6"));
	ck_assert(reported(6, "fast_io_fail_tmo"));
	ck_assert(reported(7, "dev_loss_tmo is set again on line 8"));
	ck_assert(reported(8, "dev_loss_tmo"));
	ck_assert(reported(11, "recovery_tmo"));
	ck_assert_int_eq(check_text(false, "[defaults]\nrecovery_tmo = off\nfast_io_fail_tmo = "
	                                   "600\ndev_loss_tmo = 60\n"),
	                 0);
	ck_assert_int_eq(check_text(true, hwdb), 1);
	ck_assert(reported(3, "LUND_DEV_LOSS_TMO"));
}
END_TEST

/* The naming rule: lund:usb: matches and LUND_NAME_IDENTITY's three values. */
START_TEST(test_name_rule)
{
	static const char hwdb[] = "lund:usb:v058Fp6366*\n"             /* 1 */
	                           " LUND_NAME_IDENTITY=serial-path\n"  /* 2 */
	                           "\n"                                 /* 3 */
	                           "lund:scsi:t0:vGeneric:m*:*\n"       /* 4 */
	                           " LUND_NAME_IDENTITY=identity\n"     /* 5 */
	                           " LUND_NAME_IDENTITY=serial+path\n"  /* 6: no such rule */
	                           "\n"                                 /* 7 */
	                           "lund:pci:v8086*\n"                  /* 8: not looked up */
	                           " LUND_NAME_IDENTITY=serial-path\n"  /* 9 */
	                           "\n"                                 /* 10 */
	                           "lund:scsi:t0:vACME:mRAID5*:*\n"     /* 11 */
	                           " LUND_NAME_IDENTITY=unit-serial\n"  /* 12 */
	                           " LUND_NAME_IDENTITY=unit_serial\n"; /* 13: no such rule */

	ck_assert_int_eq(check_text(true, hwdb), 3);
	ck_assert(reported(6, "identity, serial-path or unit-serial"));
	ck_assert(reported(8, "lund:usb:"));
	ck_assert(reported(13, "identity, serial-path or unit-serial"));
	ck_assert(!reported(1, ""));
	ck_assert(!reported(2, ""));
	ck_assert(!reported(5, ""));
	ck_assert(!reported(12, ""));
}
END_TEST

/* What lund ships passes its own check. */
START_TEST(test_shipped)
{
	seen[0] = 0;
	ck_assert_int_eq(conf_check_file(SOURCE_ROOT "/conf/lund.conf", on_problem, NULL), 0);
	ck_assert_int_eq(hwdb_check_file(SOURCE_ROOT "/hwdb/60-lund.hwdb", on_problem, NULL), 0);
	ck_assert_str_eq(seen, "");
	ck_assert_int_eq(conf_check_file("/nonexistent/lund.conf", on_problem, NULL), -ENOENT);
}
END_TEST

static Suite *confcheck_suite(void)
{
	Suite *s = suite_create("confcheck");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_conf);
	tcase_add_test(tc, test_hwdb);
	tcase_add_test(tc, test_transport);
	tcase_add_test(tc, test_name_rule);
	tcase_add_test(tc, test_shipped);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(confcheck_suite)
