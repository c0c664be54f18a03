/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <string.h>

#include "macro.h"
#include "scan-json.h"

static json_object *error_or_null(int error)
{
	return error < 0 ? json_object_new_string(strerror(-error)) : NULL;
}

static json_object *host_json(const ScanHost *h)
{
	json_object *x = json_object_new_object();

	json_object_object_add(x, "host", json_object_new_int64(h->host));
	json_object_object_add(x, "driver", json_object_new_string(h->proc_name));
	json_object_object_add(x, "added", json_object_new_int64(h->added));
	json_object_object_add(x, "removed", json_object_new_int64(h->removed));
	json_object_object_add(x, "resized", json_object_new_int64(h->resized));
	json_object_object_add(x, "reidentified", json_object_new_int64(h->reidentified));
	json_object_object_add(x, "unchanged", json_object_new_int64(h->unchanged));
	json_object_object_add(x, "kept", json_object_new_int64(h->kept));
	json_object_object_add(x, "failed", json_object_new_int64(h->failed));
	json_object_object_add(x, "error", error_or_null(h->error));
	return x;
}

static json_object *target_json(const ScanTarget *t)
{
	json_object *x = json_object_new_object();

	json_object_object_add(x, "target", json_object_new_string(t->hctl));
	json_object_object_add(x, "found_by", json_object_new_string(t->source));
	json_object_object_add(x, "via", t->via[0] ? json_object_new_string(t->via) : NULL);
	json_object_object_add(x, "method", json_object_new_string(scan_method_name(t->method)));
	json_object_object_add(x, "reported", json_object_new_int64((int64_t)t->reported));
	json_object_object_add(x, "scsi_commands", json_object_new_int64(t->commands));
	json_object_object_add(x, "error", error_or_null(t->error));
	json_object_object_add(x, "detail",
	                       t->detail[0] ? json_object_new_string(t->detail) : NULL);
	return x;
}

static json_object *action_json(const ScanAction *a)
{
	json_object *x = json_object_new_object();

	json_object_object_add(x, "action", json_object_new_string(scan_action_kind_name(a->kind)));
	json_object_object_add(x, "hctl", json_object_new_string(a->hctl));
	json_object_object_add(x, "reason", json_object_new_string(a->reason));
	if (a->path[0]) {
		json_object_object_add(x, "path", json_object_new_string(a->path));
		json_object_object_add(x, "value", json_object_new_string(a->value));
	}
	if (a->kind == SCAN_ACTION_RESIZE && a->error >= 0) {
		json_object_object_add(x, "old_size", json_object_new_int64((int64_t)a->old_size));
		json_object_object_add(x, "new_size", json_object_new_int64((int64_t)a->new_size));
	}
	json_object_object_add(x, "applied", json_object_new_boolean(a->applied));
	json_object_object_add(x, "error", error_or_null(a->error));
	return x;
}

json_object *scan_result_to_json(const ScanResult *r, ScanFlags flags, const char *scanned_by)
{
	json_object *o = json_object_new_object(), *v;

	if (!o)
		return NULL;
	json_object_object_add(o, "scanned_by", json_object_new_string(scanned_by));
	json_object_object_add(o, "dry_run", json_object_new_boolean(!!(flags & SCAN_DRY_RUN)));
	json_object_object_add(o, "ids", json_object_new_boolean(!!(flags & SCAN_IDS)));
	json_object_object_add(o, "scsi_commands", json_object_new_int64(r->commands));
	json_object_object_add(o, "failed", json_object_new_int64(r->failed));
	v = json_object_new_array();
	for (size_t i = 0; i < r->n_hosts; i++)
		json_object_array_add(v, host_json(&r->hosts[i]));
	json_object_object_add(o, "hosts", v);
	v = json_object_new_array();
	for (size_t i = 0; i < r->n_targets; i++)
		json_object_array_add(v, target_json(&r->targets[i]));
	json_object_object_add(o, "targets", v);
	v = json_object_new_array();
	for (size_t i = 0; i < r->n_actions; i++)
		json_object_array_add(v, action_json(&r->actions[i]));
	json_object_object_add(o, "actions", v);
	return o;
}

static const struct {
	const char *name;
	ScanFlags flag;
} flag_names[] = {
	{ "add", SCAN_ADD }, { "remove", SCAN_REMOVE }, { "resize", SCAN_RESIZE },
	{ "ids", SCAN_IDS }, { "force", SCAN_FORCE },   { "dry_run", SCAN_DRY_RUN },
};

void scan_flags_to_json(json_object *o, ScanFlags flags)
{
	for (size_t i = 0; i < ELEMENTSOF(flag_names); i++)
		json_object_object_add(o, flag_names[i].name,
		                       json_object_new_boolean(!!(flags & flag_names[i].flag)));
}

ScanFlags scan_flags_from_json(json_object *o)
{
	ScanFlags flags = 0;

	for (size_t i = 0; i < ELEMENTSOF(flag_names); i++) {
		json_object *b;

		if (json_object_object_get_ex(o, flag_names[i].name, &b) &&
		    json_object_get_boolean(b))
			flags |= flag_names[i].flag;
	}
	return flags;
}
