/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * lunctl names DEV | --collisions: the names lund gives one LU, or the names two LUs want.
 * With --root, --sysfs-only or --sgio-only the names are computed here, through the identify
 * path lund uses (engine/identify.h), instead of asked of the running lund.
 */

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identify.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "namestate.h"
#include "output.h"
#include "pathtag.h"
#include "sysfs.h"

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

/* A partition of the disk: its kernel name and number. */
typedef struct Part {
	char *node;
	unsigned number;
} Part;

static int part_cmp(const void *a, const void *b)
{
	const Part *x = a, *y = b;

	return x->number < y->number ? -1 : x->number > y->number;
}

/* The partitions of block device @block of the LU at @syspath (<syspath>/block/@block/<name>
 * with a partition attribute), as lund's inventory reads them. */
static int read_parts(int rootfd, const char *syspath, const char *block, Part **ret, size_t *ret_n)
{
	_cleanup_free_ char *dir = NULL;
	_cleanup_(closedirp) DIR *d = NULL;
	Part *v = NULL;
	size_t n = 0;

	if (asprintf(&dir, "%s/block/%s", syspath, block) < 0)
		return -ENOMEM;
	if (sysfs_opendir(rootfd, dir, &d) < 0) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	for (struct dirent *de; (de = readdir(d));) {
		_cleanup_free_ char *sub = NULL;
		uint64_t num;
		Part *nv;

		if (de->d_name[0] == '.' || !strneq(de->d_name, block, strlen(block)))
			continue;
		if (asprintf(&sub, "%s/%s", dir, de->d_name) < 0)
			goto oom;
		if (sysfs_attr_u64(rootfd, sub, "partition", &num) < 0 || num == 0 ||
		    num > UINT32_MAX)
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			goto oom;
		v = nv;
		v[n].node = strdup(de->d_name);
		if (!v[n].node)
			goto oom;
		v[n++].number = (unsigned)num;
	}
	qsort(v, n, sizeof(*v), part_cmp);
	*ret = v;
	*ret_n = n;
	return 0;
oom:
	for (size_t i = 0; i < n; i++)
		free(v[i].node);
	free(v);
	return -ENOMEM;
}

/* One disk/by-path name of 60-persistent-storage.rules: printed, or added to @arr. */
static int by_path_one(const char *value, unsigned part, const char *node, json_object *arr)
{
	char suffix[32] = "", name[NAME_MAX + 1];

	if (part > 0)
		snprintf(suffix, sizeof(suffix), "-part%u", part);
	if (pathtag_link_name(value, suffix, name, sizeof(name)) < 0)
		return 0; /* udev would make no link directly in disk/by-path (pathtag.h) */
	if (arr) {
		json_object *o = json_object_new_object();

		if (!o)
			return -ENOMEM;
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "node", json_object_new_string(node));
		json_object_array_add(arr, o);
		return 0;
	}
	return printf("/dev/disk/by-path/%s %s\n", name, node) < 0 ? -EIO : 0;
}

/*
 * The /dev/disk/by-path names udev's 60-persistent-storage.rules make for @dev: ID_PATH and
 * ID_PATH_ATA_COMPAT for the disk (sd, sr) and each with "-partN" for its partitions; none for
 * LUs without a block device or below devices/virtual/. Computed here from sysfs, never asked
 * of lund: these are udev's names whoever makes them.
 */
