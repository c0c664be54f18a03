/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * engine/exclusion.c: which LUs lund.conf's [exclude] and [exception] sections take, one row
 * per LU and configuration: every match key, globs, H:C:T:L wildcards, host ranges, device
 * types by number and name, all keys of a section together, an exception over every
 * exclusion, the last matching section reported, names= and invalid values.
 */

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "conf.h"
#include "exclusion.h"
#include "macro.h"

/* An LU: ID_SERIAL, WWN, vendor, model, H:C:T:L, type. */
/* clang-format 14 and 19 lay this initializer out differently */
/* clang-format off */
#define LU(ser, ww, v, m, h, c, t, l, ty)                                                   \
	{                                                                                   \
		.serial = ser, .wwn = ww, .vendor = v, .model = m, .host = h, .channel = c, \
		.target = t, .lun = l, .type = ty                                           \
	}
/* clang-format on */
#define DISK_A                                                                                  \
	LU("3600a0980383030523424457a4a695a41", "0x600a0980383030523424457a4a695a41", "NETAPP", \
	   "LUN C-Mode", 3, 0, 1, 7, 0)
#define TAPE_B LU("HP_Ultrium_6-SCSI_HU1234", NULL, "HP", "Ultrium 6-SCSI", 12, 0, 4, 0, 1)
#define LOCAL_C \
	LU("SATA_Samsung_SSD_S3Z9NB0K", "0x5002538e40a1b2c3", "ATA", "Samsung SSD", 0, 0, 0, 0, 0)

static const struct {
	const char *conf;
	ExclusionFacts lu;
	bool excluded, names;
	const char *rule; /* NULL: no section decided */
	unsigned line;
} cases[] = {
	/* no exclusions */
	{ "[defaults]\ntimeout = 30\n", DISK_A, false, false, NULL, 0 },
	/* wwid: exact, case-insensitive, glob, against ID_SERIAL or the WWN */
	{ "[exclude boot]\nwwid = 3600a0980383030523424457a4a695a41\n", DISK_A, true, false, "boot",
	  1 },
	{ "[exclude boot]\nwwid = 3600A0980383030523424457A4A695A41\n", DISK_A, true, false, "boot",
	  1 },
	{ "[exclude netapp]\nwwid = 3600a098*\n", DISK_A, true, false, "netapp", 1 },
	{ "[exclude ssd]\nwwid = 0x5002538e*\n", LOCAL_C, true, false, "ssd", 1 },
	{ "[exclude other]\nwwid = 3600a099*\n", DISK_A, false, false, NULL, 0 },
	{ "[exclude nowwn]\nwwid = 0x*\n", TAPE_B, false, false, NULL, 0 },
	/* vendor/model globs, both must match (AND) */
	{ "[exclude tapes]\nvendor = hp\nmodel = Ultrium*\n", TAPE_B, true, false, "tapes", 1 },
	{ "[exclude tapes]\nvendor = HP\nmodel = LTO*\n", TAPE_B, false, false, NULL, 0 },
	/* hctl: numbers and '*' per field */
	{ "[exclude l7]\nhctl = 3:0:1:7\n", DISK_A, true, false, "l7", 1 },
	{ "[exclude t1]\nhctl = 3:*:1:*\n", DISK_A, true, false, "t1", 1 },
	{ "[exclude t2]\nhctl = 3:*:2:*\n", DISK_A, false, false, NULL, 0 },
	{ "[exclude any]\nhctl = *:*:*:*\n", TAPE_B, true, false, "any", 1 },
	/* host: a number or a range N-M, bounds included */
	{ "[exclude fc]\nhost = 3\n", DISK_A, true, false, "fc", 1 },
	{ "[exclude fc]\nhost = 10-12\n", TAPE_B, true, false, "fc", 1 },
	{ "[exclude fc]\nhost = 1-2\n", DISK_A, false, false, NULL, 0 },
	{ "[exclude fc]\nhost = 4-10\n", DISK_A, false, false, NULL, 0 },
	/* type: number or name */
	{ "[exclude tapes]\ntype = tape\n", TAPE_B, true, false, "tapes", 1 },
	{ "[exclude tapes]\ntype = 1\n", TAPE_B, true, false, "tapes", 1 },
	{ "[exclude tapes]\ntype = tape\n", DISK_A, false, false, NULL, 0 },
	/* all keys of a section: one that does not match and the section does not */
	{ "[exclude mix]\nhost = 3\ntype = tape\n", DISK_A, false, false, NULL, 0 },
	/* an exception wins over an exclusion, before or after it in the file */
	{ "[exclude all]\nhctl = *:*:*:*\n[exception boot]\nwwid = 3600a098*\n", DISK_A, false,
	  false, "boot", 3 },
	{ "[exception boot]\nwwid = 3600a098*\n[exclude all]\nhctl = *:*:*:*\n", DISK_A, false,
	  false, "boot", 1 },
	{ "[exclude all]\nhctl = *:*:*:*\n[exception boot]\nwwid = 3600a098*\n", TAPE_B, true,
	  false, "all", 1 },
	/* an exception without an exclusion says nothing */
	{ "[exception boot]\nwwid = 3600a098*\n", DISK_A, false, false, NULL, 0 },
	/* the last matching exclusion is the one reported, and its names= holds */
	{ "[exclude first]\nhost = 3\nnames = yes\n[exclude second]\ntype = disk\n", DISK_A, true,
	  false, "second", 4 },
	{ "[exclude first]\ntype = disk\n[exclude second]\nhost = 3\nnames = yes\n", DISK_A, true,
	  true, "second", 3 },
	/* a section without match keys takes every LU, as multipath's devnode "*" */
	{ "[exclude]\nnames = no\n", LOCAL_C, true, false, "exclude", 1 },
	/* an invalid value or an unknown key: the section matches nothing */
	{ "[exclude bad]\nhctl = 3:0:1\n", DISK_A, false, false, NULL, 0 },
	{ "[exclude bad]\nhost = 3-1\n", DISK_A, false, false, NULL, 0 },
	{ "[exclude bad]\ntype = floppy\n", DISK_A, false, false, NULL, 0 },
	{ "[exclude bad]\nhost = 3\ndevnode = sd*\n", DISK_A, false, false, NULL, 0 },
	{ "[exclude bad]\nwwid = \"\"\n", DISK_A, false, false, NULL, 0 },
	/* an exception's names= is no key of it: that exception matches nothing */
	{ "[exclude all]\nhost = 3\n[exception e]\nnames = yes\n", DISK_A, true, false, "all", 1 },
	/* unknown facts match only sections that do not ask for them */
	{ "[exclude tapes]\ntype = disk\n", LU(NULL, NULL, NULL, NULL, 5, 0, 0, 0, -1), false,
	  false, NULL, 0 },
	{ "[exclude h5]\nhost = 5\n", LU(NULL, NULL, NULL, NULL, 5, 0, 0, 0, -1), true, false, "h5",
	  1 },
};

