/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "linkscheme.h"
#include "links.h"
#include "macro.h"
#include "names.h"
#include "pathtag.h"

/* SPC peripheral device types the scheme tells apart (SPC-6 table 6). */
enum {
	PDT_DISK = 0x00,
	PDT_TAPE = 0x01,
	PDT_WORM = 0x04,
	PDT_CDROM = 0x05,
	PDT_OPTICAL = 0x07,
	PDT_RBC = 0x0e,
	PDT_ZBC = 0x14,
};

static const char *const set_names[_LINK_SCHEME_SET_MAX] = {
	[LINK_SCHEME_SCSI] = "scsi",
	[LINK_SCHEME_DISK] = "disk",
	[LINK_SCHEME_SCSI_PATH] = "scsi-path",
	[LINK_SCHEME_DISK_PATH] = "disk-path",
};

static const char *const set_dirs[_LINK_SCHEME_SET_MAX] = {
	[LINK_SCHEME_SCSI] = "scsi/by-id",
	[LINK_SCHEME_DISK] = "disk/by-id",
	[LINK_SCHEME_SCSI_PATH] = "scsi/by-path",
	[LINK_SCHEME_DISK_PATH] = "disk/by-path",
};

DEFINE_NAME_LOOKUP(link_scheme_set_name, LinkSchemeSet, set_names)
DEFINE_NAME_LOOKUP(link_scheme_set_dir, LinkSchemeSet, set_dirs)

/* Disk-like and CD/DVD: the types sd and sr bind, which udev's disk/ rules name. */
static bool type_has_block(int type)
{
	return type == PDT_DISK || type == PDT_OPTICAL || type == PDT_RBC || type == PDT_ZBC ||
	       type == PDT_WORM || type == PDT_CDROM;
}

const char *link_scheme_primary(const LinkSchemeInput *in)
{
	if (!in)
		return NULL;
	if (type_has_block(in->type))
		return in->block;
	if (in->type == PDT_TAPE)
		return in->tape;
	return in->sg;
}

size_t link_scheme_scsi_names(const LinkSchemeInput *in, const char **ret)
{
	if (in->rule_name) {
		ret[0] = in->rule_name;
		return 1;
	}
	for (size_t k = 0; k < in->n_names; k++)
		ret[k] = in->names[k];
	return in->n_names;
}

/* The links being handed out: the input, where they go, and whether they are aliases now. */
typedef struct Scheme {
	const LinkSchemeInput *in;
	link_scheme_emit_t emit;
	void *userdata;
	bool alias;
} Scheme;

void link_scheme_reason(const LinkSchemeName *l, char buf[static LINK_SCHEME_REASON_MAX])
{
	(void)snprintf(buf, LINK_SCHEME_REASON_MAX, "%s%s%s", l->why, *l->suffix ? " " : "",
	               l->suffix);
}

/* @base@suffix -> @node in @set, for @why (the kind of name); 0 also when it makes no link. */
static int add(Scheme *s, LinkSchemeSet set, const char *base, const char *suffix, const char *node,
               const char *why)
{
	char name[NAME_MAX + 1];
	size_t nb = strlen(base), ns = strlen(suffix);

	if (!s->in->set[set] || !node)
		return 0;
	if (nb + ns > NAME_MAX)
		return 0; /* a suffix pushed it past NAME_MAX: no such link */
	memcpy(name, base, nb);
	memcpy(name + nb, suffix, ns + 1);
	if (links_name_valid(name) < 0)
		return 0;
	return s->emit(s->userdata, &(const LinkSchemeName){ .set = set,
	                                                     .alias = s->alias,
	                                                     .node = node,
	                                                     .name = name,
	                                                     .why = why,
	                                                     .suffix = suffix });
}

/* "-partN" of partition @p. */
static void part_suffix(const LinkSchemePart *p, char buf[static 16])
{
	(void)snprintf(buf, 16, "-part%u", p->number);
}

/* 1. The by-path links. */
static int path_links(Scheme *s)
{
	const LinkSchemeInput *in = s->in;
	const char *values[] = { in->id_path, in->id_path_ata_compat, in->id_path_usb_revision };
	const char *whys[] = { "by-path", "ata-compat", "usb-revision" };
	char base[NAME_MAX + 1];
	int r;

	if (!in->id_path || pathtag_link_name(in->id_path, NULL, base, sizeof(base)) < 0)
		return 0;
	r = add(s, LINK_SCHEME_SCSI_PATH, base, "", link_scheme_primary(in), "by-path");
	if (r >= 0 && in->type == PDT_TAPE)
		r = add(s, LINK_SCHEME_SCSI_PATH, base, "-nst", in->tape_nr, "by-path");
	if (r >= 0)
		r = add(s, LINK_SCHEME_SCSI_PATH, base, "-sg", in->sg, "by-path");

	/* udev's rules make disk/by-path names for sd and sr nodes outside devices/virtual/. */
	if (r < 0 || !in->block || in->path_virtual)
		return r;
	for (size_t v = 0; r >= 0 && v < ELEMENTSOF(values); v++) {
		char name[NAME_MAX + 1];

		if (!values[v] || pathtag_link_name(values[v], NULL, name, sizeof(name)) < 0)
			continue;
		r = add(s, LINK_SCHEME_DISK_PATH, name, "", in->block, whys[v]);
		for (size_t p = 0; r >= 0 && p < in->n_parts; p++) {
			char suffix[16];
			size_t n;

			/* udev replaces bytes in the value and suffix together (pathtag.h);
			 * "-partN" has none it replaces, so the name ends in it */
			part_suffix(&in->parts[p], suffix);
			if (pathtag_link_name(values[v], suffix, name, sizeof(name)) < 0)
				continue;
			n = strlen(name) - strlen(suffix);
			name[n] = 0;
			r = add(s, LINK_SCHEME_DISK_PATH, name, suffix, in->parts[p].node, whys[v]);
		}
	}
	return r;
}

