/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identify.h"
#include "lupath.h"
#include "macro.h"
#include "naming.h"

void lu_naming_done(LuNaming *n)
{
	if (!n)
		return;
	free(n->serial);
	free(n->wwn);
	free(n->bus);
	for (size_t i = 0; i < n->n_names; i++)
		free(n->names[i]);
	free(n->names);
	free(n->id_path);
	free(n->id_path_ata_compat);
	free(n->id_type);
	free(n->id_vendor);
	free(n->id_model);
	free(n->id_revision);
	free(n->id_serial);
	free(n->props);
	free(n->lu_key);
	free(n->port_key);
	*n = (LuNaming){};
}

bool lu_naming_equal(const LuNaming *a, const LuNaming *b)
{
	if (!streq_ptr(a->serial, b->serial) || !streq_ptr(a->wwn, b->wwn) ||
	    !streq_ptr(a->bus, b->bus) || a->n_names != b->n_names ||
	    !streq_ptr(a->id_path, b->id_path) ||
	    !streq_ptr(a->id_path_ata_compat, b->id_path_ata_compat) ||
	    a->path_virtual != b->path_virtual || !streq_ptr(a->lu_key, b->lu_key) ||
	    !streq_ptr(a->port_key, b->port_key) || a->have_usb_ids != b->have_usb_ids ||
	    a->usb_vendor != b->usb_vendor || a->usb_product != b->usb_product)
		return false;
	for (size_t i = 0; i < a->n_names; i++)
		if (!streq(a->names[i], b->names[i]))
			return false;
	if (!streq_ptr(a->id_type, b->id_type) || !streq_ptr(a->id_vendor, b->id_vendor) ||
	    !streq_ptr(a->id_model, b->id_model) || !streq_ptr(a->id_revision, b->id_revision) ||
	    !streq_ptr(a->id_serial, b->id_serial) || a->n_props != b->n_props ||
	    a->props_size != b->props_size ||
	    (a->props_size > 0 && memcmp(a->props, b->props, a->props_size) != 0))
		return false;
	return true;
}

const char *lu_naming_next_prop(const LuNaming *n, const char *prev)
{
	const char *p = prev ? prev + strlen(prev) + 1 : n->props;

	return p && p < n->props + n->props_size ? p : NULL;
}

/* What `lunctl list` shows of scsi_id's result: its strings and its --export properties. */
static int naming_set_ident(LuNaming *n, const Identity *ident)
{
	const ScsiIdent *id = ident->id;

	n->id_type = id->type ? strdup(id->type) : NULL;
	n->id_vendor = strdup(id->vendor);
	n->id_model = strdup(id->model);
	n->id_revision = strdup(id->revision);
	n->id_serial = id->have_serial ? strdup(id->serial) : NULL;
	if ((id->type && !n->id_type) || !n->id_vendor || !n->id_model || !n->id_revision ||
	    (id->have_serial && !n->id_serial))
		return -ENOMEM;
	if (ident->udev_size > 0) {
		n->props = malloc(ident->udev_size);
		if (!n->props)
			return -ENOMEM;
		memcpy(n->props, ident->lines, ident->udev_size);
	}
	n->props_size = ident->udev_size;
	n->n_props = ident->n_udev_lines;
	return 0;
}

int lu_compute_names(int rootfd, const LuRef *ref, const ProbeData *pd, unsigned scsi_level,
                     bool is_cdrom, LuNaming *ret)
{
	_cleanup_(lu_naming_done) LuNaming n = {};
	_cleanup_(identity_done) Identity ident = {};
	/* The inventory keeps scsi_id's set only (LuNaming.props). */
	const IdentifyOptions opts = { .udev_lines_only = true };
	const char *bus;
	int r;

	assert_return(pd && ret, -EINVAL);

	r = identify_pages(rootfd, ref, pd, &opts, &ident);
	if (r < 0)
		return r;

	if (pd->buf[PROBE_PG83]) {
		r = lupath_keys(pd->buf[PROBE_PG83], pd->len[PROBE_PG83], &n.lu_key, &n.port_key);
		/* A malformed page proves nothing: no keys, so never a path of another LU. */
		if (r == -ENOMEM)
			return r;
	}

	bus = names_bus_name(ident.bus);
	n.bus = isempty(bus) ? NULL : strdup(bus);
	n.serial = TAKE_PTR(ident.serial);
	n.wwn = TAKE_PTR(ident.wwn);
	if (!isempty(bus) && !n.bus)
		return -ENOMEM;

	if (ident.names->n > 0) {
		n.names = calloc(ident.names->n, sizeof(char *));
		if (!n.names)
			return -ENOMEM;
		for (size_t i = 0; i < ident.names->n; i++) {
			n.names[i] = strdup(ident.names->name[i]);
			if (!n.names[i])
				return -ENOMEM;
			n.n_names++;
		}
	}

	n.id_path = TAKE_PTR(ident.path.path);
	n.id_path_ata_compat = TAKE_PTR(ident.path.ata_compat);
	n.path_virtual = ident.path.virtual_dev;
	n.have_usb_ids = ident.udev->have_usb_ids;
	n.usb_vendor = (unsigned short)ident.udev->usb_vendor;
	n.usb_product = (unsigned short)ident.udev->usb_product;

	r = naming_set_ident(&n, &ident);
	if (r < 0)
		return r;

	*ret = n;
	n = (LuNaming){};
	return 0;
}
