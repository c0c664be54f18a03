/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * scsi_id (systemd v252) and ata_id identifiers, computed from pages already read.
 *
 * scsi_id is modelled on what it *sees*, not on what the device sent: each page lands in a
 * zeroed 254-byte buffer (SCSI_INQ_BUFF_LEN is also its allocation length), a page the device
 * rejects with ILLEGAL REQUEST leaves that buffer all zero, and its serial buffer is one
 * 256-byte area shared by every attempt, so a failed attempt can leave bytes behind that a
 * later line prints. Reproducing those effects is what makes the IDs match byte for byte.
 *
 * Where scsi_id reads past its 254-byte buffers (the page 0x00 and page 0x83 walks follow the
 * device's length fields, up to 65535, with no bound), it reads its own stack: undefined
 * behaviour. lund reads those bytes as zero, the only defined choice; with zeros the walk
 * matches nothing, so the result is what scsi_id gives whenever its stack happens not to look
 * like a designator.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "utf8.h"
#include "ident.h"
#include "inquiry.h"
#include "macro.h"
#include "unaligned.h"
#include "vpd.h"

#define SID_BUF    IDENT_SCSI_ID_BUF_LEN
#define SID_SERIAL IDENT_SERIAL_MAX
#define VENDOR_LEN 8  /* SPC-6 6.7.2: T10 VENDOR IDENTIFICATION, bytes 8..15 */
#define MODEL_LEN  16 /* PRODUCT IDENTIFICATION, bytes 16..31 */

/* A page as scsi_id holds it. */
typedef struct SidPage {
	uint8_t b[SID_BUF];
} SidPage;

static void sid_page_load(SidPage *p, const uint8_t *buf, size_t len)
{
	memset(p->b, 0, sizeof(p->b));
	if (buf)
		memcpy(p->b, buf, MIN(len, sizeof(p->b)));
}

/* Byte @i of a scsi_id buffer; past its end, where scsi_id reads its stack, zero. */
static uint8_t at(const SidPage *p, size_t i)
{
	return i < sizeof(p->b) ? p->b[i] : 0;
}

/*
 * Designator priority (scsi_serial.c id_search_list[], systemd v252), best first. Every row is
 * tried against every descriptor before the next row. SPC-6 7.7.6.1 Table 589 (designator
 * types), Table 590 (code sets), 7.7.6.6 (NAA: 6 = IEEE Registered Extended, 5 = IEEE
 * Registered). Only logical-unit association (00b) counts, except the target port group row,
 * which also accepts target-port association (01b) and only records ID_TARGET_PORT.
 * SCSI name strings (type 8), UUIDs, MD5 and the port designators are not in the table: v252
 * never names a device from them.
 */
enum {
	SID_CS_BINARY = 1,
	SID_CS_ASCII = 2,
	SID_NAA_ANY = -1,
};

typedef struct SidSearch {
	uint8_t type; /* designator type, SPC-6 Table 589 */
	int naa;      /* NAA field (first nibble of the designator), or SID_NAA_ANY */
	uint8_t code_set;
} SidSearch;

static const SidSearch sid_search[] = {
	{ 0x5, SID_NAA_ANY, SID_CS_BINARY }, /* target port group -> ID_TARGET_PORT only */
	{ 0x3, 0x6, SID_CS_BINARY },         /* NAA IEEE Registered Extended */
	{ 0x3, 0x6, SID_CS_ASCII },
	{ 0x3, 0x5, SID_CS_BINARY }, /* NAA IEEE Registered */
	{ 0x3, 0x5, SID_CS_ASCII },
	{ 0x3, SID_NAA_ANY, SID_CS_BINARY }, /* other NAA (2 IEEE Extended, 3 Locally Assigned) */
	{ 0x3, SID_NAA_ANY, SID_CS_ASCII },
	{ 0x2, SID_NAA_ANY, SID_CS_BINARY }, /* EUI-64 based */
	{ 0x2, SID_NAA_ANY, SID_CS_ASCII },
	{ 0x1, SID_NAA_ANY, SID_CS_BINARY }, /* T10 vendor ID based */
	{ 0x1, SID_NAA_ANY, SID_CS_ASCII },
	{ 0x0, SID_NAA_ANY, SID_CS_BINARY }, /* vendor specific: prefixed with vendor+model */
	{ 0x0, SID_NAA_ANY, SID_CS_ASCII },
};

#define SID_TYPE_TPG             0x5
#define SID_TYPE_NAA             0x3
#define SID_TYPE_VENDOR_SPECIFIC 0x0

static const char hexdigits[] = "0123456789abcdef";

/* scsi_id's state for one run. */
typedef struct Sid {
	char vendor[VENDOR_LEN + 1]; /* C strings: a NUL byte from the device ends them */
	char model[MODEL_LEN + 1];
	char revision[5];
	uint8_t type;
	SidPage pg00, pg80, pg83;
	uint8_t serial[SID_SERIAL]; /* shared by all attempts, zeroed once */
	uint8_t serial_short[SID_SERIAL];
	uint8_t unit_serial[SID_SERIAL];
	char wwn[17], wwn_ext[17], tpg[8];
	IdentSerialSource source;
	bool pg83_walked;   /* the SPC-3 walk of page 0x83 ran at least once */
	long serial_offset; /* the designator ID_SERIAL came from, -1 none */
} Sid;

static size_t cstrnlen(const uint8_t *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n] != 0)
		n++;
	return n;
}

