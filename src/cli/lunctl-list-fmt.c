/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lunctl-fail.h"
#include "lunctl-list-fmt.h"
#include "macro.h"

/* @n bytes at @s as a string in @buf (@size bytes). Returns 0, -ENOBUFS when it does not fit. */
static int copy_string(char *buf, size_t size, const char *s, size_t n)
{
	if (n >= size)
		return -ENOBUFS;
	memcpy(buf, s, n);
	buf[n] = 0;
	return 0;
}

/* One field of the filter, @n bytes at @s: a wildcard, or a number (hex allowed for the LUN). */
static int filter_field(const char *s, size_t n, bool lun, uint64_t max, bool *ret_any,
                        uint64_t *ret)
{
	char buf[32], *end;
	unsigned long long v;
	int base = 10;

	if (n == 0 || (n == 1 && (s[0] == '-' || s[0] == '*' || s[0] == '?'))) {
		*ret_any = true;
		return 0;
	}
	if (copy_string(buf, sizeof(buf), s, n) < 0)
		return -EINVAL;
	if (lun && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
		base = 16;
		if (buf[2] == 0)
			return -EINVAL;
	}
	/* strtoull() would take a sign or blanks: only digits here */
	for (size_t i = base == 16 ? 2 : 0; buf[i]; i++)
		if (!(base == 16 ? strchr("0123456789abcdefABCDEF", buf[i])
		                 : strchr("0123456789", buf[i])))
			return -EINVAL;
	errno = 0;
	v = strtoull(base == 16 ? buf + 2 : buf, &end, base);
	if (errno != 0 || *end != 0 || v > max)
		return -EINVAL;
	*ret_any = false;
	*ret = v;
	return 0;
}

int list_filter_parse(char *const *args, size_t n_args, ListFilter *ret, char *err, size_t err_size)
{
	static const char *const what[] = { "host", "channel", "target", "LUN" };
	ListFilter f = { LIST_ANY, LIST_ANY, LIST_ANY, 0, true };
	char joined[256] = "";
	const char *p, *end;
	size_t k = 0, len;

	assert_return(ret && (n_args == 0 || args), -EINVAL);

	if (n_args == 0) {
		*ret = f;
		return 0;
	}
	if (n_args > 4)
		return fail(err, err_size, "at most four filter arguments (H C T L), not %zu",
		            n_args);
	/* Several arguments are the fields of one H:C:T:L, as lsscsi takes them. */
	for (size_t i = 0; i < n_args; i++) {
		if (n_args > 1 && strchr(args[i], ':'))
			return fail(err, err_size,
			            "'%s': one H:C:T:L, or its fields as separate "
			            "arguments, not both",
			            args[i]);
		len = strlen(joined);
		if (snprintf(joined + len, sizeof(joined) - len, "%s%s", i ? ":" : "", args[i]) >=
		    (int)(sizeof(joined) - len))
			return fail(err, err_size, "filter too long");
	}

	p = joined;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strneq(p, "host", 4) || strneq(p, "HOST", 4))
		p += 4;
	else if (*p == '[') {
		p++;
		len = strlen(p);
		if (len == 0 || p[len - 1] != ']')
			return fail(err, err_size, "'%s': '[' without its ']'", joined);
		joined[strlen(joined) - 1] = 0;
	}
	if (*p == 0)
		return fail(err, err_size, "'%s': an empty filter", joined);

	for (;; p = end + 1, k++) {
		bool any;
		uint64_t v;

		end = strchrnul(p, ':');
		if (k >= ELEMENTSOF(what))
			return fail(err, err_size, "'%s': more than four fields (H:C:T:L)", joined);
		if (filter_field(p, (size_t)(end - p), k == 3, k == 3 ? UINT64_MAX : UINT32_MAX,
		                 &any, &v) < 0)
			return fail(err, err_size,
			            "'%.*s' is not a %s number (nor one of the wildcards - * ?)",
			            (int)(end - p), p, what[k]);
		switch (k) {
		case 0:
			f.host = any ? LIST_ANY : (int64_t)v;
			break;
		case 1:
			f.channel = any ? LIST_ANY : (int64_t)v;
			break;
		case 2:
			f.target = any ? LIST_ANY : (int64_t)v;
			break;
		default:
			f.lun_any = any;
			f.lun = any ? 0 : v;
		}
		if (*end == 0)
			break;
	}
	*ret = f;
	return 0;
}

