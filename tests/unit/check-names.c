/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * names: /dev/disk/by-id names per Debian 12's 60-persistent-storage.rules (systemd 252):
 *   KERNEL=="sd*|sr*", ENV{DEVTYPE}=="disk", ENV{ID_SERIAL}=="?*" -> $env{ID_BUS}-$env{ID_SERIAL}
 *   KERNEL=="sd*", ENV{DEVTYPE}=="partition" -> ...-part%n
 *   ENV{ID_WWN_WITH_EXTENSION}=="?*" -> wwn-$env{ID_WWN_WITH_EXTENSION}[-part%n]
 * with ID_BUS "ata" when ata_id ran (ATTRS{vendor}=="ATA") and "scsi" after scsi_id.
 * The ID_* values themselves are the ones the real scsi_id printed (tests/fixtures/vpd).
 */

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../peer/fixture-load.h"
#include "ident.h"
#include "names.h"

#define VPD_DIR FIXTURES_DIR "/vpd"

static const struct {
        const char *fixture;
        unsigned partition;
        bool cdrom;
        NamesBus bus;
        int ret;
        const char *n0, *n1;
} cases[] = {
        { "qemu-hd-serial", 0, false, NAMES_BUS_SCSI, 0, "scsi-0QEMU_QEMU_HARDDISK_QM00001", NULL },
        { "qemu-hd-serial", 3, false, NAMES_BUS_SCSI, 0, "scsi-0QEMU_QEMU_HARDDISK_QM00001-part3", NULL },
        { "qemu-hd-wwn", 0, false, NAMES_BUS_SCSI, 0, "scsi-35000c50015ea71ac", "wwn-0x5000c50015ea71ac" },
        { "qemu-hd-wwn", 1, false, NAMES_BUS_SCSI, 0, "scsi-35000c50015ea71ac-part1",
          "wwn-0x5000c50015ea71ac-part1" },
        { "netapp-naa6-ext", 0, false, NAMES_BUS_SCSI, 0, "scsi-3600a098038303044704824513476546e",
          "wwn-0x600a098038303044704824513476546e" },
        { "scsi-debug", 0, false, NAMES_BUS_SCSI, 0, "scsi-333333330000007d0", "wwn-0x33333330000007d0" },
        { "sat-ata-disk", 0, false, NAMES_BUS_ATA, 0, "ata-QEMU_HARDDISK_QM00001", NULL },
        { "sat-ata-disk-wwn", 2, false, NAMES_BUS_ATA, 0, "ata-QEMU_HARDDISK_QM00005-part2",
          "wwn-0x5000c500a1b2c3d4-part2" },
        { "cdrom-noid", 0, true, NAMES_BUS_SCSI, 0, "scsi-0QEMU_QEMU_CD-ROM_drive-scsi0-0-1-0", NULL },
        { "cdrom-noid", 1, true, NAMES_BUS_SCSI, -EINVAL, NULL, NULL },
        { "name-naa-eui", 0, false, NAMES_BUS_SCSI, 0, NULL, NULL },  /* no ID_SERIAL, no link */
        /* The ASCII NAA value reaches the name with LF -> '_' (udev's replace_chars). */
        { "hostile-naa-ascii-lf", 0, false, NAMES_BUS_SCSI, 0, "scsi-36abc_ID_INJECT=1xyzzy",
          "wwn-0x6abc_ID_INJECT=1xyzzy" },
        { "hostile-vs-slash-dots", 0, false, NAMES_BUS_SCSI, 0,
          "scsi-0EVIL_SLASH_.._.._etc_passwd", NULL },
};

