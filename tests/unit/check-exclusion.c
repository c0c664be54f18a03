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

/* An LU: ID_SERIAL, WWN, vendor, model, H:C:T:L, type; its host's driver and transport. */
/* clang-format 14 and 19 lay this initializer out differently */
/* clang-format off */
#define LU_ON(ser, ww, v, m, h, c, t, l, ty, drv, tp)                                       \
	{                                                                                   \
		.serial = ser, .wwn = ww, .vendor = v, .model = m, .host = h, .channel = c, \
		.target = t, .lun = l, .type = ty, .driver = drv, .transport = tp           \
	}
/* clang-format on */
#define LU(ser, ww, v, m, h, c, t, l, ty) LU_ON(ser, ww, v, m, h, c, t, l, ty, NULL, NULL)
#define DISK_A                                                                                     \
	LU_ON("3600a0980383030523424457a4a695a41", "0x600a0980383030523424457a4a695a41", "NETAPP", \
	      "LUN C-Mode", 3, 0, 1, 7, 0, "qla2xxx", "fc")
#define TAPE_B                                                                                     \
	LU_ON("HP_Ultrium_6-SCSI_HU1234", NULL, "HP", "Ultrium 6-SCSI", 12, 0, 4, 0, 1, "mpt3sas", \
	      "sas")
#define LOCAL_C                                                                                    \
	LU_ON("SATA_Samsung_SSD_S3Z9NB0K", "0x5002538e40a1b2c3", "ATA", "Samsung SSD", 0, 0, 0, 0, \
	      0, "ahci", "sata")

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
	/* driver: a glob on the host's driver; transport: its kind, a word or a glob */
	{ "[exclude local]\ndriver = ahci\n", LOCAL_C, true, false, "local", 1 },
	{ "[exclude qlogic]\ndriver = QLA*\n", DISK_A, true, false, "qlogic", 1 },
	{ "[exclude qlogic]\ndriver = qla*\n", TAPE_B, false, false, NULL, 0 },
	{ "[exclude fc]\ntransport = fc\n", DISK_A, true, false, "fc", 1 },
	{ "[exclude fc]\ntransport = fc*\n", DISK_A, true, false, "fc", 1 },
	{ "[exclude fc]\ntransport = fc\n", TAPE_B, false, false, NULL, 0 },
	{ "[exclude sas-tape]\ntransport = sas\ntype = tape\n", TAPE_B, true, false, "sas-tape",
	  1 },
	{ "[exclude virt]\ntransport = none\n",
	  LU_ON(NULL, NULL, NULL, NULL, 2, 0, 1, 0, 0, "virtio_scsi", "none"), true, false, "virt",
	  1 },
	/* a host whose facts are unknown: driver= and transport= do not match it */
	{ "[exclude fc]\ntransport = fc\n", LU(NULL, NULL, NULL, NULL, 3, 0, 1, 7, 0), false, false,
	  NULL, 0 },
	/* an exception by transport over an exclusion by host range */
	{ "[exclude hosts]\nhost = 0-20\n[exception sas]\ntransport = sas\n", TAPE_B, false, false,
	  "sas", 3 },
	{ "[exclude bad]\ntransport = infiniband\n", DISK_A, false, false, NULL, 0 },
	/* [react] sections exclude nothing */
	{ "[react fc]\ntransport = fc\nluns = report\n", DISK_A, false, false, NULL, 0 },
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
#define EXCL  CONF_SECTION_EXCLUDE
#define EXC   CONF_SECTION_EXCEPTION
#define REACT CONF_SECTION_REACT
static const struct {
	ConfSectionKind kind;
	const char *key, *value;
	int r;
} entries[] = {
	{ EXCL, "wwid", "3600*", 0 },
	{ EXCL, "wwid", "", -EINVAL },
	{ EXCL, "hctl", "1:*:2:*", 0 },
	{ EXCL, "hctl", "1:2:3", -EINVAL },
	{ EXCL, "hctl", "1:2:3:4:5", -EINVAL },
	{ EXCL, "hctl", "a:*:*:*", -EINVAL },
	{ EXCL, "hctl", "1::2:3", -EINVAL },
	{ EXCL, "host", "0", 0 },
	{ EXCL, "host", "2-9", 0 },
	{ EXCL, "host", "9-2", -EINVAL },
	{ EXCL, "host", "-3", -EINVAL },
	{ EXCL, "host", "03", -EINVAL },
	{ EXCL, "type", "enclosure", 0 },
	{ EXCL, "type", "13", 0 },
	{ EXCL, "type", "32", -EINVAL },
	{ EXCL, "names", "yes", 0 },
	{ EXCL, "names", "maybe", -EINVAL },
	{ EXC, "names", "yes", -ENOENT },
	{ EXC, "vendor", "ACME", 0 },
	{ EXCL, "devnode", "sd*", -ENOENT },
	{ EXCL, "driver", "qla2xxx", 0 },
	{ EXCL, "driver", "", -EINVAL },
	{ EXC, "transport", "iscsi", 0 },
	{ EXCL, "transport", "FC", 0 },
	{ EXCL, "transport", "none", 0 },
	{ EXCL, "transport", "s*", 0 },
	{ EXCL, "transport", "infiniband", -EINVAL },
	{ EXCL, "luns", "add", -ENOENT },
	{ REACT, "luns", "add", 0 },
	{ REACT, "luns", "add-remove", 0 },
	{ REACT, "luns", "remove", -EINVAL },
	{ REACT, "capacity", "report", 0 },
	{ REACT, "capacity", "rename", -EINVAL },
	{ REACT, "identity", "rename", 0 },
	{ REACT, "new_hosts", "scan", 0 },
	{ REACT, "new_hosts", "", -EINVAL },
	{ REACT, "transport", "sas", 0 },
	{ REACT, "names", "yes", -ENOENT },
	{ REACT, "devnode", "sd*", -ENOENT },
};

