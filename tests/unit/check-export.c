/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * export: the writer's contract. Line contents are covered against the peers by check-ident
 * and tests/peer; here: no device byte ever ends a line or starts a key (over every fixture),
 * -ENOBUFS instead of truncation, callback abort, structured list.
 */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-fixture.h"
#include "check-util.h"
#include "escape.h"
#include "export.h"
#include "ident.h"

#define VPD_DIR FIXTURES_DIR "/vpd"

static char **names;
static size_t n_names;

static ScsiIdent *load(const char *name, Fixture *fx)
{
	ScsiIdent *id = calloc(1, sizeof(*id));
	ScsiIdentInput in;

	ck_assert_int_eq(fixture_load(VPD_DIR, name, fx), 0);
	fixture_ident_input(fx, &in);
	ck_assert_int_eq(ident_compute(&in, id), 0);
	return id;
}

/* Every line: KEY of [A-Z0-9_], '=', a value without C0 controls, DEL or invalid UTF-8. */
START_TEST(test_lines_safe)
{
	size_t size = 4 << 20, len;
	char *buf = malloc(size), *p, *nl;
	Fixture fx = {};
	ScsiIdent *id = load(names[_i], &fx);
	ExportFlags all = EXPORT_UDEV | EXPORT_SG_INQ;

	ck_assert_int_eq(export_to_buffer(id, all, buf, size, &len), 0);
	ck_assert_uint_eq(strlen(buf), len);
	for (p = buf; *p; p = nl + 1) {
		char *eq = strchr(p, '=');

		nl = strchr(p, '\n');
		ck_assert_msg(nl && eq && eq < nl, "%s: bad line at %s", names[_i], p);
		for (char *k = p; k < eq; k++)
			ck_assert_msg((*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') ||
			                      *k == '_',
			              "%s: bad key", names[_i]);
		ck_assert_msg(!escape_value_needed((uint8_t *)eq + 1, (size_t)(nl - eq - 1)),
		              "%s: unsafe value in %.*s", names[_i], (int)(nl - p), p);
	}
	/* Same with the ata_id view for SAT devices. */
	ck_assert_int_eq(export_to_buffer(id, EXPORT_UDEV | EXPORT_UDEV_ATA, buf, size, &len), 0);
	free(buf);
	free(id);
	fixture_done(&fx);
}
END_TEST

START_TEST(test_nobufs)
{
	Fixture fx = {};
	ScsiIdent *id = load("scsi-debug", &fx);
	char buf[4096];
	size_t len, full;

	ck_assert_int_eq(export_to_buffer(id, EXPORT_UDEV, buf, sizeof(buf), &full), 0);
	for (size_t size = 0; size <= full; size++)
		ck_assert_int_eq(export_to_buffer(id, EXPORT_UDEV, buf, size, &len), -ENOBUFS);
	ck_assert_int_eq(export_to_buffer(id, EXPORT_UDEV, buf, full + 1, &len), 0);
	ck_assert_uint_eq(len, full);
	free(id);
	fixture_done(&fx);
}
END_TEST

static int stop_at_third(const char *key, const char *value, void *userdata)
{
	int *n = userdata;

	return ++*n == 3 ? -ECANCELED : 0;
}

START_TEST(test_callback_stop)
{
	Fixture fx = {};
	ScsiIdent *id = load("qemu-hd-serial", &fx);
	int n = 0;

	ck_assert_int_eq(export_ident(id, EXPORT_UDEV | EXPORT_SG_INQ, stop_at_third, &n),
	                 -ECANCELED);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(export_ident(id, EXPORT_UDEV, NULL, NULL), -EINVAL);
	free(id);
	fixture_done(&fx);
}
END_TEST

/* An LF in a device string stays inside its value: no line of its own. */
START_TEST(test_lf_value)
{
	Fixture fx = {};
	ScsiIdent *id = load("hostile-name-lf", &fx);
	char buf[16384];
	size_t len;

	ck_assert_int_eq(export_to_buffer(id, EXPORT_UDEV | EXPORT_SG_INQ, buf, sizeof(buf), &len),
	                 0);
	ck_assert(strneq(buf, "ID_SCSI=", strlen("ID_SCSI=")));
	ck_assert_ptr_nonnull(strstr(buf, "\nSCSI_IDENT_LUN_NAME=iqn.x\\x0aSCSI_IDENT_INJECT=1\n"));
	ck_assert_ptr_null(strstr(buf, "\nSCSI_IDENT_INJECT="));
	ck_assert_ptr_nonnull(strstr(buf, "\nID_SERIAL=SEXAMPLE_INJECT_INJ1\n"));
	free(id);
	fixture_done(&fx);
}
END_TEST

static const struct {
	const char *key;
	const char *value;
	size_t len;
	int ret;
	const char *line;
} la[] = {
	{ "LUND_X", "a\nB=1", 5, 0, "LUND_X=a\\x0aB=1\n" },
	{ "LUND_X", "a\0b", 3, 0, "LUND_X=a\\x00b\n" },
	{ "LUND_X", "", 0, 0, "LUND_X=\n" },
	{ "lund_x", "v", 1, -EINVAL, NULL },
	{ "A=B", "v", 1, -EINVAL, NULL },
	{ "A\nB", "v", 1, -EINVAL, NULL },
	{ "", "v", 1, -EINVAL, NULL },
};

START_TEST(test_line_append)
{
	char buf[64];
	size_t pos = 0;

	ck_assert_int_eq(export_line_append(buf, sizeof(buf), &pos, la[_i].key,
	                                    (const uint8_t *)la[_i].value, la[_i].len),
	                 la[_i].ret);
	if (la[_i].line) {
		ck_assert_str_eq(buf, la[_i].line);
		ck_assert_uint_eq(pos, strlen(la[_i].line));
	} else
		ck_assert_uint_eq(pos, 0);
}
END_TEST

START_TEST(test_line_append_nobufs)
{
	char buf[16];
	size_t pos = 0;

	/* "K=a\x0ab\n" is 9 bytes + NUL. */
	ck_assert_int_eq(export_line_append(buf, 9, &pos, "K", (const uint8_t *)"a\nb", 3),
	                 -ENOBUFS);
	ck_assert_uint_eq(pos, 0);
	ck_assert_int_eq(export_line_append(buf, 10, &pos, "K", (const uint8_t *)"a\nb", 3), 0);
	ck_assert_uint_eq(pos, 9);
	ck_assert_int_eq(export_line_append(buf, 10, &pos, "K", (const uint8_t *)"", 0), -ENOBUFS);
	ck_assert_uint_eq(pos, 9);
}
END_TEST

static Suite *export_suite(void)
{
	Suite *s = suite_create("export");
	TCase *tc = tcase_create("core");

	names = check_fixture_list(VPD_DIR, ".inquiry.hex", &n_names);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_lines_safe, 0, (int)n_names);
	tcase_add_test(tc, test_nobufs);
	tcase_add_test(tc, test_callback_stop);
	tcase_add_test(tc, test_lf_value);
	CHECK_ADD_LOOP(tc, test_line_append, la);
	tcase_add_test(tc, test_line_append_nobufs);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(export_suite)
