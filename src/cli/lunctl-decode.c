/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "export.h"
#include "hexfile.h"
#include "ident.h"
#include "inquiry.h"
#include "log.h"
#include "luns.h"
#include "lunctl.h"
#include "macro.h"
#include "output.h"
#include "sense.h"
#include "sgio.h"
#include "sysfs.h"
#include "unaligned.h"
#include "vpd.h"

/* A captured file is at most one VPD page or a REPORT LUNS list of 16384 LUNs, as hex text. */
#define DECODE_FILE_MAX  (8u * 1024u * 1024u)
#define DECODE_DATA_MAX  (8u + 16384u * 8u)
#define DECODE_FILES_MAX 8

typedef enum DecodeKind {
	DECODE_INQUIRY,
	DECODE_PG00,
	DECODE_PG80,
	DECODE_PG83,
	DECODE_PG89,
	DECODE_PGB0,
	DECODE_LUNS,
	DECODE_SENSE,
	_DECODE_KIND_MAX,
	_DECODE_KIND_INVALID = -EINVAL,
} DecodeKind;

/* As lunctl(8) names them for --page. */
static const char *const kinds[_DECODE_KIND_MAX] = {
	[DECODE_INQUIRY] = "inquiry", [DECODE_PG00] = "0x00",   [DECODE_PG80] = "0x80",
	[DECODE_PG83] = "0x83",       [DECODE_PG89] = "0x89",   [DECODE_PGB0] = "0xb0",
	[DECODE_LUNS] = "luns",       [DECODE_SENSE] = "sense",
};

static DecodeKind kind_from_string(const char *s)
{
	for (DecodeKind k = 0; k < _DECODE_KIND_MAX; k++)
		if (strcasecmp(s, kinds[k]) == 0)
			return k;
	return _DECODE_KIND_INVALID;
}

/* Device text that is plain printable ASCII: what SPC demands of INQUIRY's identification
 * fields and a unit serial number. Trailing NULs (padding some devices send) are allowed. */
static bool printable_ascii(const uint8_t *b, size_t len)
{
	while (len > 0 && b[len - 1] == 0)
		len--;
	for (size_t i = 0; i < len; i++)
		if (b[i] < 0x20 || b[i] > 0x7e)
			return false;
	return true;
}

/* A VPD page whose header names @page and whose PAGE LENGTH is exactly what arrived. */
static bool vpd_exact(const uint8_t *b, size_t len, uint8_t page)
{
	return len >= VPD_HEADER_LEN && b[1] == page && (b[0] >> 5) != 2 &&
	       VPD_HEADER_LEN + (size_t)unaligned_read_be16(b + 2) == len;
}

/*
 * Does @b hold a response of kind @k, by every rule that kind's standard gives to check it?
 * The tests are strict on purpose: without --page, a response is decoded only when it is
 * certainly that kind.
 */

/* LUN @i of the REPORT LUNS list @l: its hex form, Linux number and description; -EBADMSG when
 * it cannot be told (@hex holds what could be), what luns_report_get() returns. */
static int lun_row(const LunList *l, size_t i, char hex[static LUN_HEX_STRLEN],
                   char desc[static LUN_DESCRIBE_MAX], uint64_t *ret_linux)
{
	ScsiLun lun;
	int r;

	hex[0] = desc[0] = 0;
	*ret_linux = 0;
	r = luns_report_get(l, i, &lun);
	if (r < 0)
		return r;
	*ret_linux = lun_to_linux(&lun);
	if (lun_format_hex(&lun, hex, LUN_HEX_STRLEN) < 0 ||
	    lun_describe(&lun, desc, LUN_DESCRIBE_MAX) < 0)
		return -EBADMSG;
	return 0;
}

