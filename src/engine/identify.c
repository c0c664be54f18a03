/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "grow.h"
#include "identify.h"
#include "macro.h"

/*
 * The three working buffers of an identification (~7 KiB: UdevCtx, ScsiIdent, NamesList), one
 * set kept per thread and reused: lund identifies LUs on its loop and on its identify threads,
 * one at a time in each. Allocated and freed per LU, they left holes in the heap that the
 * daemon's long-lived per-LU strings were carved from, so the next LU's buffers grew the heap
 * again (at 4096 LUs the arena was half as big again as what was in use). The set goes back to
 * its thread's slot in identity_done() and is freed when the thread ends.
 */
typedef struct IdentifyBuffers {
	UdevCtx *udev;
	ScsiIdent *id;
	NamesList *names;
} IdentifyBuffers;

static pthread_key_t buffers_key;
static pthread_once_t buffers_once = PTHREAD_ONCE_INIT;
static bool buffers_key_ok;

static void buffers_free(void *p)
{
	IdentifyBuffers *b = p;

	if (!b)
		return;
	free(b->udev);
	free(b->id);
	free(b->names);
	free(b);
}

static void buffers_key_init(void)
{
	buffers_key_ok = pthread_key_create(&buffers_key, buffers_free) == 0;
}

/* This thread's set (zeroed), or a new one; NULL without memory. */
static IdentifyBuffers *buffers_get(void)
{
	IdentifyBuffers *b = NULL;

	(void)pthread_once(&buffers_once, buffers_key_init);
	if (buffers_key_ok) {
		b = pthread_getspecific(buffers_key);
		if (b)
			(void)pthread_setspecific(buffers_key, NULL);
	}
	if (!b) {
		b = calloc(1, sizeof(*b));
		if (!b)
			return NULL;
		b->udev = malloc(sizeof(*b->udev));
		b->id = malloc(sizeof(*b->id));
		b->names = malloc(sizeof(*b->names));
		if (!b->udev || !b->id || !b->names) {
			buffers_free(b);
			return NULL;
		}
	}
	*b->udev = (UdevCtx){};
	*b->id = (ScsiIdent){};
	b->names->n = 0;
	return b;
}

/* Back to this thread's slot, or freed when it holds a set already. */
static void buffers_put(IdentifyBuffers *b)
{
	if (!b)
		return;
	if (buffers_key_ok && !pthread_getspecific(buffers_key) &&
	    pthread_setspecific(buffers_key, b) == 0)
		return;
	buffers_free(b);
}

void identity_done(Identity *i)
{
	if (!i)
		return;
	probe_data_done(&i->pages);
	buffers_put(i->buffers);
	free(i->serial);
	free(i->wwn);
	free(i->lines);
	pathid_done(&i->path);
	*i = (Identity){};
}

const char *identity_next_line(const Identity *i, const char *prev, bool udev_only)
{
	size_t end = udev_only ? i->udev_size : i->lines_size;
	const char *p = prev ? prev + strlen(prev) + 1 : i->lines;

	return p && p < i->lines + end ? p : NULL;
}

static int collect_line(const char *key, const char *value, void *userdata)
{
	Identity *i = userdata;
	size_t kl = strlen(key), vl = strlen(value), add = kl + 1 + vl + 1;
	char *p;

	if (GREEDY_REALLOC_EXACT(i->lines, i->lines_size + add) < 0)
		return -ENOMEM;
	p = i->lines + i->lines_size;
	memcpy(p, key, kl);
	p[kl] = '=';
	memcpy(p + kl + 1, value, vl + 1);
	i->lines_size += add;
	i->n_lines++;
	return 0;
}

/* See identify.h: only a device that rejected page 0x00 keeps the cached pages from standing
 * in for it. */
static bool pg00_inferable(const ProbeData *pd)
{
	return !pd->buf[PROBE_PG00] && pd->error[PROBE_PG00] != -EOPNOTSUPP;
}

/* The "<bus>-<serial>" and "wwn-" inputs, as names_by_id_full() takes them. */
static int identity_set_base(Identity *i)
{
	const ScsiIdent *id = i->id;
	const char *serial, *wwn;

	i->bus = names_bus(id, i->udev->scsi_level);
	serial = i->bus == NAMES_BUS_ATA ? id->ata.serial : id->serial;
	wwn = i->bus == NAMES_BUS_ATA ? id->ata.wwn : id->wwn;
	if (!isempty(serial)) {
		i->serial = strdup(serial);
		if (!i->serial)
			return -ENOMEM;
	}
	if (!isempty(wwn) &&
	    asprintf(&i->wwn, "0x%s%s", wwn,
	             i->bus == NAMES_BUS_SCSI ? id->wwn_vendor_extension : "") < 0) {
		i->wwn = NULL;
		return -ENOMEM;
	}
	return 0;
}

