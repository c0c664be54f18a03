/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The links lund gives one LU, computed here: the facts lund's inventory keeps (type, nodes,
 * partitions, dm-multipath's map) read from sysfs below --root, the names and ID_PATH of the
 * identify path lund uses (engine/identify.h), the hwdb's rule as lund looks it up, fed to the
 * one link scheme (engine/linkscheme.h).
 */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "identify.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "mpath.h"
#include "output.h"
#include "sysfs.h"

static int part_cmp(const void *a, const void *b)
{
	const LinkSchemePart *x = a, *y = b;

	return x->number < y->number ? -1 : x->number > y->number;
}

/* One partition of the LU's disk added to @userdata's LunctlLinks. */
static int part_add(const char *name, unsigned number, void *userdata)
{
	LunctlLinks *l = userdata;

	if (GREEDY_REALLOC_EXACT(l->parts, l->n_parts + 1) < 0)
		return -ENOMEM;
	l->parts[l->n_parts] = (LinkSchemePart){ .node = strdup(name), .number = number };
	return l->parts[l->n_parts++].node ? 0 : -ENOMEM;
}

void lunctl_links_done(LunctlLinks *l)
{
	link_scheme_done(&l->scheme);
	for (size_t p = 0; p < l->n_parts; p++)
		free((char *)l->parts[p].node);
	free(l->parts);
	free(l->names);
	free(l->tape_nr);
	free(l->mpath);
	free(l->rule_name);
	strv_free_n(l->aliases, l->in.n_aliases);
	*l = (LunctlLinks){};
}

int lunctl_links(const Options *o, const LuRef *lu, const Identity *i, const char *state_dir,
                 LunctlLinks *ret)
{
	_cleanup_(lunctl_links_done) LunctlLinks l = {};
	_cleanup_close_ int rootfd = -EBADF;
	_cleanup_free_ char *uuid = NULL;
	NameRule rule = NAME_RULE_IDENTITY;
	char rule_name[NAME_MAX + 1];
	uint64_t type = UINT64_MAX;
	int r;

	rootfd = sysfs_open_root(o->root);
	if (rootfd < 0)
		return rootfd;
	if (lu->syspath)
		(void)sysfs_attr_u64(rootfd, lu->syspath, "type", &type);
	if (lu->tape && asprintf(&l.tape_nr, "n%s", lu->tape) < 0)
		return -ENOMEM;
	if (lu->block) {
		r = mpath_holder(rootfd, lu->block, &l.mpath, &uuid);
		if (r == -ENOMEM)
			return r;
		/* as lund's inventory reads them, in number order */
		r = sysfs_for_each_partition(rootfd, lu->syspath, lu->block, part_add, &l);
		if (r < 0 && r != -ENOMEM)
			r = 0; /* an unreadable directory: no partitions, as lund sees it */
		if (r < 0)
			return r;
		if (l.n_parts > 1)
			qsort(l.parts, l.n_parts, sizeof(*l.parts), part_cmp);
	}
	l.names = calloc(i->names->n ?: 1, sizeof(*l.names));
	if (!l.names)
		return -ENOMEM;
	for (size_t k = 0; k < i->names->n; k++)
		l.names[k] = i->names->name[k];
	r = lunctl_rule_name(o, lu, i, &rule, rule_name);
	if (r < 0)
		return r;
	if (r > 0 && !(l.rule_name = strdup(rule_name)))
		return -ENOMEM;
	l.in = (LinkSchemeInput){
		.type = type <= 0x1f ? (int)type : -1,
		.block = lu->block,
		.sg = lu->sg,
		.tape = lu->tape,
		.tape_nr = l.tape_nr,
		.mpath = l.mpath,
		.parts = l.parts,
		.n_parts = l.n_parts,
		.names = l.names,
		.n_names = i->names->n,
		.id_path = i->path.path,
		.id_path_ata_compat = i->path.ata_compat,
		.id_path_usb_revision = i->path.usb_revision,
		.path_virtual = i->path.virtual_dev,
		.rule = rule,
		.rule_name = l.rule_name,
		.set = { true, true, true, true },
	};
	if (state_dir) {
		r = lunctl_names_aliases(o, state_dir, i, &l.in, &l.aliases, &l.in.n_aliases);
		if (r < 0)
			return r;
		l.in.aliases = (const char *const *)l.aliases;
	}
	r = link_scheme_compute(&l.in, &l.scheme);
	if (r < 0)
		return r;
	*ret = TAKE_STRUCT(l);
	return 0;
}

json_object *lunctl_links_json(const LunctlLinks *l)
{
	json_object *a = json_object_new_array();

	for (size_t k = 0; a && k < l->scheme.n; k++) {
		const LinkSchemeLink *x = &l->scheme.links[k];
		json_object *o = json_object_new_object();
		_cleanup_free_ char *path = NULL;

		if (!o || asprintf(&path, "/dev/%s/%s", link_scheme_set_dir(x->set), x->name) < 0) {
			json_object_put(o);
			json_object_put(a);
			return NULL;
		}
		json_object_object_add(o, "path", json_object_new_string(path));
		json_object_object_add(o, "set",
		                       json_object_new_string(link_scheme_set_name(x->set)));
		json_object_object_add(o, "name", json_object_new_string(x->name));
		json_object_object_add(o, "node", json_object_new_string(x->node));
		json_object_object_add(o, "alias", json_object_new_boolean(x->alias));
		json_object_object_add(o, "reason", json_object_new_string(x->reason));
		json_object_array_add(a, o);
	}
	return a;
}

void lunctl_links_print(const LunctlLinks *l)
{
	for (size_t k = 0; k < l->scheme.n; k++) {
		const LinkSchemeLink *x = &l->scheme.links[k];

		printf("link   /dev/%s/%s -> %s (%s)\n", link_scheme_set_dir(x->set), x->name,
		       x->node, x->reason);
	}
}
