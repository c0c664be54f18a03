/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "ident.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "names.h"
#include "output.h"
#include "probe.h"
#include "sysfs.h"
#include "udevctx.h"

static ExportFlags export_flags(void)
{
	return EXPORT_UDEV | EXPORT_SG_INQ;
}

static int print_human(const LuRef *lu, const ProbeData *d, const ScsiIdent *id,
                       const NamesList *names)
{
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

static int print_json(const LuRef *lu, const ProbeData *d, const ScsiIdent *id,
                      const NamesList *names)
{
	_cleanup_(json_object_putp) json_object *root = json_object_new_object();
	json_object *nodes, *pages, *arr, *props;

	if (!root)
		return -ENOMEM;

	json_object_object_add(root, "hctl", json_object_new_string(lu->hctl));
	nodes = json_object_new_object();
	json_object_object_add(root, "nodes", nodes);
	if (lu->block)
		json_object_object_add(nodes, "block", json_object_new_string(lu->block));
	if (lu->tape)
		json_object_object_add(nodes, "tape", json_object_new_string(lu->tape));
	if (lu->sg)
		json_object_object_add(nodes, "sg", json_object_new_string(lu->sg));

	props = output_properties_json(id, export_flags());
	if (!props)
		return -ENOMEM;
	json_object_object_add(root, "properties", props);

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

int verb_id(int argc, char *argv[], Options *o)
{
	static const struct option longopts[] = { { "export", no_argument, NULL, 'x' },
		                                  { "json", no_argument, NULL, 'J' },
		                                  { "help", no_argument, NULL, 'h' },
		                                  {} };
	_cleanup_(lu_ref_done) LuRef lu = {};
	_cleanup_(probe_data_done) ProbeData d = {};
	_cleanup_close_ int rootfd = -EBADF;
	ScsiIdentInput in = {};
	UdevCtx udev;
	ScsiIdent id;
	NamesList names = {};
	ProbeFlags flags = 0;
	const char *arg;
	int c, r;

	while ((c = getopt_long(argc, argv, "xJh", longopts, NULL)) != -1) {
		switch (c) {
		case 'x':
			o->output = OUTPUT_EXPORT;
			break;
		case 'J':
			o->output = OUTPUT_JSON;
			break;
		case 'h':
			printf("Usage: lunctl id [--export|--json] DEVICE\n"
			       "DEVICE: /dev/sdX, /dev/sgN, /dev/srN, /dev/stN, a /sys path or "
			       "H:C:T:L\n");
			return EXIT_OK;
		default:
			fprintf(stderr, "Try 'lunctl id --help' for more information.\n");
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "lunctl id: expected exactly one DEVICE\n");
		return EXIT_USAGE;
	}
	arg = argv[optind];

	r = lunctl_open_root(o, &rootfd);
	if (r != EXIT_OK)
		return r;

	r = lunctl_resolve(rootfd, arg, &lu);
	if (r != EXIT_OK)
		return r;

	if (o->sysfs_only)
		flags |= PROBE_SYSFS_ONLY;
	if (o->sgio_only)
		flags |= PROBE_SGIO_ONLY;
	r = probe_read(rootfd, &lu, flags, &d);
	if (r < 0) {
		log_error_errno(r, "%s (%s): failed to read INQUIRY data: %m", arg, lu.hctl);
		return exit_code_from_errno(r);
	}
	r = udevctx_read(rootfd, &lu, &udev);
	if (r < 0) {
		log_error_errno(r, "%s (%s): failed to read sysfs: %m", arg, lu.hctl);
		return exit_code_from_errno(r);
	}

	in = (ScsiIdentInput){
		.inquiry = d.buf[PROBE_INQUIRY],
		.inquiry_len = d.len[PROBE_INQUIRY],
		.pg00 = d.buf[PROBE_PG00],
		.pg00_len = d.len[PROBE_PG00],
		.pg80 = d.buf[PROBE_PG80],
		.pg80_len = d.len[PROBE_PG80],
		.pg83 = d.buf[PROBE_PG83],
		.pg83_len = d.len[PROBE_PG83],
		.pg89 = d.buf[PROBE_PG89],
		.pg89_len = d.len[PROBE_PG89],
		/* Only fills ata_id's view (names), never the scsi_id set --export prints. */
		.ata_identify = udev.have_ata_identify ? udev.ata_identify : NULL,
		.ata_identify_len = udev.have_ata_identify ? sizeof(udev.ata_identify) : 0,
		.page = IDENT_PAGE_DEFAULT,
		/* Only the kernel's cache was read and it holds no page 0x00. */
		.pg00_infer = !d.buf[PROBE_PG00] && (flags & PROBE_SYSFS_ONLY),
	};
	r = ident_compute(&in, &id);
	if (r < 0) {
		log_error_errno(r, "%s (%s): cannot identify: %m", arg, lu.hctl);
		return exit_code_from_errno(r);
	}

	r = udevctx_names(&udev, &lu, &id, &names);
	if (r < 0)
		log_warning_errno(r, "%s (%s): no safe by-id name, ignoring: %m", arg, lu.hctl);

	switch (o->output) {
	case OUTPUT_EXPORT:
		r = output_export(stdout, &id, export_flags());
		break;
	case OUTPUT_JSON:
		r = print_json(&lu, &d, &id, &names);
		break;
	default:
		r = print_human(&lu, &d, &id, &names);
	}
	if (r < 0) {
		log_error_errno(r, "Failed to print: %m");
		return EXIT_DEVICE;
	}
	return EXIT_OK;
}
