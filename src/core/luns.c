/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * REPORT LUNS (SPC-6 6.33) and the SAM-5 4.7 LUN structure: four 2-byte levels, each with its
 * own address method; extended logical unit addressing may take 4, 6 or 8 bytes of a level.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "luns.h"
#include "macro.h"
#include "unaligned.h"

int luns_report_len(const uint8_t *buf, size_t len, size_t *ret_len)
{
	assert_return(buf || len == 0, -EINVAL);
	assert_return(ret_len, -EINVAL);

	if (len < LUNS_HEADER_LEN)
		return -EBADMSG;
	*ret_len = (size_t)LUNS_HEADER_LEN + unaligned_read_be32(buf);
	return 0;
}

int luns_parse_report(const uint8_t *buf, size_t len, LunList *ret)
{
	size_t list_len;

	assert_return(buf || len == 0, -EINVAL);
	assert_return(ret, -EINVAL);

	if (len < LUNS_HEADER_LEN)
		return -EBADMSG;

	/* SPC-6 6.33.2: LUN LIST LENGTH counts the bytes of the list, 8 per entry. A device
	 * that sends more than the allocation length allowed reports the full length, so a
	 * list longer than the buffer means "ask again with more room". */
	list_len = unaligned_read_be32(buf);
	if (list_len % LUN_SIZE != 0)
		return -EBADMSG;
	if (list_len > len - LUNS_HEADER_LEN)
		return -EBADMSG;

	*ret = (LunList){
		.entries = buf + LUNS_HEADER_LEN,
		.count = list_len / LUN_SIZE,
		.list_len = list_len,
	};
	return 0;
}

int luns_report_get(const LunList *list, size_t i, ScsiLun *ret)
{
	assert_return(list, -EINVAL);
	assert_return(ret, -EINVAL);

	if (i >= list->count)
		return -ERANGE;
	memcpy(ret->b, list->entries + i * LUN_SIZE, LUN_SIZE);
	return 0;
}