static bool kind_validates(DecodeKind k, const uint8_t *b, size_t len)
{
	switch (k) {
	case DECODE_INQUIRY:
		/* SPC-6 6.7.2: at least the 36 standard bytes, an ADDITIONAL LENGTH that matches
		 * what arrived (or more, for a capture cut at its allocation length), a known
		 * response data format, no reserved qualifier, byte 1's reserved bits zero, and
		 * vendor, product and revision in printable ASCII (no NUL: they are
		 * space-padded). */
		if (len < INQUIRY_STD_LEN || 5 + (size_t)b[4] < len || (b[3] & 0x0f) > 2 ||
		    (b[0] >> 5) == 2 || (b[1] & 0x3f))
			return false;
		for (size_t i = 8; i < INQUIRY_STD_LEN; i++)
			if (b[i] < 0x20 || b[i] > 0x7e)
				return false;
		return true;
	case DECODE_PG00: {
		/* SPC-6 7.7.18: the list is in ascending order and starts with page 0x00 itself. */
		if (!vpd_exact(b, len, 0x00) || len == VPD_HEADER_LEN || b[VPD_HEADER_LEN] != 0x00)
			return false;
		for (size_t i = VPD_HEADER_LEN + 1; i < len; i++)
			if (b[i] <= b[i - 1])
				return false;
		return true;
	}
	case DECODE_PG80:
		return vpd_exact(b, len, 0x80) &&
		       printable_ascii(b + VPD_HEADER_LEN, len - VPD_HEADER_LEN);
	case DECODE_PG83: {
		VpdDesignator d;
		size_t off = 0;
		int r;

		/* Every designator fits, and together they fill the page (none is allowed). */
		if (!vpd_exact(b, len, 0x83) || vpd83_is_pre_spc2(b, len))
			return false;
		while ((r = vpd83_next(b, len, &off, &d)) > 0)
			;
		return r == 0;
	}
	case DECODE_PG89: {
		VpdAtaInfo a;

		/* SAT-5 10.4.2: PAGE LENGTH 0238h. */
		return vpd_exact(b, len, 0x89) && len == VPD_HEADER_LEN + 0x238 &&
		       vpd89_parse(b, len, &a) >= 0;
	}
	case DECODE_PGB0: {
		VpdBlockLimits l;

		/* SBC-4 6.6.4: PAGE LENGTH 003Ch (0010h before SBC-3), or more: a later standard
		 * may add fields at the end, which the decoder passes over (SPC-6 7.7.1). */
		return vpd_exact(b, len, 0xb0) &&
		       (len >= VPD_HEADER_LEN + 0x3c || len == VPD_HEADER_LEN + 0x10) &&
		       vpdb0_parse(b, len, &l) >= 0;
	}
	case DECODE_LUNS:
		/* SPC-6 6.33: a LUN LIST LENGTH that is a multiple of 8 and matches, reserved
		 * bytes zero. */
		return len >= LUNS_HEADER_LEN && (len - LUNS_HEADER_LEN) % LUN_SIZE == 0 &&
		       LUNS_HEADER_LEN + (size_t)unaligned_read_be32(b) == len &&
		       unaligned_read_be32(b + 4) == 0;
	case DECODE_SENSE: {
		ScsiSense sn;

		/* SPC-6 4.4: response code 70h..73h, an ADDITIONAL SENSE LENGTH that matches what
		 * arrived; descriptor format: reserved bits zero, descriptors that fill it. */
		if (len < 8 || (b[0] & 0x7f) < 0x70 || (b[0] & 0x7f) > 0x73 ||
		    8 + (size_t)b[7] != len)
			return false;
		if ((b[0] & 0x7f) >= 0x72) {
			SenseDescriptor d;
			size_t off = 0;
			int r;

			/* SPC-6 4.4.2: byte 4's bit 7 is SDAT_OVFL (the sense data did not fit) */
			if ((b[1] & 0xf0) || (b[4] & 0x7f) || b[5] || b[6])
				return false;
			while ((r = sense_next_descriptor(b, len, &off, &d)) > 0)
				;
			if (r < 0)
				return false;
		} else if (len < 18) /* fixed format: through the ASC/ASCQ and the SKS */
			return false;
		return sense_parse(b, len, &sn) >= 0 && !sn.truncated;
	}
	default:
		return false;
	}
}

/*
 * Recognise a response from its own content: the one kind it validates as. None, or more than
 * one, and the admin names the kind with --page. Returns the kind, or _DECODE_KIND_INVALID
 * with the candidates (a bit per kind) in @ret_candidates.
 */