/*
 * Vendor + model after the prefix byte (scsi_id's append_vendor_model(), as Debian's 252.39
 * has it): both must be full length, i.e. contain no NUL, or nothing is written and the
 * attempt fails. The prefix byte the caller already stored stays: with nothing succeeding
 * later, scsi_id prints it alone ("ID_SERIAL=S", checked against the real binary).
 */
static int sid_prepend_vendor_model(const Sid *s, uint8_t *dst, size_t room)
{
	assert(room >= VENDOR_LEN + MODEL_LEN);
	if (strlen(s->vendor) != VENDOR_LEN || strlen(s->model) != MODEL_LEN)
		return -1;
	memcpy(dst, s->vendor, VENDOR_LEN);
	memcpy(dst + VENDOR_LEN, s->model, MODEL_LEN);
	return VENDOR_LEN + MODEL_LEN;
}

/* do_scsi_page80_inquiry(): 0 on success, 1 on failure. @serial may be NULL (only the short
 * form is wanted: ID_SCSI_SERIAL). */
static int sid_page80(Sid *s, uint8_t *serial, uint8_t *serial_short)
{
	const SidPage *p = &s->pg80;
	size_t len;

	if (at(p, 1) != 0x80)
		return 1;
	/* Only the low byte of the page length counts (SPC: it is two bytes). */
	len = at(p, 3);
	if (SID_SERIAL < 1 + VENDOR_LEN + MODEL_LEN + len)
		return 1;
	if (serial) {
		size_t k;

		serial[0] = 'S';
		if (sid_prepend_vendor_model(s, serial + 1, SID_SERIAL - 1) < 0)
			return 1;
		k = 1 + VENDOR_LEN + MODEL_LEN;
		for (size_t i = 0; i < len; i++)
			serial[k++] = at(p, 4 + i);
	}
	if (serial_short) {
		for (size_t i = 0; i < len; i++)
			serial_short[i] = at(p, 4 + i);
		serial_short[len] = 0;
	}
	return 0;
}

/* The tests of check_fill_0x83_id() before it fills anything: 0 when the descriptor at @off
 * is one @e accepts, 1 when not. */
static int sid_match(const SidPage *p, size_t off, const SidSearch *e)
{
	uint8_t b0 = at(p, off), b1 = at(p, off + 1), dlen = at(p, off + 3);
	uint8_t code_set = b0 & 0x0f, assoc = b1 & 0x30, type = b1 & 0x0f;
	size_t need;

	if (assoc == 0x10) {
		if (e->type != SID_TYPE_TPG)
			return 1;
	} else if (assoc != 0)
		return 1;
	if (type != e->type)
		return 1;
	if (e->naa != SID_NAA_ANY && e->naa != at(p, off + 4) >> 4)
		return 1;
	if (code_set != e->code_set)
		return 1;

	/* Room for the prefix byte and the NUL; binary doubles into hex digits. */
	need = (code_set == SID_CS_ASCII ? dlen : 2u * dlen) + 2;
	if (e->type == SID_TYPE_VENDOR_SPECIFIC)
		need += VENDOR_LEN + MODEL_LEN;
	if (SID_SERIAL < need)
		return 1;
	return 0;
}

