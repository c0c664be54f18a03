/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * lunctl names DEV | --collisions | --paths: the names lund gives one LU, or the names two LUs
 * want. With --root, --sysfs-only or --sgio-only the names are computed here, through the identify
 * path lund uses (engine/identify.h), instead of asked of the running lund.
 */

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
#include "namestate.h"
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
	if (json_object_get_boolean(json_member(reply, "identifying")))
		printf("identifying: lund is asking the device (SCSI commands)\n");
	if (json_object_get_boolean(json_member(reply, "excluded"))) {
		json_object *x = json_member(reply, "exclusion");

		printf("excluded by [exclude %s] (%s:%" PRId64 ")%s\n", json_str(x, "rule") ?: "?",
		       json_str(x, "file") ?: "?", json_object_get_int64(json_member(x, "line")),
		       json_object_get_boolean(json_member(x, "names"))
		               ? ", names only"
		               : ": lund makes no links for it");
	}
	links = json_member(reply, "links");
	for (size_t i = 0; links && i < json_object_array_length(links); i++) {
		json_object *l = json_object_array_get_idx(links, i);
		const char *state = json_str(l, "state") ?: "?";

		printf("%-9s %s -> %s%s\n", state, json_str(l, "path") ?: "?",
		       json_str(l, "target") ?: "?",
		       json_object_get_boolean(json_member(l, "alias")) ? " (alias)" : "");
	}
	if (!links || json_object_array_length(links) == 0)
		printf("no names\n");
	return EXIT_OK;
}