START_TEST(test_by_id)
{
        ScsiIdent *id = calloc(1, sizeof(*id));
        ScsiIdentInput in;
        NamesList l;
        Fixture fx = {};

        ck_assert_int_eq(fixture_load(VPD_DIR, cases[_i].fixture, &fx), 0);
        in = (ScsiIdentInput){
                .inquiry = fx.buf[FX_INQUIRY], .inquiry_len = fx.len[FX_INQUIRY],
                .pg80 = fx.buf[FX_PG80],       .pg80_len = fx.len[FX_PG80],
                .pg83 = fx.buf[FX_PG83],       .pg83_len = fx.len[FX_PG83],
                .pg89 = fx.buf[FX_PG89],       .pg89_len = fx.len[FX_PG89],
                .pg00_infer = true,
        };
        ck_assert_int_eq(ident_compute(&in, id), 0);
        ck_assert_int_eq(names_bus(id, 7), cases[_i].bus);
        ck_assert_int_eq(names_by_id(id, cases[_i].bus, cases[_i].partition, cases[_i].cdrom, &l),
                         cases[_i].ret);
        if (cases[_i].ret == 0) {
                ck_assert_uint_eq(l.n, !!cases[_i].n0 + !!cases[_i].n1);
                if (cases[_i].n0)
                        ck_assert_str_eq(l.name[0], cases[_i].n0);
                if (cases[_i].n1)
                        ck_assert_str_eq(l.name[1], cases[_i].n1);
                for (size_t i = 0; i < l.n; i++)
                        ck_assert_ptr_null(strchr(l.name[i], '/'));
        }
        free(id);
        fixture_done(&fx);
}
END_TEST

static char long_value[300];

static const struct {
        const char *prefix, *value;
        unsigned partition;
        int ret;
        const char *name;
} comp[] = {
        { "scsi-", "a/b", 0, 11, "scsi-a\\x2fb" },
        { "scsi-", "a b\tc", 0, 10, "scsi-a_b_c" },
        { "scsi-", "x\\x2fy", 0, 11, "scsi-x\\x2fy" },      /* already escaped: kept */
        { "scsi-", "caf\xc3\xa9", 0, 10, "scsi-caf\xc3\xa9" },
        { "scsi-", "\xff", 0, 6, "scsi-_" },
        { "", ".", 0, -EINVAL, NULL },
        { "", "..", 0, -EINVAL, NULL },
        { "", "...", 0, 3, "..." },
        { "", "/", 0, 4, "\\x2f" },
        { "scsi-", "", 0, -EINVAL, NULL },
        { "wwn-", "0x5000c500a1b2c3d4", 12, 29, "wwn-0x5000c500a1b2c3d4-part12" },
        { "scsi-", long_value, 0, -EINVAL, NULL }, /* 5 + 251 > NAME_MAX */
};

START_TEST(test_component)
{
        char out[NAME_MAX + 1];

        ck_assert_int_eq(names_component(comp[_i].prefix, comp[_i].value, comp[_i].partition, out),
                         comp[_i].ret);
        if (comp[_i].name)
                ck_assert_str_eq(out, comp[_i].name);
}
END_TEST

START_TEST(test_name_max)
{
        char v[NAME_MAX + 1], out[NAME_MAX + 1];

        memset(v, 'a', 250);
        v[250] = 0;
        ck_assert_int_eq(names_component("scsi-", v, 0, out), NAME_MAX);  /* exactly 255 */
        ck_assert_int_eq(names_component("scsi-", v, 1, out), -EINVAL);   /* -part1 overflows */
        v[249] = '/';                                                     /* 1 byte -> 4 */
        ck_assert_int_eq(names_component("scsi-", v, 0, out), -EINVAL);
        ck_assert_str_eq(names_bus_name(NAMES_BUS_ATA), "ata");
        ck_assert_ptr_null(names_bus_name(_NAMES_BUS_MAX));
}
END_TEST

#define LOOP(tc, fn, arr) tcase_add_loop_test(tc, fn, 0, (int)(sizeof(arr) / sizeof((arr)[0])))

int main(void)
{
        Suite *s = suite_create("names");
        TCase *tc = tcase_create("core");
        SRunner *sr;
        int failed;

        memset(long_value, 'x', 251);
        LOOP(tc, test_by_id, cases);
        LOOP(tc, test_component, comp);
        tcase_add_test(tc, test_name_max);
        suite_add_tcase(s, tc);
        sr = srunner_create(s);
        srunner_run_all(sr, CK_ENV);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
