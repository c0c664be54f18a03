/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * linkscheme: every link an LU wants, lund(8) LINKS, from its facts. Each row is one LU; its
 * links are printed one a line, "<set> <name> -> <node> (<reason>)[ alias]", in the scheme's
 * order, and compared whole. Then which recorded names are aliases.
 */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "linkscheme.h"
#include "macro.h"

/* clang-format 14 and 19 lay these initializers out differently */
/* clang-format off */
#define ALL_SETS                       \
	{                              \
		true, true, true, true \
	}
#define SCSI_ONLY                         \
	{                                 \
		[LINK_SCHEME_SCSI] = true \
	}
/* clang-format on */

/* A base name of 252 bytes: "-sg" still fits NAME_MAX, "-nst" and "-part1" do not. */
#define LONG_NAME                                                                                  \
	"scsi-SLONG_"                                                                              \
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static const LinkSchemePart sda_parts[] = { { "sda1", 1 }, { "sda2", 2 } };
static const LinkSchemePart sdb_parts[] = { { "sdb1", 1 } };
static const LinkSchemePart sr_parts[] = { { "sr0p1", 1 } };

static const char *const disk_names[] = { "scsi-3600a0980383030", "wwn-0x600a0980383030" };
static const char *const cd_names[] = { "scsi-0QEMU_QEMU_CD-ROM_drive-scsi0-0-1-0" };
static const char *const tape_names[] = { "scsi-35000e11156304001" };
static const char *const usb_names[] = { "scsi-SGeneric_STORAGE_DEVICE_000000000819" };
static const char *const new_names[] = { "scsi-3new" };
static const char *const old_aliases[] = { "scsi-1old", "scsi-3new" };
static const char *const rule_aliases[] = { "scsi-SGeneric_STORAGE_DEVICE_000000000819",
	                                    "scsi-1old" };
static const char *const long_names[] = { LONG_NAME };
static const char *const hostile_names[] = { ".", "..", "a/b", "" };

