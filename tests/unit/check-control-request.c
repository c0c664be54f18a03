/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Control requests taken apart before anything acts on them (control-request.h): which
 * commands a read-only client (lund.conf [control] read_group=) may send, and what every
 * request line, well-formed or hostile, turns into.
 */

#include <check.h>
#include <errno.h>
#include <string.h>

#include "check-util.h"
#include "control-request.h"
#include "control.h"
#include "macro.h"

/* Every command, and whether it only reads lund's state. A new command must be added here. */
static const struct {
	const char *name;
	bool read_only;
} commands[] = {
	{ "list", true },    { "status", true },   { "names", true },   { "monitor", true },
	{ "rescan", false }, { "resync", false },  { "reload", false }, { "queue", true },
	{ "hold", false },   { "release", false },
};

START_TEST(test_classification)
{
	ControlCommand c = control_command_from_string(commands[_i].name);

	ck_assert_int_ge(c, 0);
	ck_assert_str_eq(control_command_to_string(c), commands[_i].name);
	ck_assert_int_eq(control_command_read_only(c), commands[_i].read_only);
}
END_TEST

START_TEST(test_classification_complete)
{
	/* No command is left out of the table above, and unknown ones are never read-only. */
	ck_assert_int_eq(_CONTROL_COMMAND_MAX, ELEMENTSOF(commands));
	ck_assert_int_eq(control_command_from_string("delete"), _CONTROL_COMMAND_INVALID);
	ck_assert_int_eq(control_command_from_string(NULL), _CONTROL_COMMAND_INVALID);
	ck_assert(!control_command_read_only(_CONTROL_COMMAND_INVALID));
	ck_assert(!control_command_read_only(_CONTROL_COMMAND_MAX));
	ck_assert_ptr_null(control_command_to_string(_CONTROL_COMMAND_MAX));
}
END_TEST

static const struct {
	const char *line;
	int error;
	ControlCommand cmd;
} lines[] = {
	{ "{\"cmd\":\"status\"}", 0, CONTROL_STATUS },
	{ "  {\"cmd\":\"monitor\",\"id\":7}  \t", 0, CONTROL_MONITOR },
	{ "{\"cmd\":\"list\"}", 0, CONTROL_LIST },
	{ "{\"cmd\":\"list\",\"limit\":1000,\"after\":\"2:0:1:5\"}", 0, CONTROL_LIST },
	{ "{\"cmd\":\"list\",\"limit\":10000}", 0, CONTROL_LIST },
	{ "{\"cmd\":\"list\",\"limit\":10001}", -EINVAL },
	{ "{\"cmd\":\"list\",\"limit\":0}", -EINVAL },
	{ "{\"cmd\":\"list\",\"limit\":-1}", -EINVAL },
	{ "{\"cmd\":\"list\",\"limit\":\"5\"}", -EINVAL },
	{ "{\"cmd\":\"list\",\"after\":\"2:0:1\"}", -EINVAL },
	{ "{\"cmd\":\"list\",\"after\":5}", -EINVAL },
	{ "{\"cmd\":\"names\",\"device\":\"/dev/sda\"}", 0, CONTROL_NAMES },
	{ "{\"cmd\":\"names\"}", -EINVAL },
	{ "{\"cmd\":\"names\",\"device\":\"\"}", -EINVAL },
	{ "{\"cmd\":\"names\",\"device\":\"sd\\u0000a\"}", -EINVAL },
	{ "{\"cmd\":\"rescan\",\"selectors\":[\"2\",\"0:0:1\"],\"remove\":true}", 0,
	  CONTROL_RESCAN },
	{ "{\"cmd\":\"rescan\",\"selectors\":\"2\"}", -EINVAL },
	{ "{\"cmd\":\"rescan\",\"selectors\":[2]}", -EINVAL },
	{ "{\"cmd\":\"rescan\",\"selectors\":[\"x:y\"]}", -EINVAL },
	{ "{\"cmd\":\"rescan\",\"jobs\":\"8\"}", -EINVAL },
	{ "{\"cmd\":\"rescan\",\"progress\":1}", -EINVAL },
	{ "{\"cmd\":\"resync\"}", 0, CONTROL_RESYNC },
	{ "{\"cmd\":\"reload\"}", 0, CONTROL_RELOAD },
	{ "{\"cmd\":\"delete\"}", -EOPNOTSUPP },
	{ "{\"cmd\":5}", -EBADMSG },
	{ "{}", -EBADMSG },
	{ "[\"cmd\",\"status\"]", -EBADMSG },
	{ "\"status\"", -EBADMSG },
	{ "{\"cmd\":\"status\"} {\"cmd\":\"status\"}", -EBADMSG },
	{ "{\"cmd\":\"status\"}x", -EBADMSG },
	{ "{\"cmd\":\"status\"", -EBADMSG },
	{ "", -EBADMSG },
};