static DecodeKind kind_detect(const uint8_t *b, size_t len, unsigned *ret_candidates)
{
	DecodeKind found = _DECODE_KIND_INVALID;
	unsigned candidates = 0, n = 0;

	for (DecodeKind k = 0; k < _DECODE_KIND_MAX; k++)
		if (kind_validates(k, b, len)) {
			candidates |= 1u << k;
			found = k;
			n++;
		}
	*ret_candidates = candidates;
	return n == 1 ? found : _DECODE_KIND_INVALID;
}

typedef struct Input {
	const char *path;
	uint8_t *data;
	size_t len;
	DecodeKind kind;
} Input;

static int read_file(const char *path, uint8_t **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = -EBADF;

	fd = streq(path, "-") ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	return sysfs_read_fd(fd, DECODE_FILE_MAX, ret, ret_len);
}

static int load_input(Input *in)
{
	_cleanup_free_ uint8_t *raw = NULL, *data = NULL;
	size_t raw_len = 0, len = 0;
	int r;

	r = read_file(in->path, &raw, &raw_len);
	if (r < 0)
		return log_error_errno(r, "%s: %m", in->path);

	data = malloc(DECODE_DATA_MAX);
	if (!data)
		return log_error_errno(-ENOMEM, "Out of memory");

	r = hexfile_parse(raw, raw_len, data, DECODE_DATA_MAX, &len);
	if (r == -ENOBUFS)
		return log_error_errno(r, "%s: more than %u bytes of data", in->path,
		                       DECODE_DATA_MAX);
	if (r < 0)
		return log_error_errno(r, "%s: not sg3_utils hex or binary data: %m", in->path);

	if (in->kind < 0) {
		unsigned candidates;

		in->kind = kind_detect(data, len, &candidates);
		if (in->kind < 0) {
			char which[128] = "";

			for (DecodeKind k = 0; k < _DECODE_KIND_MAX; k++)
				if (candidates & (1u << k))
					snprintf(which + strlen(which),
					         sizeof(which) - strlen(which), "%s%s",
					         which[0] ? " or " : " (it could be ", kinds[k]);
			return log_error_errno(-EBADMSG,
			                       "%s: cannot tell what this response is%s%s; name it "
			                       "with --page",
			                       in->path, which, which[0] ? ")" : "");
		}
	}
	in->data = TAKE_PTR(data);
	in->len = len;
	return 0;
}

static void print_text(const char *label, const void *s, size_t len)
{
	_cleanup_free_ char *e = output_escape(s, len);

	printf("%s%s\n", label, e ?: "?");
}

static void print_hex(const char *label, const uint8_t *b, size_t len)
{
	printf("%s", label);
	for (size_t i = 0; i < len; i++)
		printf("%02x", b[i]);
	printf("\n");
}

/* One response parsed by its kind's core parser, for decode_human() and decode_to_json() both.
 * Page 0x83 is walked designator by designator by each of them. */
typedef union Decoded {
	ScsiInquiry q;
	VpdSupported sv;
	struct {
		const uint8_t *serial;
		size_t n;
	} sn;
	VpdAtaInfo ai;
	VpdBlockLimits bl;
	LunList luns;
	ScsiSense sense;
} Decoded;

static int decode_parse(const Input *in, Decoded *ret)
{
	const uint8_t *b = in->data;
	size_t len = in->len;

	switch (in->kind) {
	case DECODE_INQUIRY:
		return inquiry_parse(b, len, &ret->q);
	case DECODE_PG00:
		return vpd00_parse(b, len, &ret->sv);
	case DECODE_PG80:
		return vpd80_parse(b, len, &ret->sn.serial, &ret->sn.n);
	case DECODE_PG83:
		return 0;
	case DECODE_PG89:
		return vpd89_parse(b, len, &ret->ai);
	case DECODE_PGB0:
		return vpdb0_parse(b, len, &ret->bl);
	case DECODE_LUNS:
		return luns_parse_report(b, len, &ret->luns);
	case DECODE_SENSE:
		return sense_parse(b, len, &ret->sense);
	default:
		return -EINVAL;
	}
}

