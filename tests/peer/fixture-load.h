/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Test-only loader for the fixture set in tests/fixtures/vpd/: NAME.inquiry.hex,
 * NAME.pg00.hex, NAME.pg80.hex, NAME.pg83.hex, NAME.pg89.hex, NAME.prin.hex (the READ FULL
 * STATUS data of PERSISTENT RESERVE IN) (each optional but inquiry) and NAME.luns.hex (a REPORT
 * LUNS response, for the SG_IO mock; optional) in
 * sg3_utils' annotated hex form: '#' starts a comment running to the end of the line, the rest
 * is whitespace-separated two-digit hex bytes. Header-only so the unit tests, the peer helper
 * and the scsi_id mock share it without a library.
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define FIXTURE_MAX (4 + 65535 + 16)

enum { FX_INQUIRY, FX_PG00, FX_PG80, FX_PG83, FX_PG89, FX_LUNS, FX_PRIN, _FX_MAX };

static const char *const fixture_suffix[_FX_MAX] = {
	[FX_INQUIRY] = "inquiry", [FX_PG00] = "pg00", [FX_PG80] = "pg80", [FX_PG83] = "pg83",
	[FX_PG89] = "pg89",       [FX_LUNS] = "luns", [FX_PRIN] = "prin", /* PERSISTENT RESERVE IN,
	                                                                     READ FULL STATUS */
};

typedef struct Fixture {
	uint8_t *buf[_FX_MAX]; /* NULL when the file does not exist */
	size_t len[_FX_MAX];
} Fixture;

/* Returns the byte count, -ENOENT, -EBADMSG (not hex) or -ENOBUFS. */
static inline int fixture_read_hex(const char *path, uint8_t *out, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n = 0;
	int c, hi = -1, r = 0;

	if (!f)
		return -errno;
	while ((c = fgetc(f)) != EOF) {
		if (c == '#') {
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			if (hi >= 0) {
				r = -EBADMSG;
				break;
			}
			continue;
		}
		if (isspace(c) || c == ',') {
			if (hi >= 0) {
				r = -EBADMSG;
				break;
			}
			continue;
		}
		if (!isxdigit(c)) {
			r = -EBADMSG;
			break;
		}
		int v = isdigit(c) ? c - '0' : (tolower(c) - 'a' + 10);
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (n >= size) {
			r = -ENOBUFS;
			break;
		}
		out[n++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	fclose(f);
	if (r == 0 && hi >= 0)
		r = -EBADMSG;
	return r < 0 ? r : (int)n;
}

static inline void fixture_done(Fixture *fx)
{
	for (int i = 0; i < _FX_MAX; i++) {
		free(fx->buf[i]);
		fx->buf[i] = NULL;
		fx->len[i] = 0;
	}
}

/* Load DIR/NAME.*.hex. Returns 0, or -errno for a file that exists but cannot be read. */
static inline int fixture_load(const char *dir, const char *name, Fixture *ret)
{
	Fixture fx = {};
	char path[4096];

	for (int i = 0; i < _FX_MAX; i++) {
		uint8_t *b = malloc(FIXTURE_MAX);
		int n;

		if (!b) {
			fixture_done(&fx);
			return -ENOMEM;
		}
		snprintf(path, sizeof(path), "%s/%s.%s.hex", dir, name, fixture_suffix[i]);
		n = fixture_read_hex(path, b, FIXTURE_MAX);
		if (n == -ENOENT) {
			free(b);
			continue;
		}
		if (n < 0) {
			free(b);
			fixture_done(&fx);
			return n;
		}
		fx.buf[i] = b;
		fx.len[i] = (size_t)n;
	}
	*ret = fx;
	return 0;
}