bool list_filter_match(const ListFilter *f, unsigned host, unsigned channel, unsigned target,
                       uint64_t lun)
{
	return (f->host == LIST_ANY || f->host == host) &&
	       (f->channel == LIST_ANY || f->channel == channel) &&
	       (f->target == LIST_ANY || f->target == target) && (f->lun_any || f->lun == lun);
}

bool list_filter_match_host(const ListFilter *f, unsigned host)
{
	return f->host == LIST_ANY || f->host == host;
}

int list_size_string(uint64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };
	uint64_t v = bytes, rem = 0;
	char frac[8] = "";
	size_t u = 0;
	int n;

	/* lsscsi's size2string(): the integer part in the largest unit it reaches, then as many
	 * digits of the last remainder as make three significant figures, cut, not rounded. */
	while (v >= 1000 && u + 1 < ELEMENTSOF(units)) {
		rem = v % 1000;
		v /= 1000;
		u++;
	}
	if (u > 0) {
		unsigned digits = v < 10 ? 2 : v < 100 ? 1 : 0;

		if (digits > 0) {
			snprintf(frac, sizeof(frac), ".%03u", (unsigned)rem);
			frac[1 + digits] = 0;
		}
	}
	n = snprintf(buf, size, "%" PRIu64 "%s%s", v, frac, units[u]);
	return n < 0 || (size_t)n >= size ? -ENOBUFS : 0;
}

/*
 * lsscsi's walk of the designators (sg3_utils' sg_vpd_dev_id_iter()): from the one after *off
 * (*off < 0: the first), the next whose association, type and code set match (-1: any). The
 * walk never reads past @len: a descriptor is used only when its 4-byte header fits, and a
 * designator only when its length does (checked by the callers).
 */
static int desig_next(const uint8_t *d, size_t len, int *off, int assoc, int type, int code_set)
{
	long k = *off;

	while (k < 0 || (size_t)k + 3 < len) {
		k = k < 0 ? 0 : k + d[k + 3] + 4;
		if ((size_t)k + 4 > len)
			break;
		if (code_set >= 0 && (d[k] & 0xf) != code_set)
			continue;
		if (assoc >= 0 && ((d[k + 1] >> 4) & 0x3) != assoc)
			continue;
		if (type >= 0 && (d[k + 1] & 0xf) != type)
			continue;
		*off = (int)k;
		return 0;
	}
	return -ENOENT;
}

static int append(char **p, size_t *left, const char *fmt, ...) _printf_(3, 4);
static int append(char **p, size_t *left, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*p, *left, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= *left)
		return -ENOBUFS;
	*p += n;
	*left -= (size_t)n;
	return 0;
}

/* @n bytes of @s, the way lsscsi's "%.*s" prints them: up to the first NUL. */
static int append_text(char **p, size_t *left, const uint8_t *s, size_t n)
{
	size_t m = strnlen((const char *)s, n);

	if (m >= *left)
		return -ENOBUFS;
	memcpy(*p, s, m);
	(*p)[m] = 0;
	*p += m;
	*left -= m;
	return 0;
}

enum {
	ASSOC_LU = 0,
	ASSOC_TPORT = 1,
	DESIG_T10 = 1,
	DESIG_EUI = 2,
	DESIG_NAA = 3,
	DESIG_SNS = 8,
	DESIG_UUID = 0xa,
	CODE_BINARY = 1,
	CODE_UTF8 = 3,
	PROTO_ISCSI = 5
};