/* check_fill_0x83_id() for descriptor at @off: 0 = filled ID_SERIAL, 1 = not this one. */
static int sid_check_fill(Sid *s, size_t off, const SidSearch *e)
{
	const SidPage *p = &s->pg83;
	uint8_t code_set = at(p, off) & 0x0f, dlen = at(p, off + 3);
	size_t j, start;

	if (sid_match(p, off, e) != 0)
		return 1;

	if (e->type == SID_TYPE_TPG) {
		/* SPC-6 7.7.6.8: TARGET PORT GROUP in bytes 2..3 of the designator. Recorded,
		 * and the search goes on: a port group never names the device. */
		snprintf(s->tpg, sizeof(s->tpg), "%x",
		         (unsigned)(at(p, off + 6) << 8 | at(p, off + 7)));
		return 1;
	}

	s->serial[0] = (uint8_t)hexdigits[e->type];
	if (e->type == SID_TYPE_VENDOR_SPECIFIC &&
	    sid_prepend_vendor_model(s, s->serial + 1, SID_SERIAL - 1) < 0)
		return 1;

	start = j = cstrnlen(s->serial, SID_SERIAL);
	for (size_t i = 0; i < dlen; i++) {
		uint8_t c = at(p, off + 4 + i);

		if (code_set == SID_CS_ASCII)
			s->serial[j++] = c;
		else {
			s->serial[j++] = (uint8_t)hexdigits[c >> 4];
			s->serial[j++] = (uint8_t)hexdigits[c & 0xf];
		}
	}
	{
		size_t n = cstrnlen(s->serial + start, SID_SERIAL - start);

		memcpy(s->serial_short, s->serial + start, n);
		s->serial_short[n] = 0;
	}
	if (e->type == SID_TYPE_NAA) {
		/* strncpy(wwn, serial + s, 16), then the 16 after as the vendor extension
		 * (NAA 6: SPC-6 7.7.6.6.5, 16-byte designator = 32 hex digits). */
		size_t n = cstrnlen(s->serial + start, 16);

		memset(s->wwn, 0, sizeof(s->wwn));
		memcpy(s->wwn, s->serial + start, n);
		if (start + 16 < SID_SERIAL) {
			n = cstrnlen(s->serial + start + 16,
			             MIN((size_t)16, SID_SERIAL - start - 16));
			memset(s->wwn_ext, 0, sizeof(s->wwn_ext));
			memcpy(s->wwn_ext, s->serial + start + 16, n);
		}
	}
	return 0;
}

/* The SCSI-2 page 0x83 of EMC Symmetrix models 4..6: a bare binary identifier after the
 * header, recognised by a non-zero byte 6 (it would be reserved in an SPC-2 descriptor). */
static void sid_fill_pre_spc3(Sid *s)
{
	const SidPage *p = &s->pg83;
	size_t j;

	s->serial[0] = (uint8_t)hexdigits[SID_TYPE_NAA];
	j = cstrnlen(s->serial, SID_SERIAL);
	for (size_t i = 0; i < at(p, 3) && j < SID_SERIAL - 3; i++) {
		s->serial[j++] = (uint8_t)hexdigits[at(p, 4 + i) >> 4];
		s->serial[j++] = (uint8_t)hexdigits[at(p, 4 + i) & 0xf];
	}
	s->serial[SID_SERIAL - 1] = 0;
	/* strncpy(serial_short, serial, 255): the short form keeps the '3' prefix. */
	memcpy(s->serial_short, s->serial, SID_SERIAL - 1);
	s->serial_short[SID_SERIAL - 1] = 0;
	s->source = IDENT_SERIAL_PG83_PRE_SPC2;
}

/* do_scsi_page83_inquiry(): 0 on success, 1 on failure. */
static int sid_page83(Sid *s)
{
	const SidPage *p = &s->pg83;
	size_t end;

	/* It also picks up the page 0x80 serial, whatever page 0x00 says. */
	(void)sid_page80(s, NULL, s->unit_serial);

	if (at(p, 1) != 0x83)
		return 1;
	if (at(p, 6) != 0) {
		sid_fill_pre_spc3(s);
		return 0;
	}
	end = ((size_t)at(p, 2) << 8) + at(p, 3) + 3;
	s->pg83_walked = true;
	for (size_t e = 0; e < ELEMENTSOF(sid_search); e++)
		/* The stride comes from the device, unchecked, as in scsi_id; at() bounds it. */
		for (size_t j = 4; j <= end; j += at(p, j + 3) + 4u)
			if (sid_check_fill(s, j, &sid_search[e]) == 0) {
				s->source = IDENT_SERIAL_PG83;
				s->serial_offset = (long)j;
				return 0;
			}
	return 1;
}

