/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <limits.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "identify.h"
#include "lupath.h"
#include "macro.h"
#include "namerule.h"
#include "naming.h"

void lu_naming_done(LuNaming *n)
{
	if (!n)
		return;
	free(n->scsi_pages);
	*n = (LuNaming){};
}

bool lu_naming_equal(const LuNaming *a, const LuNaming *b)
{
	if (!streq_ptr(a->serial, b->serial) || !streq_ptr(a->wwn, b->wwn) ||
	    !streq_ptr(a->bus, b->bus) || a->n_names != b->n_names ||
	    !streq_ptr(a->id_path, b->id_path) ||
	    !streq_ptr(a->id_path_ata_compat, b->id_path_ata_compat) ||
	    !streq_ptr(a->id_path_usb_revision, b->id_path_usb_revision) ||
	    a->path_virtual != b->path_virtual || a->keys_in_pages != b->keys_in_pages ||
	    !streq_ptr(a->lu_key, b->lu_key) || !streq_ptr(a->port_key, b->port_key) ||
	    a->have_usb_ids != b->have_usb_ids || a->usb_vendor != b->usb_vendor ||
	    a->usb_product != b->usb_product)
		return false;
	for (size_t i = 0; i < a->n_names; i++)
		if (!streq(a->names[i], b->names[i]))
			return false;
	/* The same kept bytes give the same scsi_id view, unit-serial name and path keys. */
	return a->scsi_pages_size == b->scsi_pages_size &&
	       (a->scsi_pages_size == 0 ||
	        memcmp(a->scsi_pages, b->scsi_pages, a->scsi_pages_size) == 0);
}

/*
 * LuNaming.scsi_pages: a flags byte (SCSI_PAGES_*), then for each of the INQUIRY data and
 * pages 0x00, 0x80 and 0x83 a length byte (SCSI_PAGE_ABSENT: not read) and that many bytes.
 * Each is cut to what scsi_id reads of it, so the view rebuilt from them is the one computed
 * from the whole pages.
 */
enum {
	SCSI_PAGES_PG00_INFER = 1 << 0, /* ScsiIdentInput.pg00_infer */
	SCSI_PAGES_PG89 = 1 << 1,       /* page 0x89 was read (a page 0x00 inferred lists it) */
	SCSI_PAGE_ABSENT = 0xff,
};

/* SPC-6 6.7.2: vendor 8..15, product 16..31, revision 32..35; scsi_id reads no further. */
#define SCSI_ID_INQUIRY_LEN 36
/* The most LuNaming.scsi_pages can hold: the flags, four length bytes and pages. */
#define NAMING_PAGES_MAX (1 + 4 * (1 + IDENT_SCSI_ID_BUF_LEN))

static const ProbePage scsi_id_pages[] = { PROBE_INQUIRY, PROBE_PG00, PROBE_PG80, PROBE_PG83 };

static size_t scsi_page_keep(const ProbeData *pd, size_t k)
{
	size_t max =
	        scsi_id_pages[k] == PROBE_INQUIRY ? SCSI_ID_INQUIRY_LEN : IDENT_SCSI_ID_BUF_LEN;

	return MIN(pd->len[scsi_id_pages[k]], max);
}

/* The size of LuNaming.scsi_pages for @pd. */
static size_t naming_pages_size(const ProbeData *pd)
{
	size_t size = 1 + ELEMENTSOF(scsi_id_pages);

	_Static_assert(IDENT_SCSI_ID_BUF_LEN < SCSI_PAGE_ABSENT, "a length byte holds a page");
	_Static_assert(1 + ELEMENTSOF(scsi_id_pages) * (1 + IDENT_SCSI_ID_BUF_LEN) ==
	                       NAMING_PAGES_MAX,
	               "NAMING_PAGES_MAX is the most the pages take");
	_Static_assert(NAMING_PAGES_MAX <= USHRT_MAX, "LuNaming.scsi_pages_size holds the size");
	for (size_t k = 0; k < ELEMENTSOF(scsi_id_pages); k++)
		if (pd->buf[scsi_id_pages[k]])
			size += scsi_page_keep(pd, k);
	return size;
}