int list_lu_name(const uint8_t *page, size_t len, char *buf, size_t size)
{
	const uint8_t *d, *sns = NULL;
	size_t dlen, sns_len = 0, left = size;
	char *p = buf;
	int off = -1, r = 0;

	assert_return(buf && size > 0, -EINVAL);
	buf[0] = 0;
	/* lsscsi wants more than the header and a page length that accounts for every byte */
	if (!page || len <= 8 || len > 512 || page[1] != 0x83 ||
	    ((size_t)page[2] << 8 | page[3]) + 4 != len)
		return 0;
	d = page + 4;
	dlen = len - 4;

	if (desig_next(d, dlen, &off, ASSOC_LU, DESIG_SNS, CODE_UTF8) == 0) {
		sns_len = d[off + 3];
		if ((size_t)off + 4 + sns_len > dlen)
			return 0;
		sns = d + off + 4;
		/* iSCSI (a target port SCSI name string with PIV and protocol 5): the name. */
		off = -1;
		if (desig_next(d, dlen, &off, ASSOC_TPORT, DESIG_SNS, CODE_UTF8) == 0 &&
		    (d[off + 1] & 0x80) && (d[off] >> 4) == PROTO_ISCSI)
			return append_text(&p, &left, sns, sns_len);
	}
	/* lsscsi carries the position on from the searches above: so does this */
	if (desig_next(d, dlen, &off, ASSOC_LU, DESIG_NAA, CODE_BINARY) == 0 ||
	    desig_next(d, dlen, &off, ASSOC_LU, DESIG_EUI, CODE_BINARY) == 0) {
		unsigned type = d[off + 1] & 0xf, n = d[off + 3];

		if ((size_t)off + 4 + n > dlen)
			return 0;
		if (type == DESIG_NAA ? n != 8 && n != 16 : n != 8 && n != 12 && n != 16)
			return 0;
		for (unsigned k = 0; r >= 0 && k < n; k++)
			r = append(&p, &left, "%02x", d[off + 4 + k]);
		return r;
	}
	if (desig_next(d, dlen, &off, ASSOC_LU, DESIG_UUID, CODE_BINARY) == 0) {
		if ((size_t)off + 4 + d[off + 3] > dlen)
			return 0;
		if (((d[off + 4] >> 4) & 0xf) != 1 || d[off + 3] != 18)
			return append(&p, &left, "??");
		for (unsigned k = 0; r >= 0 && k < 16; k++)
			r = append(&p, &left, "%s%02x",
			           k == 4 || k == 6 || k == 8 || k == 10 ? "-" : "",
			           d[off + 6 + k]);
		return r;
	}
	if (sns_len > 0)
		return append_text(&p, &left, sns, sns_len);
	if (desig_next(d, dlen, &off, ASSOC_LU, DESIG_T10, -1) == 0 && (d[off] & 0xf) > 1) {
		size_t n = d[off + 3];

		if (n < 8 || (size_t)off + 4 + n > dlen)
			return 0;
		return append_text(&p, &left, d + off + 4, n);
	}
	return 0;
}

int list_path_component(const char *path, unsigned up, char *buf, size_t size)
{
	const char *end, *s;

	assert_return(path && buf, -EINVAL);
	end = path + strlen(path);
	while (end > path && end[-1] == '/')
		end--;
	for (;;) {
		for (s = end; s > path && s[-1] != '/'; s--)
			;
		if (s == end)
			return -ENOENT;
		if (up == 0)
			break;
		up--;
		end = s;
		while (end > path && end[-1] == '/')
			end--;
	}
	return copy_string(buf, size, s, (size_t)(end - s));
}

const char *list_type_name(int pdt)
{
	/* lsscsi's scsi_short_device_types[] (SPC-6 peripheral device types) */
	static const char *const names[32] = {
		"disk",    "tape",    "printer", "process", "worm",   "cd/dvd",  "scanner",
		"optical", "mediumx", "comms",   "(0xa)",   "(0xb)",  "storage", "enclosu",
		"sim dsk", "opti rd", "bridge",  "osd",     "adi",    "sec man", "zbc",
		"(0x15)",  "(0x16)",  "(0x17)",  "(0x18)",  "(0x19)", "(0x1a)",  "(0x1b)",
		"(0x1c)",  "(0x1d)",  "wlun",    "no dev",
	};

	return pdt >= 0 && pdt < 32 ? names[pdt] : "type???";
}