/* do_scsi_page83_prespc3_inquiry(): 0 ok, 1 failed, 2 not the SCSI-2 format. */
static int sid_page83_pre_spc3(Sid *s)
{
	const SidPage *p = &s->pg83;
	size_t j;

	if (at(p, 1) != 0x83)
		return 1;
	if (at(p, 6) == 0)
		return 2;
	s->serial[0] = (uint8_t)hexdigits[SID_TYPE_NAA];
	j = cstrnlen(s->serial, SID_SERIAL);
	/* No bound here in scsi_id beyond the one-byte length: at most 1 + 2 * 255 bytes would
	 * overflow its 256-byte serial; lund stops at the buffer (documented divergence). */
	for (size_t i = 0; i < at(p, 3) && j + 2 < SID_SERIAL; i++) {
		s->serial[j++] = (uint8_t)hexdigits[at(p, 4 + i) >> 4];
		s->serial[j++] = (uint8_t)hexdigits[at(p, 4 + i) & 0xf];
	}
	s->source = IDENT_SERIAL_PG83_PRE_SPC2;
	return 0;
}

/* do_scsi_page0_inquiry(): 0 when page 0x00 may be trusted. */
static int sid_page0(const Sid *s)
{
	const SidPage *p = &s->pg00;

	if (at(p, 1) != 0)
		return 1;
	if (at(p, 3) > SID_BUF)
		return 1;
	/* Devices that answer any INQUIRY with the standard data: the vendor shows up where
	 * page 0x00 has its page list (strncmp semantics: a NUL ends both). */
	if (at(p, 3) > MODEL_LEN &&
	    strncmp((const char *)p->b + VENDOR_LEN, s->vendor, VENDOR_LEN) == 0)
		return 1;
	return 0;
}

static bool sid_page0_lists(const Sid *s, uint8_t page, size_t *cursor)
{
	const SidPage *p = &s->pg00;

	for (size_t i = *cursor; i <= (size_t)at(p, 3) + 3; i++)
		if (at(p, i) == page) {
			*cursor = i + 1;
			return true;
		}
	return false;
}

static void sid_get_serial(Sid *s, IdentPage page)
{
	switch (page) {
	case IDENT_PAGE_80:
		if (sid_page80(s, s->serial, s->serial_short) == 0)
			s->source = IDENT_SERIAL_PG80;
		return;
	case IDENT_PAGE_83:
		(void)sid_page83(s);
		return;
	case IDENT_PAGE_83_PRE_SPC3:
		if (sid_page83_pre_spc3(s) == 2)
			(void)sid_page83(s);
		return;
	default:
		break;
	}

	if (sid_page0(s) != 0)
		return;
	/* Page 0x83 once per time page 0x00 lists it, then page 0x80 likewise. */
	for (size_t c = 4; sid_page0_lists(s, 0x83, &c);)
		if (sid_page83(s) == 0)
			return;
	for (size_t c = 4; sid_page0_lists(s, 0x80, &c);)
		if (sid_page80(s, s->serial, s->serial_short) == 0) {
			s->source = IDENT_SERIAL_PG80;
			return;
		}
}

/* scsi_id: udev_replace_whitespace(in, out, size - 1) then udev_replace_chars(out, NULL). */
static void sid_clean(const char *in, size_t max, char *out, size_t size)
{
	int r = udev_replace_whitespace(in, max, out, size);

	assert(r >= 0);
	(void)udev_replace_chars(out, NULL);
}

static void sid_std_inquiry(Sid *s, const uint8_t *buf, size_t len)
{
	SidPage p;

	sid_page_load(&p, buf, len);
	memcpy(s->vendor, p.b + 8, VENDOR_LEN);
	s->vendor[VENDOR_LEN] = 0;
	memcpy(s->model, p.b + 16, MODEL_LEN);
	s->model[MODEL_LEN] = 0;
	memcpy(s->revision, p.b + 32, 4);
	s->revision[4] = 0;
	s->type = p.b[0] & 0x1f;
}