int identify_pages(int rootfd, const LuRef *lu, const ProbeData *pages, const IdentifyOptions *opts,
                   Identity *ret)
{
	_cleanup_(identity_done) Identity i = {};
	ScsiIdentInput in;
	int r;

	assert_return(lu && pages && ret, -EINVAL);

	if (!pages->buf[PROBE_INQUIRY])
		return -ENODATA;

	/* A few KiB each: never on the caller's (the event loop's) stack. */
	i.buffers = buffers_get();
	if (!i.buffers)
		return -ENOMEM;
	i.udev = i.buffers->udev;
	i.id = i.buffers->id;
	i.names = i.buffers->names;
	if (opts && opts->udev)
		*i.udev = *opts->udev;
	else if (!opts || !opts->no_names) {
		const UdevCtxKnown known = {
			.rules = opts ? opts->rules : NULL,
			.pages = pages,
			.have_scsi_level = opts && opts->have_scsi_level,
			.scsi_level = opts ? opts->scsi_level : 0,
		};

		r = udevctx_read_full(rootfd, lu, &known, i.udev);
		if (r < 0)
			return r;
	}

	/* path_id reads sysfs only; a device path that cannot be walked just has no ID_PATH. */
	r = lu->devpath   ? pathid_read_dev(rootfd, lu->devpath, &i.path)
	    : lu->syspath ? pathid_read(rootfd, lu->syspath, &i.path)
	                  : 0;
	if (r == -ENOMEM)
		return r;
	/* ID_PATH_WITH_USB_REVISION only from a udev that sets it */
	if (!i.udev->path_usb_revision)
		i.path.usb_revision = mfree(i.path.usb_revision);

	/* Exactly what udev's rules run: scsi_id with the default page selection. */
	i.pg00_inferred = pg00_inferable(pages);
	in = (ScsiIdentInput){
		.inquiry = pages->buf[PROBE_INQUIRY],
		.inquiry_len = pages->len[PROBE_INQUIRY],
		.pg00 = pages->buf[PROBE_PG00],
		.pg00_len = pages->len[PROBE_PG00],
		.pg80 = pages->buf[PROBE_PG80],
		.pg80_len = pages->len[PROBE_PG80],
		.pg83 = pages->buf[PROBE_PG83],
		.pg83_len = pages->len[PROBE_PG83],
		.pg89 = pages->buf[PROBE_PG89],
		.pg89_len = pages->len[PROBE_PG89],
		/* Only fills ata_id's view (names), never the scsi_id set. */
		.ata_identify = i.udev->have_ata_identify ? i.udev->ata_identify : NULL,
		.ata_identify_len = i.udev->have_ata_identify ? sizeof(i.udev->ata_identify) : 0,
		.page = IDENT_PAGE_DEFAULT,
		.pg00_infer = i.pg00_inferred,
	};
	r = ident_compute(&in, i.id);
	if (r < 0)
		return r;

	if (!opts || !opts->no_names) {
		r = identity_set_base(&i);
		if (r < 0)
			return r;

		/* A name refused for safety is left out; the identity and the lines stand. */
		r = udevctx_names(i.udev, lu, i.id, i.names);
		if (r == -ENOMEM)
			return r;
		i.names_error = r < 0 ? r : 0;
	}

	r = opts && opts->no_lines ? 0 : export_ident(i.id, EXPORT_UDEV, collect_line, &i);
	if (r < 0)
		return r;
	i.n_udev_lines = i.n_lines;
	i.udev_size = i.lines_size;
	if (!opts || (!opts->udev_lines_only && !opts->no_lines)) {
		r = export_ident(i.id, EXPORT_SG_INQ, collect_line, &i);
		if (r < 0)
			return r;
	}

	*ret = TAKE_STRUCT(i);
	return 0;
}

int identify_lu(int rootfd, const LuRef *lu, const IdentifyOptions *opts, Identity *ret)
{
	_cleanup_(probe_data_done) ProbeData pages = {};
	int r;

	assert_return(lu && ret, -EINVAL);

	r = probe_read(rootfd, lu, opts ? opts->flags : 0, &pages);
	if (r < 0)
		return r;
	r = identify_pages(rootfd, lu, &pages, opts, ret);
	if (r < 0)
		return r;
	/* The page buffers move, not their contents: ret->id keeps pointing at them. */
	ret->pages = pages;
	pages = (ProbeData){};
	return 0;
}