static void decode_sense_human(const ScsiSense *sn)
{
	char asc_buf[SGIO_ASC_TEXT_MAX];
	const char *text, *ua;
	uint16_t v;

	printf("Sense data, %s format%s, response code 0x%02x\n",
	       sn->descriptor ? "descriptor" : "fixed", sn->deferred ? " (deferred)" : "",
	       sn->response_code);
	printf("  Sense key: 0x%x (%s)\n", sn->key, sense_key_name(sn->key) ?: "reserved");
	if (sn->have_asc) {
		text = sgio_asc_text(sn->asc, sn->ascq, asc_buf, sizeof(asc_buf));
		printf("  ASC/ASCQ:  0x%02x/0x%02x (%s)\n", sn->asc, sn->ascq, text ?: "unknown");
		ua = sense_ua_event(sn->asc, sn->ascq);
		if (ua)
			printf("  Kernel uevent: SDEV_UA=%s\n", ua);
	}
	if (sn->info_valid)
		printf("  Information: 0x%" PRIx64 "\n", sn->information);
	if (sn->cmd_info_valid)
		printf("  Command-specific information: 0x%" PRIx64 "\n", sn->cmd_info);
	if (sense_progress(sn, &v) >= 0)
		printf("  Progress: %u.%02u%%\n", v * 100u / 65536u, (v * 10000u / 65536u) % 100u);
	if (sn->filemark || sn->eom || sn->ili)
		printf("  Filemark: %u, EOM: %u, ILI: %u\n", sn->filemark, sn->eom, sn->ili);
	if (sn->truncated)
		printf("  (the device declared more sense data than it sent)\n");
}

static int decode_human(const Input *in)
{
	const uint8_t *b = in->data;
	size_t len = in->len;
	Decoded dc;
	int r;

	r = decode_parse(in, &dc);
	if (r < 0)
		return r;
	switch (in->kind) {
	case DECODE_INQUIRY:
		printf("Standard INQUIRY data (%zu bytes)\n", len);
		printf("  Peripheral qualifier: %u, device type: 0x%02x (%s)\n", dc.q.qualifier,
		       dc.q.type, inquiry_type_name(dc.q.type) ?: "reserved");
		printf("  RMB: %u, version: 0x%02x, response format: %u, TPGS: %u\n", dc.q.rmb,
		       dc.q.version, dc.q.response_format, dc.q.tpgs);
		printf("  HiSup: %u, NormACA: %u, 3PC: %u, Protect: %u, EncServ: %u, MultiP: %u, "
		       "CmdQue: %u\n",
		       dc.q.hisup, dc.q.normaca, dc.q.threepc, dc.q.protect, dc.q.encserv,
		       dc.q.multip, dc.q.cmdque);
		print_text("  Vendor:   ", dc.q.vendor, dc.q.vendor_len);
		print_text("  Product:  ", dc.q.product, dc.q.product_len);
		print_text("  Revision: ", dc.q.revision, dc.q.revision_len);
		return 0;
	case DECODE_PG00:
		printf("Supported VPD pages (0x00), %zu:\n", dc.sv.count);
		for (unsigned p = 0; p < 256; p++)
			if (vpd_supported_has(&dc.sv, (uint8_t)p))
				printf("  0x%02x\n", p);
		return 0;
	case DECODE_PG80:
		printf("Unit serial number (0x80), %zu bytes\n", dc.sn.n);
		print_text("  Serial: ", dc.sn.serial, dc.sn.n);
		return 0;
	case DECODE_PG83: {
		VpdDesignator d;
		size_t off = 0, i = 0;
		VpdHeader h;

		r = vpd_parse_header(b, len, &h);
		if (r < 0)
			return r;
		if (vpd83_is_pre_spc2(b, len)) {
			printf("Device identification (0x83), SCSI-2 (pre-SPC-2) format\n");
			print_hex("  Identifier: ", b + VPD_HEADER_LEN, h.page_len);
			return 0;
		}
		printf("Device identification (0x83), %zu bytes\n", h.page_len);
		while ((r = vpd83_next(b, len, &off, &d)) > 0) {
			printf("  Designator %zu: %s, %s, code set %u%s", ++i,
			       vpd83_type_name(d.type), vpd83_association_name(d.association),
			       d.code_set, d.piv ? ", PIV" : "");
			if (d.piv)
				printf(", protocol 0x%x", d.protocol_id);
			printf(", %zu bytes\n", d.len);
			if (d.code_set == VPD_CODE_SET_ASCII || d.code_set == VPD_CODE_SET_UTF8)
				print_text("    ", d.value, d.len);
			else
				print_hex("    0x", d.value, d.len);
		}
		return r;
	}
	case DECODE_PG89:
		printf("ATA information (0x89)\n");
		print_text("  SAT vendor:   ", dc.ai.sat_vendor, sizeof(dc.ai.sat_vendor));
		print_text("  SAT product:  ", dc.ai.sat_product, sizeof(dc.ai.sat_product));
		print_text("  SAT revision: ", dc.ai.sat_revision, sizeof(dc.ai.sat_revision));
		printf("  Command code: 0x%02x\n", dc.ai.command_code);
		if (dc.ai.have_identify) {
			print_text("  ATA model:    ", dc.ai.model, strlen(dc.ai.model));
			print_text("  ATA serial:   ", dc.ai.serial, strlen(dc.ai.serial));
			print_text("  ATA firmware: ", dc.ai.firmware, strlen(dc.ai.firmware));
		}
		return 0;
	case DECODE_PGB0:
		printf("Block limits (0xb0)\n");
		printf("  Maximum transfer length:   %" PRIu32 " blocks\n", dc.bl.max_xfer_len);
		printf("  Optimal transfer length:   %" PRIu32 " blocks\n", dc.bl.opt_xfer_len);
		printf("  Optimal granularity:       %u blocks\n", dc.bl.opt_xfer_granularity);
		printf("  Maximum unmap LBA count:   %" PRIu32 "\n", dc.bl.max_unmap_lba_count);
		printf("  Maximum write same length: %" PRIu64 " blocks\n",
		       dc.bl.max_write_same_len);
		return 0;
	case DECODE_LUNS:
		printf("REPORT LUNS: %zu LUNs\n", dc.luns.count);
		for (size_t i = 0; i < dc.luns.count; i++) {
			char hex[LUN_HEX_STRLEN], desc[LUN_DESCRIBE_MAX];
			uint64_t linux_lun;

			r = lun_row(&dc.luns, i, hex, desc, &linux_lun);
			if (r == -EBADMSG)
				snprintf(desc, sizeof(desc), "malformed");
			else if (r < 0)
				return r;
			printf("  %s  %-20" PRIu64 "  %s\n", hex, linux_lun, desc);
		}
		return 0;
	case DECODE_SENSE:
		decode_sense_human(&dc.sense);
		return 0;
	default:
		return -EINVAL;
	}
}

