/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "macro.h"
#include "output.h"

int output_print_line(const char *key, const char *value, void *userdata)
{
	FILE *out = userdata;

	return fprintf(out, "%s=%s\n", key, value) < 0 ? -EIO : 0;
}

int output_export(FILE *out, const ScsiIdent *id, ExportFlags flags)
{
	return export_ident(id, flags, output_print_line, out);
}

int output_add_json(const char *key, const char *value, void *userdata)
{
	json_object *obj = userdata, *v;

	v = json_object_new_string(value);
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(obj, key, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

json_object *output_properties_json(const ScsiIdent *id, ExportFlags flags)
{
	json_object *obj = json_object_new_object();

	if (!obj)
		return NULL;
	if (export_ident(id, flags, output_add_json, obj) < 0) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

json_object *output_lines_json(const char *lines, size_t size)
{
	json_object *obj = json_object_new_object();

	if (!obj)
		return NULL;
	for (const char *kv = lines; kv && kv < lines + size; kv += strlen(kv) + 1) {
		const char *eq = strchr(kv, '=');
		_cleanup_free_ char *key = eq ? strndup(kv, (size_t)(eq - kv)) : NULL;

		if (!key || output_add_json(key, eq + 1, obj) < 0) {
			json_object_put(obj);
			return NULL;
		}
	}
	return obj;
}

int output_json(FILE *out, json_object *obj)
{
	const char *s = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY |
	                                                            JSON_C_TO_STRING_SPACED |
	                                                            JSON_C_TO_STRING_NOSLASHESCAPE);

	if (!s)
		return -ENOMEM;
	return fprintf(out, "%s\n", s) < 0 ? -EIO : 0;
}

char *output_escape(const void *s, size_t len)
{
	size_t size = 4 * len + 1;
	char *buf = malloc(size);

	if (!buf)
		return NULL;
	if (escape_value(s, len, buf, size) < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