static void pg00_synthesize(SidPage *p, const ScsiIdentInput *in)
{
	size_t n = 4;

	memset(p->b, 0, sizeof(p->b));
	p->b[n++] = 0x00;
	if (in->pg80)
		p->b[n++] = 0x80;
	if (in->pg83)
		p->b[n++] = 0x83;
	if (in->pg89)
		p->b[n++] = 0x89;
	p->b[3] = (uint8_t)(n - 4);
}

/*
 * ata_id (systemd v252) on the IDENTIFY (PACKET) DEVICE data that SAT-5 10.4.2 embeds in VPD
 * page 0x89 at byte 60 (vpd89_parse() finds it). ATA8-ACS 7.16: model words 27..46, serial
 * 10..19, firmware 23..26; world wide name words 108..111 (NAA 5).
 */
/* The part of ata_id that turns IDENTIFY (PACKET) DEVICE data into properties; @d holds the
 * 512 bytes, whichever way they were obtained. */
static void ident_ata_from_identify(ScsiIdent *id, const uint8_t *d, bool packet)
{
	char model_raw[41], serial_raw[21], fw_raw[9], model[41], serial[21];
	uint16_t w108;

	ata_identify_string(d, 27, 20, model_raw);
	ata_identify_string(d, 10, 10, serial_raw);
	ata_identify_string(d, 23, 4, fw_raw);

	(void)udev_encode_string((const uint8_t *)model_raw, 40, id->ata.model_enc,
	                         sizeof(id->ata.model_enc));
	sid_clean(model_raw, 40, model, sizeof(model));
	sid_clean(serial_raw, 20, serial, sizeof(serial));
	sid_clean(fw_raw, 8, id->ata.revision, sizeof(id->ata.revision));
	memcpy(id->ata.model, model, sizeof(model));
	memcpy(id->ata.serial_short, serial, sizeof(serial));
	/* ata_id: "model_serial", or the model alone when the serial is empty. */
	if (serial[0] != 0)
		snprintf(id->ata.serial, sizeof(id->ata.serial), "%s_%s", model, serial);
	else
		snprintf(id->ata.serial, sizeof(id->ata.serial), "%s", model);

	/* ATA8-ACS 7.16.7.1 word 0: bit 15 set = ATAPI, bits 12..8 its command packet set. */
	if (ata_identify_word(d, 0) & 0x8000)
		switch ((ata_identify_word(d, 0) >> 8) & 0x1f) {
		case 0:
		case 5:
			id->ata.type = "cd";
			break;
		case 1:
			id->ata.type = "tape";
			break;
		case 7:
			id->ata.type = "optical";
			break;
		default:
			id->ata.type = "generic";
			break;
		}
	else
		id->ata.type = "disk";

	w108 = ata_identify_word(d, 108);
	if ((w108 & 0xf000) == 0x5000) {
		uint64_t wwn = (uint64_t)w108 << 48 | (uint64_t)ata_identify_word(d, 109) << 32 |
		               (uint64_t)ata_identify_word(d, 110) << 16 |
		               ata_identify_word(d, 111);
		snprintf(id->ata.wwn, sizeof(id->ata.wwn), "%" PRIx64, wwn);
	}
	id->ata.packet = packet;
	id->ata.valid = true;
}

static void ident_ata(ScsiIdent *id, const ScsiIdentInput *in)
{
	VpdAtaInfo a;

	/* SAT-5 Table 217: COMMAND CODE 0xec (IDENTIFY DEVICE) or 0xa1 (IDENTIFY PACKET DEVICE). */
	if (in->pg89 && vpd89_parse(in->pg89, in->pg89_len, &a) >= 0 && a.have_identify &&
	    (a.command_code == 0xec || a.command_code == 0xa1)) {
		ident_ata_from_identify(id, a.identify, a.command_code == 0xa1);
		return;
	}
	/* libata's copy: ATA8-ACS 7.16.7.1 word 0 bit 15 set means the data came from IDENTIFY
	 * PACKET DEVICE (an ATAPI device answers only that one). */
	if (in->ata_identify && in->ata_identify_len >= ATA_IDENTIFY_LEN)
		ident_ata_from_identify(id, in->ata_identify,
		                        ata_identify_word(in->ata_identify, 0) & 0x8000);
}

