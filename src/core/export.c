/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * KEY=VALUE export: scsi_id / ata_id (systemd v252) and sg_inq --export (sg3_utils 1.46).
 *
 * The sg_inq half reproduces what `sg_inq --export --inhex=FILE --raw` prints for each page
 * file, which is how Debian's 55-scsi-sg3_id.rules runs it on the kernel's sysfs copies
 * (inquiry, vpd_pg80, vpd_pg83). Two things are not reproduced, deliberately:
 *  - sg_inq --inhex guesses what a file holds from its first bytes and can take a page 0x80
 *    with a short serial, a page longer than 767 bytes, or the INQUIRY data of a SCSI-2 device
 *    for something else. lund knows which page it holds and decodes that.
 *  - Where sg_inq prints device bytes raw (SCSI name strings; MD5 designators longer than 16
 *    bytes or empty, which hex2stdout() spreads over several lines or none), lund prints one
 *    line; escape_value() turns what would break it into "\xNN".
 */

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "export.h"
#include "macro.h"
#include "unaligned.h"

/* Raw values are built here before escaping: the longest is a 255-byte designator printed by
 * sg_inq as "\xNN" per byte. */
#define RAW_MAX (4 * 255 + 64)

typedef struct Emitter {
	export_fn cb;
	void *userdata;
} Emitter;

static int emit_raw(const Emitter *e, const char *key, const uint8_t *v, size_t len)
{
	_cleanup_free_ char *out = NULL;
	size_t size = 4 * len + 1;
	int r;

	out = malloc(size);
	if (!out)
		return -ENOMEM;
	r = escape_value(v, len, out, size);
	if (r < 0)
		return r;
	return e->cb(key, out, e->userdata);
}

static int emit(const Emitter *e, const char *key, const char *v)
{
	return emit_raw(e, key, (const uint8_t *)v, strlen(v));
}

_printf_(3, 4) static int emitf(const Emitter *e, const char *key, const char *fmt, ...)
{
	char v[RAW_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(v))
		return -ENOBUFS;
	return emit(e, key, v);
}

/* scsi_id --export --whitelisted, in its order. */
static int export_scsi_id(const ScsiIdent *id, const Emitter *e)
{
	int r;

	if ((r = emit(e, "ID_SCSI", "1")) < 0 || (r = emit(e, "ID_VENDOR", id->vendor)) < 0 ||
	    (r = emit(e, "ID_VENDOR_ENC", id->vendor_enc)) < 0 ||
	    (r = emit(e, "ID_MODEL", id->model)) < 0 ||
	    (r = emit(e, "ID_MODEL_ENC", id->model_enc)) < 0 ||
	    (r = emit(e, "ID_REVISION", id->revision)) < 0 ||
	    (r = emit(e, "ID_TYPE", id->type ?: "generic")) < 0)
		return r;
	if (id->have_serial) {
		if ((r = emit(e, "ID_SERIAL", id->serial)) < 0 ||
		    (r = emit(e, "ID_SERIAL_SHORT", id->serial_short)) < 0)
			return r;
	}
	if (id->wwn[0] != '\0') {
		if ((r = emitf(e, "ID_WWN", "0x%s", id->wwn)) < 0)
			return r;
		if (id->wwn_vendor_extension[0] != '\0') {
			if ((r = emitf(e, "ID_WWN_VENDOR_EXTENSION", "0x%s",
			               id->wwn_vendor_extension)) < 0 ||
			    (r = emitf(e, "ID_WWN_WITH_EXTENSION", "0x%s%s", id->wwn,
			               id->wwn_vendor_extension)) < 0)
				return r;
		} else if ((r = emitf(e, "ID_WWN_WITH_EXTENSION", "0x%s", id->wwn)) < 0)
			return r;
	}
	if (id->target_port[0] != '\0' && (r = emit(e, "ID_TARGET_PORT", id->target_port)) < 0)
		return r;
	if (id->scsi_serial[0] != '\0' && (r = emit(e, "ID_SCSI_SERIAL", id->scsi_serial)) < 0)
		return r;
	return 0;
}