static const struct {
	const char *what;
	LinkSchemeInput in;
	const char *want;
} cases[] = {
	{ "disk with partitions, by-path and ATA compat",
	  {
	          .type = 0x00,
	          .block = "sda",
	          .sg = "sg0",
	          .parts = sda_parts,
	          .n_parts = ELEMENTSOF(sda_parts),
	          .names = disk_names,
	          .n_names = ELEMENTSOF(disk_names),
	          .id_path = "pci-0000:00:1f.2-ata-1.0",
	          .id_path_ata_compat = "pci-0000:00:1f.2-ata-1",
	          .set = ALL_SETS,
	  },
	  "scsi-path pci-0000:00:1f.2-ata-1.0 -> sda (by-path)\n"
	  "scsi-path pci-0000:00:1f.2-ata-1.0-sg -> sg0 (by-path -sg)\n"
	  "disk-path pci-0000:00:1f.2-ata-1.0 -> sda (by-path)\n"
	  "disk-path pci-0000:00:1f.2-ata-1.0-part1 -> sda1 (by-path -part1)\n"
	  "disk-path pci-0000:00:1f.2-ata-1.0-part2 -> sda2 (by-path -part2)\n"
	  "disk-path pci-0000:00:1f.2-ata-1 -> sda (ata-compat)\n"
	  "disk-path pci-0000:00:1f.2-ata-1-part1 -> sda1 (ata-compat -part1)\n"
	  "disk-path pci-0000:00:1f.2-ata-1-part2 -> sda2 (ata-compat -part2)\n"
	  "scsi scsi-3600a0980383030 -> sda (by-id)\n"
	  "scsi scsi-3600a0980383030-sg -> sg0 (by-id -sg)\n"
	  "disk scsi-3600a0980383030 -> sda (by-id)\n"
	  "disk scsi-3600a0980383030-part1 -> sda1 (by-id -part1)\n"
	  "disk scsi-3600a0980383030-part2 -> sda2 (by-id -part2)\n"
	  "scsi wwn-0x600a0980383030 -> sda (by-id)\n"
	  "scsi wwn-0x600a0980383030-sg -> sg0 (by-id -sg)\n"
	  "disk wwn-0x600a0980383030 -> sda (by-id)\n"
	  "disk wwn-0x600a0980383030-part1 -> sda1 (by-id -part1)\n"
	  "disk wwn-0x600a0980383030-part2 -> sda2 (by-id -part2)\n" },
	{ "disk without its block node yet: the sg names only",
	  {
	          .type = 0x00,
	          .sg = "sg0",
	          .names = disk_names,
	          .n_names = 1,
	          .set = ALL_SETS,
	  },
	  "scsi scsi-3600a0980383030-sg -> sg0 (by-id -sg)\n" },
	{ "CD/DVD: sr node, no partition names",
	  {
	          .type = 0x05,
	          .block = "sr0",
	          .sg = "sg1",
	          .parts = sr_parts,
	          .n_parts = ELEMENTSOF(sr_parts),
	          .names = cd_names,
	          .n_names = ELEMENTSOF(cd_names),
	          .set = ALL_SETS,
	  },
	  "scsi scsi-0QEMU_QEMU_CD-ROM_drive-scsi0-0-1-0 -> sr0 (by-id)\n"
	  "scsi scsi-0QEMU_QEMU_CD-ROM_drive-scsi0-0-1-0-sg -> sg1 (by-id -sg)\n"
	  "disk scsi-0QEMU_QEMU_CD-ROM_drive-scsi0-0-1-0 -> sr0 (by-id)\n" },
	{ "tape: st, -nst, -sg in lund's trees, nothing in /dev/disk",
	  {
	          .type = 0x01,
	          .tape = "st0",
	          .tape_nr = "nst0",
	          .sg = "sg2",
	          .names = tape_names,
	          .n_names = ELEMENTSOF(tape_names),
	          .id_path = "pci-0000:00:10.0-sas-0x5000e11156304001-lun-0",
	          .set = ALL_SETS,
	  },
	  "scsi-path pci-0000:00:10.0-sas-0x5000e11156304001-lun-0 -> st0 (by-path)\n"
	  "scsi-path pci-0000:00:10.0-sas-0x5000e11156304001-lun-0-nst -> nst0 (by-path -nst)\n"
	  "scsi-path pci-0000:00:10.0-sas-0x5000e11156304001-lun-0-sg -> sg2 (by-path -sg)\n"
	  "scsi scsi-35000e11156304001 -> st0 (by-id)\n"
	  "scsi scsi-35000e11156304001-nst -> nst0 (by-id -nst)\n"
	  "scsi scsi-35000e11156304001-sg -> sg2 (by-id -sg)\n" },
	{ "enclosure: the sg node for both",
	  {
	          .type = 0x0d,
	          .sg = "sg5",
	          .names = tape_names,
	          .n_names = ELEMENTSOF(tape_names),
	          .set = ALL_SETS,
	  },
	  "scsi scsi-35000e11156304001 -> sg5 (by-id)\n"
	  "scsi scsi-35000e11156304001-sg -> sg5 (by-id -sg)\n" },
	{ "multipath: by-id on the map, no partition by-id names, by-path on the path",
	  {
	          .type = 0x00,
	          .block = "sdb",
	          .sg = "sg3",
	          .mpath = "dm-3",
	          .parts = sdb_parts,
	          .n_parts = ELEMENTSOF(sdb_parts),
	          .names = disk_names,
	          .n_names = 1,
	          .id_path = "ip-10.0.0.1:3260-iscsi-iqn.2003-01.org.example:t1-lun-1",
	          .set = ALL_SETS,
	  },
	  "scsi-path ip-10.0.0.1:3260-iscsi-iqn.2003-01.org.example:t1-lun-1 -> sdb (by-path)\n"
	  "scsi-path ip-10.0.0.1:3260-iscsi-iqn.2003-01.org.example:t1-lun-1-sg -> sg3 (by-path "
	  "-sg)\n"
	  "disk-path ip-10.0.0.1:3260-iscsi-iqn.2003-01.org.example:t1-lun-1 -> sdb (by-path)\n"
	  "disk-path ip-10.0.0.1:3260-iscsi-iqn.2003-01.org.example:t1-lun-1-part1 -> sdb1 "
	  "(by-path -part1)\n"
	  "scsi scsi-3600a0980383030 -> dm-3 (by-id)\n"
	  "scsi scsi-3600a0980383030-sg -> sg3 (by-id -sg)\n"
	  "disk scsi-3600a0980383030 -> dm-3 (by-id)\n" },
	{ "virtual path: lund's by-path, no disk/by-path",
	  {
	          .type = 0x00,
	          .block = "sdc",
	          .sg = "sg4",
	          .names = new_names,
	          .n_names = 1,
	          .id_path = "ip-127.0.0.1:3260-iscsi-iqn.x:t-lun-0",
	          .path_virtual = true,
	          .set = ALL_SETS,
	  },
	  "scsi-path ip-127.0.0.1:3260-iscsi-iqn.x:t-lun-0 -> sdc (by-path)\n"
	  "scsi-path ip-127.0.0.1:3260-iscsi-iqn.x:t-lun-0-sg -> sg4 (by-path -sg)\n"
	  "scsi scsi-3new -> sdc (by-id)\n"
	  "scsi scsi-3new-sg -> sg4 (by-id -sg)\n"
	  "disk scsi-3new -> sdc (by-id)\n" },
	{ "ID_PATH udev would split: no by-path link at all, not even the ATA compat one",
	  {
	          .type = 0x00,
	          .block = "sdd",
	          .id_path = "pci-0000:00:1f.2-ata-1 0",
	          .id_path_ata_compat = "pci-0000:00:1f.2-ata-1",
	          .set = ALL_SETS,
	  },
	  "" },
	{ "serial-path rule: its name replaces the by-id names in lund's tree only",
	  {
	          .type = 0x00,
	          .block = "sde",
	          .sg = "sg6",
	          .names = usb_names,
	          .n_names = ELEMENTSOF(usb_names),
	          .rule = NAME_RULE_SERIAL_PATH,
	          .rule_name = "scsi-SGeneric_STORAGE_DEVICE_000000000819-usb-0_1_1_0",
	          .set = ALL_SETS,
	  },
	  "scsi scsi-SGeneric_STORAGE_DEVICE_000000000819-usb-0_1_1_0 -> sde (rule serial-path)\n"
	  "scsi scsi-SGeneric_STORAGE_DEVICE_000000000819-usb-0_1_1_0-sg -> sg6 (rule "
	  "serial-path -sg)\n"
	  "disk scsi-SGeneric_STORAGE_DEVICE_000000000819 -> sde (by-id)\n" },
	{ "aliases: linked as current names are, flagged",
	  {
	          .type = 0x00,
	          .block = "sdf",
	          .sg = "sg7",
	          .parts = sdb_parts,
	          .n_parts = 0,
	          .names = new_names,
	          .n_names = ELEMENTSOF(new_names),
	          .aliases = old_aliases,
	          .n_aliases = 1,
	          .set = { [LINK_SCHEME_SCSI] = true, [LINK_SCHEME_DISK] = true },
	  },
	  "scsi scsi-3new -> sdf (by-id)\n"
	  "scsi scsi-3new-sg -> sg7 (by-id -sg)\n"
	  "disk scsi-3new -> sdf (by-id)\n"
	  "scsi scsi-1old -> sdf (alias) alias\n"
	  "scsi scsi-1old-sg -> sg7 (alias -sg) alias\n"
	  "disk scsi-1old -> sdf (alias) alias\n" },
	{ "unit-serial rule: the replaced base name an alias in lund's tree only",
	  {
	          .type = 0x00,
	          .block = "sdg",
	          .sg = "sg8",
	          .names = usb_names,
	          .n_names = ELEMENTSOF(usb_names),
	          .rule = NAME_RULE_UNIT_SERIAL,
	          .rule_name = "scsi-SGeneric_STORAGE_0819",
	          .aliases = rule_aliases,
	          .n_aliases = ELEMENTSOF(rule_aliases),
	          .set = { [LINK_SCHEME_SCSI] = true, [LINK_SCHEME_DISK] = true },
	  },
	  "scsi scsi-SGeneric_STORAGE_0819 -> sdg (rule unit-serial)\n"
	  "scsi scsi-SGeneric_STORAGE_0819-sg -> sg8 (rule unit-serial -sg)\n"
	  "disk scsi-SGeneric_STORAGE_DEVICE_000000000819 -> sdg (by-id)\n"
	  "scsi scsi-SGeneric_STORAGE_DEVICE_000000000819 -> sdg (alias) alias\n"
	  "scsi scsi-SGeneric_STORAGE_DEVICE_000000000819-sg -> sg8 (alias -sg) alias\n"
	  "scsi scsi-1old -> sdg (alias) alias\n"
	  "scsi scsi-1old-sg -> sg8 (alias -sg) alias\n"
	  "disk scsi-1old -> sdg (alias) alias\n" },
	{ "aliases of an LU without a current name: none",
	  {
	          .type = 0x00,
	          .block = "sdh",
	          .sg = "sg9",
	          .aliases = old_aliases,
	          .n_aliases = ELEMENTSOF(old_aliases),
	          .set = ALL_SETS,
	  },
	  "" },
	{ "overlong: a suffix past NAME_MAX makes no link",
	  {
	          .type = 0x01,
	          .tape = "st1",
	          .tape_nr = "nst1",
	          .sg = "sg10",
	          .names = long_names,
	          .n_names = 1,
	          .set = ALL_SETS,
	  },
	  "scsi " LONG_NAME " -> st1 (by-id)\n"
	  "scsi " LONG_NAME "-sg -> sg10 (by-id -sg)\n" },
	{ "overlong partition names of a disk",
	  {
	          .type = 0x00,
	          .block = "sdi",
	          .parts = sdb_parts,
	          .n_parts = ELEMENTSOF(sdb_parts),
	          .names = long_names,
	          .n_names = 1,
	          .set = ALL_SETS,
	  },
	  "scsi " LONG_NAME " -> sdi (by-id)\n"
	  "disk " LONG_NAME " -> sdi (by-id)\n" },
	{ "names that are no link name: refused",
	  {
	          .type = 0x0d,
	          .sg = "sg11",
	          .names = hostile_names,
	          .n_names = ELEMENTSOF(hostile_names),
	          .set = ALL_SETS,
	  },
	  "scsi .-sg -> sg11 (by-id -sg)\n"
	  "scsi ..-sg -> sg11 (by-id -sg)\n"
	  "scsi -sg -> sg11 (by-id -sg)\n" },
	{ "only the sets asked for",
	  {
	          .type = 0x00,
	          .block = "sda",
	          .sg = "sg0",
	          .parts = sda_parts,
	          .n_parts = ELEMENTSOF(sda_parts),
	          .names = disk_names,
	          .n_names = 1,
	          .id_path = "pci-0000:00:1f.2-ata-1.0",
	          .set = SCSI_ONLY,
	  },
	  "scsi scsi-3600a0980383030 -> sda (by-id)\n"
	  "scsi scsi-3600a0980383030-sg -> sg0 (by-id -sg)\n" },
};