static json_object *jhex(uint64_t v)
{
	char hex[2 + 16 + 1];

	snprintf(hex, sizeof(hex), "0x%" PRIx64, v);
	return json_object_new_string(hex);
}

static json_object *jstr_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *jtext(const void *s, size_t len)
{
	_cleanup_free_ char *e = output_escape(s, len);

	return e ? json_object_new_string(e) : NULL;
}

static void sense_to_json(const ScsiSense *sn, json_object *o)
{
	char asc_buf[SGIO_ASC_TEXT_MAX];
	uint16_t v;

	json_object_object_add(o, "format",
	                       json_object_new_string(sn->descriptor ? "descriptor" : "fixed"));
	json_object_object_add(o, "response_code", json_object_new_int(sn->response_code));
	json_object_object_add(o, "deferred", json_object_new_boolean(sn->deferred));
	json_object_object_add(o, "sense_key", json_object_new_int(sn->key));
	json_object_object_add(o, "sense_key_name", jstr_or_null(sense_key_name(sn->key)));
	if (sn->have_asc) {
		json_object_object_add(o, "asc", json_object_new_int(sn->asc));
		json_object_object_add(o, "ascq", json_object_new_int(sn->ascq));
		json_object_object_add(
		        o, "asc_text",
		        jstr_or_null(sgio_asc_text(sn->asc, sn->ascq, asc_buf, sizeof(asc_buf))));
		json_object_object_add(o, "ua_event",
		                       jstr_or_null(sense_ua_event(sn->asc, sn->ascq)));
	}
	if (sn->info_valid)
		json_object_object_add(o, "information", jhex(sn->information));
	if (sn->cmd_info_valid)
		json_object_object_add(o, "command_specific_information", jhex(sn->cmd_info));
	if (sense_progress(sn, &v) >= 0)
		json_object_object_add(o, "progress", json_object_new_int(v));
	json_object_object_add(o, "filemark", json_object_new_boolean(sn->filemark));
	json_object_object_add(o, "eom", json_object_new_boolean(sn->eom));
	json_object_object_add(o, "ili", json_object_new_boolean(sn->ili));
	json_object_object_add(o, "truncated", json_object_new_boolean(sn->truncated));
}

