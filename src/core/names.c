/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /dev/disk/by-id names as Debian 12's 60-persistent-storage.rules (systemd 252) derives them.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "utf8.h"
#include "export.h"
#include "macro.h"
#include "names.h"
#include "pathtag.h"

static const char *const bus_prefix[_NAMES_BUS_MAX] = {
	[NAMES_BUS_SCSI] = "scsi-",
	[NAMES_BUS_ATA] = "ata-",
	[NAMES_BUS_USB] = "usb-",
};

static const char *const bus_names[_NAMES_BUS_MAX] = {
	[NAMES_BUS_SCSI] = "scsi",
	[NAMES_BUS_ATA] = "ata",
	[NAMES_BUS_USB] = "usb",
};

DEFINE_NAME_LOOKUP(names_bus_name, NamesBus, bus_names)

NamesBus names_bus(const ScsiIdent *id, unsigned scsi_level)
{
	const char *v;
	size_t n;

	if (!id || !id->ata.valid)
		return NAMES_BUS_SCSI;
	/* ATTRS{vendor}=="ATA": udev drops trailing blanks of the attribute before comparing. */
	v = id->vendor;
	n = strlen(v);
	if (n == 3 && memcmp(v, "ATA", 3) == 0)
		return NAMES_BUS_ATA;
	/* ATTRS{type}=="5", ATTRS{scsi_level}=="[6-9]*": one digit 6..9 (levels stay below 10). */
	if (id->peripheral_type == 5 && scsi_level >= 6 && scsi_level <= 9)
		return NAMES_BUS_ATA;
	return NAMES_BUS_SCSI;
}

int names_component(const char *prefix, const char *value, unsigned partition,
                    char ret[static NAME_MAX + 1])
{
	char buf[NAME_MAX + 1];
	size_t n = 0, pl;

	assert_return(prefix && value, -EINVAL);
	if (isempty(value))
		return -EINVAL;

	pl = strlen(prefix);
	if (pl > NAME_MAX)
		return -EINVAL;
	memcpy(buf, prefix, pl);
	n = pl;

	for (const uint8_t *p = (const uint8_t *)value; *p;) {
		const char *add;
		char one[5];
		size_t al;
		int l;

		if (*p == '/') {
			/* udev's SYMLINK would keep it and make a directory; one component it
			 * is, so write it the way encode_devnode_name() does. */
			add = "\\x2f";
			al = 4;
			p++;
		} else if (udev_char_allowed(*p, NULL)) {
			one[0] = (char)*p++;
			add = one;
			al = 1;
		} else if (p[0] == '\\' && p[1] == 'x') {
			add = "\\x";
			al = 2;
			p += 2;
		} else if ((l = utf8_valid_char(p, SIZE_MAX)) > 1) {
			add = (const char *)p;
			al = (size_t)l;
			p += l;
		} else {
			/* udev_replace_chars(value, "/ "): whitespace would become ' ' and then
			 * split the link in two; everything else '_'. lund makes both '_'. */
			add = "_";
			al = 1;
			p++;
		}
		if (n + al > NAME_MAX)
			return -EINVAL;
		memcpy(buf + n, add, al);
		n += al;
	}
	if (partition > 0) {
		char suffix[16];
		int sl = snprintf(suffix, sizeof(suffix), "-part%u", partition);

		if (sl < 0 || n + (size_t)sl > NAME_MAX)
			return -EINVAL;
		memcpy(buf + n, suffix, (size_t)sl);
		n += (size_t)sl;
	}
	buf[n] = '\0';
	if (streq(buf, ".") || streq(buf, ".."))
		return -EINVAL;
	memcpy(ret, buf, n + 1);
	return (int)n;
}

/* The sg_inq --export properties 55-scsi-sg3_id.rules and 58-scsi-sg3_symlink.rules use. */
typedef enum Sg3Key {
	SG3_VENDOR,
	SG3_MODEL,
	SG3_SERIAL,
	SG3_LUN_ATA,
	SG3_LUN_NAA_REGEXT,
	SG3_LUN_NAA_REG,
	SG3_LUN_NAA_EXT,
	SG3_LUN_EUI64,
	SG3_LUN_NAME,
	SG3_LUN_T10,
	SG3_LUN_NAA_LOCAL,
	SG3_LUN_VENDOR,
	_SG3_KEY_MAX,
} Sg3Key;