/* ata_id --export, the identity lines only (its ID_ATA_FEATURE_SET_* etc. are not ours). */
static int export_ata_id(const ScsiIdent *id, const Emitter *e)
{
	int r;

	if ((r = emit(e, "ID_ATA", "1")) < 0 || (r = emit(e, "ID_TYPE", id->ata.type)) < 0 ||
	    (r = emit(e, "ID_BUS", "ata")) < 0 || (r = emit(e, "ID_MODEL", id->ata.model)) < 0 ||
	    (r = emit(e, "ID_MODEL_ENC", id->ata.model_enc)) < 0 ||
	    (r = emit(e, "ID_REVISION", id->ata.revision)) < 0 ||
	    (r = emit(e, "ID_SERIAL", id->ata.serial)) < 0)
		return r;
	if (id->ata.serial_short[0] != '\0' &&
	    (r = emit(e, "ID_SERIAL_SHORT", id->ata.serial_short)) < 0)
		return r;
	if (id->ata.wwn[0] != '\0') {
		if ((r = emitf(e, "ID_WWN", "0x%s", id->ata.wwn)) < 0 ||
		    (r = emitf(e, "ID_WWN_WITH_EXTENSION", "0x%s", id->ata.wwn)) < 0)
			return r;
	}
	return 0;
}

/* ---- sg_inq 1.46 ---------------------------------------------------------------------- */

static bool c_isblank(uint8_t c)
{
	return c == ' ' || c == '\t';
}

static bool c_isprint(uint8_t c)
{
	return c >= 0x20 && c <= 0x7e;
}

/*
 * sg_inq's encode_whitespaces(), in place on @s[0..@len): trim blanks (and, after leading
 * blanks, bytes below 0x20), collapse inner blanks into one '_', make other non-printable
 * bytes '.', skip a single NUL and stop at two in a row. Returns the new length, 0 when
 * nothing printable (other than '.') remained.
 */
static size_t sg_encode_whitespaces(uint8_t *s, size_t len)
{
	size_t j = 0, k, out_len = len, res = 0;
	bool valid = false, zero = false;

	while (j < len && c_isblank(s[j]))
		j++;
	if (j < len)
		while (j < len && s[j] < 0x20)
			j++;
	k = j;
	while (out_len > k && (c_isblank(s[out_len - 1]) || s[out_len - 1] == 0)) {
		s[out_len - 1] = 0;
		out_len--;
	}
	for (; k < out_len; k++) {
		if (c_isblank(s[k])) {
			if (res > 0 && s[res - 1] != '_') {
				s[res++] = '_';
				valid = true;
			}
			zero = false;
		} else if (!c_isprint(s[k])) {
			if (s[k] == 0) {
				if (zero)
					break;
				zero = true;
				continue;
			}
			s[res++] = '.';
			zero = false;
		} else {
			s[res++] = s[k];
			valid = true;
			zero = false;
		}
	}
	if (!valid)
		res = 0;
	if (res < len)
		s[res] = 0;
	return res;
}

/* sg_inq's escapes of @s[0..@len) into @out, each byte as is or as "\xNN": @udev, its
 * "udev-conforming character encoding" (the allowlist); otherwise its encode_string()
 * (SCSI_VENDOR_ENC, SCSI_MODEL_ENC), which escapes blanks and non-printable bytes. */
static size_t sg_escape(const uint8_t *s, size_t len, bool udev, char *out)
{
	size_t j = 0;

	for (size_t i = 0; i < len; i++) {
		if (udev ? udev_char_allowed(s[i], NULL) : c_isprint(s[i]) && !c_isblank(s[i]))
			out[j++] = (char)s[i];
		else
			j += (size_t)sprintf(out + j, "\\x%02x", s[i]);
	}
	out[j] = 0;
	return j;
}