/* Every field lunctl decode prints for one response, as JSON (lunctl(8), JSON OUTPUT). */
static int decode_to_json(const Input *in, json_object **ret)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	const uint8_t *b = in->data;
	size_t len = in->len;
	json_object *a;
	Decoded dc;
	int r;

	if (!o)
		return -ENOMEM;
	r = decode_parse(in, &dc);
	if (r < 0)
		return r;
	json_object_object_add(o, "file", json_object_new_string(in->path));
	json_object_object_add(o, "kind", json_object_new_string(kinds[in->kind]));
	json_object_object_add(o, "length", json_object_new_int64((int64_t)len));
	switch (in->kind) {
	case DECODE_INQUIRY:
		json_object_object_add(o, "qualifier", json_object_new_int(dc.q.qualifier));
		json_object_object_add(o, "type", json_object_new_int(dc.q.type));
		json_object_object_add(o, "type_name", jstr_or_null(inquiry_type_name(dc.q.type)));
		json_object_object_add(o, "version", json_object_new_int(dc.q.version));
		json_object_object_add(o, "vendor", jtext(dc.q.vendor, dc.q.vendor_len));
		json_object_object_add(o, "product", jtext(dc.q.product, dc.q.product_len));
		json_object_object_add(o, "revision", jtext(dc.q.revision, dc.q.revision_len));
		json_object_object_add(o, "tpgs", json_object_new_int(dc.q.tpgs));
		break;
	case DECODE_PG00:
		a = json_object_new_array();
		for (unsigned p = 0; p < 256; p++)
			if (vpd_supported_has(&dc.sv, (uint8_t)p))
				json_object_array_add(a, json_object_new_int((int)p));
		json_object_object_add(o, "pages", a);
		break;
	case DECODE_PG80:
		json_object_object_add(o, "serial", jtext(dc.sn.serial, dc.sn.n));
		break;
	case DECODE_PG83: {
		VpdDesignator d;
		size_t off = 0;

		a = json_object_new_array();
		json_object_object_add(o, "designators", a);
		if (vpd83_is_pre_spc2(b, len))
			break;
		while ((r = vpd83_next(b, len, &off, &d)) > 0) {
			json_object *x = json_object_new_object();
			_cleanup_free_ char *hex = malloc(2 * d.len + 1);

			if (!hex) {
				json_object_put(x);
				return -ENOMEM;
			}
			for (size_t i = 0; i < d.len; i++)
				snprintf(hex + 2 * i, 3, "%02x", d.value[i]);
			hex[2 * d.len] = 0;
			json_object_object_add(x, "type", json_object_new_int(d.type));
			json_object_object_add(x, "type_name",
			                       json_object_new_string(vpd83_type_name(d.type)));
			json_object_object_add(
			        x, "association",
			        json_object_new_string(vpd83_association_name(d.association)));
			json_object_object_add(x, "code_set", json_object_new_int(d.code_set));
			if (d.piv)
				json_object_object_add(x, "protocol",
				                       json_object_new_int(d.protocol_id));
			json_object_object_add(x, "value", json_object_new_string(hex));
			json_object_array_add(a, x);
		}
		if (r < 0)
			return r;
		break;
	}
	case DECODE_PG89:
		json_object_object_add(o, "sat_vendor",
		                       jtext(dc.ai.sat_vendor, sizeof(dc.ai.sat_vendor)));
		json_object_object_add(o, "sat_product",
		                       jtext(dc.ai.sat_product, sizeof(dc.ai.sat_product)));
		json_object_object_add(o, "sat_revision",
		                       jtext(dc.ai.sat_revision, sizeof(dc.ai.sat_revision)));
		json_object_object_add(o, "command_code", json_object_new_int(dc.ai.command_code));
		if (dc.ai.have_identify) {
			json_object_object_add(o, "ata_model",
			                       jtext(dc.ai.model, strlen(dc.ai.model)));
			json_object_object_add(o, "ata_serial",
			                       jtext(dc.ai.serial, strlen(dc.ai.serial)));
			json_object_object_add(o, "ata_firmware",
			                       jtext(dc.ai.firmware, strlen(dc.ai.firmware)));
		}
		break;
	case DECODE_PGB0:
		json_object_object_add(o, "max_transfer_length",
		                       json_object_new_int64(dc.bl.max_xfer_len));
		json_object_object_add(o, "optimal_transfer_length",
		                       json_object_new_int64(dc.bl.opt_xfer_len));
		json_object_object_add(o, "optimal_transfer_granularity",
		                       json_object_new_int64(dc.bl.opt_xfer_granularity));
		json_object_object_add(o, "max_unmap_lba_count",
		                       json_object_new_int64(dc.bl.max_unmap_lba_count));
		json_object_object_add(o, "max_write_same_length",
		                       json_object_new_int64((int64_t)dc.bl.max_write_same_len));
		break;
	case DECODE_LUNS:
		a = json_object_new_array();
		json_object_object_add(o, "luns", a);
		for (size_t i = 0; i < dc.luns.count; i++) {
			char hex[LUN_HEX_STRLEN], desc[LUN_DESCRIBE_MAX];
			uint64_t linux_lun;
			json_object *x;

			r = lun_row(&dc.luns, i, hex, desc, &linux_lun);
			if (r < 0)
				return r;
			x = json_object_new_object();
			json_object_object_add(x, "lun", json_object_new_string(hex));
			json_object_object_add(x, "linux",
			                       json_object_new_int64((int64_t)linux_lun));
			json_object_object_add(x, "description", json_object_new_string(desc));
			json_object_array_add(a, x);
		}
		break;
	case DECODE_SENSE:
		sense_to_json(&dc.sense, o);
		break;
	default:
		return -EINVAL;
	}
	*ret = TAKE_PTR(o);
	return 0;
}

