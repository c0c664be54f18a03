/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * `lunctl hold SCOPE --reason TEXT [--expire SEC]` and `lunctl release SCOPE` (lund(8), HOLDS):
 * what an orchestrator puts around its own attach and detach.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "decimal.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "output.h"

/* The holds lund has now, one line each. */
void lunctl_print_holds(json_object *holds)
{
	size_t n = holds ? json_object_array_length(holds) : 0;

	printf("Holds:         %zu\n", n);
	for (size_t i = 0; i < n; i++) {
		json_object *h = json_object_array_get_idx(holds, i);
		json_object *until = json_member(h, "until_usec");

		printf("  %s: %s", json_str(h, "scope") ?: "?", json_str(h, "reason") ?: "");
		if (until)
			printf(" (until %" PRIi64 " s after the epoch)",
			       json_object_get_int64(until) / 1000000);
		printf("\n");
	}
}

static int hold_call(int argc, char *argv[], Options *o, bool hold)
{
	enum { OPT_REASON = 0x100, OPT_EXPIRE };
	static const struct option longopts[] = {
		{ "reason", required_argument, NULL, OPT_REASON },
		{ "expire", required_argument, NULL, OPT_EXPIRE },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	_cleanup_(json_object_putp) json_object *req = NULL, *reply = NULL;
	const char *verb = hold ? "hold" : "release", *reason = NULL;
	long timeout = 0;
	int c, r;

	while ((c = lunctl_getopt(argc, argv, "Jh", longopts + (hold ? 0 : 2), o, verb)) != -1) {
		switch (c) {
		case OPT_REASON:
			reason = optarg;
			break;
		case OPT_EXPIRE:
			if (parse_decimal(optarg, 1, 366L * 24 * 3600, &timeout) < 0) {
				log_error("--expire takes seconds, 1 to a year: %s", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			if (hold)
				printf("Usage: lunctl hold [--json] --reason TEXT [--expire SEC] "
				       "HOST|H:C:T|H:C:T:L\n\n"
				       "Stop lund's adds, removals and renames there, and its "
				       "reactions\n"
				       "to unit attentions, until released (or for SEC seconds); "
				       "kept\n"
				       "across restarts of lund, listed by lunctl status.\n");
			else
				printf("Usage: lunctl release [--json] HOST|H:C:T|H:C:T:L\n\n"
				       "End the hold on exactly that scope; lund then rescans it "
				       "and\n"
				       "works its names out again.\n");
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		log_error("%s takes one scope: a host, H:C:T or H:C:T:L", verb);
		return EXIT_USAGE;
	}
	if (hold && !reason) {
		log_error("hold needs --reason: say why, for the admin who finds it");
		return EXIT_USAGE;
	}
	req = json_object_new_object();
	if (!req)
		return exit_code_from_errno(-ENOMEM);
	json_object_object_add(req, "cmd", json_object_new_string(verb));
	json_object_object_add(req, "scope", json_object_new_string(argv[optind]));
	if (reason)
		json_object_object_add(req, "reason", json_object_new_string(reason));
	if (timeout > 0)
		json_object_object_add(req, "timeout_sec", json_object_new_int64(timeout));
	r = lunctl_daemon_request(req, argv[optind], &reply);
	if (r != EXIT_OK)
		return r;
	if (o->output == OUTPUT_JSON) {
		json_object_object_del(reply, "ok");
		return output_json(stdout, reply) < 0 ? EXIT_DEVICE : EXIT_OK;
	}
	lunctl_print_holds(json_member(reply, "holds"));
	return EXIT_OK;
}

int verb_hold(int argc, char *argv[], Options *o)
{
	return hold_call(argc, argv, o, true);
}

int verb_release(int argc, char *argv[], Options *o)
{
	return hold_call(argc, argv, o, false);
}
