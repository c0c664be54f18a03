/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * lunctl check-config [FILE] [--hwdb FILE]...: lund.conf and the hwdb sources checked line by
 * line against what lund applies (engine/confcheck.h), before a reload or an upgrade.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "confcheck.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "output.h"

typedef struct Report {
	json_object *problems; /* JSON output: [{file, line, message}] */
	json_object *checked;  /* JSON output: the files checked */
	unsigned n;
} Report;

static void on_checked(const char *path, int problems, void *userdata)
{
	Report *r = userdata;

	if (r->checked)
		json_object_array_add(r->checked, json_object_new_string(path));
	else if (problems == 0)
		printf("%s: no problems\n", path);
}

static void on_problem(const char *path, unsigned line, const char *message, void *userdata)
{
	Report *r = userdata;

	r->n++;
	if (r->problems)
		conf_check_report_json(path, line, message, r->problems);
	else
		printf("%s:%u: %s\n", path, line, message);
}

/* Check one file; a missing default is no error (lund reads nothing from it either). */
static int check_one(bool hwdb, const char *path, bool named, Report *rep)
{
	int r = hwdb ? hwdb_check_file(path, on_problem, rep)
	             : conf_check_file(path, on_problem, rep);

	if (r == -ENOENT && !named)
		return EXIT_OK;
	if (r < 0) {
		log_error_errno(r, "Cannot read %s: %m", path);
		return EXIT_DEVICE;
	}
	on_checked(path, r, rep);
	return EXIT_OK;
}

int verb_check_config(int argc, char *argv[], Options *o)
{
	enum { OPT_HWDB = 0x100 };
	static const struct option longopts[] = { { "hwdb", required_argument, NULL, OPT_HWDB },
		                                  { "json", no_argument, NULL, 'J' },
		                                  { "help", no_argument, NULL, 'h' },
		                                  {} };
	_cleanup_(json_object_putp) json_object *root = NULL;
	_cleanup_free_ char *conf = NULL;
	_cleanup_free_ char **hwdbs = NULL;
	Report rep = {};
	size_t n_hwdbs = 0;
	int c, rc = EXIT_OK;

	while ((c = lunctl_getopt(argc, argv, "Jh", longopts, o, "check-config")) != -1) {
		switch (c) {
		case OPT_HWDB: {
			char **n = reallocarray(hwdbs, n_hwdbs + 1, sizeof(*hwdbs));

			if (!n)
				return log_error("Out of memory"), EXIT_DEVICE;
			hwdbs = n;
			hwdbs[n_hwdbs++] = optarg;
			break;
		}
		case 'h':
			printf("Usage: lunctl check-config [--hwdb FILE]... [--json] [FILE]\n"
			       "\n"
			       "Check lund.conf (FILE, default %s) and lund's hwdb sources\n"
			       "(*lund*.hwdb in /etc/udev/hwdb.d, /lib/udev/hwdb.d and "
			       "/usr/lib/udev/hwdb.d)\n"
			       "line by line against what lund applies; one line per problem, "
			       "FILE:LINE: what.\n"
			       "\n"
			       "Options:\n"
			       "     --hwdb FILE   check this hwdb source instead (repeatable)\n"
			       " -J, --json        print JSON\n"
			       " -h, --help        display this help\n"
			       "\n"
			       "Exit status: 0 no problem, 3 problems found, 2 a named file cannot "
			       "be "
			       "read.\n",
			       LUND_CONF_DEFAULT);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		log_error("check-config takes at most one lund.conf");
		return EXIT_USAGE;
	}
	if (o->output == OUTPUT_JSON) {
		root = json_object_new_object();
		rep.checked = json_object_new_array();
		rep.problems = json_object_new_array();
		if (!root || !rep.checked || !rep.problems) {
			json_object_put(rep.checked);
			json_object_put(rep.problems);
			return log_error("Out of memory"), EXIT_DEVICE;
		}
		json_object_object_add(root, "checked", rep.checked);
		json_object_object_add(root, "problems", rep.problems);
	}

	if (optind < argc)
		rc = check_one(false, argv[optind], true, &rep);
	else {
		if (asprintf(&conf, "%s%s", o->root ?: "", LUND_CONF_DEFAULT) < 0)
			return log_error("Out of memory"), EXIT_DEVICE;
		rc = check_one(false, conf, false, &rep);
	}
	for (size_t i = 0; i < n_hwdbs; i++)
		rc = MAX(rc, check_one(true, hwdbs[i], true, &rep));
	if (n_hwdbs == 0 && rc == EXIT_OK) {
		int r = hwdb_check_sources(o->root, on_checked, on_problem, &rep);

		if (r < 0) {
			log_error_errno(r, "Cannot read lund's hwdb sources: %m");
			rc = EXIT_DEVICE;
		}
	}

	if (root) {
		json_object_object_add(root, "ok", json_object_new_boolean(rep.n == 0));
		if (output_json(stdout, root) < 0)
			return EXIT_DEVICE;
	}
	if (rc != EXIT_OK)
		return rc;
	return rep.n > 0 ? EXIT_MALFORMED : EXIT_OK;
}
