/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The captured VPD fixture sets of tests/fixtures/vpd/ (NAME.inquiry.hex, NAME.pg83.hex, ...,
 * loaded by tests/peer/fixture-load.h) as the input of the core's scsi_id, for the core's
 * check files. Header-only, as fixture-load.h.
 */

#include "../peer/fixture-load.h"
#include "ident.h"

/* Every page of @fx, as udev's rules run scsi_id (page 0x00 inferred when it was not captured). */
static inline void fixture_ident_input(const Fixture *fx, ScsiIdentInput *ret)
{
	*ret = (ScsiIdentInput){
		.inquiry = fx->buf[FX_INQUIRY],
		.inquiry_len = fx->len[FX_INQUIRY],
		.pg00 = fx->buf[FX_PG00],
		.pg00_len = fx->len[FX_PG00],
		.pg80 = fx->buf[FX_PG80],
		.pg80_len = fx->len[FX_PG80],
		.pg83 = fx->buf[FX_PG83],
		.pg83_len = fx->len[FX_PG83],
		.pg89 = fx->buf[FX_PG89],
		.pg89_len = fx->len[FX_PG89],
		.pg00_infer = true,
	};
}
