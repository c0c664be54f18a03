/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * unit-serial-name DIR NAME...: for each fixture DIR/NAME.*.hex, the name lund gives it under
 * lund.hwdb's unit-serial rule (engine/namerule.h: name_rule_unit_serial(), the function lund
 * and lunctl call), one line each: "NAME<TAB>scsi-..." or "NAME<TAB>-<TAB>errno name" when it
 * gets none. The pages are given as lund has them (page 0x00 inferred, the default page asked
 * for). tests/peer/scsi-id-page80.sh holds the names against the real scsi_id --page=0x80.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "fixture-load.h"
#include "namerule.h"

int main(int argc, char *argv[])
{
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR NAME...\n", argv[0]);
		return 2;
	}
	for (int a = 2; a < argc; a++) {
		char name[NAME_MAX + 1];
		Fixture fx;
		int r;

		if (fixture_load(argv[1], argv[a], &fx) < 0) {
			fprintf(stderr, "%s: cannot load the fixture\n", argv[a]);
			rc = 1;
			continue;
		}
		ScsiIdentInput in = {
			.inquiry = fx.buf[FX_INQUIRY],
			.inquiry_len = fx.len[FX_INQUIRY],
			.pg00 = fx.buf[FX_PG00],
			.pg00_len = fx.len[FX_PG00],
			.pg80 = fx.buf[FX_PG80],
			.pg80_len = fx.len[FX_PG80],
			.pg83 = fx.buf[FX_PG83],
			.pg83_len = fx.len[FX_PG83],
			.page = IDENT_PAGE_DEFAULT,
			.pg00_infer = true,
		};
		r = name_rule_unit_serial(&in, name);
		if (r >= 0)
			printf("%s\t%s\n", argv[a], name);
		else
			printf("%s\t-\t%s\n", argv[a],
			       r == -ENODATA  ? "ENODATA"
			       : r == -EINVAL ? "EINVAL"
			                      : "other");
		fixture_done(&fx);
	}
	return rc;
}
