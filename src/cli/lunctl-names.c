/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * lunctl names DEV | --collisions: the names lund gives one LU, or the names two LUs want.
 * With --root, --sysfs-only or --sgio-only the names are computed here, through the identify
 * path lund uses (engine/identify.h), instead of asked of the running lund.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "identify.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "output.h"

static int show_device(const char *dev, OutputMode mode)
{
	_cleanup_(json_object_putp) json_object *reply = NULL;
	json_object *links, *nodes;
	int r;

	r = lunctl_daemon_call("names", "device", dev, &reply);
	if (r != EXIT_OK)
		return r;
	json_object_object_del(reply, "ok");
	if (mode == OUTPUT_JSON)
		return output_json(stdout, reply) < 0 ? EXIT_DEVICE : EXIT_OK;

	nodes = json_member(reply, "nodes");
	printf("%s %s", json_str(reply, "hctl") ?: "?", json_str(reply, "type_name") ?: "?");
	json_object_object_foreach(nodes, k, v) printf(" %s=%s", k, json_object_get_string(v));
	printf("\n");
	if (json_str(reply, "serial"))
		printf("serial %s\n", json_str(reply, "serial"));
	if (json_str(reply, "wwn"))
		printf("wwn    %s\n", json_str(reply, "wwn"));
	if (json_str(reply, "naming_error"))
		printf("naming failed: %s\n", json_str(reply, "naming_error"));
	links = json_member(reply, "links");
	for (size_t i = 0; links && i < json_object_array_length(links); i++) {
		json_object *l = json_object_array_get_idx(links, i);
		const char *state = json_str(l, "state") ?: "?";

		printf("%-9s %s -> %s\n", state, json_str(l, "path") ?: "?",
		       json_str(l, "target") ?: "?");
	}
	if (!links || json_object_array_length(links) == 0)
		printf("no names\n");
	return EXIT_OK;
}

static int print_local_json(const LuRef *lu, const Identity *ident)
{
	_cleanup_(json_object_putp) json_object *root = json_object_new_object();
	json_object *nodes = lunctl_nodes_json(lu), *names = json_object_new_array();

	if (!root || !nodes || !names) {
		json_object_put(nodes);
		json_object_put(names);
		return -ENOMEM;
	}
	json_object_object_add(root, "hctl", json_object_new_string(lu->hctl));
	json_object_object_add(root, "nodes", nodes);
	json_object_object_add(root, "bus", json_object_new_string(names_bus_name(ident->bus)));
	json_object_object_add(root, "serial",
	                       ident->serial ? json_object_new_string(ident->serial) : NULL);
	json_object_object_add(root, "wwn", ident->wwn ? json_object_new_string(ident->wwn) : NULL);
	json_object_object_add(root, "names", names);
	for (size_t i = 0; i < ident->names->n; i++)
		json_object_array_add(names, json_object_new_string(ident->names->name[i]));
	return output_json(stdout, root);
}

/* The base names lund would link for @dev (lund(8) LINKS adds the node suffixes); with @why,
 * where each came from. */
static int show_device_local(const char *dev, const Options *o, bool why)
{
	_cleanup_(identity_done) Identity ident = {};
	_cleanup_(lu_ref_done) LuRef lu = {};
	int r;

	r = lunctl_identify(o, dev, &lu, &ident);
	if (r != EXIT_OK)
		return r;
	if (why)
		return lunctl_names_why(&lu, &ident, o->output);

	if (o->output == OUTPUT_JSON)
		return print_local_json(&lu, &ident) < 0 ? EXIT_DEVICE : EXIT_OK;
	printf("%s", lu.hctl);
	if (lu.block)
		printf(" block=%s", lu.block);
	if (lu.tape)
		printf(" tape=%s", lu.tape);
	if (lu.sg)
		printf(" sg=%s", lu.sg);
	printf("\n");
	if (ident.serial)
		printf("serial %s\n", ident.serial);
	if (ident.wwn)
		printf("wwn    %s\n", ident.wwn);
	for (size_t i = 0; i < ident.names->n; i++)
		printf("name   %s\n", ident.names->name[i]);
	if (ident.names->n == 0)
		printf("no names\n");
	return EXIT_OK;
}

static int show_collisions(OutputMode mode)
{
	_cleanup_(json_object_putp) json_object *reply = NULL;
	json_object *a;
	int r;

	r = lunctl_daemon_call("status", NULL, NULL, &reply);
	if (r != EXIT_OK)
		return r;
	a = json_member(reply, "collisions");
	if (mode == OUTPUT_JSON) {
		_cleanup_(json_object_putp) json_object *o = json_object_new_object();

		json_object_object_add(o, "collisions",
		                       a ? json_object_get(a) : json_object_new_array());
		return output_json(stdout, o) < 0 ? EXIT_DEVICE : EXIT_OK;
	}
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		json_object *c = json_object_array_get_idx(a, i), *ow = json_member(c, "owners");

		printf("%s -> %s, also wanted by", json_str(c, "path") ?: "?",
		       json_str(c, "winner") ?: "nobody");
		for (size_t k = 0; ow && k < json_object_array_length(ow); k++) {
			const char *h = json_object_get_string(json_object_array_get_idx(ow, k));
			const char *w = json_str(c, "winner");

			if (h && (!w || !streq(h, w)))
				printf(" %s", h);
		}
		printf("\n");
	}
	return EXIT_OK;
}

int verb_names(int argc, char *argv[], Options *o)
{
	enum { OPT_COLLISIONS = 0x100, OPT_WHY };
	static const struct option longopts[] = { { "collisions", no_argument, NULL,
		                                    OPT_COLLISIONS },
		                                  { "why", no_argument, NULL, OPT_WHY },
		                                  { "json", no_argument, NULL, 'J' },
		                                  { "help", no_argument, NULL, 'h' },
		                                  {} };
	bool collisions = false, why = false;
	int c;

	while ((c = getopt_long(argc, argv, "Jh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_COLLISIONS:
			collisions = true;
			break;
		case OPT_WHY:
			why = true;
			break;
		case 'J':
			o->output = OUTPUT_JSON;
			break;
		case 'h':
			printf("Usage: lunctl names [--json] [--why] <device>\n"
			       "       lunctl names [--json] --collisions\n"
			       "      --why         for each name, the rule and the page data it "
			       "came "
			       "from,\n"
			       "                    and why scsi_id passed over the other page "
			       "0x83\n"
			       "                    designators (computed here, lund not asked)\n"
			       "      --collisions  the names several LUs want, and who has them\n"
			       "  -J, --json        JSON output\n"
			       "With --root, --sysfs-only or --sgio-only the names are computed "
			       "here, not asked of lund.\n");
			return EXIT_OK;
		default:
			fprintf(stderr, "Try 'lunctl names --help' for more information.\n");
			return EXIT_USAGE;
		}
	}
	if (collisions) {
		if (optind != argc) {
			log_error("--collisions takes no device");
			return EXIT_USAGE;
		}
		return show_collisions(o->output);
	}
	if (optind + 1 != argc) {
		log_error("names needs exactly one device (/dev/sdX, /dev/sgN, H:C:T:L, ...)");
		return EXIT_USAGE;
	}
	if (why || o->root || o->sysfs_only || o->sgio_only)
		return show_device_local(argv[optind], o, why);
	return show_device(argv[optind], o->output);
}
