/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The naming path lund and lunctl share (engine/identify.c), its pure part: INQUIRY and VPD
 * pages 0x00/0x80/0x83/0x89 -> identity (ident_compute()) -> export lines (export_ident()) ->
 * by-id names (names_by_id_full()), and the unit-serial name (names_unit_serial()). Input: one
 * flags byte (bit 0: page 0x00 may be inferred, bit 1: a cdrom, bit 2: sg3-utils-udev's rules
 * installed), the sysfs scsi_level byte, then five big-endian 16-bit lengths (0xffff: the page is
 * absent) and the pages one after the other, INQUIRY, 0x00, 0x80, 0x83, 0x89; a length past the end
 * takes what is left. Checks what export.h and names.h promise: every line is KEY=value with a KEY
 * lund emits and a value without control characters or invalid UTF-8 (so no device byte ends a line
 * or starts a property); every name is one safe path component.
 */

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "escape.h"
#include "utf8.h"
#include "export.h"
#include "fuzz.h"
#include "ident.h"
#include "names.h"

#define NAMING_HEADER (2 + 5 * 2)
#define NAMING_MAX    (NAMING_HEADER + 5 * (4 + 65535))

static bool key_expected(const char *key)
{
	static const char *const fixed[] = {
		"ID_ATA",
		"ID_BUS",
		"ID_MODEL",
		"ID_MODEL_ENC",
		"ID_REVISION",
		"ID_SCSI",
		"ID_SCSI_SERIAL",
		"ID_SERIAL",
		"ID_SERIAL_SHORT",
		"ID_TARGET_PORT",
		"ID_TYPE",
		"ID_VENDOR",
		"ID_VENDOR_ENC",
		"ID_WWN",
		"ID_WWN_VENDOR_EXTENSION",
		"ID_WWN_WITH_EXTENSION",
		"SCSI_IDENT_SERIAL",
		"SCSI_MODEL",
		"SCSI_MODEL_ENC",
		"SCSI_REVISION",
		"SCSI_TPGS",
		"SCSI_TYPE",
		"SCSI_VENDOR",
		"SCSI_VENDOR_ENC",
	};
	/* sg_inq's SCSI_IDENT_<association>_<designator> (export.c, sg3_utils' sg_inq.c). */
	static const char *const assoc[] = { "LUN_", "PORT_", "TARGET_" };
	static const char *const desig[] = {
		"VENDOR",
		"T10",
		"ATA",
		"EUI64",
		"NAA_REGEXT",
		"NAA_REG",
		"NAA_EXT",
		"NAA_LOCAL",
		"RELATIVE",
		"TARGET_PORT_GROUP",
		"LOGICAL_UNIT_GROUP",
		"MD5",
		"NAME",
		"UAS_DEVICE_ADDRESS",
		"UAS_INTERFACE_NUMBER",
		"SOP_ROUTING_ID",
		"UUID",
	};
	const char *rest;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (strcmp(key, fixed[i]) == 0)
			return true;
	if (strncmp(key, "SCSI_IDENT_", 11) != 0)
		return false;
	for (size_t a = 0; a < sizeof(assoc) / sizeof(assoc[0]); a++) {
		if (strncmp(key + 11, assoc[a], strlen(assoc[a])) != 0)
			continue;
		rest = key + 11 + strlen(assoc[a]);
		for (size_t d = 0; d < sizeof(desig) / sizeof(desig[0]); d++)
			if (strcmp(rest, desig[d]) == 0)
				return true;
	}
	return false;
}

static int check_line(const char *key, const char *value, void *userdata)
{
	size_t n = strlen(value);

	fuzz_check(key_expected(key));
	for (size_t i = 0; i < n;) {
		const uint8_t *p = (const uint8_t *)value + i;
		int l = utf8_valid_char(p, n - i);

		/* No LF, CR, NUL or other control byte, no invalid UTF-8. */
		fuzz_check(l > 0 && *p >= 0x20 && *p != 0x7f);
		i += (size_t)l;
	}
	(*(size_t *)userdata)++;
	return 0;
}

