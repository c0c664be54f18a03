/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * decode-export DIR NAME [udev|sg|all|names]
 *
 * Test helper standing in for `lunctl decode --export` until that exists: loads the fixture
 * set DIR/NAME.{inquiry,pg00,pg80,pg83,pg89}.hex, runs ident_compute() and prints the export
 * lines (default "all": the udev ID_* set, then the sg_inq SCSI_* set), or the by-id names.
 * Without a pg00 file, page 0x00 is inferred from the pages present (pg00_infer).
 * Exit status: 0 ok, 1 usage or load error, 2 ident/export error.
 */

#include <stdio.h>
#include <string.h>

#include "export.h"
#include "fixture-load.h"
#include "ident.h"
#include "names.h"

static int print_cb(const char *key, const char *value, void *userdata)
{
        (void)userdata;
        printf("%s=%s\n", key, value);
        return 0;
}

int main(int argc, char **argv)
{
        const char *mode = argc > 3 ? argv[3] : "all";
        ScsiIdentInput in = {};
        ScsiIdent *id;
        Fixture fx;
        ExportFlags flags;
        int r;

        if (argc < 3) {
                fprintf(stderr, "usage: %s DIR NAME [udev|sg|all|names]\n", argv[0]);
                return 1;
        }
        r = fixture_load(argv[1], argv[2], &fx);
        if (r < 0) {
                fprintf(stderr, "%s/%s: %s\n", argv[1], argv[2], strerror(-r));
                return 1;
        }
        in.inquiry = fx.buf[FX_INQUIRY];
        in.inquiry_len = fx.len[FX_INQUIRY];
        in.pg00 = fx.buf[FX_PG00];
        in.pg00_len = fx.len[FX_PG00];
        in.pg80 = fx.buf[FX_PG80];
        in.pg80_len = fx.len[FX_PG80];
        in.pg83 = fx.buf[FX_PG83];
        in.pg83_len = fx.len[FX_PG83];
        in.pg89 = fx.buf[FX_PG89];
        in.pg89_len = fx.len[FX_PG89];
        in.pg00_infer = true;

        id = calloc(1, sizeof(*id));
        if (!id)
                return 2;
        r = ident_compute(&in, id);
        if (r < 0) {
                fprintf(stderr, "ident_compute: %s\n", strerror(-r));
                return 2;
        }
        if (strcmp(mode, "names") == 0) {
                NamesList l;

                r = names_by_id(id, names_bus(id, 7), 0, false, &l);
                if (r < 0) {
                        fprintf(stderr, "names_by_id: %s\n", strerror(-r));
                        return 2;
                }
                for (size_t i = 0; i < l.n; i++)
                        printf("%s\n", l.name[i]);
        } else {
                flags = strcmp(mode, "udev") == 0 ? EXPORT_UDEV :
                        strcmp(mode, "sg") == 0   ? EXPORT_SG_INQ :
                                                    EXPORT_UDEV | EXPORT_SG_INQ;
                r = export_ident(id, flags, print_cb, NULL);
                if (r < 0) {
                        fprintf(stderr, "export_ident: %s\n", strerror(-r));
                        return 2;
                }
        }
        free(id);
        fixture_done(&fx);
        return 0;
}
