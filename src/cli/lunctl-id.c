/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identify.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "output.h"

static int print_human(const LuRef *lu, const Identity *ident)
{
	const ProbeData *d = &ident->pages;
	const ScsiIdent *id = ident->id;
	const NamesList *names = ident->names;

	printf("Device:    %s", lu->hctl);
	if (lu->block || lu->tape || lu->sg) {
		const char *sep = " (";

		if (lu->block) {
			printf("%s%s", sep, lu->block);
			sep = ", ";
		}
		if (lu->tape) {
			printf("%s%s", sep, lu->tape);
			sep = ", ";
		}
		if (lu->sg)
			printf("%s%s", sep, lu->sg);
		printf(")");
	}
	printf("\nType:      %s\n", id->type);
	printf("Vendor:    %s\n", id->vendor);
	printf("Model:     %s\n", id->model);
	printf("Revision:  %s\n", id->revision);
	if (id->have_serial) {
		_cleanup_free_ char *s = output_escape(id->serial, strlen(id->serial));

		printf("ID:        %s (from %s)\n", s ?: "?",
		       ident_serial_source_name(id->serial_source));
	} else
		printf("ID:        (none)\n");
	if (id->wwn[0])
		printf("WWN:       0x%s%s\n", id->wwn, id->wwn_vendor_extension);
	if (id->scsi_serial[0]) {
		_cleanup_free_ char *s = output_escape(id->scsi_serial, strlen(id->scsi_serial));

		printf("Serial:    %s\n", s ?: "?");
	}
	for (size_t i = 0; i < names->n; i++)
		printf("%s%s\n", i == 0 ? "Names:     " : "           ", names->name[i]);

	printf("Pages:    ");
	for (ProbePage p = 0; p < _PROBE_PAGE_MAX; p++)
		if (d->source[p] != PROBE_SOURCE_NONE)
			printf(" %s(%s)", probe_page_name(p), probe_source_name(d->source[p]));
	printf("\nCommands:  %u\n", d->commands);
	return 0;
}

/* udev's path_id properties of @ident, in the order path_id sets them, each escaped to @fn
 * (output.h); unset ones are skipped. Returns 0, -ENOMEM or what @fn returned. */
static int path_props(const Identity *ident, export_fn fn, void *userdata)
{
	const char *const key[] = { "ID_PATH_WITH_USB_REVISION", "ID_PATH", "ID_PATH_TAG",
		                    "ID_PATH_ATA_COMPAT" };
	const char *const value[] = { ident->path.usb_revision, ident->path.path, ident->path.tag,
		                      ident->path.ata_compat };

	for (size_t k = 0; k < ELEMENTSOF(key); k++) {
		_cleanup_free_ char *v = NULL;
		int r;

		if (!value[k])
			continue;
		v = output_escape(value[k], strlen(value[k]));
		if (!v)
			return -ENOMEM;
		r = fn(key[k], v, userdata);
		if (r < 0)
			return r;
	}
	return 0;
}

static int print_export(const Identity *ident)
{
	for (const char *kv = identity_next_line(ident, NULL, false); kv;
	     kv = identity_next_line(ident, kv, false))
		if (printf("%s\n", kv) < 0)
			return -EIO;
	/* After scsi_id's and sg_inq's lines: what 60-persistent-storage.rules imports next. */
	return path_props(ident, output_print_line, stdout);
}

static int print_json(const LuRef *lu, const Identity *ident)
{
	const ProbeData *d = &ident->pages;
	const NamesList *names = ident->names;
	_cleanup_(json_object_putp) json_object *root = json_object_new_object();
	json_object *nodes, *pages, *arr, *props;
	int r;

	if (!root)
		return -ENOMEM;

	json_object_object_add(root, "hctl", json_object_new_string(lu->hctl));
	nodes = lunctl_nodes_json(lu);
	if (!nodes)
		return -ENOMEM;
	json_object_object_add(root, "nodes", nodes);

	props = output_lines_json(ident->lines, ident->lines_size);
	if (!props)
		return -ENOMEM;
	json_object_object_add(root, "properties", props);
	r = path_props(ident, output_add_json, props);
	if (r < 0)
		return r;

	arr = json_object_new_array();
	json_object_object_add(root, "names", arr);
	for (size_t i = 0; i < names->n; i++)
		json_object_array_add(arr, json_object_new_string(names->name[i]));

	pages = json_object_new_object();
	json_object_object_add(root, "pages", pages);
	for (ProbePage p = 0; p < _PROBE_PAGE_MAX; p++)
		json_object_object_add(pages, probe_page_name(p),
		                       json_object_new_string(probe_source_name(d->source[p])));
	json_object_object_add(root, "scsi_commands", json_object_new_int64(d->commands));

	return output_json(stdout, root);
}