START_TEST(test_parse)
{
	_cleanup_(control_request_done) ControlRequest req = {};
	json_object *o = NULL;
	int r;

	r = control_request_parse(lines[_i].line, strlen(lines[_i].line), &o, &req);
	ck_assert_msg(r == lines[_i].error, "%s: %d, wanted %d", lines[_i].line, r,
	              lines[_i].error);
	if (r == 0)
		ck_assert_int_eq(req.cmd, lines[_i].cmd);
	json_object_put(o);
}
END_TEST

START_TEST(test_parse_values)
{
	static const char line[] =
	        "{\"cmd\":\"list\",\"limit\":250,\"after\":\"3:1:4:1099511627776\"}";
	static const char rescan[] = "{\"cmd\":\"rescan\",\"selectors\":[\"host2\",\"0:0:1:-\"],"
	                             "\"timeout_ms\":99999999,\"jobs\":-4,\"max_lun\":7,"
	                             "\"progress\":true}";
	_cleanup_(control_request_done) ControlRequest req = {}, scan = {};
	json_object *o = NULL, *o2 = NULL;

	ck_assert_int_eq(control_request_parse(line, strlen(line), &o, &req), 0);
	ck_assert(req.has_after);
	ck_assert_uint_eq(req.after_host, 3);
	ck_assert_uint_eq(req.after_channel, 1);
	ck_assert_uint_eq(req.after_target, 4);
	ck_assert_uint_eq(req.after_lun, 1099511627776ull);
	ck_assert_uint_eq(req.limit, 250);

	/* Numbers out of range are clamped as before, types are not forgiven. */
	ck_assert_int_eq(control_request_parse(rescan, strlen(rescan), &o2, &scan), 0);
	ck_assert_uint_eq(scan.n_selectors, 2);
	ck_assert_int_eq(scan.selectors[0].host, 2);
	ck_assert_uint_eq(scan.policy.timeout_ms, 3600000);
	ck_assert_uint_eq(scan.policy.max_workers, 0);
	ck_assert_uint_eq(scan.policy.seq_max_lun, 7);
	ck_assert(scan.progress);
	ck_assert(scan.flags & SCAN_ADD);
	json_object_put(o);
	json_object_put(o2);
}
END_TEST

START_TEST(test_parse_bounds)
{
	/* An embedded NUL ends nothing: the whole line is the request. */
	static const char nul[] = "{\"cmd\":\"status\"}\0{\"cmd\":\"rescan\"}";
	_cleanup_(control_request_done) ControlRequest req = {};
	_cleanup_free_ char *big = NULL;
	json_object *o = NULL;

	ck_assert_int_eq(control_request_parse(nul, sizeof(nul) - 1, &o, &req), -EBADMSG);
	big = calloc(CONTROL_REQUEST_MAX + 2, 1);
	ck_assert_ptr_nonnull(big);
	memset(big, ' ', CONTROL_REQUEST_MAX + 1);
	ck_assert_int_eq(control_request_parse(big, CONTROL_REQUEST_MAX + 1, &o, &req), -EMSGSIZE);
}
END_TEST

static Suite *control_request_suite(void)
{
	Suite *s = suite_create("control-request");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_classification, 0, ELEMENTSOF(commands));
	tcase_add_test(tc, test_classification_complete);
	tcase_add_loop_test(tc, test_parse, 0, ELEMENTSOF(lines));
	tcase_add_test(tc, test_parse_values);
	tcase_add_test(tc, test_parse_bounds);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(control_request_suite)
