/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * errevent: the companion patchset's SDEV_ERROR uevent. The well-formed rows are what the
 * patched kernel sent in the kernel-patched VM scenario (kernel/README.md's table: scsi_debug
 * opts=2 medium error at LBA 4660, opts=16 ABORTED COMMAND 4B/03, opts=128 timeouts).
 */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check-util.h"
#include "errevent.h"
#include "macro.h"

#define NPROPS 24

/* The full transport event; rows override or drop one key at a time. */
static const char *const transport[] = {
	"ACTION=change",
	"DEVPATH=/devices/pseudo_0/adapter0/host2/target2:0:0/2:0:0:0",
	"SUBSYSTEM=scsi",
	"SDEV_ERROR=1",
	"SDEV_ERROR_CLASS=transport",
	"SDEV_ERROR_RETRY=0",
	"SDEV_ERROR_RETRYABLE=1",
	"SDEV_ERROR_ERRNO=5",
	"SDEV_ERROR_RESULT=0",
	"SDEV_ERROR_STATUS=2",
	"SDEV_ERROR_SK=11",
	"SDEV_ERROR_ASC=75",
	"SDEV_ERROR_ASCQ=3",
	"SDEV_ERROR_OPCODE=40",
	"SDEV_ERROR_SECTOR=0",
	"SDEV_ERROR_SUPPRESSED=0",
	"SEQNUM=1234",
};

static const char overlong[] = "SDEV_ERROR_SECTOR=000000000000000000001";