/* --json over responses that are not all INQUIRY/VPD identity pages: each one decoded, one
 * object for one file, an array of them for several. */
static int decode_json(const Input *inputs, size_t n)
{
	_cleanup_(json_object_putp) json_object *all = json_object_new_array();
	int r;

	if (!all)
		return log_error_errno(-ENOMEM, "Out of memory"), EXIT_DEVICE;
	for (size_t i = 0; i < n; i++) {
		json_object *o = NULL;

		r = decode_to_json(&inputs[i], &o);
		if (r == -ENOMEM)
			return log_error_errno(r, "Out of memory"), EXIT_DEVICE;
		if (r < 0) {
			log_error_errno(r, "%s: malformed %s response: %m", inputs[i].path,
			                kinds[inputs[i].kind]);
			return EXIT_MALFORMED;
		}
		json_object_array_add(all, o);
	}
	r = output_json(stdout, n == 1 ? json_object_array_get_idx(all, 0) : all);
	return lunctl_printed(r);
}

static bool identity_kind(DecodeKind k)
{
	return k == DECODE_INQUIRY || k == DECODE_PG00 || k == DECODE_PG80 || k == DECODE_PG83 ||
	       k == DECODE_PG89;
}

/* The identity the combined responses give: scsi_id's and sg_inq's properties. */
static int decode_identity(Input *inputs, size_t n, OutputMode mode)
{
	ScsiIdentInput in = { .page = IDENT_PAGE_DEFAULT, .pg00_infer = true };
	ExportFlags flags = EXPORT_UDEV | EXPORT_SG_INQ;
	ScsiIdent id;
	int r;

	for (size_t i = 0; i < n; i++) {
		const uint8_t **p = NULL;
		size_t *l = NULL;

		switch (inputs[i].kind) {
		case DECODE_INQUIRY:
			p = &in.inquiry, l = &in.inquiry_len;
			break;
		case DECODE_PG00:
			p = &in.pg00, l = &in.pg00_len;
			in.pg00_infer = false;
			break;
		case DECODE_PG80:
			p = &in.pg80, l = &in.pg80_len;
			break;
		case DECODE_PG83:
			p = &in.pg83, l = &in.pg83_len;
			break;
		case DECODE_PG89:
			p = &in.pg89, l = &in.pg89_len;
			break;
		default:
			log_error("%s: --export combines INQUIRY and VPD pages 0x00, "
			          "0x80, 0x83, 0x89 only",
			          inputs[i].path);
			return EXIT_USAGE;
		}
		if (*p) {
			log_error("%s: a second %s response", inputs[i].path,
			          kinds[inputs[i].kind]);
			return EXIT_USAGE;
		}
		*p = inputs[i].data;
		*l = inputs[i].len;
	}

	/* Without INQUIRY data there is no scsi_id identity (scsi_id prints nothing then); the
	 * designators still export as sg_inq --export prints them for a lone page. */
	if (!in.inquiry) {
		flags = EXPORT_SG_INQ;
		id = (ScsiIdent){ .in = in };
		r = 0;
	} else
		r = ident_compute(&in, &id);
	if (r < 0) {
		log_error_errno(r, "Cannot compute identifiers: %m");
		return exit_code_from_errno(r);
	}

	if (mode == OUTPUT_JSON) {
		_cleanup_(json_object_putp) json_object *props = output_properties_json(&id, flags);

		if (!props)
			return log_error_errno(-ENOMEM, "Out of memory"), EXIT_DEVICE;
		r = output_json(stdout, props);
	} else
		r = output_export(stdout, &id, flags);
	return lunctl_printed(r);
}