/* LuNaming.scsi_pages into @b (naming_pages_size() bytes). */
static void naming_keep_pages(uint8_t *b, const ProbeData *pd, bool pg00_infer)
{
	size_t pos = 1;

	b[0] = (pg00_infer ? SCSI_PAGES_PG00_INFER : 0) |
	       (pd->buf[PROBE_PG89] ? SCSI_PAGES_PG89 : 0);
	for (size_t k = 0; k < ELEMENTSOF(scsi_id_pages); k++) {
		const uint8_t *page = pd->buf[scsi_id_pages[k]];
		size_t len = scsi_page_keep(pd, k);

		if (!page) {
			b[pos++] = SCSI_PAGE_ABSENT;
			continue;
		}
		b[pos++] = (uint8_t)len;
		memcpy(b + pos, page, len);
		pos += len;
	}
}

/*
 * @n's kept pages as identify_pages() takes them, pointing into @n (not owned: never given to
 * probe_data_done()). Page 0x00 absent as it was when @n was named: a page the device rejected
 * stays rejected, so identify_pages() infers one exactly when lu_compute_names()'s
 * identification did. -ENODATA when @n has none (naming failed), -EBADMSG when its block is not
 * what naming_keep_pages() wrote.
 */
static int naming_pages(const LuNaming *n, ProbeData *ret)
{
	/* Stands in for page 0x89 when a page 0x00 inferred lists it; scsi_id's set reads
	 * nothing of it (length 0). */
	static uint8_t no_page[1];
	const uint8_t *b = n->scsi_pages;
	ProbeData pd = {};
	size_t pos = 1;

	if (!b || n->scsi_pages_size < 1 + ELEMENTSOF(scsi_id_pages))
		return -ENODATA;
	for (size_t k = 0; k < ELEMENTSOF(scsi_id_pages); k++) {
		ProbePage p = scsi_id_pages[k];

		if (pos >= n->scsi_pages_size)
			return -EBADMSG;
		if (b[pos] == SCSI_PAGE_ABSENT) {
			pos++;
			continue;
		}
		pd.len[p] = b[pos++];
		if (pd.len[p] > n->scsi_pages_size - pos)
			return -EBADMSG;
		/* Only read: identify_pages() takes the pages as const. */
		pd.buf[p] = n->scsi_pages + pos;
		pos += pd.len[p];
	}
	if (!pd.buf[PROBE_PG00] && !(b[0] & SCSI_PAGES_PG00_INFER))
		pd.error[PROBE_PG00] = -EOPNOTSUPP;
	if (b[0] & SCSI_PAGES_PG89)
		pd.buf[PROBE_PG89] = no_page;
	*ret = pd;
	return 0;
}

/* identify_pages() of @n's kept pages, with @opts (no names: the udev context is not read). */
static int naming_identify(const LuNaming *n, const IdentifyOptions *opts, Identity *ret)
{
	ProbeData pd;
	int r;

	assert(opts->no_names);
	r = naming_pages(n, &pd);
	if (r < 0)
		return r;
	/* No LU directory: path_id is not walked, nothing is read below the root. */
	return identify_pages(-EBADF, &(LuRef){}, &pd, opts, ret);
}

/*
 * The strings of LuNaming's block. A string that ends one placed before it is not copied but
 * pointed into that one: the serial ends its "scsi-<serial>" name and the WWN its
 * "wwn-<wwn>" name whenever escaping left them alone, which is most devices.
 */
enum { PACK_MAX = NAMES_MAX + 6 };

typedef struct Pack {
	const char *src[PACK_MAX];
	char **dst[PACK_MAX];
	size_t len[PACK_MAX];
	int in[PACK_MAX]; /* the string this one ends, -1: copied */
	size_t n;
	size_t size; /* bytes the copies take */
} Pack;