START_TEST(test_judge)
{
	_cleanup_(conf_unrefp) LundConf *conf = NULL;
	ExclusionVerdict v;
	CheckTree t;
	char path[PATH_MAX];

	check_tree_new(&t, "check-exclusion");
	check_tree_put_str(&t, "lund.conf", cases[_i].conf);
	xsnprintf(path, "%s/lund.conf", t.path);
	ck_assert_int_eq(conf_load_file(path, &conf), 0);
	exclusion_judge(conf, &cases[_i].lu, &v);
	ck_assert_msg(v.excluded == cases[_i].excluded, "row %d: excluded %d", _i, v.excluded);
	ck_assert_int_eq(v.names, cases[_i].names);
	if (cases[_i].rule) {
		ck_assert_ptr_nonnull(v.rule);
		ck_assert_str_eq(v.rule, cases[_i].rule);
		ck_assert_str_eq(v.kind, v.excluded ? "exclude" : "exception");
	} else
		ck_assert_ptr_null(v.rule);
	ck_assert_uint_eq(v.line, cases[_i].line);
	ck_assert_int_eq(exclusion_any(conf), strstr(cases[_i].conf, "[exclude") != NULL);
	check_tree_remove(&t);
}
END_TEST

/* No configuration: nothing excluded. */
START_TEST(test_no_conf)
{
	ExclusionFacts f = DISK_A;
	ExclusionVerdict v;

	exclusion_judge(NULL, &f, &v);
	ck_assert(!v.excluded && !v.rule);
	ck_assert(!exclusion_any(NULL));
}
END_TEST

/* The values check-config takes are the ones the judgement reads. */
static const struct {
	bool exception;
	const char *key, *value;
	int r;
} entries[] = {
	{ false, "wwid", "3600*", 0 },
	{ false, "wwid", "", -EINVAL },
	{ false, "hctl", "1:*:2:*", 0 },
	{ false, "hctl", "1:2:3", -EINVAL },
	{ false, "hctl", "1:2:3:4:5", -EINVAL },
	{ false, "hctl", "a:*:*:*", -EINVAL },
	{ false, "hctl", "1::2:3", -EINVAL },
	{ false, "host", "0", 0 },
	{ false, "host", "2-9", 0 },
	{ false, "host", "9-2", -EINVAL },
	{ false, "host", "-3", -EINVAL },
	{ false, "host", "03", -EINVAL },
	{ false, "type", "enclosure", 0 },
	{ false, "type", "13", 0 },
	{ false, "type", "32", -EINVAL },
	{ false, "names", "yes", 0 },
	{ false, "names", "maybe", -EINVAL },
	{ true, "names", "yes", -ENOENT },
	{ true, "vendor", "ACME", 0 },
	{ false, "devnode", "sd*", -ENOENT },
};

START_TEST(test_check_entry)
{
	const char *expected = NULL;

	ck_assert_int_eq(exclusion_check_entry(entries[_i].exception, entries[_i].key,
	                                       entries[_i].value, &expected),
	                 entries[_i].r);
	ck_assert(entries[_i].r == -EINVAL ? expected != NULL : expected == NULL);
}
END_TEST

static Suite *exclusion_suite(void)
{
	Suite *s = suite_create("exclusion");
	TCase *tc = tcase_create("core");

	CHECK_ADD_LOOP(tc, test_judge, cases);
	tcase_add_test(tc, test_no_conf);
	CHECK_ADD_LOOP(tc, test_check_entry, entries);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(exclusion_suite)