static const struct {
	const char *name;
	const char *drop;   /* remove the entry with this key */
	const char *set[3]; /* then replace (same key) or append these entries */
	int r;
	ErrEvent e;
} cases[] = {
	{ "transport",
	  NULL,
	  {},
	  0,
	  { .class = ERRCLASS_TRANSPORT,
	    .retryable = true,
	    .error = 5,
	    .status = 2,
	    .sk = 11,
	    .asc = 75,
	    .ascq = 3,
	    .opcode = 40 } },
	{ "medium",
	  NULL,
	  { "SDEV_ERROR_CLASS=medium", "SDEV_ERROR_RETRYABLE=0", "SDEV_ERROR_SECTOR=4660" },
	  0,
	  { .class = ERRCLASS_MEDIUM,
	    .error = 5,
	    .status = 2,
	    .sk = 11,
	    .asc = 75,
	    .ascq = 3,
	    .opcode = 40,
	    .sector = 4660 } },
	{ "timeout-suppressed",
	  NULL,
	  { "SDEV_ERROR_CLASS=timeout", "SDEV_ERROR_SUPPRESSED=4294967295",
	    "SDEV_ERROR_ERRNO=4095" },
	  0,
	  { .class = ERRCLASS_TIMEOUT,
	    .retryable = true,
	    .error = 4095,
	    .status = 2,
	    .sk = 11,
	    .asc = 75,
	    .ascq = 3,
	    .opcode = 40,
	    .suppressed = UINT32_MAX } },
	{ "sector-u64-max",
	  NULL,
	  { "SDEV_ERROR_SECTOR=18446744073709551615" },
	  0,
	  { .class = ERRCLASS_TRANSPORT,
	    .retryable = true,
	    .error = 5,
	    .status = 2,
	    .sk = 11,
	    .asc = 75,
	    .ascq = 3,
	    .opcode = 40,
	    .sector = UINT64_MAX } },
	{ "unknown-key-ignored",
	  NULL,
	  { "SDEV_ERROR_FUTURE=x" },
	  0,
	  { .class = ERRCLASS_TRANSPORT,
	    .retryable = true,
	    .error = 5,
	    .status = 2,
	    .sk = 11,
	    .asc = 75,
	    .ascq = 3,
	    .opcode = 40 } },
	{ "every-class",
	  NULL,
	  { "SDEV_ERROR_CLASS=driver" },
	  0,
	  { .class = ERRCLASS_DRIVER,
	    .retryable = true,
	    .error = 5,
	    .status = 2,
	    .sk = 11,
	    .asc = 75,
	    .ascq = 3,
	    .opcode = 40 } },
	/* A class lund does not know (a later kernel's word): the kernel's name, taken as is. */
	{ "unknown-class",
	  NULL,
	  { "SDEV_ERROR_CLASS=abort" },
	  0,
	  { .class = _ERRCLASS_INVALID,
	    .class_name = "abort",
	    .retryable = true,
	    .error = 5,
	    .status = 2,
	    .sk = 11,
	    .asc = 75,
	    .ascq = 3,
	    .opcode = 40 } },
	{ "class-31",
	  NULL,
	  { "SDEV_ERROR_CLASS=transport_transport-transport_1" },
	  0,
	  { .class = _ERRCLASS_INVALID,
	    .class_name = "transport_transport-transport_1",
	    .retryable = true,
	    .error = 5,
	    .status = 2,
	    .sk = 11,
	    .asc = 75,
	    .ascq = 3,
	    .opcode = 40 } },
	/* Not an error event at all. */
	{ "no-sdev-error", "SDEV_ERROR", {}, -ENODATA },
	/* Hostile or broken. */
	{ "sdev-error-0", NULL, { "SDEV_ERROR=0" }, -EBADMSG },
	{ "missing-class", "SDEV_ERROR_CLASS", {}, -EBADMSG },
	{ "missing-ascq", "SDEV_ERROR_ASCQ", {}, -EBADMSG },
	{ "missing-suppressed", "SDEV_ERROR_SUPPRESSED", {}, -EBADMSG },
	{ "class-upper", NULL, { "SDEV_ERROR_CLASS=transportX" }, -EBADMSG },
	{ "class-empty", NULL, { "SDEV_ERROR_CLASS=" }, -EBADMSG },
	{ "class-overlong",
	  NULL,
	  { "SDEV_ERROR_CLASS=transport_transport-transport_12" },
	  -EBADMSG },
	{ "class-slash", NULL, { "SDEV_ERROR_CLASS=../transport" }, -EBADMSG },
	{ "class-blank", NULL, { "SDEV_ERROR_CLASS=trans port" }, -EBADMSG },
	{ "class-escape", NULL, { "SDEV_ERROR_CLASS=medium\x1b[2J" }, -EBADMSG },
	{ "duplicate", NULL, {}, -EBADMSG }, /* filled in below: SK twice */
	{ "errno-negative", NULL, { "SDEV_ERROR_ERRNO=-5" }, -EBADMSG },
	{ "errno-zero", NULL, { "SDEV_ERROR_ERRNO=0" }, -EBADMSG },
	{ "errno-4096", NULL, { "SDEV_ERROR_ERRNO=4096" }, -EBADMSG },
	{ "sk-16", NULL, { "SDEV_ERROR_SK=16" }, -EBADMSG },
	{ "asc-256", NULL, { "SDEV_ERROR_ASC=256" }, -EBADMSG },
	{ "retryable-2", NULL, { "SDEV_ERROR_RETRYABLE=2" }, -EBADMSG },
	{ "suppressed-2^32", NULL, { "SDEV_ERROR_SUPPRESSED=4294967296" }, -EBADMSG },
	{ "sector-2^64", NULL, { "SDEV_ERROR_SECTOR=18446744073709551616" }, -EBADMSG },
	{ "sector-overlong", NULL, { overlong }, -EBADMSG },
	{ "leading-zero", NULL, { "SDEV_ERROR_ASC=075" }, -EBADMSG },
	{ "plus-sign", NULL, { "SDEV_ERROR_ASC=+75" }, -EBADMSG },
	{ "blank", NULL, { "SDEV_ERROR_ASC= 75" }, -EBADMSG },
	{ "trailing-blank", NULL, { "SDEV_ERROR_ASC=75 " }, -EBADMSG },
	{ "hex", NULL, { "SDEV_ERROR_ASC=0x4b" }, -EBADMSG },
	{ "empty-value", NULL, { "SDEV_ERROR_OPCODE=" }, -EBADMSG },
	{ "no-equals", NULL, { "GARBAGE" }, -EBADMSG },
	{ "empty-key", NULL, { "=1" }, -EBADMSG },
};

