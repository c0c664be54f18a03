/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Captured responses as sg3_utils reads them with --inhex: hex text, or raw binary.
 * Pure: works on a buffer the caller has read; no I/O, no allocation, no logging.
 *
 * Hex text, as sg3_utils' sg_f2hex_arr() accepts it and a little more:
 *  - '#' starts a comment that runs to the end of the line;
 *  - bytes are 1 or 2 hex digits, separated by spaces, tabs, commas or hyphens; CR is blank;
 *  - a longer token with an even number of hex digits is a run of bytes ("0083000c", as
 *    `xxd -p` writes), an odd one is malformed;
 *  - a leading address column (sg_inq -H/-HH, sg_vpd --hex, od -A x -t x1) is recognised when
 *    on every line the first token equals the number of bytes before that line, there is data,
 *    and either there are two or more lines or the address is followed by a gap of three or
 *    more blanks; in that form a gap of three or more spaces after a line's data starts the
 *    ASCII column, which is skipped, and a line holding only the final address is allowed.
 *    A plain file can satisfy this by chance (each line starting with the byte count so far);
 *    HEXFILE_HEX_PLAIN turns detection off.
 * Anything containing a byte that cannot occur in such text (NUL, other control characters,
 * bytes >= 0x7f) is raw binary and copied as is.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest response lund ever replays: a VPD page (4-byte header + 65535). */
#define HEXFILE_MAX_LEN (4 + 65535)

typedef enum HexfileMode {
	HEXFILE_AUTO,      /* binary if not text, else hex with address detection */
	HEXFILE_BINARY,    /* always raw bytes */
	HEXFILE_HEX,       /* hex text, address column detected */
	HEXFILE_HEX_PLAIN, /* hex text, no address column: every token is data */
} HexfileMode;

typedef enum HexfileFormat {
	HEXFILE_FORMAT_BINARY,
	HEXFILE_FORMAT_HEX,
	HEXFILE_FORMAT_HEX_ADDRESSED,
} HexfileFormat;

/* True if every byte of @in can occur in hex text (printable ASCII, tab, CR, LF, FF, VT). */
bool hexfile_is_text(const uint8_t *in, size_t len);

/*
 * hexfile_parse_mode() - decode @in into @out.
 * @mode: how to take the input (HEXFILE_AUTO: binary unless it is text, then hex).
 * @out, @out_size: caller's buffer (HEXFILE_MAX_LEN is enough for any VPD page); on error its
 *                  contents are unspecified.
 * @ret_len: bytes written; @ret_format (may be NULL): what the input was taken as.
 * Returns 0; -EBADMSG malformed hex text (bad token, odd-length run, a number that is not a
 * byte); -ENOBUFS the data does not fit in @out_size; -ENODATA no data bytes at all (empty
 * input, only comments); -EINVAL bad arguments.
 */
int hexfile_parse_mode(const uint8_t *in, size_t in_len, HexfileMode mode, uint8_t *out,
                       size_t out_size, size_t *ret_len, HexfileFormat *ret_format);

/* hexfile_parse() - hexfile_parse_mode() with HEXFILE_AUTO, the format not reported. */
int hexfile_parse(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_size, size_t *ret_len);