static const char *const sg3_keys[_SG3_KEY_MAX] = {
	[SG3_VENDOR] = "SCSI_VENDOR",
	[SG3_MODEL] = "SCSI_MODEL",
	[SG3_SERIAL] = "SCSI_IDENT_SERIAL",
	[SG3_LUN_ATA] = "SCSI_IDENT_LUN_ATA",
	[SG3_LUN_NAA_REGEXT] = "SCSI_IDENT_LUN_NAA_REGEXT",
	[SG3_LUN_NAA_REG] = "SCSI_IDENT_LUN_NAA_REG",
	[SG3_LUN_NAA_EXT] = "SCSI_IDENT_LUN_NAA_EXT",
	[SG3_LUN_EUI64] = "SCSI_IDENT_LUN_EUI64",
	[SG3_LUN_NAME] = "SCSI_IDENT_LUN_NAME",
	[SG3_LUN_T10] = "SCSI_IDENT_LUN_T10",
	[SG3_LUN_NAA_LOCAL] = "SCSI_IDENT_LUN_NAA_LOCAL",
	[SG3_LUN_VENDOR] = "SCSI_IDENT_LUN_VENDOR",
};

/* A value longer than any name can hold is kept as "set, too long": the rules still see it
 * (it decides ID_SERIAL), but its link cannot be made. */
typedef struct Sg3Props {
	char v[_SG3_KEY_MAX][NAME_MAX + 1];
	bool set[_SG3_KEY_MAX];
	bool too_long[_SG3_KEY_MAX];
} Sg3Props;

static int sg3_collect(const char *key, const char *value, void *userdata)
{
	Sg3Props *p = userdata;

	for (Sg3Key k = 0; k < _SG3_KEY_MAX; k++) {
		size_t n;

		if (!streq(key, sg3_keys[k]))
			continue;
		/* udev imports every line; a key printed twice keeps the last value. */
		n = strlen(value);
		p->set[k] = n > 0; /* the rules test "?*" */
		p->too_long[k] = n > NAME_MAX;
		if (!p->too_long[k])
			memcpy(p->v[k], value, n + 1);
		break;
	}
	return 0;
}

/* One candidate name, built as udev substitutes "<prefix><a>[_<b>_<c>]" into SYMLINK. */
typedef struct NamesBuilder {
	NamesList l;
	unsigned partition;
	bool expected;
} NamesBuilder;

static void builder_add(NamesBuilder *b, const char *prefix, const char *value, bool too_long)
{
	char name[NAME_MAX + 1];

	b->expected = true;
	if (too_long || b->l.n >= NAMES_MAX)
		return;
	if (names_component(prefix, value, b->partition, name) < 0)
		return;
	for (size_t i = 0; i < b->l.n; i++)
		if (streq(b->l.name[i], name))
			return;
	memcpy(b->l.name[b->l.n++], name, sizeof(name));
}

/* "<SCSI_VENDOR>_<SCSI_MODEL>_<value>" with @lead in front (the 'S' and '0' forms). */
static int sg3_vmv(const Sg3Props *p, char lead, Sg3Key k, char *out, size_t size, bool *too_long)
{
	int n = snprintf(out, size, "%c%s_%s_%s", lead, p->v[SG3_VENDOR], p->v[SG3_MODEL], p->v[k]);

	if (n < 0)
		return -EINVAL;
	*too_long = p->too_long[SG3_VENDOR] || p->too_long[SG3_MODEL] || p->too_long[k] ||
	            (size_t)n >= size;
	return 0;
}

/* The sources sg3-utils-udev 1.48 calls ambiguous: ID_SERIAL and links from them only as
 * .SCSI_ID_SERIAL_SRC / .SCSI_SYMLINK_SRC allow ("T" and "" by default: NamesContext). */
static bool sg3_ambiguous(Sg3Key k)
{
	return k == SG3_LUN_T10 || k == SG3_LUN_NAA_LOCAL || k == SG3_LUN_VENDOR || k == SG3_SERIAL;
}