static void check_name(const char *name)
{
	size_t n = strlen(name);

	fuzz_check(n > 0 && n <= NAME_MAX);
	fuzz_check(strcmp(name, ".") != 0 && strcmp(name, "..") != 0);
	for (size_t i = 0; i < n;) {
		const uint8_t *p = (const uint8_t *)name + i;
		int l;

		fuzz_check(*p != '/');
		/* udev's allowlist, "\x2f" for '/', or a valid multi-byte UTF-8 character. */
		if (udev_char_allowed(*p, NULL) || *p == '\\') {
			i++;
			continue;
		}
		l = utf8_valid_char(p, n - i);
		fuzz_check(l > 1);
		i += (size_t)l;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *page[5] = {};
	size_t len[5] = {}, off = NAMING_HEADER, lines = 0;
	ScsiIdentInput in;
	static ScsiIdent id; /* a few KiB: off the stack */
	NamesContext ctx;
	static NamesList names;
	int r;

	if (outside_size_range(size, NAMING_HEADER, NAMING_MAX))
		return 0;

	for (size_t i = 0; i < 5; i++) {
		size_t l = (size_t)data[2 + 2 * i] << 8 | data[3 + 2 * i];

		if (l == 0xffff)
			continue;
		l = l < size - off ? l : size - off;
		page[i] = data + off;
		len[i] = l;
		off += l;
	}

	in = (ScsiIdentInput){
		.inquiry = page[0],
		.inquiry_len = len[0],
		.pg00 = page[1],
		.pg00_len = len[1],
		.pg80 = page[2],
		.pg80_len = len[2],
		.pg83 = page[3],
		.pg83_len = len[3],
		.pg89 = page[4],
		.pg89_len = len[4],
		.page = IDENT_PAGE_DEFAULT,
		.pg00_infer = data[0] & 1,
	};
	r = ident_compute(&in, &id);
	if (r < 0) {
		fuzz_check(r == -ENODATA);
		return 0;
	}

	{
		/* what scsi_id made of each designator: at most one used, and only when
		 * ID_SERIAL came from page 0x83 */
		IdentDesignator d[64];
		size_t n = ident_designators(&id, d, sizeof(d) / sizeof(d[0])), used = 0;

		for (size_t k = 0; k < n; k++) {
			fuzz_check(ident_designator_verdict_name(d[k].verdict) != NULL);
			fuzz_check(d[k].offset + 4 <= id.in.pg83_len);
			used += d[k].verdict == IDENT_DESIG_USED;
		}
		fuzz_check(used <= 1);
		fuzz_check(used == 0 || id.serial_source == IDENT_SERIAL_PG83);
	}

	r = export_ident(&id, EXPORT_UDEV | EXPORT_SG_INQ, check_line, &lines);
	fuzz_check(r == 0 && lines > 0);
	lines = 0;
	r = export_ident(&id, EXPORT_UDEV | EXPORT_UDEV_ATA, check_line, &lines);
	fuzz_check(r == 0 && lines > 0);

	ctx = (NamesContext){
		.id = &id,
		.scsi_level = data[1],
		.is_cdrom = data[0] & 2,
		.sg3 = data[0] & 4 ? &id : NULL,
		.sg3_symlinks = data[0] & 4,
	};
	r = names_by_id_full(&ctx, &names);
	fuzz_check(r == 0 || r == -EINVAL);
	if (r == 0) {
		fuzz_check(names.n <= NAMES_MAX);
		for (size_t i = 0; i < names.n; i++)
			check_name(names.name[i]);
	}

	/* lund.hwdb's unit-serial name: scsi_id --page=0x80's reading of the same pages */
	in.page = IDENT_PAGE_80;
	r = ident_compute(&in, &id);
	fuzz_check(r == 0);
	{
		char name[NAME_MAX + 1];

		r = names_unit_serial(&id, name);
		fuzz_check(r > 0 || r == -ENODATA || r == -EINVAL);
		fuzz_check(r != -ENODATA || id.serial_source != IDENT_SERIAL_PG80 ||
		           id.serial_short[0] == 0);
		if (r > 0) {
			fuzz_check((size_t)r == strlen(name));
			fuzz_check(strncmp(name, "scsi-S", 6) == 0);
			check_name(name);
		}
	}
	return 0;
}
