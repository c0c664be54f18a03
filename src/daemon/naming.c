/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "ident.h"
#include "macro.h"
#include "names.h"
#include "naming.h"
#include "udevctx.h"

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
	free(n->id_type);
	free(n->id_vendor);
	free(n->id_model);
	free(n->id_revision);
	free(n->id_serial);
	free(n->props);
	*n = (LuNaming){};
}

bool lu_naming_equal(const LuNaming *a, const LuNaming *b)
{
	if (!streq_ptr(a->serial, b->serial) || !streq_ptr(a->wwn, b->wwn) ||
	    !streq_ptr(a->bus, b->bus) || a->n_names != b->n_names)
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

static char *strdup_nonempty(const char *s, bool *oom)
{
	char *d;

	if (isempty(s))
		return NULL;
	d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

const char *lu_naming_next_prop(const LuNaming *n, const char *prev)
{
	const char *p = prev ? prev + strlen(prev) + 1 : n->props;

	return p && p < n->props + n->props_size ? p : NULL;
}

static int collect_prop(const char *key, const char *value, void *userdata)
{
	LuNaming *n = userdata;
	size_t kl = strlen(key), vl = strlen(value), add = kl + 1 + vl + 1;
	char *p;

	p = realloc(n->props, n->props_size + add);
	if (!p)
		return -ENOMEM;
	n->props = p;
	p += n->props_size;
	memcpy(p, key, kl);
	p[kl] = '=';
	memcpy(p + kl + 1, value, vl + 1);
	n->props_size += add;
	n->n_props++;
	return 0;
}

/* What `lunctl list` shows of scsi_id's result: its strings and its --export properties. */
static int naming_set_ident(LuNaming *n, const ScsiIdent *id)
{
	n->id_type = id->type ? strdup(id->type) : NULL;
	n->id_vendor = strdup(id->vendor);
	n->id_model = strdup(id->model);
	n->id_revision = strdup(id->revision);
	n->id_serial = id->have_serial ? strdup(id->serial) : NULL;
	if ((id->type && !n->id_type) || !n->id_vendor || !n->id_model || !n->id_revision ||
	    (id->have_serial && !n->id_serial))
		return -ENOMEM;
	return export_ident(id, EXPORT_UDEV, collect_prop, n);
}

int lu_compute_names(int rootfd, const LuRef *ref, const ProbeData *pd, unsigned scsi_level,
                     bool is_cdrom, LuNaming *ret)
{
	_cleanup_(lu_naming_done) LuNaming n = {};
	_cleanup_free_ ScsiIdent *id = NULL;
	_cleanup_free_ UdevCtx *udev = NULL;
	_cleanup_free_ NamesList *list = NULL;
	ScsiIdentInput in = {};
	bool oom = false;
	int r;

	assert_return(pd && ret, -EINVAL);

	if (!pd->buf[PROBE_INQUIRY])
		return -ENODATA;

	/* What udev's rules look at besides the pages (USB parent, libata IDENTIFY, which
	 * rule files exist), so the names are those of /dev/disk/by-id, as lunctl's. */
	udev = calloc(1, sizeof(*udev));
	list = calloc(1, sizeof(*list));
	if (!udev || !list)
		return -ENOMEM;
	r = udevctx_read(rootfd, ref, udev);
	if (r < 0)
		return r;

	/* Exactly what udev's rules run: scsi_id with the default page selection. Page 0x00 is
	 * absent when only the kernel's cache was read: let the cached pages stand in for it. */
	in = (ScsiIdentInput){
		.inquiry = pd->buf[PROBE_INQUIRY],
		.inquiry_len = pd->len[PROBE_INQUIRY],
		.pg00 = pd->buf[PROBE_PG00],
		.pg00_len = pd->len[PROBE_PG00],
		.pg80 = pd->buf[PROBE_PG80],
		.pg80_len = pd->len[PROBE_PG80],
		.pg83 = pd->buf[PROBE_PG83],
		.pg83_len = pd->len[PROBE_PG83],
		.pg89 = pd->buf[PROBE_PG89],
		.pg89_len = pd->len[PROBE_PG89],
		.ata_identify = udev->have_ata_identify ? udev->ata_identify : NULL,
		.ata_identify_len = udev->have_ata_identify ? sizeof(udev->ata_identify) : 0,
		.page = IDENT_PAGE_DEFAULT,
		.pg00_infer = !pd->buf[PROBE_PG00],
	};

	/* A few KiB: keep it off the event loop's stack. */
	id = calloc(1, sizeof(*id));
	if (!id)
		return -ENOMEM;
	r = ident_compute(&in, id);
	if (r < 0)
		return r;

	{
		NamesBus bus = names_bus(id, scsi_level);
		const char *serial = bus == NAMES_BUS_ATA ? id->ata.serial : id->serial;
		const char *wwn = bus == NAMES_BUS_ATA ? id->ata.wwn : id->wwn;

		n.bus = strdup_nonempty(names_bus_name(bus), &oom);
		n.serial = strdup_nonempty(serial, &oom);
		if (!isempty(wwn) &&
		    asprintf(&n.wwn, "0x%s%s", wwn,
		             bus == NAMES_BUS_SCSI ? id->wwn_vendor_extension : "") < 0) {
			n.wwn = NULL;
			oom = true;
		}
		if (oom)
			return -ENOMEM;

		r = udevctx_names(udev, ref, id, list);
		if (r < 0 && r != -EINVAL)
			return r;
	}

	if (list->n > 0) {
		n.names = calloc(list->n, sizeof(char *));
		if (!n.names)
			return -ENOMEM;
		for (size_t i = 0; i < list->n; i++) {
			n.names[i] = strdup(list->name[i]);
			if (!n.names[i])
				return -ENOMEM;
			n.n_names++;
		}
	}

	r = naming_set_ident(&n, id);
	if (r < 0)
		return r;

	*ret = n;
	n = (LuNaming){};
	return 0;
}