static size_t hex_of(const uint8_t *s, size_t len, char *out)
{
	for (size_t i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", s[i]);
	out[2 * len] = 0;
	return 2 * len;
}

/* hex2stdout(b, len, -1) as one line: "xx xx xx xx xx xx xx xx  xx ...", lines of 16 joined
 * with one space where sg_inq starts a new line. */
static void sg_hex_line(const uint8_t *s, size_t len, char *out)
{
	size_t j = 0;

	for (size_t i = 0; i < len; i++) {
		if (i > 0)
			out[j++] = ' ';
		if (i % 16 == 8)
			out[j++] = ' ';
		j += (size_t)sprintf(out + j, "%02x", s[i]);
	}
	out[j] = 0;
}

/* sg_lib_pdt_strs[] of sg3_utils 1.46 (SPC-6 Table 146 peripheral device types). */
static const char *const sg_pdt_names[32] = {
	"disk",
	"tape",
	"printer",
	"processor",
	"write once optical disk",
	"cd/dvd",
	"scanner",
	"optical memory device",
	"medium changer",
	"communications",
	"graphics [0xa]",
	"graphics [0xb]",
	"storage array controller",
	"enclosure services device",
	"simplified direct access device",
	"optical card reader/writer device",
	"bridge controller commands",
	"object based storage",
	"automation/driver interface",
	"security manager device",
	"host managed zoned block",
	"0x15",
	"0x16",
	"0x17",
	"0x18",
	"0x19",
	"0x1a",
	"0x1b",
	"0x1c",
	"0x1d",
	"well known logical unit",
	"unknown or no device type",
};

/* Byte @i of a buffer sg_inq zero-fills past what the file held. */
static uint8_t zat(const uint8_t *b, size_t len, size_t i)
{
	return i < len ? b[i] : 0;
}

/* sg_inq's strings of the standard INQUIRY data (SPC-6 6.7.2), in the order it prints them, each
 * only when the data reaches it and it holds more than blanks. */
static const struct {
	uint8_t off, n;
	bool tabs;           /* tabs become blanks first (the vendor only, as in sg_inq) */
	const char *key;     /* the field as sg_encode_whitespaces() left it */
	const char *key_enc; /* the raw bytes, escaped as sg_inq does; NULL: none */
} sg_std_strings[] = {
	{ 8, 8, true, "SCSI_VENDOR", "SCSI_VENDOR_ENC" },  /* T10 VENDOR IDENTIFICATION */
	{ 16, 16, false, "SCSI_MODEL", "SCSI_MODEL_ENC" }, /* PRODUCT IDENTIFICATION */
	{ 32, 4, false, "SCSI_REVISION", NULL },           /* PRODUCT REVISION LEVEL */
};

static int export_sg_std_inquiry(const uint8_t *b, size_t len, const Emitter *e)
{
	uint8_t x[16 + 1], raw[16];
	char enc[16 * 4 + 1];
	int r;

	if ((r = emitf(e, "SCSI_TPGS", "%d", (zat(b, len, 5) & 0x30) >> 4)) < 0 ||
	    (r = emit(e, "SCSI_TYPE", sg_pdt_names[zat(b, len, 0) & 0x1f])) < 0)
		return r;
	for (size_t k = 0; k < ELEMENTSOF(sg_std_strings); k++) {
		size_t off = sg_std_strings[k].off, n = sg_std_strings[k].n;

		assert(n <= sizeof(raw));
		if (len <= off)
			return 0;
		for (size_t i = 0; i < n; i++) {
			raw[i] = zat(b, len, off + i);
			x[i] = sg_std_strings[k].tabs && raw[i] == '\t' ? ' ' : raw[i];
		}
		x[n] = 0;
		if (sg_encode_whitespaces(x, n) == 0)
			continue;
		if ((r = emit(e, sg_std_strings[k].key, (const char *)x)) < 0)
			return r;
		if (!sg_std_strings[k].key_enc)
			continue;
		sg_escape(raw, n, false, enc);
		if ((r = emit(e, sg_std_strings[k].key_enc, enc)) < 0)
			return r;
	}
	return 0;
}

/* sg_inq reads an --inhex file into its response buffer of MX_ALLOC_LEN + 1 bytes
 * (0xc080 + 1) and silently ignores the rest: a page longer than that is cut there. */
#define SG_INQ_INHEX_MAX (0xc080 + 1)

/* Length sg_inq decodes: the page length field + 4, capped at what the file held. */
static size_t sg_vpd_len(const uint8_t *b, size_t len)
{
	size_t declared = (size_t)unaligned_read_be16(b + 2) + 4;
	size_t held = MIN(len, (size_t)SG_INQ_INHEX_MAX);

	return MIN(declared, held);
}

static int export_sg_pg80(const uint8_t *b, size_t len, const Emitter *e)
{
	uint8_t s[252]; /* sg_inq's obuff[DEF_ALLOC_LEN]: at most 251 serial bytes */
	char out[252 * 4 + 1];
	size_t n, k;

	if (len < 4 || b[1] != 0x80)
		return 0;
	n = sg_vpd_len(b, len) - 4;
	n = MIN(n, sizeof(s) - 1);
	memset(s, 0, sizeof(s));
	memcpy(s, b + 4, n);
	k = sg_encode_whitespaces(s, n);
	if (k == 0)
		return 0;
	sg_escape(s, k, true, out);
	return emit(e, "SCSI_IDENT_SERIAL", out);
}

/* SPC-6 7.7.6.1: association field values name the key's middle part. */
static const char *const sg_assoc_names[3] = { "LUN", "PORT", "TARGET" };

/* SPC-6 7.7.6.6: NAA field -> sg_inq's key suffix. */
static const char *sg_naa_suffix(uint8_t naa)
{
	switch (naa) {
	case 6:
		return "REGEXT";
	case 5:
		return "REG";
	case 2:
		return "EXT";
	default:
		return "LOCAL";
	}
}

/* SPC-6 7.6.1 Table 444: protocol identifiers sg_inq decodes for designator type 9. */
#define TPROTO_UAS 0x9
#define TPROTO_SOP 0xa

/* One designator as sg_inq's export_dev_ids() prints it. @d points into a private copy (the
 * whitespace encoding works in place, as sg_inq's does on its buffer). */
static int export_sg_designator(uint8_t *ip, size_t i_len, size_t avail, uint8_t p_id,
                                uint8_t c_set, uint8_t assoc, uint8_t type, const Emitter *e)
{
	const char *a = sg_assoc_names[assoc];
	_cleanup_free_ char *v = NULL;
	char key[EXPORT_KEY_MAX];
	bool text = c_set == 2 || c_set == 3; /* SPC-6 Table 590: ASCII, UTF-8 */
	size_t k;
	int r;

	/* Longest rendering: "\xNN" per byte, or the MD5/UUID hex forms (< 4 per byte). */
	v = malloc(4 * i_len + 64);
	if (!v)
		return -ENOMEM;

	switch (type) {
	case 0x0: /* vendor specific */
		if (i_len == 0 || i_len > 128)
			return 0;
		snprintf(key, sizeof(key), "SCSI_IDENT_%s_VENDOR", a);
		if (text) {
			k = sg_encode_whitespaces(ip, i_len);
			if (k == 0)
				return 0;
			sg_escape(ip, k, true, v);
		} else
			hex_of(ip, i_len, v);
		return emit(e, key, v);
	case 0x1: /* T10 vendor ID based */
		snprintf(key, sizeof(key), "SCSI_IDENT_%s_T10", a);
		if (!text) {
			hex_of(ip, i_len, v);
			return emit(e, key, v);
		}
		k = sg_encode_whitespaces(ip, i_len);
		sg_escape(ip, k, true, v);
		if ((r = emit(e, key, v)) < 0)
			return r;
		/* sg_inq compares 4 bytes whatever the length (past a short designator:
		 * the page's following bytes), then prints the rest of the encoded text;
		 * with a negative precision printf() runs to the next NUL. */
		if (memcmp(ip, "ATA_", 4) == 0) {
			size_t n =
			        k >= 4 ? k - 4
			               : strnlen((const char *)ip + 4, avail > 4 ? avail - 4 : 0);

			snprintf(key, sizeof(key), "SCSI_IDENT_%s_ATA", a);
			return emit_raw(e, key, ip + 4, n);
		}
		return 0;
	case 0x2: /* EUI-64 based */
		if (c_set != 1)
			return 0;
		snprintf(key, sizeof(key), "SCSI_IDENT_%s_EUI64", a);
		hex_of(ip, i_len, v);
		return emit(e, key, v);
	case 0x3: /* NAA; the suffix tells apart the several some devices send */
		if (c_set != 1)
			return 0;
		snprintf(key, sizeof(key), "SCSI_IDENT_%s_NAA_%s", a, sg_naa_suffix(ip[0] >> 4));
		hex_of(ip, i_len, v);
		return emit(e, key, v);
	case 0x4: /* relative target port, SPC-6 7.7.6.7 */
	case 0x5: /* target port group, 7.7.6.8 */
		if (c_set != 1 || assoc != 1 || i_len != 4)
			return 0;
		if (type == 0x4) {
			snprintf(key, sizeof(key), "SCSI_IDENT_%s_RELATIVE", a);
			return emitf(e, key, "%d", unaligned_read_be16(ip + 2));
		}
		snprintf(key, sizeof(key), "SCSI_IDENT_%s_TARGET_PORT_GROUP", a);
		return emitf(e, key, "0x%x", unaligned_read_be16(ip + 2));
	case 0x6: /* logical unit group, 7.7.6.9 */
		if (c_set != 1 || assoc != 0 || i_len != 4)
			return 0;
		snprintf(key, sizeof(key), "SCSI_IDENT_%s_LOGICAL_UNIT_GROUP", a);
		return emitf(e, key, "0x%x", unaligned_read_be16(ip + 2));
	case 0x7: /* MD5 logical unit identifier, 7.7.6.10 */
		if (c_set != 1 || assoc != 0)
			return 0;
		snprintf(key, sizeof(key), "SCSI_IDENT_%s_MD5", a);
		sg_hex_line(ip, i_len, v);
		return emit(e, key, v);
	case 0x8: /* SCSI name string, 7.7.6.11: printed raw by sg_inq */
		if (c_set != 3)
			return 0;
		snprintf(key, sizeof(key), "SCSI_IDENT_%s_NAME", a);
		/* SPC: null-terminated and null-padded; sg_inq's "%.*s" stops there too. */
		return emit_raw(e, key, ip, strnlen((const char *)ip, i_len));
	case 0x9: /* protocol specific port identifier, 7.7.6.12 */
		if (p_id == TPROTO_UAS) {
			if (i_len != 4 || assoc != 1)
				return 0;
			snprintf(key, sizeof(key), "SCSI_IDENT_%s_UAS_DEVICE_ADDRESS", a);
			if ((r = emitf(e, key, "0x%x", ip[0] & 0x7f)) < 0)
				return r;
			snprintf(key, sizeof(key), "SCSI_IDENT_%s_UAS_INTERFACE_NUMBER", a);
			return emitf(e, key, "0x%x", ip[2]);
		}
		if (p_id == TPROTO_SOP) {
			if (i_len != 4 && i_len != 8)
				return 0;
			snprintf(key, sizeof(key), "SCSI_IDENT_%s_SOP_ROUTING_ID", a);
			return emitf(e, key, "0x%x", unaligned_read_be16(ip));
		}
		return 0;
	case 0xa: /* UUID, 7.7.6.13: 2 header bytes then the RFC 4122 UUID */
		if (c_set != 1 || i_len < 18)
			return 0;
		snprintf(key, sizeof(key), "SCSI_IDENT_%s_UUID", a);
		k = 0;
		for (size_t m = 2; m < i_len; m++)
			k += (size_t)sprintf(
			        v + k, (m == 6 || m == 8 || m == 10 || m == 12) ? "-%02x" : "%02x",
			        ip[m]);
		return emit(e, key, v);
	default:
		return 0;
	}
}

/*
 * export_dev_ids() of sg_inq 1.46 on page 0x83. The walk is sg_vpd_dev_id_iter()'s: the next
 * descriptor starts DESIGNATOR LENGTH + 4 after this one (SPC-6 7.7.6.1: the length excludes
 * the 4-byte header); a descriptor running past the page ends the export, as does an invalid
 * association (11b).
 */
static int export_sg_pg83(const uint8_t *page, size_t page_len, const Emitter *e)
{
	_cleanup_free_ uint8_t *buf = NULL;
	size_t len;
	long off = -1;
	int r;

	if (page_len < 4 || page[1] != 0x83)
		return 0;
	len = sg_vpd_len(page, page_len) - 4;
	/* Private zero-padded copy: sg_inq edits text designators in place and reads a few
	 * bytes past short ones (its buffer is zero past the file). */
	buf = calloc(len + 8, 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, page + 4, len);

	if (len > 2 && buf[2] != 0) {
		/* The SCSI-2 format (byte 6 of the page non-zero): the whole body is one
		 * binary NAA-style identifier. sg_inq then carries on walking from offset 16. */
		r = export_sg_designator(buf, len, len + 8, 0xf, 1, 0, 0x3, e);
		if (r < 0)
			return r;
		off = 16;
	}

	for (;;) {
		size_t i_len;
		uint8_t *bp;

		/* sg_vpd_dev_id_iter(): advance, stop when a header would not fit. */
		if (!(off + 3 < (long)len))
			break;
		off = off < 0 ? 0 : off + buf[off + 3] + 4;
		if (off + 4 > (long)len)
			break;
		bp = buf + off;
		i_len = bp[3];
		if ((size_t)off + i_len + 4 > len)
			return 0;
		if (((bp[1] >> 4) & 0x3) == 3)
			return 0;
		r = export_sg_designator(bp + 4, i_len, len + 8 - (size_t)off - 4, bp[0] >> 4,
		                         bp[0] & 0xf, (bp[1] >> 4) & 0x3, bp[1] & 0xf, e);
		if (r < 0)
			return r;
	}
	return 0;
}

static int export_sg_inq(const ScsiIdent *id, const Emitter *e)
{
	const ScsiIdentInput *in = &id->in;
	int r;

	if (in->inquiry && (r = export_sg_std_inquiry(in->inquiry, in->inquiry_len, e)) < 0)
		return r;
	if (in->pg80 && (r = export_sg_pg80(in->pg80, in->pg80_len, e)) < 0)
		return r;
	if (in->pg83 && (r = export_sg_pg83(in->pg83, in->pg83_len, e)) < 0)
		return r;
	return 0;
}

int export_ident(const ScsiIdent *id, ExportFlags flags, export_fn cb, void *userdata)
{
	Emitter e = { .cb = cb, .userdata = userdata };
	int r;

	assert_return(id, -EINVAL);
	assert_return(cb, -EINVAL);

	if (flags & EXPORT_UDEV) {
		if ((flags & EXPORT_UDEV_ATA) && id->ata.valid)
			r = export_ata_id(id, &e);
		else
			r = export_scsi_id(id, &e);
		if (r < 0)
			return r;
	}
	if (flags & EXPORT_SG_INQ)
		return export_sg_inq(id, &e);
	return 0;
}

static bool key_valid(const char *key)
{
	if (isempty(key) || strlen(key) >= EXPORT_KEY_MAX)
		return false;
	for (const char *p = key; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

int export_line_append(char *buf, size_t size, size_t *pos, const char *key, const uint8_t *value,
                       size_t len)
{
	size_t kl, p;
	int n;

	assert_return(buf && pos && key, -EINVAL);
	assert_return(value || len == 0, -EINVAL);
	if (!key_valid(key))
		return -EINVAL;
	p = *pos;
	kl = strlen(key);
	if (p > size || size - p < kl + 1)
		return -ENOBUFS;
	/* Escape straight into place, then check there is room for "\n" and the NUL. */
	n = escape_value(value, len, buf + p + kl + 1, size - p - kl - 1);
	if (n < 0 || size - p - kl - 1 < (size_t)n + 2)
		return -ENOBUFS;
	memcpy(buf + p, key, kl);
	buf[p + kl] = '=';
	p += kl + 1 + (size_t)n;
	buf[p++] = '\n';
	buf[p] = '\0';
	*pos = p;
	return 0;
}

typedef struct BufCtx {
	char *buf;
	size_t size, pos;
} BufCtx;

static int buf_cb(const char *key, const char *value, void *userdata)
{
	BufCtx *c = userdata;

	/* @value is already escaped: escape_value() leaves escaped text unchanged. */
	return export_line_append(c->buf, c->size, &c->pos, key, (const uint8_t *)value,
	                          strlen(value));
}

int export_to_buffer(const ScsiIdent *id, ExportFlags flags, char *buf, size_t size,
                     size_t *ret_len)
{
	BufCtx c = { .buf = buf, .size = size };
	int r;

	assert_return(id && buf && ret_len, -EINVAL);
	if (size == 0)
		return -ENOBUFS;
	buf[0] = '\0';
	r = export_ident(id, flags, buf_cb, &c);
	if (r < 0)
		return r;
	*ret_len = c.pos;
	return 0;
}