int ident_ata_identify_parse(const char *text, size_t len, uint8_t ret[static ATA_IDENTIFY_LEN])
{
	uint8_t out[ATA_IDENTIFY_LEN];
	size_t pos = 0;

	/* @ret is an array parameter with static: never NULL (gcc 14 says so when asked). */
	assert_return(text, -EINVAL);

	for (unsigned w = 0; w < ATA_IDENTIFY_LEN / 2; w++) {
		unsigned v = 0;

		if (len - pos < 4)
			return -EBADMSG;
		for (unsigned k = 0; k < 4; k++) {
			int x = unhexchar(text[pos + k]);

			if (x < 0)
				return -EBADMSG;
			v = v << 4 | (unsigned)x;
		}
		pos += 4;
		/* One separator after every word; the last may end the text. */
		if (pos < len) {
			if (text[pos] != ' ' && text[pos] != '\n')
				return -EBADMSG;
			pos++;
		} else if (w + 1 < ATA_IDENTIFY_LEN / 2)
			return -EBADMSG;
		/* ATA8-ACS 3.3.5: words go over the wire least significant byte first. */
		out[w * 2] = (uint8_t)(v & 0xff);
		out[w * 2 + 1] = (uint8_t)(v >> 8);
	}
	if (pos != len)
		return -EBADMSG;
	memcpy(ret, out, sizeof(out));
	return 0;
}

/* utf8_is_valid() && !string_has_cc(): every character valid UTF-8, no byte < 0x20 or 0x7f. */
static bool scsi_serial_printable(const uint8_t *s, size_t size)
{
	size_t n = cstrnlen(s, size);

	for (size_t i = 0; i < n;) {
		int l = utf8_valid_char(s + i, n - i);

		if (l < 0 || s[i] < 0x20 || s[i] == 0x7f)
			return false;
		i += (size_t)l;
	}
	return true;
}

int ident_compute(const ScsiIdentInput *in, ScsiIdent *ret)
{
	ScsiIdent id = {};
	Sid s = { .serial_offset = -1 };
	int r;

	assert_return(in, -EINVAL);
	assert_return(ret, -EINVAL);
	assert_return(in->page >= 0 && in->page < _IDENT_PAGE_MAX, -EINVAL);
	if (!in->inquiry || in->inquiry_len == 0)
		return -ENODATA;

	sid_std_inquiry(&s, in->inquiry, in->inquiry_len);
	if (in->pg00 || !in->pg00_infer)
		sid_page_load(&s.pg00, in->pg00, in->pg00_len);
	else
		pg00_synthesize(&s.pg00, in);
	sid_page_load(&s.pg80, in->pg80, in->pg80_len);
	sid_page_load(&s.pg83, in->pg83, in->pg83_len);
	sid_get_serial(&s, in->page);

	r = udev_encode_string((const uint8_t *)s.vendor, VENDOR_LEN, id.vendor_enc,
	                       sizeof(id.vendor_enc));
	assert(r >= 0);
	r = udev_encode_string((const uint8_t *)s.model, MODEL_LEN, id.model_enc,
	                       sizeof(id.model_enc));
	assert(r >= 0);
	(void)r;
	sid_clean(s.vendor, VENDOR_LEN, id.vendor, sizeof(id.vendor));
	sid_clean(s.model, MODEL_LEN, id.model, sizeof(id.model));
	sid_clean(s.revision, 4, id.revision, sizeof(id.revision));
	id.peripheral_type = s.type;
	id.type = inquiry_type_udev(s.type);

	if (s.serial[0] != 0) {
		/* scsi_id: replace_whitespace(serial, 255) + replace_chars, both forms. */
		id.have_serial = true;
		sid_clean((const char *)s.serial, SID_SERIAL - 1, id.serial, sizeof(id.serial));
		sid_clean((const char *)s.serial_short, SID_SERIAL - 1, id.serial_short,
		          sizeof(id.serial_short));
		id.serial_type = (char)s.serial[0];
		id.serial_source = s.source != IDENT_SERIAL_NONE ? s.source : IDENT_SERIAL_LEFTOVER;
	}
	memcpy(id.wwn, s.wwn, sizeof(id.wwn));
	memcpy(id.wwn_vendor_extension, s.wwn_ext, sizeof(id.wwn_vendor_extension));
	memcpy(id.target_port, s.tpg, sizeof(id.target_port));
	id.pg83_walked = s.pg83_walked;
	id.serial_offset = id.serial_source == IDENT_SERIAL_PG83 ? s.serial_offset : -1;
	/* Debian's 252.39 scsi_id prints ID_SCSI_SERIAL only when the page 0x80 serial (a C
	 * string: a NUL ends it) is valid UTF-8 without control characters; observed with the
	 * real binary (tests/peer/scsi-id.sh), a hardening absent from upstream v252. */
	if (scsi_serial_printable(s.unit_serial, sizeof(s.unit_serial)))
		memcpy(id.scsi_serial, s.unit_serial, sizeof(id.scsi_serial));

	ident_ata(&id, in);

	id.in = *in;
	*ret = id;
	return 0;
}

