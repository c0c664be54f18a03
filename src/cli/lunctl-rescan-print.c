/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "lunctl-rescan-print.h"
#include "macro.h"
#include "output.h"

/*
 * One form, two sources: each printer below fetches its fields and hands them to these, so
 * the two cannot drift apart.
 */

static void print_action(FILE *out, bool dry, const char *kind, const char *hctl,
                         const char *reason, const char *path, const char *value, const char *error)
{
	/* Probes are plumbing: shown in a dry run (they are writes) and when they fail. */
	if (streq(kind, "probe") && !dry && !error)
		return;
	fprintf(out, "%s%-6s %-16s %s", dry && !streq(kind, "keep") ? "would " : "", kind, hctl,
	        reason);
	if (dry && path)
		fprintf(out, " [echo '%s' > /%s]", value, path);
	if (error)
		fprintf(out, ": FAILED: %s", error);
	fputc('\n', out);
}

static void print_target(FILE *out, const char *target, const char *method, const char *via,
                         const char *error, const char *detail)
{
	if (error)
		fprintf(out, "failed target %s%s%s: %s%s%s; nothing added or removed there\n",
		        target, via ? " via " : "", via ?: "", error, detail ? ": " : "",
		        detail ?: "");
	else if (method && streq(method, "sequential"))
		fprintf(out, "target %s: sequential probe: %s\n", target, detail ?: "");
}

static void print_header(FILE *out, bool dry, bool ids)
{
	fprintf(out, "%-8s %-14s %6s %8s %8s", "HOST", "DRIVER", dry ? "+ADD" : "ADDED",
	        dry ? "+REMOVE" : "REMOVED", dry ? "+RESIZE" : "RESIZED");
	if (ids)
		fprintf(out, " %8s", dry ? "+REIDENT" : "REIDENT");
	fprintf(out, " %10s %5s %7s\n", "UNCHANGED", "KEPT", "FAILED");
}

typedef struct HostRow {
	int64_t host, added, removed, resized, reidentified, unchanged, kept, failed;
	const char *driver;
} HostRow;

static void print_host(FILE *out, bool ids, const HostRow *h)
{
	char name[32];

	snprintf(name, sizeof(name), "host%" PRIi64, h->host);
	fprintf(out, "%-8s %-14s %6" PRIi64 " %8" PRIi64 " %8" PRIi64, name, h->driver, h->added,
	        h->removed, h->resized);
	if (ids)
		fprintf(out, " %8" PRIi64, h->reidentified);
	fprintf(out, " %10" PRIi64 " %5" PRIi64 " %7" PRIi64 "\n", h->unchanged, h->kept,
	        h->failed);
}

/* As scan-json.c turns an error into a member: its strerror(), or none. */
static const char *error_str(int error)
{
	return error < 0 ? strerror(-error) : NULL;
}

void rescan_print_result(FILE *out, const ScanResult *r, ScanFlags flags)
{
	bool dry = flags & SCAN_DRY_RUN, ids = flags & SCAN_IDS;

	for (size_t i = 0; i < r->n_actions; i++) {
		const ScanAction *a = &r->actions[i];

		print_action(out, dry, scan_action_kind_name(a->kind) ?: "?", a->hctl, a->reason,
		             a->path[0] ? a->path : NULL, a->value, error_str(a->error));
	}
	for (size_t i = 0; i < r->n_targets; i++) {
		const ScanTarget *t = &r->targets[i];

		print_target(out, t->hctl, scan_method_name(t->method), t->via[0] ? t->via : NULL,
		             error_str(t->error), t->detail[0] ? t->detail : NULL);
	}
	for (size_t i = 0; i < r->n_hosts; i++)
		if (r->hosts[i].error < 0)
			fprintf(out, "failed host%u: %s\n", r->hosts[i].host,
			        strerror(-r->hosts[i].error));

	print_header(out, dry, ids);
	for (size_t i = 0; i < r->n_hosts; i++) {
		const ScanHost *h = &r->hosts[i];

		print_host(out, ids,
		           &(HostRow){ .host = h->host,
		                       .driver = h->proc_name,
		                       .added = h->added,
		                       .removed = h->removed,
		                       .resized = h->resized,
		                       .reidentified = h->reidentified,
		                       .unchanged = h->unchanged,
		                       .kept = h->kept,
		                       .failed = h->failed });
	}
}

static json_object *jarray(json_object *o, const char *key)
{
	json_object *v = json_member(o, key);

	return v && json_object_is_type(v, json_type_array) ? v : NULL;
}

void rescan_print_json(FILE *out, json_object *res)
{
	json_object *actions = jarray(res, "actions"), *targets = jarray(res, "targets"),
	            *hosts = jarray(res, "hosts");
	bool dry =
	        json_member(res, "dry_run") && json_object_get_boolean(json_member(res, "dry_run"));
	bool ids = json_member(res, "ids") && json_object_get_boolean(json_member(res, "ids"));

	for (size_t i = 0; actions && i < json_object_array_length(actions); i++) {
		json_object *a = json_object_array_get_idx(actions, i);

		print_action(out, dry, json_str(a, "action") ?: "?", json_str(a, "hctl") ?: "",
		             json_str(a, "reason") ?: "", json_str(a, "path"),
		             json_str(a, "value") ?: "", json_str(a, "error"));
	}
	for (size_t i = 0; targets && i < json_object_array_length(targets); i++) {
		json_object *t = json_object_array_get_idx(targets, i);

		print_target(out, json_str(t, "target") ?: "", json_str(t, "method"),
		             json_str(t, "via"), json_str(t, "error"), json_str(t, "detail"));
	}
	for (size_t i = 0; hosts && i < json_object_array_length(hosts); i++) {
		json_object *h = json_object_array_get_idx(hosts, i);
		const char *error = json_str(h, "error");

		if (error)
			fprintf(out, "failed host%" PRIi64 ": %s\n", json_int(h, "host"), error);
	}

	print_header(out, dry, ids);
	for (size_t i = 0; hosts && i < json_object_array_length(hosts); i++) {
		json_object *h = json_object_array_get_idx(hosts, i);

		print_host(out, ids,
		           &(HostRow){ .host = json_int(h, "host"),
		                       .driver = json_str(h, "driver") ?: "",
		                       .added = json_int(h, "added"),
		                       .removed = json_int(h, "removed"),
		                       .resized = json_int(h, "resized"),
		                       .reidentified = json_int(h, "reidentified"),
		                       .unchanged = json_int(h, "unchanged"),
		                       .kept = json_int(h, "kept"),
		                       .failed = json_int(h, "failed") });
	}
}