/* The scsi set's links of base name @b: on the dm-multipath map instead of its disk. */
static int scsi_links(Scheme *s, const char *b, const char *why)
{
	const LinkSchemeInput *in = s->in;
	const char *primary = link_scheme_primary(in);
	int r;

	if (in->mpath && streq_ptr(primary, in->block))
		primary = in->mpath;
	r = add(s, LINK_SCHEME_SCSI, b, "", primary, why);
	if (r >= 0 && in->type == PDT_TAPE)
		r = add(s, LINK_SCHEME_SCSI, b, "-nst", in->tape_nr, why);
	if (r >= 0)
		r = add(s, LINK_SCHEME_SCSI, b, "-sg", in->sg, why);
	return r;
}

/* The by-id links of base name @b: the scsi set's unless @scsi is false, and the disk set's. */
static int id_links(Scheme *s, const char *b, bool scsi, const char *why)
{
	const LinkSchemeInput *in = s->in;
	bool sr = in->block && strneq(in->block, "sr", 2);
	int r = scsi ? scsi_links(s, b, why) : 0;

	if (r < 0 || !type_has_block(in->type) || !in->block)
		return r;
	/* /dev/disk/by-id as udev's 60-persistent-storage.rules make it. */
	r = add(s, LINK_SCHEME_DISK, b, "", in->mpath ?: in->block, why);
	for (size_t p = 0; r >= 0 && !sr && !in->mpath && p < in->n_parts; p++) {
		char suffix[16];

		part_suffix(&in->parts[p], suffix);
		r = add(s, LINK_SCHEME_DISK, b, suffix, in->parts[p].node, why);
	}
	return r;
}

static bool is_name(const LinkSchemeInput *in, const char *base)
{
	for (size_t k = 0; k < in->n_names; k++)
		if (streq(in->names[k], base))
			return true;
	return false;
}

bool link_scheme_alias(const LinkSchemeInput *in, const char *base)
{
	if (in->n_names == 0 || isempty(base) || strchr(base, '/') ||
	    (in->rule == NAME_RULE_SERIAL_PATH && in->rule_name) ||
	    names_serial_path_other(in->names[0], in->id_path, base))
		return false;
	return in->rule_name ? !streq(in->rule_name, base) : !is_name(in, base);
}

/* The kind of name a rule's name is, "rule serial-path". */
static const char *rule_why(NameRule rule)
{
	switch (rule) {
	case NAME_RULE_IDENTITY:
		return "rule identity";
	case NAME_RULE_SERIAL_PATH:
		return "rule serial-path";
	case NAME_RULE_UNIT_SERIAL:
		return "rule unit-serial";
	default:
		return "rule ?";
	}
}

int link_scheme_foreach(const LinkSchemeInput *in, link_scheme_emit_t emit, void *userdata)
{
	Scheme s = { .in = in, .emit = emit, .userdata = userdata };
	int r;

	if (!in || !emit)
		return -EINVAL;
	r = path_links(&s);
	/* serial-path, unit-serial: lund's tree has that name instead of the identity's. */
	if (r >= 0 && in->rule_name)
		r = scsi_links(&s, in->rule_name, rule_why(in->rule));
	for (size_t i = 0; r >= 0 && i < in->n_names; i++)
		r = id_links(&s, in->names[i], !in->rule_name, "by-id");
	/* No current name: the LU is not identified (yet), and nothing says whose aliases. */
	s.alias = true;
	for (size_t i = 0; r >= 0 && in->n_names > 0 && i < in->n_aliases; i++) {
		/* A base name the rule replaced in lund's tree stays in /dev/disk/by-id as a
		 * current name: there it is wanted once already. */
		if (is_name(in, in->aliases[i]))
			r = scsi_links(&s, in->aliases[i], "alias");
		else
			r = id_links(&s, in->aliases[i], true, "alias");
	}
	return r < 0 ? r : 0;
}

/* The gathering of link_scheme_compute(). */
typedef struct Gather {
	LinkScheme out;
	size_t alloc;
} Gather;

static int gather(void *userdata, const LinkSchemeName *n)
{
	Gather *g = userdata;
	LinkSchemeLink *l;

	if (GREEDY_REALLOC(g->out.links, g->alloc, g->out.n + 1) < 0)
		return -ENOMEM;
	l = &g->out.links[g->out.n++];
	*l = (LinkSchemeLink){ .set = n->set, .alias = n->alias, .node = n->node };
	(void)snprintf(l->name, sizeof(l->name), "%s", n->name);
	link_scheme_reason(n, l->reason);
	return 0;
}

int link_scheme_compute(const LinkSchemeInput *in, LinkScheme *ret)
{
	Gather g = {};
	int r;

	if (!in || !ret)
		return -EINVAL;
	r = link_scheme_foreach(in, gather, &g);
	if (r < 0) {
		link_scheme_done(&g.out);
		return r;
	}
	*ret = g.out;
	return 0;
}

void link_scheme_done(LinkScheme *s)
{
	if (!s)
		return;
	free(s->links);
	*s = (LinkScheme){};
}