static const char *key_of(const char *p, char *buf, size_t size)
{
	const char *eq = strchr(p, '=');
	size_t n = eq ? (size_t)(eq - p) : strlen(p);

	ck_assert_uint_lt(n, size);
	memcpy(buf, p, n);
	buf[n] = 0;
	return buf;
}

START_TEST(test_parse)
{
	const char *props[NPROPS];
	size_t n = 0;
	ErrEvent e, keep = { .error = 12345 };
	char k1[64], k2[64];
	int r;

	for (size_t i = 0; i < ELEMENTSOF(transport); i++) {
		if (cases[_i].drop && streq(key_of(transport[i], k1, sizeof(k1)), cases[_i].drop))
			continue;
		props[n++] = transport[i];
	}
	for (size_t j = 0; j < ELEMENTSOF(cases[_i].set) && cases[_i].set[j]; j++) {
		size_t i;

		for (i = 0; i < n; i++)
			if (strchr(cases[_i].set[j], '=') &&
			    streq(key_of(props[i], k1, sizeof(k1)),
			          key_of(cases[_i].set[j], k2, sizeof(k2))))
				break;
		if (i == n)
			n++;
		props[i] = cases[_i].set[j];
	}
	if (streq(cases[_i].name, "duplicate"))
		props[n++] = "SDEV_ERROR_SK=3";
	ck_assert_uint_le(n, NPROPS);

	e = keep;
	r = errevent_parse(props, n, &e);
	ck_assert_msg(r == cases[_i].r, "%s: got %d, want %d", cases[_i].name, r, cases[_i].r);
	if (r < 0) {
		/* Output written only on success. */
		ck_assert_int_eq(e.error, keep.error);
		return;
	}
	ck_assert_int_eq(e.class, cases[_i].e.class);
	ck_assert_str_eq(e.class_name, cases[_i].e.class_name[0] ? cases[_i].e.class_name
	                                                         : errclass_to_string(e.class));
	ck_assert_int_eq(e.retryable, cases[_i].e.retryable);
	ck_assert_int_eq(e.retry, cases[_i].e.retry);
	ck_assert_int_eq(e.error, cases[_i].e.error);
	ck_assert_uint_eq(e.result, cases[_i].e.result);
	ck_assert_uint_eq(e.status, cases[_i].e.status);
	ck_assert_uint_eq(e.sk, cases[_i].e.sk);
	ck_assert_uint_eq(e.asc, cases[_i].e.asc);
	ck_assert_uint_eq(e.ascq, cases[_i].e.ascq);
	ck_assert_uint_eq(e.opcode, cases[_i].e.opcode);
	ck_assert_uint_eq(e.sector, cases[_i].e.sector);
	ck_assert_uint_eq(e.suppressed, cases[_i].e.suppressed);
}
END_TEST

START_TEST(test_limits)
{
	static char longline[ERREVENT_LINE_MAX + 16];
	const char *props[ERREVENT_PROPS_MAX + 1];
	ErrEvent e;

	/* A line longer than the kernel's whole uevent buffer, even one we would ignore. */
	memset(longline, 'A', sizeof(longline) - 1);
	longline[1] = '=';
	props[0] = longline;
	ck_assert_int_eq(errevent_parse(props, 1, &e), -EBADMSG);

	/* More properties than a uevent can carry. */
	for (size_t i = 0; i < ELEMENTSOF(props); i++)
		props[i] = "X=1";
	ck_assert_int_eq(errevent_parse(props, ELEMENTSOF(props), &e), -EBADMSG);
	ck_assert_int_eq(errevent_parse(props, ERREVENT_PROPS_MAX, &e), -ENODATA);

	/* A NULL entry, and no entries at all. */
	props[0] = NULL;
	ck_assert_int_eq(errevent_parse(props, 1, &e), -EBADMSG);
	ck_assert_int_eq(errevent_parse(NULL, 0, &e), -ENODATA);
	ck_assert_int_eq(errevent_parse(props, 0, NULL), -EINVAL);
}
END_TEST

static const char *const class_names[] = {
	"transport",  "timeout", "target", "nexus",  "medium",
	"protection", "space",   "device", "driver",
};