/* Which recorded names are aliases (lund(8), Naming contract). */
static const char *const sp_names[] = { "usb-FAKE_CLONE-0:0" };
static const struct {
	const char *what;
	LinkSchemeInput in;
	const char *base;
	bool alias;
} alias_cases[] = {
	{ "an old name", { .names = new_names, .n_names = 1 }, "scsi-1old", true },
	{ "a current name", { .names = new_names, .n_names = 1 }, "scsi-3new", false },
	{ "no current name: nothing says whose", { .n_names = 0 }, "scsi-1old", false },
	{ "not one component", { .names = new_names, .n_names = 1 }, "a/b", false },
	{ "empty", { .names = new_names, .n_names = 1 }, "", false },
	{ "unit-serial: the replaced base name is one",
	  { .names = usb_names,
	    .n_names = 1,
	    .rule = NAME_RULE_UNIT_SERIAL,
	    .rule_name = "scsi-SGeneric_STORAGE_0819" },
	  "scsi-SGeneric_STORAGE_DEVICE_000000000819",
	  true },
	{ "unit-serial: the rule's name is current",
	  { .names = usb_names,
	    .n_names = 1,
	    .rule = NAME_RULE_UNIT_SERIAL,
	    .rule_name = "scsi-SGeneric_STORAGE_0819" },
	  "scsi-SGeneric_STORAGE_0819",
	  false },
	{ "serial-path: no alias at all",
	  { .names = sp_names,
	    .n_names = 1,
	    .id_path = "pci-0000:00:04.0-usb-0:1:1.0-scsi-0:0:0:0",
	    .rule = NAME_RULE_SERIAL_PATH,
	    .rule_name = "usb-FAKE_CLONE-0:0-pci-0000_00_04_0-usb-0_1_1_0-scsi-0_0_0_0" },
	  "scsi-1old",
	  false },
	{ "another path's serial-path name of the identity: another medium's",
	  { .names = sp_names,
	    .n_names = 1,
	    .id_path = "pci-0000:00:04.0-usb-0:1:1.0-scsi-0:0:0:0" },
	  "usb-FAKE_CLONE-0:0-pci-0000_00_04_0-usb-0_1_2_0-scsi-0_0_0_0",
	  false },
};