static const char *const serial_source_names[_IDENT_SERIAL_SOURCE_MAX] = {
	[IDENT_SERIAL_NONE] = "none",
	[IDENT_SERIAL_PG83] = "pg83",
	[IDENT_SERIAL_PG83_PRE_SPC2] = "pg83-pre-spc2",
	[IDENT_SERIAL_PG80] = "pg80",
	[IDENT_SERIAL_LEFTOVER] = "leftover",
};

DEFINE_NAME_LOOKUP(ident_serial_source_name, IdentSerialSource, serial_source_names)

size_t ident_designators(const ScsiIdent *id, IdentDesignator *ret, size_t max)
{
	const uint8_t *b = id ? id->in.pg83 : NULL;
	size_t len, n = 0;
	SidPage p;

	if (!b || id->in.pg83_len < 4 || b[1] != 0x83 || !ret)
		return 0;
	sid_page_load(&p, b, id->in.pg83_len);
	len = MIN(id->in.pg83_len, 4 + ((size_t)b[2] << 8 | b[3]));
	/* SPC-6 7.7.6.1: descriptors follow one another up to the page length. */
	for (size_t off = 4; off + 4 <= len && n < max; off += 4u + b[off + 3], n++) {
		IdentDesignator *d = &ret[n];

		*d = (IdentDesignator){
			.offset = off,
			.code_set = b[off] & 0x0f,
			.assoc = (b[off + 1] >> 4) & 0x3,
			.type = b[off + 1] & 0x0f,
			.len = b[off + 3],
			.naa = off + 4 < len ? b[off + 4] >> 4 : 0,
			.row = -1,
		};
		for (size_t e = 0; e < ELEMENTSOF(sid_search); e++)
			if (sid_match(&p, off, &sid_search[e]) == 0) {
				d->row = (int)e;
				break;
			}

		if (id->serial_source == IDENT_SERIAL_PG83_PRE_SPC2 || !id->pg83_walked)
			d->verdict = IDENT_DESIG_NOT_TRIED;
		else if (off + 4 > sizeof(p.b)) /* its header is past what scsi_id reads */
			d->verdict = IDENT_DESIG_UNSEEN;
		else if ((long)off == id->serial_offset)
			d->verdict = IDENT_DESIG_USED;
		else if (d->row == 0)
			d->verdict = IDENT_DESIG_TPG;
		else if (d->row > 0)
			d->verdict = IDENT_DESIG_OUTRANKED;
		else if (d->assoc != 0)
			d->verdict = IDENT_DESIG_ASSOC;
		else if (d->type > SID_TYPE_NAA)
			d->verdict = IDENT_DESIG_TYPE;
		else if (d->code_set != SID_CS_BINARY && d->code_set != SID_CS_ASCII)
			d->verdict = IDENT_DESIG_CODE_SET;
		else
			d->verdict = IDENT_DESIG_TOO_LONG;
	}
	return n;
}

static const char *const desig_verdict_names[_IDENT_DESIG_MAX] = {
	[IDENT_DESIG_USED] = "used",
	[IDENT_DESIG_OUTRANKED] = "outranked",
	[IDENT_DESIG_TPG] = "target-port-group",
	[IDENT_DESIG_ASSOC] = "not-the-lu",
	[IDENT_DESIG_TYPE] = "type-not-used",
	[IDENT_DESIG_CODE_SET] = "code-set-not-used",
	[IDENT_DESIG_TOO_LONG] = "too-long",
	[IDENT_DESIG_UNSEEN] = "unseen",
	[IDENT_DESIG_NOT_TRIED] = "not-tried",
};

DEFINE_NAME_LOOKUP(ident_designator_verdict_name, IdentDesigVerdict, desig_verdict_names)
