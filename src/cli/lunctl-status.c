/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* lunctl status: what the daemon reports about itself (lund(8), CONTROL PROTOCOL "status"). */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "log.h"
#include "lunctl.h"
#include "macro.h"
#include "output.h"

/* Connect and send one command; on failure log why and return the exit code to use. */
int lunctl_daemon_call(const char *cmd, const char *key, const char *value, json_object **ret)
{
	_cleanup_(json_object_putp) json_object *req = json_object_new_object();

	if (!req)
		return exit_code_from_errno(-ENOMEM);
	json_object_object_add(req, "cmd", json_object_new_string(cmd));
	if (key && value)
		json_object_object_add(req, key, json_object_new_string(value));
	return lunctl_daemon_request(req, value, ret);
}

int lunctl_daemon_request(json_object *req, const char *what, json_object **ret)
{
	_cleanup_(lund_client_freep) LundClient *c = NULL;
	const char *cmd = json_str(req, "cmd");
	json_object *reply = NULL;
	int r;

	r = lund_client_connect(NULL, &c);
	if (r == -ETIMEDOUT) {
		log_error("lund did not accept a connection within %.1f s (lunctl --timeout)",
		          (double)lund_client_timeout(false) / 1e6);
		return EXIT_DEVICE;
	}
	if (r < 0) {
		log_error_errno(
		        r, "Failed to connect to lund's control socket (is lund running?): %m");
		return EXIT_DEVICE;
	}
	r = lund_client_call(c, req, &reply);
	if (r < 0) {
		const char *msg = reply ? json_str(reply, "message") : NULL;

		if (msg)
			log_error("lund: %s%s%s", what ?: "", what ? ": " : "", msg);
		else if (r == -ETIMEDOUT)
			log_error("lund did not answer \"%s\" within %.1f s (lunctl --timeout)",
			          cmd, (double)lund_client_timeout(false) / 1e6);
		else
			log_error_errno(r, "Request \"%s\" failed: %m", cmd);
		json_object_put(reply);
		return exit_code_from_errno(r == -ENOENT ? -ENODEV : r);
	}
	*ret = reply;
	return EXIT_OK;
}

/* The members of the object @o as "NAME VALUE" (a string, else an int64), the first after
 * @lead, the others after ", ". Returns whether there were any (none when @o is not an object). */
static bool print_members(json_object *o, const char *lead)
{
	bool first = true;

	if (!o || !json_object_is_type(o, json_type_object))
		return false;
	json_object_object_foreach(o, name, v)
	{
		printf("%s%s ", first ? lead : ", ", name);
		if (json_object_is_type(v, json_type_string))
			printf("%s", json_object_get_string(v));
		else
			printf("%" PRIi64, json_object_get_int64(v));
		first = false;
	}
	return !first;
}

/* "@label NAME VALUE, NAME VALUE...\n" (" none" for no member) when @o is an object. */
static void print_member_line(json_object *o, const char *label)
{
	if (!o || !json_object_is_type(o, json_type_object))
		return;
	printf("%s", label);
	printf("%s\n", print_members(o, " ") ? "" : " none");
}

/* Command failures the kernel reported (the companion patchset's SDEV_ERROR events). */
static void print_errors(json_object *s)
{
	json_object *errs = json_member(s, "errors"), *lus = errs ? json_member(errs, "lus") : NULL;

	if (!errs || json_object_is_type(errs, json_type_null))
		return;
	printf("Error events:  threshold %s\n", json_str(errs, "threshold") ?: "?");
	if (!lus || !json_object_is_type(lus, json_type_object))
		return;
	json_object_object_foreach(lus, hctl, e)
	{
		json_object *cl = json_member(e, "classes"), *polled = json_member(e, "polled");

		if (polled && json_object_get_boolean(polled))
			printf("  %s: ioerr_cnt +%" PRIi64 ", iotmo_cnt +%" PRIi64
			       " since lund started (no error events on this kernel: polled)\n",
			       hctl, json_int(e, "ioerr_cnt_growth"),
			       json_int(e, "iotmo_cnt_growth"));
		else {
			printf("  %s: %" PRIi64 " errors (", hctl, json_int(e, "total"));
			print_members(cl, "");
			printf("), %" PRIi64 " suppressed by the kernel, %" PRIi64
			       " malformed, %" PRIi64 " threshold actions\n",
			       json_int(e, "suppressed"), json_int(e, "malformed"),
			       json_int(e, "threshold_actions"));
		}
		/* The kernel's own per-class counters (companion patchset, errors/<class>). */
		print_member_line(json_member(e, "kernel_classes"), "    kernel counters:");
	}
}