static void pack_add(Pack *p, const char *s, char **dst)
{
	size_t i = p->n++, len;

	assert(i < PACK_MAX);
	p->src[i] = s;
	p->dst[i] = dst;
	p->in[i] = -1;
	if (!s)
		return;
	len = p->len[i] = strlen(s);
	for (size_t j = 0; j < i; j++)
		if (p->src[j] && p->in[j] < 0 && p->len[j] >= len &&
		    memcmp(p->src[j] + p->len[j] - len, s, len) == 0) {
			p->in[i] = (int)j;
			return;
		}
	p->size += len + 1;
}

/* Copy the strings to @pos (p->size bytes) and set each destination. */
static void pack_put(const Pack *p, char *pos)
{
	for (size_t i = 0; i < p->n; i++) {
		if (!p->src[i])
			*p->dst[i] = NULL;
		else if (p->in[i] >= 0)
			*p->dst[i] = *p->dst[p->in[i]] + p->len[p->in[i]] - p->len[i];
		else {
			*p->dst[i] = memcpy(pos, p->src[i], p->len[i] + 1);
			pos += p->len[i] + 1;
		}
	}
}

int lu_naming_path_keys(const LuNaming *n, char **ret_lu, char **ret_port)
{
	_cleanup_free_ char *lu = NULL, *port = NULL;
	ProbeData pd;
	int r;

	assert_return(n && ret_lu && ret_port, -EINVAL);

	if (!n->keys_in_pages) {
		if ((n->lu_key && !(lu = strdup(n->lu_key))) ||
		    (n->port_key && !(port = strdup(n->port_key))))
			return -ENOMEM;
	} else if (naming_pages(n, &pd) >= 0 && pd.buf[PROBE_PG83]) {
		r = lupath_keys(pd.buf[PROBE_PG83], pd.len[PROBE_PG83], &lu, &port);
		/* A malformed page proves nothing: no keys, as lu_compute_names() decided. */
		if (r == -ENOMEM)
			return r;
	}
	*ret_lu = TAKE_PTR(lu);
	*ret_port = TAKE_PTR(port);
	return 0;
}

LuRelation lu_naming_relation(const LuNaming *a, const LuNaming *b)
{
	_cleanup_free_ char *lu_a = NULL, *port_a = NULL, *lu_b = NULL, *port_b = NULL;

	if (!a->keys_in_pages && !b->keys_in_pages)
		return lupath_relation(a->lu_key, a->port_key, b->lu_key, b->port_key);
	if (lu_naming_path_keys(a, &lu_a, &port_a) < 0 ||
	    lu_naming_path_keys(b, &lu_b, &port_b) < 0)
		return LU_RELATION_CLONES;
	return lupath_relation(lu_a, port_a, lu_b, port_b);
}

int lu_naming_scsi_id(const LuNaming *n, Identity *ret)
{
	/* scsi_id's ID_* set, as `lunctl id --export` prints it first. */
	static const IdentifyOptions opts = { .no_names = true, .udev_lines_only = true };
	_cleanup_(identity_done) Identity ident = {};
	int r;

	assert_return(n && ret, -EINVAL);
	r = naming_identify(n, &opts, &ident);
	if (r < 0)
		return r;
	/* The pages are @n's: the view must not point at them once @n changes. */
	ident.id->in = (ScsiIdentInput){};
	*ret = TAKE_STRUCT(ident);
	return 0;
}

int lu_naming_rule_name(const LuNaming *n, NameRule rule, char ret[static NAME_MAX + 1])
{
	static const IdentifyOptions opts = { .no_names = true, .no_lines = true };
	_cleanup_(identity_done) Identity ident = {};
	int r;

	assert_return(n, -EINVAL);
	ret[0] = 0;
	/* The 254 bytes of page 0x80 kept are all scsi_id reads of it; only unit-serial reads
	 * them. */
	if (rule == NAME_RULE_UNIT_SERIAL && n->n_names > 0) {
		r = naming_identify(n, &opts, &ident);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return 0;
	}
	return name_rule_name(rule, n->n_names > 0 ? n->names[0] : NULL, n->id_path,
	                      ident.id ? &ident.id->in : NULL, ret);
}

