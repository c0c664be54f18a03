/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Hex text and raw binary captures (the --inhex input of sg3_utils). Written from the
 * behaviour of sg_f2hex_arr(): comments, separators and one byte per token; plus the address
 * column of its own dumps, detected rather than requested by a flag.
 */

#include <errno.h>
#include <string.h>

#include "hexfile.h"
#include "macro.h"

/* A blank run this long separates an address from data, or data from the ASCII column. */
#define HEXFILE_GAP 3

bool hexfile_is_text(const uint8_t *in, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		uint8_t c = in[i];

		if (c >= 0x20 && c < 0x7f)
			continue;
		if (c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
			continue;
		return false;
	}
	return true;
}

static bool is_sep(uint8_t c)
{
	return c == ' ' || c == '\t' || c == ',' || c == '-' || c == '\r' || c == '\f' || c == '\v';
}

static bool all_hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (unhexchar(p[i]) < 0)
			return false;
	return true;
}

typedef struct Pass {
	uint8_t *out; /* NULL: count only */
	size_t size;
	size_t n;     /* bytes so far */
	size_t lines; /* lines that carried any token */
	bool gap;     /* an address was followed by a gap */
} Pass;

static int emit(Pass *p, uint8_t byte)
{
	if (p->n >= p->size)
		return -ENOBUFS;
	if (p->out)
		p->out[p->n] = byte;
	p->n++;
	return 0;
}

/* Data token: 1-2 digits are one byte, an even-length run is several. */
static int emit_token(Pass *p, const uint8_t *t, size_t n)
{
	int r;

	if (!all_hex(t, n))
		return -EBADMSG;
	if (n <= 2)
		return emit(p, (uint8_t)(n == 1 ? unhexchar(t[0])
		                                : unhexchar(t[0]) << 4 | unhexchar(t[1])));
	if (n % 2 != 0)
		return -EBADMSG;
	for (size_t i = 0; i < n; i += 2) {
		r = emit(p, (uint8_t)(unhexchar(t[i]) << 4 | unhexchar(t[i + 1])));
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * One line, @line .. @end (comment already cut off). In addressed mode any mismatch with the
 * address hypothesis is -EBADMSG, which the caller reads as "not addressed".
 */
static int parse_line(Pass *p, const uint8_t *line, const uint8_t *end, bool addressed)
{
	const uint8_t *c = line;
	size_t tokens = 0, data = 0, line_start = p->n;
	int r;

	for (;;) {
		size_t blanks = 0, tlen;
		const uint8_t *t;

		while (c < end && is_sep(*c)) {
			/* a tab always counts as a gap, as in column-aligned dumps */
			blanks += *c == '\t' ? HEXFILE_GAP : *c == ' ' ? 1 : 0;
			c++;
		}
		if (c >= end)
			break;
		t = c;
		while (c < end && !is_sep(*c))
			c++;
		tlen = (size_t)(c - t);

		if (!addressed) {
			r = emit_token(p, t, tlen);
			if (r < 0)
				return r;
			tokens++;
			continue;
		}

		if (tokens == 0) {
			/* The address: the count of bytes before this line. */
			uint64_t a = 0;

			if (tlen > 16 || !all_hex(t, tlen))
				return -EBADMSG;
			for (size_t i = 0; i < tlen; i++)
				a = a << 4 | (uint64_t)unhexchar(t[i]);
			if (a != line_start)
				return -EBADMSG;
			tokens++;
			continue;
		}
		if (tokens == 1 && blanks >= HEXFILE_GAP)
			p->gap = true;
		/* After data, a wide gap starts the ASCII column. */
		if (data > 0 && blanks >= HEXFILE_GAP)
			break;
		if (tlen > 2)
			return -EBADMSG;
		r = emit_token(p, t, tlen);
		if (r < 0)
			return r;
		tokens++;
		data++;
	}

	if (tokens > 0)
		p->lines++;
	return 0;
}

static int parse_text(const uint8_t *in, size_t len, bool addressed, Pass *p)
{
	const uint8_t *c = in, *end = in + len;

	while (c < end) {
		const uint8_t *nl = memchr(c, '\n', (size_t)(end - c));
		const uint8_t *eol = nl ? nl : end;
		const uint8_t *hash = memchr(c, '#', (size_t)(eol - c));
		int r;

		r = parse_line(p, c, hash ? hash : eol, addressed);
		if (r < 0)
			return r;
		c = nl ? nl + 1 : end;
	}
	return 0;
}

int hexfile_parse_mode(const uint8_t *in, size_t in_len, HexfileMode mode, uint8_t *out,
                       size_t out_size, size_t *ret_len, HexfileFormat *ret_format)
{
	HexfileFormat format;
	Pass p;
	int r;

	assert_return(in || in_len == 0, -EINVAL);
	assert_return(out || out_size == 0, -EINVAL);
	assert_return(ret_len, -EINVAL);
	assert_return(mode >= HEXFILE_AUTO && mode <= HEXFILE_HEX_PLAIN, -EINVAL);

	if (mode == HEXFILE_BINARY || (mode == HEXFILE_AUTO && !hexfile_is_text(in, in_len))) {
		if (in_len == 0)
			return -ENODATA;
		if (in_len > out_size)
			return -ENOBUFS;
		memcpy(out, in, in_len);
		*ret_len = in_len;
		if (ret_format)
			*ret_format = HEXFILE_FORMAT_BINARY;
		return 0;
	}

	format = HEXFILE_FORMAT_HEX;
	if (mode != HEXFILE_HEX_PLAIN) {
		/* Dry run under the address hypothesis; SIZE_MAX so only consistency decides. */
		p = (Pass){ .size = SIZE_MAX };
		r = parse_text(in, in_len, true, &p);
		if (r == 0 && p.n > 0 && (p.lines >= 2 || p.gap))
			format = HEXFILE_FORMAT_HEX_ADDRESSED;
	}

	p = (Pass){ .out = out, .size = out_size };
	r = parse_text(in, in_len, format == HEXFILE_FORMAT_HEX_ADDRESSED, &p);
	if (r < 0)
		return r;
	if (p.n == 0)
		return -ENODATA;

	*ret_len = p.n;
	if (ret_format)
		*ret_format = format;
	return 0;
}

int hexfile_parse(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_size, size_t *ret_len)
{
	return hexfile_parse_mode(in, in_len, HEXFILE_AUTO, out, out_size, ret_len, NULL);
}