START_TEST(test_class_names)
{
	ck_assert_int_eq(ELEMENTSOF(class_names), _ERRCLASS_MAX);
	ck_assert_str_eq(errclass_to_string((ErrClass)_i), class_names[_i]);
	ck_assert_int_eq(errclass_from_string(class_names[_i]), _i);
}
END_TEST

START_TEST(test_class_invalid)
{
	ck_assert_ptr_null(errclass_to_string(_ERRCLASS_MAX));
	ck_assert_ptr_null(errclass_to_string(_ERRCLASS_INVALID));
	ck_assert_int_eq(errclass_from_string("Transport"), _ERRCLASS_INVALID);
	ck_assert_int_eq(errclass_from_string(""), _ERRCLASS_INVALID);
	ck_assert_int_eq(errclass_from_string(NULL), _ERRCLASS_INVALID);
}
END_TEST

/* Class names as the kernel may offer them: bounded, [a-z0-9_-] only. */
START_TEST(test_class_name_valid)
{
	ck_assert(errclass_name_valid("nexus", 5));
	ck_assert(errclass_name_valid("abort", 5));
	ck_assert(errclass_name_valid("pi-guard_2", 10));
	ck_assert(errclass_name_valid("abcdefghijklmnopqrstuvwxyz01234", 31));
	ck_assert(!errclass_name_valid("abcdefghijklmnopqrstuvwxyz012345", 32));
	ck_assert(!errclass_name_valid("", 0));
	ck_assert(!errclass_name_valid(NULL, 3));
	ck_assert(!errclass_name_valid("Medium", 6));
	ck_assert(!errclass_name_valid(".", 1));
	ck_assert(!errclass_name_valid("a/b", 3));
	ck_assert(!errclass_name_valid("a\nb", 3));
	ck_assert(!errclass_name_valid("a\0b", 3));
}
END_TEST

/* The interned table: the known classes at their ErrClass, new names after them, each once,
 * and no more than ERRCLASS_TABLE_MAX in all. */
START_TEST(test_class_table)
{
	ErrClassTable t;
	char name[16];

	errclass_table_init(&t);
	for (ErrClass c = 0; c < _ERRCLASS_MAX; c++) {
		ck_assert_str_eq(errclass_table_name(&t, c), errclass_to_string(c));
		ck_assert_int_eq(errclass_table_intern(&t, errclass_to_string(c),
		                                       strlen(errclass_to_string(c))),
		                 c);
	}
	/* @len counts, not the NUL: "abort" out of "aborted" */
	ck_assert_int_eq(errclass_table_intern(&t, "aborted", 5), _ERRCLASS_MAX);
	ck_assert_str_eq(errclass_table_name(&t, _ERRCLASS_MAX), "abort");
	ck_assert_int_eq(errclass_table_intern(&t, "abort", 5), _ERRCLASS_MAX);
	ck_assert_int_eq(errclass_table_intern(&t, "Abort", 5), -EBADMSG);
	ck_assert_ptr_null(errclass_table_name(&t, _ERRCLASS_MAX + 1));
	for (unsigned i = _ERRCLASS_MAX + 1; i < ERRCLASS_TABLE_MAX; i++) {
		snprintf(name, sizeof(name), "class%u", i);
		ck_assert_int_eq(errclass_table_intern(&t, name, strlen(name)), (int)i);
	}
	ck_assert_int_eq(errclass_table_intern(&t, "onetoomany", 10), -ENOBUFS);
	/* a name it holds is still found when full */
	ck_assert_int_eq(errclass_table_intern(&t, "abort", 5), _ERRCLASS_MAX);
	ck_assert_uint_eq(t.n, ERRCLASS_TABLE_MAX);
	ck_assert_ptr_null(errclass_table_name(&t, ERRCLASS_TABLE_MAX));
}
END_TEST

static Suite *errevent_suite(void)
{
	Suite *s = suite_create("errevent");
	TCase *tc = tcase_create("core");

	CHECK_ADD_LOOP(tc, test_parse, cases);
	tcase_add_test(tc, test_limits);
	CHECK_ADD_LOOP(tc, test_class_names, class_names);
	tcase_add_test(tc, test_class_invalid);
	tcase_add_test(tc, test_class_name_valid);
	tcase_add_test(tc, test_class_table);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(errevent_suite)
