/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

#include "export.h"
#include "ident.h"

/* For _cleanup_(json_object_putp) json_object *o = ... */
static inline void json_object_putp(json_object **o)
{
	if (*o)
		json_object_put(*o);
}

/* Members of the daemon's replies: NULL (or 0) when absent or JSON null. */
static inline json_object *json_member(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static inline const char *json_str(json_object *o, const char *key)
{
	json_object *v = json_member(o, key);

	return v ? json_object_get_string(v) : NULL;
}

static inline int64_t json_int(json_object *o, const char *key)
{
	json_object *v = json_member(o, key);

	return v ? json_object_get_int64(v) : 0;
}

/* export_fn callbacks (core/export.h): a "KEY=VALUE" line to the FILE @userdata (-EIO when
 * it cannot be written); "KEY": "VALUE" added to the json_object @userdata (-ENOMEM). */
int output_print_line(const char *key, const char *value, void *userdata);
int output_add_json(const char *key, const char *value, void *userdata);

/* Print "KEY=VALUE" lines of @id as selected by @flags to @out. */
int output_export(FILE *out, const ScsiIdent *id, ExportFlags flags);

/* A JSON object {"KEY": "VALUE", ...} of the same properties; NULL on ENOMEM. */
json_object *output_properties_json(const ScsiIdent *id, ExportFlags flags);

/* The same object from packed "KEY=VALUE" strings, each NUL-terminated, @size bytes in all
 * (engine/identify.h's export lines); NULL on ENOMEM. */
json_object *output_lines_json(const char *lines, size_t size);

/* Pretty-print @obj followed by a newline. */
int output_json(FILE *out, json_object *obj);

/* Escape device text for a terminal or a log line (control bytes and invalid UTF-8 as \xNN).
 * Returns a malloc'd string or NULL on ENOMEM. */
char *output_escape(const void *s, size_t len);