/* 55-scsi-sg3_id.rules' "Compat ID_SERIAL setting", in its order. */
static const struct {
	Sg3Key key;
	char lead;
} sg3_serial_order[] = {
	{ SG3_LUN_NAA_REGEXT, '3' }, { SG3_LUN_NAA_REG, '3' }, { SG3_LUN_NAA_EXT, '3' },
	{ SG3_LUN_EUI64, '2' },      { SG3_LUN_NAME, '8' },    { SG3_LUN_T10, '1' },
	{ SG3_LUN_NAA_LOCAL, '3' },  { SG3_LUN_VENDOR, '0' },  { SG3_SERIAL, 'S' },
};

/* 58-scsi-sg3_symlink.rules, in its order ('S' first). */
static const struct {
	Sg3Key key;
	char lead;
} sg3_link_order[] = {
	{ SG3_SERIAL, 'S' },      { SG3_LUN_NAA_REGEXT, '3' }, { SG3_LUN_NAA_REG, '3' },
	{ SG3_LUN_NAA_EXT, '3' }, { SG3_LUN_EUI64, '2' },      { SG3_LUN_NAME, '8' },
	{ SG3_LUN_T10, '1' },     { SG3_LUN_NAA_LOCAL, '3' },  { SG3_LUN_VENDOR, '0' },
};

/* The value of a "<lead><...>" form into @out. */
static void sg3_form(const Sg3Props *p, Sg3Key k, char lead, char *out, size_t size, bool *too_long)
{
	if (k == SG3_SERIAL || k == SG3_LUN_VENDOR) {
		if (sg3_vmv(p, lead, k, out, size, too_long) < 0)
			*too_long = true;
		return;
	}
	*too_long = p->too_long[k];
	if (!*too_long)
		snprintf(out, size, "%c%s", lead, p->v[k]);
}