START_TEST(test_check_entry)
{
	const char *expected = NULL;

	ck_assert_int_eq(exclusion_check_entry(entries[_i].kind, entries[_i].key, entries[_i].value,
	                                       &expected),
	                 entries[_i].r);
	ck_assert(entries[_i].r == -EINVAL ? expected != NULL : expected == NULL);
}
END_TEST

/* [react]: per action key the last matching section that sets it decides; the default is to
 * act; "add" adds and does not remove; an invalid value leaves the key unset. */
static const struct {
	const char *conf;
	ExclusionFacts lu;
	ReactAction what;
	bool report;
	const char *rule; /* NULL: no section decided */
	unsigned line;    /* of the deciding key */
} reactions[] = {
	{ "[defaults]\ntimeout = 30\n", DISK_A, REACT_REMOVE, false, NULL, 0 },
	{ "[react r]\nluns = add\n", DISK_A, REACT_ADD, false, "r", 2 },
	{ "[react r]\nluns = add\n", DISK_A, REACT_REMOVE, true, "r", 2 },
	{ "[react r]\nluns = report\n", DISK_A, REACT_ADD, true, "r", 2 },
	{ "[react r]\nluns = add-remove\n", DISK_A, REACT_REMOVE, false, "r", 2 },
	{ "[react r]\nluns = add\n", DISK_A, REACT_RESIZE, false, NULL, 0 },
	{ "[react r]\ncapacity = report\n", DISK_A, REACT_RESIZE, true, "r", 2 },
	{ "[react r]\nidentity = report\n", DISK_A, REACT_RENAME, true, "r", 2 },
	{ "[react r]\nidentity = rename\n", DISK_A, REACT_RENAME, false, "r", 2 },
	{ "[react r]\nnew_hosts = report\n", DISK_A, REACT_SCAN_HOST, true, "r", 2 },
	/* match keys: a section that does not match says nothing */
	{ "[react fc]\ntransport = fc\nluns = add\n", DISK_A, REACT_REMOVE, true, "fc", 3 },
	{ "[react fc]\ntransport = fc\nluns = add\n", TAPE_B, REACT_REMOVE, false, NULL, 0 },
	{ "[react q]\ndriver = qla*\nhost = 3\ncapacity = report\n", DISK_A, REACT_RESIZE, true,
	  "q", 4 },
	/* the last matching section that sets the key decides; others' keys do not count */
	{ "[react all]\nluns = report\n[react fc]\ntransport = fc\nluns = add-remove\n", DISK_A,
	  REACT_ADD, false, "fc", 5 },
	{ "[react fc]\ntransport = fc\nluns = add-remove\n[react all]\nluns = report\n", DISK_A,
	  REACT_ADD, true, "all", 5 },
	{ "[react all]\nluns = report\n[react fc]\ntransport = fc\ncapacity = report\n", DISK_A,
	  REACT_ADD, true, "all", 2 },
	/* a host appearing is judged on its facts alone: hctl with '*' and host= match it */
	{ "[react h]\nhctl = 3:*:*:*\nnew_hosts = report\n",
	  LU_ON(NULL, NULL, NULL, NULL, 3, -1, -1, -1, -1, "qla2xxx", "fc"), REACT_SCAN_HOST, true,
	  "h", 3 },
	{ "[react disks]\ntype = disk\nnew_hosts = report\n",
	  LU_ON(NULL, NULL, NULL, NULL, 3, -1, -1, -1, -1, "qla2xxx", "fc"), REACT_SCAN_HOST, false,
	  NULL, 0 },
	/* invalid: the value leaves the key unset, a bad match key matches nothing */
	{ "[react r]\nluns = remove\n", DISK_A, REACT_REMOVE, false, NULL, 0 },
	{ "[react r]\nhost = x\nluns = report\n", DISK_A, REACT_ADD, false, NULL, 0 },
	/* an [exclude] says nothing about reactions (the caller asks it first) */
	{ "[exclude all]\n", DISK_A, REACT_REMOVE, false, NULL, 0 },
};