int lu_compute_names(int rootfd, const LuRef *ref, const ProbeData *pd, unsigned scsi_level,
                     bool is_cdrom, const UdevRules *rules, LuNaming *ret)
{
	_cleanup_(identity_done) Identity ident = {};
	_cleanup_free_ char *lu_key = NULL, *port_key = NULL;
	/* The inventory rebuilds scsi_id's lines when a client asks (lu_naming_scsi_id()). */
	const IdentifyOptions opts = {
		.no_lines = true,
		.rules = rules,
		/* the inventory's, read with the LU's other attributes */
		.have_scsi_level = true,
		.scsi_level = scsi_level,
	};
	LuNaming n = {};
	char *name_at[NAMES_MAX];
	Pack pack = {};
	size_t n_names, size, pages_size, pad;
	const char *bus;
	char *pos;
	int r;

	assert_return(pd && ret, -EINVAL);

	r = identify_pages(rootfd, ref, pd, &opts, &ident);
	if (r < 0)
		return r;

	/* Page 0x83 kept whole: its keys are derived from it when needed (a few hundred
	 * bytes of hex per LU otherwise, for the rare name two LUs want). */
	n.keys_in_pages = pd->buf[PROBE_PG83] && pd->len[PROBE_PG83] <= IDENT_SCSI_ID_BUF_LEN;
	if (pd->buf[PROBE_PG83] && !n.keys_in_pages) {
		r = lupath_keys(pd->buf[PROBE_PG83], pd->len[PROBE_PG83], &lu_key, &port_key);
		/* A malformed page proves nothing: no keys, so never a path of another LU. */
		if (r == -ENOMEM)
			return r;
	}

	/* Every string and the pages in one allocation, which starts with the pages (what
	 * lu_naming_done() frees), then the names array at a pointer's alignment. */
	n_names = ident.names->n;
	pages_size = naming_pages_size(pd);
	pad = (alignof(char *) - pages_size % alignof(char *)) % alignof(char *);
	/* The names first: the serial and the WWN end them. */
	for (size_t i = 0; i < n_names; i++)
		pack_add(&pack, ident.names->name[i], &name_at[i]);
	pack_add(&pack, ident.serial, &n.serial);
	pack_add(&pack, ident.wwn, &n.wwn);
	pack_add(&pack, ident.path.path, &n.id_path);
	pack_add(&pack, ident.path.ata_compat, &n.id_path_ata_compat);
	pack_add(&pack, ident.path.usb_revision, &n.id_path_usb_revision);
	pack_add(&pack, lu_key, &n.lu_key);
	pack_add(&pack, port_key, &n.port_key);
	size = pages_size + pad + n_names * sizeof(char *) + pack.size;
	n.scsi_pages = malloc(size);
	if (!n.scsi_pages)
		return -ENOMEM;
	n.scsi_pages_size = (unsigned short)pages_size;
	naming_keep_pages(n.scsi_pages, pd, ident.pg00_inferred);
	pos = (char *)n.scsi_pages + pages_size + pad;
	if (n_names > 0) {
		n.names = (char **)(void *)pos;
		n.n_names = (unsigned)n_names;
		pos += n_names * sizeof(char *);
	}
	pack_put(&pack, pos);
	for (size_t i = 0; i < n_names; i++)
		n.names[i] = name_at[i];
	assert(pos + pack.size == (char *)n.scsi_pages + size);

	bus = names_bus_name(ident.bus);
	n.bus = isempty(bus) ? NULL : bus;
	n.path_virtual = ident.path.virtual_dev;
	n.have_usb_ids = ident.udev->have_usb_ids;
	n.usb_vendor = (unsigned short)ident.udev->usb_vendor;
	n.usb_product = (unsigned short)ident.udev->usb_product;

	*ret = n;
	return 0;
}