/* iSCSI sessions lund scans once they are logged in */
static void print_logins(json_object *s)
{
	json_object *lw = json_member(s, "iscsi_logins_waiting");
	bool any = false;

	if (!lw || !json_object_is_type(lw, json_type_object))
		return;
	json_object_object_foreach(lw, name, w)
	{
		uint64_t age = (uint64_t)json_int(w, "age_usec");

		printf("%s %s on host%" PRIi64 " %s for %" PRIu64 ".%01" PRIu64 " s;",
		       any ? "" : "iSCSI logins: ", name, json_int(w, "host"),
		       json_str(w, "state") ?: "?", age / 1000000, age / 100000 % 10);
		any = true;
	}
	if (any)
		printf(" each scanned once logged in\n");
}

/* "request from pid 12 (2, 3:0:1) for 4.2 s" */
static void print_scan_request(json_object *q)
{
	json_object *sels = json_member(q, "selectors");
	uint64_t age = (uint64_t)json_int(q, "age_usec");

	printf("%s (", json_str(q, "reason") ?: "?");
	if (!sels || json_object_array_length(sels) == 0)
		printf("every host");
	for (size_t i = 0; sels && i < json_object_array_length(sels); i++)
		printf("%s%s", i ? ", " : "",
		       json_object_get_string(json_object_array_get_idx(sels, i)));
	printf(") for %" PRIu64 ".%01" PRIu64 " s\n", age / 1000000, age / 100000 % 10);
}

static void print_scans(json_object *s)
{
	json_object *hs = json_member(s, "host_scan"), *cur, *q;

	if (!hs)
		return;
	cur = json_member(hs, "current");
	q = json_member(hs, "queue");
	printf("Scans:         %" PRIi64 " done, %s, %zu queued\n", json_int(hs, "scans"),
	       cur && !json_object_is_type(cur, json_type_null) ? "1 running" : "none running",
	       q && json_object_is_type(q, json_type_array) ? json_object_array_length(q) : 0);
	if (cur && !json_object_is_type(cur, json_type_null)) {
		printf("  running: ");
		print_scan_request(cur);
	}
	for (size_t i = 0;
	     q && json_object_is_type(q, json_type_array) && i < json_object_array_length(q); i++) {
		printf("  queued:  ");
		print_scan_request(json_object_array_get_idx(q, i));
	}
}

/* The names paths of one LU want sort together: by the path they are linked at, then by their
 * least owner (for names linked nowhere). */
static const char *least_owner(json_object *c)
{
	json_object *ow = json_member(c, "owners");
	const char *m = "";

	for (size_t k = 0; ow && k < json_object_array_length(ow); k++) {
		const char *h = json_object_get_string(json_object_array_get_idx(ow, k));

		if (h && (!*m || strcmp(h, m) < 0))
			m = h;
	}
	return m;
}

static int paths_cmp(const void *x, const void *y)
{
	json_object *a = *(json_object *const *)x, *b = *(json_object *const *)y;

	return strcmp(json_str(a, "winner") ?: "", json_str(b, "winner") ?: "")
	               ?: strcmp(least_owner(a), least_owner(b));
}

/* Names wanted by several paths of one LU are no collision (lund(8), LINKS, Paths and clones):
 * "Paths: N LUs over M paths", each LU's paths once; then the names LUs that are not one
 * (clones) collide over. */
/* The LUs this host is registered on (lund(8) RESERVATIONS), and why a scan kept one. */
static void print_reserved(json_object *a)
{
	size_t n = a ? json_object_array_length(a) : 0;

	if (n == 0)
		return;
	printf("Reserved:      %zu logical unit%s this host is registered on\n", n,
	       n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(a, i);

		printf("  %s: %s", json_str(r, "hctl") ?: "?", json_str(r, "reservations") ?: "");
		if (json_str(r, "kept"))
			printf("; a scan kept it: %s", json_str(r, "kept"));
		printf("\n");
	}
}