START_TEST(test_react)
{
	_cleanup_(conf_unrefp) LundConf *conf = NULL;
	ReactVerdict v;
	CheckTree t;
	char path[PATH_MAX];

	check_tree_new(&t, "check-exclusion");
	check_tree_put_str(&t, "lund.conf", reactions[_i].conf);
	xsnprintf(path, "%s/lund.conf", t.path);
	ck_assert_int_eq(conf_load_file(path, &conf), 0);
	reaction_judge(conf, &reactions[_i].lu, reactions[_i].what, &v);
	ck_assert_msg(v.report == reactions[_i].report, "row %d: report %d", _i, v.report);
	if (reactions[_i].rule) {
		ck_assert_ptr_nonnull(v.rule);
		ck_assert_str_eq(v.rule, reactions[_i].rule);
		ck_assert_ptr_nonnull(v.key);
		ck_assert_ptr_nonnull(v.value);
	} else
		ck_assert_ptr_null(v.rule);
	ck_assert_uint_eq(v.line, reactions[_i].line);
	ck_assert_int_eq(exclusion_needs_host_facts(conf),
	                 strstr(reactions[_i].conf, "driver") ||
	                         strstr(reactions[_i].conf, "transport"));
	check_tree_remove(&t);
}
END_TEST

/* The scans' one decision: an exclusion first, then the action's reaction. */
static const struct {
	const char *conf;
	ScanActionKind what;
	const char *why; /* NULL: lund acts */
} leaves[] = {
	{ "[react r]\nluns = add\n", SCAN_ACTION_REMOVE, "luns = add by [react r]" },
	{ "[react r]\nluns = add\n", SCAN_ACTION_ADD, NULL },
	{ "[react r]\ncapacity = report\n", SCAN_ACTION_RESIZE, "capacity = report by [react r]" },
	{ "[react r]\nidentity = report\n", SCAN_ACTION_REIDENTIFY,
	  "identity = report by [react r]" },
	{ "[react r]\nidentity = report\n", SCAN_ACTION_RESIZE, NULL },
	{ "[react r]\nluns = report\n", SCAN_ACTION_PROBE, NULL },
	/* an exclusion wins over a reaction that would let lund act */
	{ "[exclude e]\ntransport = fc\n[react r]\nluns = add-remove\n", SCAN_ACTION_ADD,
	  "excluded by [exclude e]" },
	{ "[exclude e]\ntransport = sas\n[react r]\nluns = add-remove\n", SCAN_ACTION_REMOVE,
	  NULL },
};

START_TEST(test_leaves)
{
	_cleanup_(conf_unrefp) LundConf *conf = NULL;
	ExclusionFacts f = DISK_A;
	char why[160] = "", path[PATH_MAX];
	CheckTree t;
	bool left;

	check_tree_new(&t, "check-exclusion");
	check_tree_put_str(&t, "lund.conf", leaves[_i].conf);
	xsnprintf(path, "%s/lund.conf", t.path);
	ck_assert_int_eq(conf_load_file(path, &conf), 0);
	left = exclusion_leaves(conf, &f, leaves[_i].what, why, sizeof(why));
	ck_assert_int_eq(left, leaves[_i].why != NULL);
	if (leaves[_i].why)
		ck_assert_str_eq(why, leaves[_i].why);
	check_tree_remove(&t);
}
END_TEST

static Suite *exclusion_suite(void)
{
	Suite *s = suite_create("exclusion");
	TCase *tc = tcase_create("core");

	CHECK_ADD_LOOP(tc, test_judge, cases);
	tcase_add_test(tc, test_no_conf);
	CHECK_ADD_LOOP(tc, test_check_entry, entries);
	CHECK_ADD_LOOP(tc, test_react, reactions);
	CHECK_ADD_LOOP(tc, test_leaves, leaves);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(exclusion_suite)