static char *render(const LinkScheme *s)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < s->n; i++) {
		const LinkSchemeLink *l = &s->links[i];

		fprintf(f, "%s %s -> %s (%s)%s\n", link_scheme_set_name(l->set), l->name, l->node,
		        l->reason, l->alias ? " alias" : "");
	}
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

START_TEST(test_scheme)
{
	LinkScheme s = {};
	char *got;

	ck_assert_int_eq(link_scheme_compute(&cases[_i].in, &s), 0);
	got = render(&s);
	if (!streq(got, cases[_i].want))
		ck_abort_msg("%s:\n--- want\n%s--- got\n%s", cases[_i].what, cases[_i].want, got);
	free(got);
	link_scheme_done(&s);
	ck_assert_ptr_null(s.links);
	ck_assert_uint_eq(s.n, 0);
}
END_TEST

START_TEST(test_alias)
{
	if (link_scheme_alias(&alias_cases[_i].in, alias_cases[_i].base) != alias_cases[_i].alias)
		ck_abort_msg("%s: %s is %san alias", alias_cases[_i].what, alias_cases[_i].base,
		             alias_cases[_i].alias ? "not " : "");
}
END_TEST

START_TEST(test_sets_and_primary)
{
	LinkSchemeInput in = { .type = -1, .block = "sda", .sg = "sg0", .tape = "st0" };
	LinkScheme s = { .n = 7 };

	ck_assert_str_eq(link_scheme_set_dir(LINK_SCHEME_SCSI), "scsi/by-id");
	ck_assert_str_eq(link_scheme_set_dir(LINK_SCHEME_DISK_PATH), "disk/by-path");
	ck_assert_str_eq(link_scheme_set_name(LINK_SCHEME_SCSI_PATH), "scsi-path");
	ck_assert_ptr_null(link_scheme_set_name(_LINK_SCHEME_SET_MAX));
	ck_assert_ptr_null(link_scheme_set_dir(_LINK_SCHEME_SET_INVALID));
	/* an unknown type is "all others": the sg node */
	ck_assert_str_eq(link_scheme_primary(&in), "sg0");
	in.type = 0x0e;
	ck_assert_str_eq(link_scheme_primary(&in), "sda");
	in.type = 0x01;
	ck_assert_str_eq(link_scheme_primary(&in), "st0");
	ck_assert_ptr_null(link_scheme_primary(NULL));
	ck_assert_int_eq(link_scheme_compute(NULL, &s), -EINVAL);
	ck_assert_int_eq(link_scheme_compute(&in, NULL), -EINVAL);
	ck_assert_uint_eq(s.n, 7); /* untouched on failure */
	/* no set asked for: no link */
	ck_assert_int_eq(link_scheme_compute(&in, &s), 0);
	ck_assert_uint_eq(s.n, 0);
	link_scheme_done(&s);
	link_scheme_done(NULL);
}
END_TEST

static Suite *linkscheme_suite(void)
{
	Suite *s = suite_create("linkscheme");
	TCase *tc = tcase_create("core");

	CHECK_ADD_LOOP(tc, test_scheme, cases);
	CHECK_ADD_LOOP(tc, test_alias, alias_cases);
	tcase_add_test(tc, test_sets_and_primary);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(linkscheme_suite)