static int show_by_path(const char *dev, const Options *o)
{
	_cleanup_(identity_done) Identity ident = {};
	_cleanup_(lu_ref_done) LuRef lu = {};
	_cleanup_(json_object_putp) json_object *root = NULL;
	_cleanup_close_ int rootfd = -EBADF;
	json_object *arr = NULL;
	const PathId *p;
	Part *parts = NULL;
	size_t n_parts = 0;
	int r;

	r = lunctl_identify(o, dev, &lu, &ident);
	if (r != EXIT_OK)
		return r;
	p = &ident.path;
	r = lunctl_open_root(o, &rootfd);
	if (r != EXIT_OK)
		return r;
	if (lu.block && p->path && !p->virtual_dev) {
		r = read_parts(rootfd, lu.syspath, lu.block, &parts, &n_parts);
		if (r < 0) {
			log_error_errno(r, "Failed to read the partitions of %s: %m", lu.block);
			return EXIT_DEVICE;
		}
	}
	if (o->output == OUTPUT_JSON) {
		root = json_object_new_object();
		arr = json_object_new_array();
		if (!root || !arr) {
			json_object_put(arr);
			r = -ENOMEM;
			goto out;
		}
		json_object_object_add(root, "hctl", json_object_new_string(lu.hctl));
		json_object_object_add(root, "nodes", lunctl_nodes_json(&lu));
		json_object_object_add(root, "id_path",
		                       p->path ? json_object_new_string(p->path) : NULL);
		json_object_object_add(root, "id_path_tag",
		                       p->tag ? json_object_new_string(p->tag) : NULL);
		json_object_object_add(root, "id_path_ata_compat",
		                       p->ata_compat ? json_object_new_string(p->ata_compat)
		                                     : NULL);
		json_object_object_add(root, "by_path", arr);
	}
	r = 0;
	if (lu.block && p->path && !p->virtual_dev) {
		const char *values[] = { p->path, p->ata_compat };

		for (size_t v = 0; r >= 0 && v < ELEMENTSOF(values); v++) {
			if (!values[v])
				continue;
			r = by_path_one(values[v], 0, lu.block, arr);
			for (size_t i = 0; r >= 0 && i < n_parts; i++)
				r = by_path_one(values[v], parts[i].number, parts[i].node, arr);
		}
	}
	if (r >= 0 && root)
		r = output_json(stdout, root);
out:
	for (size_t i = 0; i < n_parts; i++)
		free(parts[i].node);
	free(parts);
	if (r < 0) {
		log_error_errno(r, "Failed to print: %m");
		return EXIT_DEVICE;
	}
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
	enum {
		OPT_COLLISIONS = 0x100,
		OPT_WHY,
		OPT_BY_PATH,
		OPT_DIFF,
		OPT_ACCEPT,
		OPT_ALL,
		OPT_STATE_DIR
	};
	static const struct option longopts[] = {
		{ "collisions", no_argument, NULL, OPT_COLLISIONS },
		{ "why", no_argument, NULL, OPT_WHY },
		{ "by-path", no_argument, NULL, OPT_BY_PATH },
		{ "diff", no_argument, NULL, OPT_DIFF },
		{ "accept", no_argument, NULL, OPT_ACCEPT },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	bool collisions = false, why = false, by_path = false, diff = false, accept = false,
	     all = false;
	const char *state_dir = NAMESTATE_DIR;
	int c;

	while ((c = getopt_long(argc, argv, "Jh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_COLLISIONS:
			collisions = true;
			break;
		case OPT_WHY:
			why = true;
			break;
		case OPT_BY_PATH:
			by_path = true;
			break;
		case OPT_DIFF:
			diff = true;
			break;
		case OPT_ACCEPT:
			accept = true;
			break;
		case OPT_ALL:
			all = true;
			break;
		case OPT_STATE_DIR:
			state_dir = optarg;
			break;
		case 'J':
			o->output = OUTPUT_JSON;
			break;
		case 'h':
			printf("Usage: lunctl names [--json] [--why] <device>\n"
			       "       lunctl names [--json] [--state-dir DIR] --diff\n"
			       "       lunctl names [--state-dir DIR] --accept <device>|--all\n"
			       "       lunctl names [--json] --by-path <device>\n"
			       "       lunctl names [--json] --collisions\n"
			       "      --why         for each name, the rule and the page data it "
			       "came "
			       "from,\n"
			       "                    and why scsi_id passed over the other page "
			       "0x83\n"
			       "                    designators (computed here, lund not asked)\n"
			       "      --by-path     the /dev/disk/by-path names udev makes, "
			       "computed "
			       "here\n"
			       "                    from sysfs\n"
			       "      --collisions  the names several LUs want, and who has them\n"
			       "      --diff        the names that would be added, removed or "
			       "re-targeted\n"
			       "                    against the accepted ones; exit 1 when a "
			       "change is pending\n"
			       "      --accept      accept the names of <device>, or of every LU "
			       "with --all\n"
			       "      --all         with --accept: every LU\n"
			       "      --state-dir DIR  the name records' directory (default "
			       "/var/lib/lund)\n"
			       "  -J, --json        JSON output\n"
			       "With --root, --sysfs-only or --sgio-only the names are computed "
			       "here, not asked of lund.\n");
			return EXIT_OK;
		default:
			fprintf(stderr, "Try 'lunctl names --help' for more information.\n");
			return EXIT_USAGE;
		}
	}
	if (collisions + by_path + why + diff + accept > 1) {
		log_error("--collisions, --by-path, --why, --diff and --accept exclude each other");
		return EXIT_USAGE;
	}
	if (all && !accept) {
		log_error("--all goes with --accept");
		return EXIT_USAGE;
	}
	if (diff) {
		if (optind != argc) {
			log_error("--diff takes no device");
			return EXIT_USAGE;
		}
		return lunctl_names_diff(o, state_dir);
	}
	if (accept) {
		if (all == (optind != argc) || optind + 1 < argc) {
			log_error("--accept needs one device or --all");
			return EXIT_USAGE;
		}
		return lunctl_names_accept(o, state_dir, all ? NULL : argv[optind]);
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
	if (by_path)
		return show_by_path(argv[optind], o);
	if (why || o->root || o->sysfs_only || o->sgio_only)
		return show_device_local(argv[optind], o, why);
	return show_device(argv[optind], o->output);
}