static uint64_t read_be(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/* Decode one level at @p, with @avail bytes left in the LUN. */
static int lun_decode_level(const uint8_t *p, size_t avail, LunLevel *ret)
{
	LunLevel l = { .method = p[0] >> 6, .size = 2 };

	switch (l.method) {
	case LUN_ADDR_PERIPHERAL:
		/* SAM-5 4.7.4: BUS IDENTIFIER 0 means byte 1 is the LUN at this level; any other
		 * bus identifier means byte 1 is a target reached through that bus. */
		l.bus = p[0] & 0x3f;
		if (l.bus == 0)
			l.lun = p[1];
		else
			l.target = p[1];
		break;
	case LUN_ADDR_FLAT:
		/* SAM-5 4.7.5: 14-bit flat space LUN. */
		l.lun = ((uint64_t)(p[0] & 0x3f) << 8) | p[1];
		break;
	case LUN_ADDR_LOGICAL_UNIT:
		/* SAM-5 4.7.6: TARGET (6 bits), BUS NUMBER (3 bits), LUN (5 bits). */
		l.target = p[0] & 0x3f;
		l.bus = p[1] >> 5;
		l.lun = p[1] & 0x1f;
		break;
	case LUN_ADDR_EXTENDED:
		/* SAM-5 4.7.7: LENGTH gives 2, 4, 6 or 8 bytes for this level. */
		l.ext_length = (p[0] >> 4) & 0x03;
		l.ext_method = p[0] & 0x0f;
		l.size = 2 + 2 * l.ext_length;
		if (l.size > avail)
			return -EBADMSG;
		if (l.ext_length == 0 && l.ext_method == 0x1)
			l.ext_kind = LUN_EXT_WELL_KNOWN;
		else if (l.ext_length == 1 && l.ext_method == 0x2)
			l.ext_kind = LUN_EXT_FLAT;
		else if (l.ext_length == 2 && l.ext_method == 0x2)
			l.ext_kind = LUN_EXT_LONG_FLAT;
		else if (l.ext_length == 3 && l.ext_method == 0xf)
			l.ext_kind = LUN_EXT_NOT_SPECIFIED;
		else
			l.ext_kind = LUN_EXT_RESERVED;
		/* The EXTENDED ADDRESS field: 1, 3, 5 or 7 bytes after byte 0. */
		l.lun = read_be(p + 1, l.size - 1u);
		break;
	}

	*ret = l;
	return 0;
}

int lun_decode(const ScsiLun *lun, LunAddress *ret)
{
	LunAddress a = {};
	size_t pos = 0;

	assert_return(lun, -EINVAL);
	assert_return(ret, -EINVAL);

	while (pos < LUN_SIZE && a.n_levels < LUN_LEVELS) {
		int r;

		/* SAM-5 4.7.2: unused lower levels are zero. The first level always counts. */
		if (pos > 0 && all_zero(lun->b + pos, LUN_SIZE - pos))
			break;
		r = lun_decode_level(lun->b + pos, LUN_SIZE - pos, &a.level[a.n_levels]);
		if (r < 0)
			return r;
		pos += a.level[a.n_levels].size;
		a.n_levels++;
	}

	*ret = a;
	return 0;
}

bool lun_is_wlun(const ScsiLun *lun)
{
	/* SAM-5 4.7.7.2: extended addressing, length 00b, method 1h. */
	return lun && lun->b[0] == 0xc1;
}

const char *lun_wlun_name(uint8_t wlun)
{
	switch (wlun) {
	case LUN_WLUN_REPORT_LUNS:
		return "REPORT LUNS";
	case LUN_WLUN_ACCESS_CONTROLS:
		return "ACCESS CONTROLS";
	case LUN_WLUN_TARGET_LOG_PAGES:
		return "TARGET LOG PAGES";
	case LUN_WLUN_SECURITY_PROTOCOL:
		return "SECURITY PROTOCOL";
	case LUN_WLUN_MANAGEMENT_PROTOCOL:
		return "MANAGEMENT PROTOCOL";
	case LUN_WLUN_TARGET_COMMANDS:
		return "TARGET COMMANDS";
	default:
		return NULL;
	}
}

uint64_t lun_to_linux(const ScsiLun *lun)
{
	uint64_t v = 0;

	/* Level n lands in bits 16n..16n+15, its first byte the more significant. */
	for (unsigned n = 0; n < LUN_LEVELS; n++)
		v |= (uint64_t)unaligned_read_be16(lun->b + 2 * n) << (16 * n);
	return v;
}

ScsiLun lun_from_linux(uint64_t v)
{
	ScsiLun lun;

	for (unsigned n = 0; n < LUN_LEVELS; n++)
		unaligned_write_be16(lun.b + 2 * n, (uint16_t)(v >> (16 * n)));
	return lun;
}

int lun_format_hex(const ScsiLun *lun, char *buf, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	char *p;

	assert_return(lun, -EINVAL);
	assert_return(buf || size == 0, -EINVAL);

	if (size < LUN_HEX_STRLEN)
		return -ENOBUFS;
	p = buf;
	*p++ = '0';
	*p++ = 'x';
	for (size_t i = 0; i < LUN_SIZE; i++) {
		*p++ = hex[lun->b[i] >> 4];
		*p++ = hex[lun->b[i] & 0xf];
	}
	*p = '\0';
	return 0;
}

int lun_parse_hex(const char *s, ScsiLun *ret)
{
	ScsiLun lun = {};
	size_t n;

	assert_return(s, -EINVAL);
	assert_return(ret, -EINVAL);

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = strlen(s);
	if (n == 0 || n > 2 * LUN_SIZE || n % 2 != 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i += 2) {
		int hi = unhexchar(s[i]), lo = unhexchar(s[i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		lun.b[i / 2] = (uint8_t)(hi << 4 | lo);
	}

	*ret = lun;
	return 0;
}

typedef struct Out {
	char *buf;
	size_t size, used;
	bool overflow;
} Out;

_printf_(2, 3) static void out_printf(Out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->used, o->size - o->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->size - o->used) {
		o->overflow = true;
		o->used = o->size - 1;
		return;
	}
	o->used += (size_t)n;
}

static void describe_level(Out *o, const LunLevel *l)
{
	const char *name;

	switch (l->method) {
	case LUN_ADDR_PERIPHERAL:
		if (l->bus == 0)
			out_printf(o, "peripheral LUN %" PRIu64, l->lun);
		else
			out_printf(o, "peripheral bus %u target %u", l->bus, l->target);
		return;
	case LUN_ADDR_FLAT:
		out_printf(o, "flat space LUN %" PRIu64, l->lun);
		return;
	case LUN_ADDR_LOGICAL_UNIT:
		out_printf(o, "logical unit target %u bus %u LUN %" PRIu64, l->target, l->bus,
		           l->lun);
		return;
	}

	switch (l->ext_kind) {
	case LUN_EXT_WELL_KNOWN:
		name = lun_wlun_name((uint8_t)l->lun);
		if (name)
			out_printf(o, "well known LUN: %s", name);
		else
			out_printf(o, "well known LUN 0x%02" PRIx64 " (reserved)", l->lun);
		return;
	case LUN_EXT_FLAT:
		out_printf(o, "extended flat space LUN %" PRIu64, l->lun);
		return;
	case LUN_EXT_LONG_FLAT:
		out_printf(o, "long extended flat space LUN %" PRIu64, l->lun);
		return;
	case LUN_EXT_NOT_SPECIFIED:
		out_printf(o, "logical unit not specified");
		return;
	default:
		out_printf(o, "reserved extended address (length %u, method 0x%x) 0x%0*" PRIx64,
		           l->ext_length, l->ext_method, 2 * (l->size - 1), l->lun);
		return;
	}
}

int lun_describe(const ScsiLun *lun, char *buf, size_t size)
{
	LunAddress a;
	Out o = { .buf = buf, .size = size };
	int r;

	assert_return(lun, -EINVAL);
	assert_return(buf || size == 0, -EINVAL);

	if (size == 0)
		return -ENOBUFS;
	buf[0] = '\0';

	r = lun_decode(lun, &a);
	if (r < 0)
		return r;

	for (size_t i = 0; i < a.n_levels; i++) {
		if (i > 0)
			out_printf(&o, "; ");
		describe_level(&o, &a.level[i]);
	}
	return o.overflow ? -ENOBUFS : 0;
}

int hctl_parse(const char *s, unsigned *h, unsigned *c, unsigned *t, uint64_t *l)
{
	uint64_t v[4];
	const char *p = s;

	/* Decimal digits by hand: every uevent parses several of these, strtoull() is slow. */
	for (size_t i = 0; i < 4; i++) {
		uint64_t x = 0;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++) {
			unsigned d = (unsigned)(*p - '0');

			if (x > (UINT64_MAX - d) / 10)
				return -EINVAL;
			x = x * 10 + d;
		}
		if ((i < 3 && (*p != ':' || x > UINT32_MAX)) || (i == 3 && *p != 0))
			return -EINVAL;
		v[i] = x;
		p++;
	}
	if (h)
		*h = (unsigned)v[0];
	if (c)
		*c = (unsigned)v[1];
	if (t)
		*t = (unsigned)v[2];
	if (l)
		*l = v[3];
	return 0;
}