int verb_decode(int argc, char *argv[], Options *o)
{
	static const struct option longopts[] = {
		{ "inhex", required_argument, NULL, 'i' }, { "page", required_argument, NULL, 'p' },
		{ "export", no_argument, NULL, 'x' },      { "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },        {}
	};
	Input inputs[DECODE_FILES_MAX] = {};
	DecodeKind page = _DECODE_KIND_INVALID;
	size_t n = 0;
	int c, r, ret = EXIT_OK;

	while ((c = lunctl_getopt(argc, argv, "i:p:xJh", longopts, o, "decode")) != -1) {
		switch (c) {
		case 'i':
			if (n == DECODE_FILES_MAX) {
				log_error("at most %u --inhex files", DECODE_FILES_MAX);
				return EXIT_USAGE;
			}
			/* A --page given before this file says what it holds. */
			inputs[n++] = (Input){ .path = optarg, .kind = page };
			break;
		case 'p':
			page = kind_from_string(optarg);
			if (page < 0) {
				log_error("unknown --page '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			printf("Usage: lunctl decode --inhex FILE [--inhex FILE...] [--page PAGE] "
			       "[--export|--json]\n"
			       "PAGE: inquiry, 0x00, 0x80, 0x83, 0x89, 0xb0, luns, sense; it names "
			       "the files after it\n");
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	for (; optind < argc && n < DECODE_FILES_MAX; optind++)
		inputs[n++] = (Input){ .path = argv[optind], .kind = page };
	if (optind < argc || n == 0) {
		log_error(n == 0 ? "no --inhex FILE given" : "too many files");
		return EXIT_USAGE;
	}
	/* "--inhex F --page P" with a single file: the page names that file too. */
	if (n == 1 && inputs[0].kind < 0)
		inputs[0].kind = page;

	for (size_t i = 0; i < n; i++) {
		r = load_input(&inputs[i]);
		if (r < 0) {
			ret = r == -EBADMSG || r == -ENOBUFS ? EXIT_MALFORMED : EXIT_DEVICE;
			goto finish;
		}
	}

	if (o->output == OUTPUT_JSON) {
		bool identity = true;

		for (size_t i = 0; i < n; i++)
			identity = identity && identity_kind(inputs[i].kind);
		ret = identity ? decode_identity(inputs, n, o->output) : decode_json(inputs, n);
		goto finish;
	}
	if (o->output != OUTPUT_HUMAN) {
		ret = decode_identity(inputs, n, o->output);
		goto finish;
	}

	for (size_t i = 0; i < n; i++) {
		if (n > 1)
			printf("%s%s:\n", i > 0 ? "\n" : "", inputs[i].path);
		r = decode_human(&inputs[i]);
		if (r < 0) {
			log_error_errno(r, "%s: malformed %s response: %m", inputs[i].path,
			                kinds[inputs[i].kind]);
			ret = EXIT_MALFORMED;
		}
	}

finish:
	for (size_t i = 0; i < n; i++)
		free(inputs[i].data);
	return ret;
}