static int print_local_json(const LuRef *lu, const Identity *ident, const LunctlLinks *links)
{
	const char *const *aliases = links->in.aliases;
	size_t n_aliases = links->in.n_aliases;
	_cleanup_(json_object_putp) json_object *root = json_object_new_object();
	json_object *nodes = lunctl_nodes_json(lu), *names = json_object_new_array(),
	            *al = json_object_new_array(), *ln = lunctl_links_json(links);

	if (!root || !nodes || !names || !al || !ln) {
		json_object_put(nodes);
		json_object_put(names);
		json_object_put(al);
		json_object_put(ln);
		return -ENOMEM;
	}
	json_object_object_add(root, "links", ln);
	json_object_object_add(root, "aliases", al);
	for (size_t i = 0; i < n_aliases; i++)
		json_object_array_add(al, json_object_new_string(aliases[i]));
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

static int show_names_local(const LuRef *lu, const Identity *ident, const LunctlLinks *links,
                            OutputMode mode)
{
	const char *const *aliases = links->in.aliases;
	size_t n_aliases = links->in.n_aliases;

	if (mode == OUTPUT_JSON)
		return print_local_json(lu, ident, links) < 0 ? EXIT_DEVICE : EXIT_OK;
	printf("%s", lu->hctl);
	if (lu->block)
		printf(" block=%s", lu->block);
	if (lu->tape)
		printf(" tape=%s", lu->tape);
	if (lu->sg)
		printf(" sg=%s", lu->sg);
	printf("\n");
	if (ident->serial)
		printf("serial %s\n", ident->serial);
	if (ident->wwn)
		printf("wwn    %s\n", ident->wwn);
	for (size_t i = 0; i < ident->names->n; i++)
		printf("name   %s\n", ident->names->name[i]);
	for (size_t i = 0; i < n_aliases; i++)
		printf("alias  %s (pending --accept)\n", aliases[i]);
	if (ident->names->n == 0)
		printf("no names\n");
	lunctl_links_print(links);
	return EXIT_OK;
}

/* The base names lund would link for @dev, its aliases from the records in @state_dir and
 * every link it gets (lund(8) LINKS); with @why, where each came from. */
static int show_device_local(const char *dev, const Options *o, bool why, const char *state_dir)
{
	_cleanup_(identity_done) Identity ident = {};
	_cleanup_(lu_ref_done) LuRef lu = {};
	_cleanup_(lunctl_links_done) LunctlLinks links = {};
	int r;

	r = lunctl_identify(o, dev, &lu, &ident);
	if (r != EXIT_OK)
		return r;
	r = lunctl_links(o, &lu, &ident, state_dir, &links);
	if (r == -ENOMEM)
		log_error_errno(r, "%s: cannot work out its links: %m", lu.hctl);
	if (r < 0)
		return EXIT_DEVICE;
	if (why)
		return lunctl_names_why(o, &lu, &ident, &links);
	return show_names_local(&lu, &ident, &links, o->output);
}

/*
 * The /dev/disk/by-path names udev's 60-persistent-storage.rules make for @dev, as the link
 * scheme gives them (lund(8) LINKS): ID_PATH and ID_PATH_ATA_COMPAT for the disk (sd, sr) and
 * each with "-partN" for its partitions; none for LUs without a block device or below
 * devices/virtual/. Computed here from sysfs, never asked of lund: these are udev's names
 * whoever makes them.
 */
static int show_by_path(const char *dev, const Options *o)
{
	_cleanup_(identity_done) Identity ident = {};
	_cleanup_(lu_ref_done) LuRef lu = {};
	_cleanup_(lunctl_links_done) LunctlLinks links = {};
	_cleanup_(json_object_putp) json_object *root = NULL;
	json_object *arr = NULL;
	const PathId *p;
	int r;

	r = lunctl_identify(o, dev, &lu, &ident);
	if (r != EXIT_OK)
		return r;
	p = &ident.path;
	r = lunctl_links(o, &lu, &ident, NULL, &links);
	if (r < 0) {
		log_error_errno(r, "%s: cannot work out its links: %m", lu.hctl);
		return EXIT_DEVICE;
	}
	if (o->output == OUTPUT_JSON) {
		root = json_object_new_object();
		arr = json_object_new_array();
		if (!root || !arr) {
			json_object_put(arr);
			return lunctl_printed(-ENOMEM);
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
	for (size_t i = 0; r >= 0 && i < links.scheme.n; i++) {
		const LinkSchemeLink *l = &links.scheme.links[i];
		json_object *e;

		if (l->set != LINK_SCHEME_DISK_PATH)
			continue;
		if (!arr) {
			r = printf("/dev/disk/by-path/%s %s\n", l->name, l->node) < 0 ? -EIO : 0;
			continue;
		}
		e = json_object_new_object();
		if (!e) {
			r = -ENOMEM;
			break;
		}
		json_object_object_add(e, "name", json_object_new_string(l->name));
		json_object_object_add(e, "node", json_object_new_string(l->node));
		json_object_array_add(arr, e);
	}
	if (r >= 0 && root)
		r = output_json(stdout, root);
	return lunctl_printed(r);
}

bool lunctl_collision_is_paths(json_object *c)
{
	return streq_ptr(json_str(c, "kind"), "paths");
}

bool lunctl_collision_same_owners(json_object *a, json_object *b)
{
	json_object *x = json_member(a, "owners"), *y = json_member(b, "owners");
	size_t n = x ? json_object_array_length(x) : 0;

	if (!x || !y || n != json_object_array_length(y))
		return false;
	for (size_t i = 0; i < n; i++) {
		bool found = false;

		for (size_t k = 0; k < n && !found; k++)
			found = streq_ptr(json_object_get_string(json_object_array_get_idx(x, i)),
			                  json_object_get_string(json_object_array_get_idx(y, k)));
		if (!found)
			return false;
	}
	return true;
}

void lunctl_collision_print_owners(json_object *c, const char *except)
{
	json_object *ow = json_member(c, "owners");

	for (size_t k = 0; ow && k < json_object_array_length(ow); k++) {
		const char *h = json_object_get_string(json_object_array_get_idx(ow, k));

		if (h && (!except || !streq(h, except)))
			printf(" %s", h);
	}
}

static int show_collisions(OutputMode mode, bool paths)
{
	_cleanup_(json_object_putp) json_object *reply = NULL;
	json_object *a;
	size_t n;
	int r;

	r = lunctl_daemon_call("status", NULL, NULL, &reply);
	if (r != EXIT_OK)
		return r;
	a = json_member(reply, "collisions");
	n = a ? json_object_array_length(a) : 0;
	if (paths) {
		/* One entry per LU seen through several paths: its paths, the one its names point
		 * at, its names, and dm-multipath's map when one holds the paths. */
		_cleanup_(json_object_putp) json_object *groups = json_object_new_array();

		for (size_t i = 0; i < n; i++) {
			json_object *c = json_object_array_get_idx(a, i), *g = NULL;

			if (!lunctl_collision_is_paths(c))
				continue;
			for (size_t k = 0; k < json_object_array_length(groups) && !g; k++) {
				json_object *x = json_object_array_get_idx(groups, k);

				if (lunctl_collision_same_owners(json_member(x, "first"), c))
					g = x;
			}
			if (!g) {
				json_object *mp = json_member(c, "multipath");

				g = json_object_new_object();
				json_object_object_add(g, "first", json_object_get(c));
				json_object_object_add(g, "paths",
				                       json_object_get(json_member(c, "owners")));
				json_object_object_add(
				        g, "active",
				        json_str(c, "winner")
				                ? json_object_new_string(json_str(c, "winner"))
				                : NULL);
				json_object_object_add(g, "multipath",
				                       mp ? json_object_get(mp) : NULL);
				json_object_object_add(g, "names", json_object_new_array());
				json_object_array_add(groups, g);
			}
			json_object_array_add(json_member(g, "names"),
			                      json_object_new_string(json_str(c, "path") ?: "?"));
		}
		for (size_t k = 0; k < json_object_array_length(groups); k++)
			json_object_object_del(json_object_array_get_idx(groups, k), "first");
		if (mode == OUTPUT_JSON) {
			_cleanup_(json_object_putp) json_object *o = json_object_new_object();

			json_object_object_add(o, "paths", json_object_get(groups));
			return output_json(stdout, o) < 0 ? EXIT_DEVICE : EXIT_OK;
		}
		for (size_t k = 0; k < json_object_array_length(groups); k++) {
			json_object *g = json_object_array_get_idx(groups, k), *mp, *nm;
			const char *active = json_str(g, "active");

			json_object *ps = json_member(g, "paths");

			printf("one LU through");
			for (size_t i = 0; ps && i < json_object_array_length(ps); i++)
				printf(" %s",
				       json_object_get_string(json_object_array_get_idx(ps, i))
				               ?: "?");
			printf(", names at %s\n", active ?: "none");
			mp = json_member(g, "multipath");
			if (mp)
				printf("  owned by dm-multipath: %s, named %s\n",
				       json_str(mp, "node") ?: "?", json_str(mp, "name") ?: "?");
			nm = json_member(g, "names");
			for (size_t i = 0; nm && i < json_object_array_length(nm); i++)
				printf("  %s\n",
				       json_object_get_string(json_object_array_get_idx(nm, i)));
		}
		return EXIT_OK;
	}
	if (mode == OUTPUT_JSON) {
		_cleanup_(json_object_putp) json_object *o = json_object_new_object();

		json_object_object_add(o, "collisions",
		                       a ? json_object_get(a) : json_object_new_array());
		return output_json(stdout, o) < 0 ? EXIT_DEVICE : EXIT_OK;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(a, i);
		const char *w = json_str(c, "winner");

		if (lunctl_collision_is_paths(c)) {
			printf("%s -> %s, paths of one LU (same LU designators, other target "
			       "ports), "
			       "also",
			       json_str(c, "path") ?: "?", w ?: "nobody");
			lunctl_collision_print_owners(c, w);
		} else {
			printf("%s: quarantined, clones (one ID, page 0x83 does not prove one LU), "
			       "no link; claimed by",
			       json_str(c, "path") ?: "?");
			lunctl_collision_print_owners(c, NULL);
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
		OPT_PATHS,
		OPT_DIFF,
		OPT_ACCEPT,
		OPT_ALL,
		OPT_STATE_DIR,
		OPT_CONFIG,
		OPT_HWDB,
	};
	static const struct option longopts[] = {
		{ "collisions", no_argument, NULL, OPT_COLLISIONS },
		{ "why", no_argument, NULL, OPT_WHY },
		{ "by-path", no_argument, NULL, OPT_BY_PATH },
		{ "paths", no_argument, NULL, OPT_PATHS },
		{ "diff", no_argument, NULL, OPT_DIFF },
		{ "accept", no_argument, NULL, OPT_ACCEPT },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "hwdb", required_argument, NULL, OPT_HWDB },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	bool collisions = false, why = false, by_path = false, paths = false, diff = false,
	     accept = false, all = false;
	const char *state_dir = NAMESTATE_DIR, *conf_path = NULL, *hwdb_path = NULL;
	int c;

	while ((c = lunctl_getopt(argc, argv, "Jh", longopts, o, "names")) != -1) {
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
		case OPT_PATHS:
			paths = true;
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
		case OPT_CONFIG:
			conf_path = optarg;
			break;
		case OPT_HWDB:
			hwdb_path = optarg;
			break;
		case 'h':
			printf("Usage: lunctl names [--json] [--why [--config FILE]] [--state-dir "
			       "DIR] "
			       "<device>\n"
			       "       lunctl names [--json] [--state-dir DIR] --diff [--config "
			       "FILE] "
			       "[--hwdb FILE]\n"
			       "       lunctl names [--state-dir DIR] --accept <device>|--all\n"
			       "       lunctl names [--json] --by-path <device>\n"
			       "       lunctl names [--json] --collisions\n"
			       "       lunctl names [--json] --paths\n"
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
			       "      --collisions  the names several LUs want, and who has them: "
			       "paths of\n"
			       "                    one LU, or clones (quarantined, no link)\n"
			       "      --paths       every LU seen through several paths, the path "
			       "its\n"
			       "                    names point at, and dm-multipath's map\n"
			       "      --diff        the names that would be added, removed or "
			       "re-targeted\n"
			       "                    against the accepted ones; exit 1 when a "
			       "change is pending\n"
			       "      --config FILE with --diff: the names under this lund.conf "
			       "(its\n"
			       "                    identity = report LUs left out); with --why: "
			       "the\n"
			       "                    exclusions and reactions it reads\n"
			       "      --hwdb FILE   with --diff: the names under this hwdb (source "
			       "text or\n"
			       "                    compiled), not the installed one\n"
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
			return EXIT_USAGE;
		}
	}
	if (collisions + by_path + why + paths + diff + accept > 1) {
		log_error("--collisions, --paths, --by-path, --why, --diff and --accept "
		          "exclude each other");
		return EXIT_USAGE;
	}
	if (all && !accept) {
		log_error("--all goes with --accept");
		return EXIT_USAGE;
	}
	if ((conf_path && !diff && !why) || (hwdb_path && !diff)) {
		log_error("--config goes with --diff or --why, --hwdb with --diff");
		return EXIT_USAGE;
	}
	if (diff) {
		if (optind != argc) {
			log_error("--diff takes no device");
			return EXIT_USAGE;
		}
		return lunctl_names_diff(o, state_dir, conf_path, hwdb_path);
	}
	if (accept) {
		if (all == (optind != argc) || optind + 1 < argc) {
			log_error("--accept needs one device or --all");
			return EXIT_USAGE;
		}
		return lunctl_names_accept(o, state_dir, all ? NULL : argv[optind]);
	}
	if (collisions || paths) {
		if (optind != argc) {
			log_error("%s takes no device", paths ? "--paths" : "--collisions");
			return EXIT_USAGE;
		}
		return show_collisions(o->output, paths);
	}
	if (optind + 1 != argc) {
		log_error("names needs exactly one device (/dev/sdX, /dev/sgN, H:C:T:L, ...)");
		return EXIT_USAGE;
	}
	if (by_path)
		return show_by_path(argv[optind], o);
	if (why || o->root || o->sysfs_only || o->sgio_only) {
		/* --why judges the LU by this lund.conf's exclusions */
		Options wo = *o;

		wo.conf_path = conf_path;
		return show_device_local(argv[optind], &wo, why, state_dir);
	}
	return show_device(argv[optind], o->output);
}