static void print_collisions(json_object *a)
{
	size_t n = a ? json_object_array_length(a) : 0, n_paths = 0, lus = 0, paths = 0;
	_cleanup_free_ json_object **v = calloc(n + 1, sizeof(*v));

	if (!v) {
		log_error_errno(-ENOMEM, "Out of memory");
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (lunctl_collision_is_paths(json_object_array_get_idx(a, i)))
			v[n_paths++] = json_object_array_get_idx(a, i);
	qsort(v, n_paths, sizeof(*v), paths_cmp);
	/* each LU once: the first of its names */
	for (size_t i = 0; i < n_paths; i++)
		if (i == 0 || !lunctl_collision_same_owners(v[i - 1], v[i])) {
			json_object *ow = json_member(v[i], "owners");

			v[lus++] = v[i];
			paths += ow ? json_object_array_length(ow) : 0;
		}
	if (lus > 0)
		printf("Paths:         %zu logical unit%s over %zu paths, named at the first\n",
		       lus, lus == 1 ? "" : "s", paths);
	for (size_t i = 0; i < lus; i++) {
		const char *w = json_str(v[i], "winner");

		printf("  names at %s, also through", w ?: "nobody");
		lunctl_collision_print_owners(v[i], w);
		printf("\n");
	}
	printf("Collisions:    %zu\n", n - n_paths);
	for (size_t i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(a, i);

		if (lunctl_collision_is_paths(c))
			continue;
		printf("  %s -> %s (wanted by", json_str(c, "path") ?: "?",
		       json_str(c, "winner") ?: "nobody");
		lunctl_collision_print_owners(c, NULL);
		printf(")\n");
	}
}

static void print_status(json_object *s)
{
	json_object *mon = json_member(s, "monitor"), *a;
	uint64_t up = (uint64_t)json_int(s, "uptime_usec");

	printf("lund %s, pid %" PRIi64 ", up %" PRIu64 ".%01" PRIu64 " s\n",
	       json_str(s, "version") ?: "?", json_int(s, "pid"), up / 1000000, up / 100000 % 10);
	printf("Root:          %s\n", json_str(s, "root") ?: "?");
	printf("Run directory: %s\n", json_str(s, "run_dir") ?: "?");
	a = json_member(s, "link_dirs");
	printf("Link dirs:    ");
	for (size_t i = 0; a && i < json_object_array_length(a); i++)
		printf(" %s", json_object_get_string(json_object_array_get_idx(a, i)));
	printf("\n");
	printf("Inventory:     %" PRIi64 " hosts, %" PRIi64 " targets, %" PRIi64 " logical units\n",
	       json_int(s, "hosts"), json_int(s, "targets"), json_int(s, "lus"));
	printf("Names:         %" PRIi64 " wanted, %" PRIi64 " linked", json_int(s, "names"),
	       json_int(s, "links"));
	/* Writes or removals that failed, retried with back-off (lund(8), LINKS). */
	if (json_int(s, "links_failed") > 0)
		printf(", %" PRIi64 " failed (retried)", json_int(s, "links_failed"));
	printf("\n");
	if (json_int(s, "identifying") > 0)
		printf("Identifying:   %" PRIi64 " logical units (SCSI commands, no names yet)\n",
		       json_int(s, "identifying"));
	print_collisions(json_member(s, "collisions"));
	a = json_member(s, "foreign");
	printf("Foreign files: %zu\n", a ? json_object_array_length(a) : 0);
	if (json_member(s, "holds") && json_object_array_length(json_member(s, "holds")) > 0)
		lunctl_print_holds(json_member(s, "holds"));
	for (size_t i = 0; a && i < json_object_array_length(a); i++)
		printf("  %s\n", json_object_get_string(json_object_array_get_idx(a, i)));
	print_reserved(json_member(s, "reserved"));
	printf("Resyncs:       %" PRIi64 "%s%s%s\n", json_int(s, "resyncs"),
	       json_str(s, "last_resync_reason") ? " (last: " : "",
	       json_str(s, "last_resync_reason") ?: "",
	       json_str(s, "last_resync_reason") ? ")" : "");
	if (mon && !json_object_is_type(mon, json_type_null))
		printf("Uevents:       %" PRIi64 " received, %" PRIi64 " handled, %" PRIi64
		       " overflows, %" PRIi64 " sequence gaps, last seqnum %" PRIi64
		       ", buffer %" PRIi64 " bytes\n",
		       json_int(mon, "received"), json_int(mon, "dispatched"),
		       json_int(mon, "enobufs"), json_int(mon, "seqnum_gaps"),
		       json_int(mon, "last_seqnum"), json_int(mon, "receive_buffer"));
	else
		printf("Uevents:       not monitored\n");
	printf("Clients:       %" PRIi64 "\n", json_int(s, "clients"));
	print_scans(s);
	print_logins(s);
	/* LUs whose kernel state is not "running" (offline, transport-offline, blocked, ...) */
	print_member_line(json_member(s, "not_running"), "Not running:  ");

	print_errors(s);
}

/* A verb that takes no arguments, only --json and --help (the usage line, then @help when not
 * NULL) and, where @strict is not NULL, --strict (into *@strict): calls lund with @cmd and
 * prints the reply, as JSON when asked, else with @print. @verdict (may be NULL) gives the exit
 * status of a reply, after it was printed. Returns the exit status. */
static int call_noargs(int argc, char *argv[], Options *o, const char *cmd, const char *help,
                       void (*print)(json_object *reply), bool *strict,
                       int (*verdict)(json_object *reply, bool strict))
{
	enum { OPT_STRICT = 0x100 };
	static const struct option longopts[] = { { "json", no_argument, NULL, 'J' },
		                                  { "help", no_argument, NULL, 'h' },
		                                  {} };
	static const struct option longopts_strict[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{},
	};
	_cleanup_(json_object_putp) json_object *reply = NULL;
	int r;

	while ((r = lunctl_getopt(argc, argv, "Jh", strict ? longopts_strict : longopts, o, cmd)) !=
	       -1) {
		if (r == OPT_STRICT) {
			*strict = true;
			continue;
		}
		if (r == 'h') {
			printf("Usage: lunctl %s [--json]%s\n", cmd, strict ? " [--strict]" : "");
			if (help)
				printf("\n%s", help);
			return EXIT_OK;
		}
		return EXIT_USAGE;
	}
	if (optind != argc) {
		log_error("%s takes no arguments", cmd);
		return EXIT_USAGE;
	}
	r = lunctl_daemon_call(cmd, NULL, NULL, &reply);
	if (r != EXIT_OK)
		return r;
	if (o->output == OUTPUT_JSON) {
		json_object_object_del(reply, "ok");
		if (output_json(stdout, reply) < 0)
			return EXIT_DEVICE;
	} else
		print(reply);
	return verdict ? verdict(reply, strict && *strict) : EXIT_OK;
}

int verb_status(int argc, char *argv[], Options *o)
{
	return call_noargs(argc, argv, o, "status", NULL, print_status, NULL, NULL);
}

/* The problems lund ignores of the file it reloaded, one line each as check-config prints them. */
static void print_reload(json_object *reply)
{
	json_object *pending = json_member(reply, "pending");
	json_object *problems = json_member(reply, "problems");
	size_t n = problems ? json_object_array_length(problems) : 0;

	if (pending && json_object_get_boolean(pending)) {
		printf("lund reloads its configuration when the running scan ends.\n");
		return;
	}
	if (n == 0) {
		printf("lund reloaded its configuration.\n");
		return;
	}
	printf("lund reloaded its configuration, %zu problem%s ignored:\n", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(problems, i);

		printf("%s:%" PRIi64 ": %s\n", json_str(p, "file") ?: "?", json_int(p, "line"),
		       json_str(p, "message") ?: "");
	}
}

/* --strict: problems ignored make the exit status 3, as lunctl check-config's. */
static int reload_verdict(json_object *reply, bool strict)
{
	json_object *problems = json_member(reply, "problems");

	return strict && problems && json_object_array_length(problems) > 0 ? EXIT_MALFORMED
	                                                                    : EXIT_OK;
}

/* lunctl reload: lund re-reads lund.conf and the hwdb and re-applies the policy (SIGHUP). */
int verb_reload(int argc, char *argv[], Options *o)
{
	bool strict = false;

	return call_noargs(argc, argv, o, "reload",
	                   "Have lund re-read lund.conf and the hwdb and re-apply the policy.\n"
	                   "A configuration lund cannot parse is refused and the old one kept;\n"
	                   "what lund ignores of one it applies is printed, one line each, as\n"
	                   "lunctl check-config prints it.\n"
	                   "\n"
	                   "     --strict   exit 3 when lund ignored anything of the file\n"
	                   " -J, --json     print lund's answer as JSON\n"
	                   " -h, --help     display this help\n",
	                   print_reload, &strict, reload_verdict);
}

/* lunctl resync: lund rebuilds its inventory from sysfs and reconciles every link. */
int verb_resync(int argc, char *argv[], Options *o)
{
	return call_noargs(argc, argv, o, "resync",
	                   "Have lund rebuild its inventory from sysfs and reconcile every link,\n"
	                   "as after a lost uevent. Prints lund's status afterwards: on a large\n"
	                   "tree, while lund still reads it (lunctl settle waits for the end).\n",
	                   print_status, NULL, NULL);
}