/* lunctl_identify() with @opts (its flags added to those of @o), @lu resolved as @resolve
 * asks. */
static int identify_with(const Options *o, const char *arg, ProbeResolveFlags resolve,
                         IdentifyOptions opts, LuRef *ret_lu, Identity *ret)
{
	_cleanup_(lu_ref_done) LuRef lu = {};
	_cleanup_close_ int rootfd = -EBADF;
	int r;

	r = lunctl_resolve(o, arg, resolve, &rootfd, &lu);
	if (r != EXIT_OK)
		return r;

	if (o->sysfs_only)
		opts.flags |= PROBE_SYSFS_ONLY;
	if (o->sgio_only)
		opts.flags |= PROBE_SGIO_ONLY;
	r = identify_lu(rootfd, &lu, &opts, ret);
	if (r < 0) {
		log_error_errno(r, "%s (%s): cannot identify: %m", arg, lu.hctl);
		return exit_code_from_errno(r);
	}
	if (ret->names_error < 0)
		log_warning_errno(ret->names_error, "%s (%s): no safe by-id name, ignoring: %m",
		                  arg, lu.hctl);
	*ret_lu = TAKE_STRUCT(lu);
	return EXIT_OK;
}

int lunctl_identify(const Options *o, const char *arg, LuRef *ret_lu, Identity *ret)
{
	return identify_with(o, arg, 0, (IdentifyOptions){}, ret_lu, ret);
}

/* "nodes": {"block": ..., "tape": ..., "sg": ...}, the nodes @lu has. */
json_object *lunctl_nodes_json(const LuRef *lu)
{
	json_object *nodes = json_object_new_object();

	if (!nodes)
		return NULL;
	if (lu->block)
		json_object_object_add(nodes, "block", json_object_new_string(lu->block));
	if (lu->tape)
		json_object_object_add(nodes, "tape", json_object_new_string(lu->tape));
	if (lu->sg)
		json_object_object_add(nodes, "sg", json_object_new_string(lu->sg));
	return nodes;
}

int verb_id(int argc, char *argv[], Options *o)
{
	static const struct option longopts[] = { { "export", no_argument, NULL, 'x' },
		                                  { "json", no_argument, NULL, 'J' },
		                                  { "help", no_argument, NULL, 'h' },
		                                  {} };
	_cleanup_(lu_ref_done) LuRef lu = {};
	_cleanup_(identity_done) Identity ident = {};
	const char *arg;
	int c, r;

	while ((c = lunctl_getopt(argc, argv, "xJh", longopts, o, "id")) != -1) {
		switch (c) {
		case 'h':
			printf("Usage: lunctl id [--export|--json] DEVICE\n"
			       "DEVICE: /dev/sdX, /dev/sgN, /dev/srN, /dev/stN, a /sys path or "
			       "H:C:T:L\n");
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "lunctl id: expected exactly one DEVICE\n");
		return EXIT_USAGE;
	}
	arg = argv[optind];

	/* The export prints the lines and ID_PATH only: no node names (sg is looked up only if a
	 * command needs it), no by-id names, so none of what only they read (the udev context),
	 * and no block limits page. */
	r = identify_with(o, arg, o->output == OUTPUT_EXPORT ? PROBE_RESOLVE_SG_LAZY : 0,
	                  (IdentifyOptions){
	                          .flags = o->output == OUTPUT_EXPORT ? PROBE_IDENTITY_ONLY : 0,
	                          .no_names = o->output == OUTPUT_EXPORT,
	                  },
	                  &lu, &ident);
	if (r != EXIT_OK)
		return r;

	switch (o->output) {
	case OUTPUT_EXPORT:
		r = print_export(&ident);
		break;
	case OUTPUT_JSON:
		r = print_json(&lu, &ident);
		break;
	default:
		r = print_human(&lu, &ident);
	}
	return lunctl_printed(r);
}
