/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The ASC/ASCQ names lunctl decode prints, from libsgutils2's table, and the kernel's SDEV_UA
 * uevent values for the same pairs. */

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check-util.h"
#include "macro.h"
#include "sense.h"
#include "sgio.h"

typedef struct AscCase {
	uint8_t asc, ascq;
	const char *text;
	const char *ua;
} AscCase;

static const AscCase asc_cases[] = {
	{ 0x3f, 0x0e, "REPORTED LUNS DATA HAS CHANGED", "REPORTED_LUNS_DATA_HAS_CHANGED" },
	{ 0x2a, 0x09, "CAPACITY DATA HAS CHANGED", "CAPACITY_DATA_HAS_CHANGED" },
	{ 0x3f, 0x03, "INQUIRY DATA HAS CHANGED", "INQUIRY_DATA_HAS_CHANGED" },
	{ 0x29, 0x00, "POWER ON, RESET, OR BUS DEVICE RESET OCCURRED", "POWER_ON_RESET_OCCURRED" },
	{ 0x29, 0x01, "POWER ON OCCURRED", "POWER_ON_RESET_OCCURRED" },
	{ 0x29, 0x07, "I_T NEXUS LOSS OCCURRED", "POWER_ON_RESET_OCCURRED" },
	{ 0x29, 0x7e, NULL, "POWER_ON_RESET_OCCURRED" },
	{ 0x2a, 0x01, "MODE PARAMETERS CHANGED", "MODE_PARAMETERS_CHANGED" },
	{ 0x38, 0x07, "THIN PROVISIONING SOFT THRESHOLD REACHED",
	  "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED" },
	{ 0x2a, 0x06, "ASYMMETRIC ACCESS STATE CHANGED", "ASYMMETRIC_ACCESS_STATE_CHANGED" },
	{ 0x2a, 0x00, "PARAMETERS CHANGED", NULL },
	{ 0x3f, 0x00, "TARGET OPERATING CONDITIONS HAVE CHANGED", NULL },
	{ 0x04, 0x00, "LOGICAL UNIT NOT READY, CAUSE NOT REPORTABLE", NULL },
	{ 0x04, 0x01, "LOGICAL UNIT IS IN PROCESS OF BECOMING READY", NULL },
	{ 0x04, 0x02, "LOGICAL UNIT NOT READY, INITIALIZING COMMAND REQUIRED", NULL },
	{ 0x04, 0x0a, "LOGICAL UNIT NOT ACCESSIBLE, ASYMMETRIC ACCESS STATE TRANSITION", NULL },
	{ 0x04, 0x0b, "LOGICAL UNIT NOT ACCESSIBLE, TARGET PORT IN STANDBY STATE", NULL },
	{ 0x11, 0x00, "UNRECOVERED READ ERROR", NULL },
	{ 0x11, 0x04, "UNRECOVERED READ ERROR - AUTO REALLOCATE FAILED", NULL },
	{ 0x3a, 0x00, "MEDIUM NOT PRESENT", NULL },
	{ 0x03, 0x02, "EXCESSIVE WRITE ERRORS", NULL },
	{ 0x5d, 0x30, "DATA CHANNEL IMPENDING FAILURE GENERAL HARD DRIVE FAILURE", NULL },
	{ 0x24, 0x00, "INVALID FIELD IN CDB", NULL },
	{ 0x20, 0x00, "INVALID COMMAND OPERATION CODE", NULL },
	{ 0x25, 0x00, "LOGICAL UNIT NOT SUPPORTED", NULL },
	{ 0x47, 0x00, "SCSI PARITY ERROR", NULL },
	{ 0x4b, 0x00, "DATA PHASE ERROR", NULL },
	{ 0x4b, 0x04, "NAK RECEIVED", NULL },
	{ 0x44, 0x00, "INTERNAL TARGET FAILURE", NULL },
	{ 0x5d, 0x00, "FAILURE PREDICTION THRESHOLD EXCEEDED", NULL },
	{ 0x5d, 0xff, "FAILURE PREDICTION THRESHOLD EXCEEDED (FALSE)", NULL },
	{ 0x28, 0x00, "NOT READY TO READY CHANGE, MEDIUM MAY HAVE CHANGED", NULL },
	{ 0x0c, 0x00, "WRITE ERROR", NULL },
	{ 0x14, 0x01, "RECORD NOT FOUND", NULL },
	{ 0x31, 0x00, "MEDIUM FORMAT CORRUPTED", NULL },
	{ 0x00, 0x00, "NO ADDITIONAL SENSE INFORMATION", NULL },
	{ 0x74, 0x71, "LOGICAL UNIT ACCESS NOT AUTHORIZED", NULL },
	{ 0x80, 0x00, NULL, NULL },
	{ 0xff, 0xff, NULL, NULL },
	{ 0x3f, 0xff, NULL, NULL },
};

START_TEST(test_asc)
{
	const AscCase *c = &asc_cases[_i];
	char buf[SGIO_ASC_TEXT_MAX];
	const char *t = sgio_asc_text(c->asc, c->ascq, buf, sizeof(buf)),
	           *ua = sense_ua_event(c->asc, c->ascq);

	if (c->text) {
		ck_assert_ptr_nonnull(t);
		ck_assert_msg(strcasecmp(t, c->text) == 0, "0x%02x/0x%02x: \"%s\", expected \"%s\"",
		              c->asc, c->ascq, t, c->text);
	} else
		ck_assert_ptr_null(t);
	if (c->ua)
		ck_assert_str_eq(ua, c->ua);
	else
		ck_assert_ptr_null(ua);
}
END_TEST

/* Every pair gives a non-empty name or none, and the table names far more pairs than the
 * 323 SPC-6 Annex F pairs lund once listed by hand. */
START_TEST(test_asc_all)
{
	unsigned found = 0;

	for (unsigned v = 0; v < 65536; v++) {
		char buf[SGIO_ASC_TEXT_MAX];
		const char *t = sgio_asc_text(v >> 8, v & 0xff, buf, sizeof(buf));

		if (t) {
			ck_assert_uint_gt(strlen(t), 0);
			found++;
		}
	}
	ck_assert_uint_ge(found, 1000);
}
END_TEST

/* A buffer too small for the name gives a cut name or none, never an overrun. */
START_TEST(test_asc_small_buffer)
{
	char buf[24];
	const char *t;

	memset(buf, 'x', sizeof(buf));
	t = sgio_asc_text(0x3f, 0x0e, buf, sizeof(buf));
	ck_assert(t == NULL || strlen(t) < sizeof(buf));
	ck_assert_ptr_null(sgio_asc_text(0x3f, 0x0e, buf, 1));
	ck_assert_ptr_null(sgio_asc_text(0x3f, 0x0e, NULL, 0));
}
END_TEST

static Suite *sgio_suite(void)
{
	Suite *s = suite_create("sgio");
	TCase *tc = tcase_create("asc");

	CHECK_ADD_LOOP(tc, test_asc, asc_cases);
	tcase_add_test(tc, test_asc_all);
	tcase_add_test(tc, test_asc_small_buffer);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(sgio_suite)