int names_by_id_full(const NamesContext *ctx, NamesList *ret)
{
	/* Large: kept off the stack of callers that walk many devices. */
	Sg3Props *p = NULL;
	NamesBuilder b = {};
	const ScsiIdent *id;
	NamesBus bus = _NAMES_BUS_INVALID;
	char serial[3 * (NAME_MAX + 1) + 4] = "", wwn[2 + 32 + 1] = "";
	bool serial_too_long = false, ata_runs, bus_only = false;

	assert_return(ctx && ctx->id && ret, -EINVAL);
	/* KERNEL=="sd*|sr*", ENV{DEVTYPE}=="partition": only sd* has partition links. */
	if (ctx->is_cdrom && ctx->partition > 0)
		return -EINVAL;
	id = ctx->id;
	b.partition = ctx->partition;

	if (ctx->sg3) {
		int r;

		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		r = export_ident(ctx->sg3, EXPORT_SG_INQ, sg3_collect, p);
		if (r < 0) {
			free(p);
			return r;
		}

		/* 1. ata_id compatibility, then the compat ID_SERIAL setting. */
		if (p->set[SG3_LUN_ATA]) {
			bus = NAMES_BUS_ATA;
			serial_too_long = p->too_long[SG3_LUN_ATA];
			if (!serial_too_long)
				memcpy(serial, p->v[SG3_LUN_ATA], strlen(p->v[SG3_LUN_ATA]) + 1);
		} else
			for (size_t i = 0; i < ELEMENTSOF(sg3_serial_order); i++) {
				Sg3Key k = sg3_serial_order[i].key;

				if (!p->set[k])
					continue;
				/* 1.48: ENV{ID_BUS}="scsi" whether or not the source is allowed */
				if (ctx->sg3_src_filter && sg3_ambiguous(k) && k != SG3_LUN_T10) {
					bus_only = true;
					continue;
				}
				bus = NAMES_BUS_SCSI;
				sg3_form(p, k, sg3_serial_order[i].lead, serial, sizeof(serial),
				         &serial_too_long);
				break;
			}
		/* ID_WWN compat mapping: the first NAA, REGEXT before REG, EXT, LOCAL. */
		for (Sg3Key k = SG3_LUN_NAA_REGEXT; k <= SG3_LUN_NAA_LOCAL; k++) {
			if (k == SG3_LUN_EUI64 || k == SG3_LUN_NAME || k == SG3_LUN_T10)
				continue;
			if (p->set[k] && !p->too_long[k] && strlen(p->v[k]) <= 32) {
				snprintf(wwn, sizeof(wwn), "0x%s", p->v[k]);
				break;
			}
		}
	}

	/* 2. 60-persistent-storage.rules while ID_SERIAL is unset. */
	ata_runs = names_bus(id, ctx->scsi_level) == NAMES_BUS_ATA ||
	           (ctx->usb && !ctx->removable && id->ata.valid);
	if (bus < 0 && ata_runs) {
		bus = NAMES_BUS_ATA;
		snprintf(serial, sizeof(serial), "%s", id->ata.serial);
		if (!wwn[0] && id->ata.wwn[0])
			snprintf(wwn, sizeof(wwn), "0x%s", id->ata.wwn);
	}
	/* usb_id sets ID_BUS and ID_SERIAL only when nothing has set ID_BUS */
	if (bus < 0 && !bus_only && ctx->usb) {
		bus = NAMES_BUS_USB;
		snprintf(serial, sizeof(serial), "%s", ctx->usb->serial);
	}
	if (bus < 0) {
		bus = NAMES_BUS_SCSI;
		if (id->have_serial)
			snprintf(serial, sizeof(serial), "%s", id->serial);
		if (!wwn[0] && id->wwn[0])
			snprintf(wwn, sizeof(wwn), "0x%s%s", id->wwn, id->wwn_vendor_extension);
	}

	/* 3. The links, in rule order. */
	if (serial_too_long)
		b.expected = true;
	else if (serial[0])
		builder_add(&b, bus_prefix[bus], serial, false);
	if (wwn[0])
		builder_add(&b, "wwn-", wwn, false);
	if (ctx->usb && ctx->usb->serial[0])
		builder_add(&b, "usb-", ctx->usb->serial, false);
	if (p && ctx->sg3_symlinks)
		for (size_t i = 0; i < ELEMENTSOF(sg3_link_order); i++) {
			Sg3Key k = sg3_link_order[i].key;
			char v[3 * (NAME_MAX + 1) + 4];
			bool tl;

			if (!p->set[k] || (ctx->sg3_src_filter && sg3_ambiguous(k)))
				continue;
			sg3_form(p, k, sg3_link_order[i].lead, v, sizeof(v), &tl);
			builder_add(&b, "scsi-", v, tl);
		}
	free(p);

	if (b.expected && b.l.n == 0)
		return -EINVAL;
	*ret = b.l;
	return 0;
}

int names_serial_path(const char *name, const char *id_path, char ret[static NAME_MAX + 1])
{
	char tag[NAME_MAX + 1], value[NAME_MAX + 1];
	size_t nl, tl;
	int r;

	if (isempty(name) || isempty(id_path))
		return -EINVAL;
	/* Every input byte becomes at least one output byte: longer inputs cannot fit. */
	if (strlen(id_path) > NAME_MAX)
		return -EINVAL;
	r = pathtag_tag(id_path, tag, sizeof(tag));
	if (r <= 0)
		return -EINVAL;
	tl = (size_t)r;
	nl = strlen(name);
	if (nl + 1 + tl > NAME_MAX)
		return -EINVAL;
	memcpy(value, name, nl);
	value[nl] = '-';
	memcpy(value + nl + 1, tag, tl + 1);
	return names_component("", value, 0, ret);
}

bool names_serial_path_other(const char *name, const char *id_path, const char *base)
{
	char own[NAME_MAX + 1];
	size_t n = name ? strlen(name) : 0;

	if (!name || !base || !strneq(base, name, n) || base[n] != '-')
		return false;
	return names_serial_path(name, id_path, own) < 0 || !streq(own, base);
}

int names_unit_serial(const ScsiIdent *id80, char ret[static NAME_MAX + 1])
{
	assert_return(id80, -EINVAL);
	/* A serial of the page's own: scsi_id's short form is the page's serial alone. */
	if (!id80->have_serial || id80->serial_source != IDENT_SERIAL_PG80 ||
	    isempty(id80->serial_short))
		return -ENODATA;
	return names_component("scsi-", id80->serial, 0, ret);
}
