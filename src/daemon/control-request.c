/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "control-request.h"
#include "luns.h"
#include "macro.h"
#include "scan-json.h"

static const struct {
	const char *name;
	bool read_only;
} commands[_CONTROL_COMMAND_MAX] = {
	[CONTROL_LIST] = { "list", true },
	[CONTROL_STATUS] = { "status", true },
	[CONTROL_NAMES] = { "names", true },
	[CONTROL_MONITOR] = { "monitor", true },
	/* A rescan adds and removes LUs; resync rewrites links; reload changes policy. */
	[CONTROL_RESCAN] = { "rescan", false },
	[CONTROL_RESYNC] = { "resync", false },
	[CONTROL_RELOAD] = { "reload", false },
	/* what lund still has to do (lunctl settle) */
	[CONTROL_QUEUE] = { "queue", true },
	/* a hold stops lund's adds, removals and renames in its scope */
	[CONTROL_HOLD] = { "hold", false },
	[CONTROL_RELEASE] = { "release", false },
};

const char *control_command_to_string(ControlCommand c)
{
	return c >= 0 && c < _CONTROL_COMMAND_MAX ? commands[c].name : NULL;
}

ControlCommand control_command_from_string(const char *s)
{
	for (int c = 0; s && c < _CONTROL_COMMAND_MAX; c++)
		if (streq(s, commands[c].name))
			return (ControlCommand)c;
	return _CONTROL_COMMAND_INVALID;
}

bool control_command_read_only(ControlCommand c)
{
	return c >= 0 && c < _CONTROL_COMMAND_MAX && commands[c].read_only;
}

void control_request_done(ControlRequest *r)
{
	if (!r)
		return;
	free(r->selectors);
	r->selectors = NULL;
	r->n_selectors = 0;
}

/* An optional integer member, clamped to [0, max]: -EINVAL when present and not an integer. */
static int get_uint(json_object *o, const char *key, uint64_t max, bool *ret_present, uint64_t *ret)
{
	json_object *v;
	int64_t x;

	*ret_present = false;
	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_int))
		return -EINVAL;
	x = json_object_get_int64(v);
	*ret_present = true;
	/* json-c keeps values above INT64_MAX as uint64: those clamp to @max too */
	*ret = x < 0 ? 0 : MIN((uint64_t)json_object_get_uint64(v), max);
	return 0;
}

static int get_bool(json_object *o, const char *key, bool *ret)
{
	json_object *v;

	*ret = false;
	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_boolean))
		return -EINVAL;
	*ret = json_object_get_boolean(v);
	return 0;
}

/* {"cmd":"list","after":"H:C:T:L","limit":N} */
static int parse_list(json_object *o, ControlRequest *req)
{
	json_object *v;
	uint64_t limit = 0;
	bool present;
	int r;

	if (json_object_object_get_ex(o, "after", &v)) {
		if (!json_object_is_type(v, json_type_string) ||
		    hctl_parse(json_object_get_string(v), &req->after_host, &req->after_channel,
		               &req->after_target, &req->after_lun) < 0)
			return -EINVAL;
		req->has_after = true;
	}
	r = get_uint(o, "limit", UINT64_MAX, &present, &limit);
	if (r < 0)
		return r;
	/* A page of 0 LUs, or one larger than the socket's backlog could hold, is refused
	 * rather than clamped: the client would not know where its page ended. */
	if (present && (limit == 0 || limit > CONTROL_LIST_LIMIT_MAX))
		return -EINVAL;
	req->limit = (unsigned)limit;
	return 0;
}

/* {"cmd":"hold","scope":"2:0:1","reason":"...","timeout_sec":N}, {"cmd":"release","scope":...}:
 * the scope a host ("2"), a target ("2:0:1") or an LU ("2:0:1:3"), every field a number. */
static int parse_hold(json_object *o, ControlRequest *req, bool hold)
{
	json_object *v;
	uint64_t x;
	bool present;
	int r;

	if (!json_object_object_get_ex(o, "scope", &v) || !json_object_is_type(v, json_type_string))
		return -EINVAL;
	req->scope = json_object_get_string(v);
	if ((size_t)json_object_get_string_len(v) != strlen(req->scope) ||
	    strlen(req->scope) > 64 || strchr(req->scope, '-') ||
	    scan_selector_parse(req->scope, &req->scope_sel) < 0)
		return -EINVAL;
	if (!hold)
		return 0;
	if (!json_object_object_get_ex(o, "reason", &v) ||
	    !json_object_is_type(v, json_type_string))
		return -EINVAL;
	req->reason = json_object_get_string(v);
	if (!req->reason[0] || (size_t)json_object_get_string_len(v) != strlen(req->reason) ||
	    strlen(req->reason) > CONTROL_HOLD_REASON_MAX)
		return -EINVAL;
	r = get_uint(o, "timeout_sec", UINT64_MAX, &present, &x);
	if (r < 0)
		return r;
	if (present && (x == 0 || x > CONTROL_HOLD_TIMEOUT_MAX))
		return -EINVAL;
	req->timeout_sec = present ? x : 0;
	return 0;
}

/* {"cmd":"names","device":"/dev/sda"} */
static int parse_names(json_object *o, ControlRequest *req)
{
	json_object *v;

	if (!json_object_object_get_ex(o, "device", &v) ||
	    !json_object_is_type(v, json_type_string))
		return -EINVAL;
	req->device = json_object_get_string(v);
	/* A device name is a path or an H:C:T:L, never longer than a path, never with a NUL. */
	if (!req->device[0] || (size_t)json_object_get_string_len(v) != strlen(req->device) ||
	    strlen(req->device) >= 4096)
		return -EINVAL;
	return 0;
}

/*
 * {"cmd":"rescan","selectors":["2","0:0:1"],"add":true,"remove":false,"resize":false,
 *  "ids":false,"force":false,"dry_run":false,"timeout_ms":N,"jobs":N,"max_lun":N,"progress":true,
 *  "wait_ms":N}
 */
static int parse_rescan(json_object *o, ControlRequest *req)
{
	json_object *sels;
	uint64_t x;
	bool present;
	int r;

	if (json_object_object_get_ex(o, "selectors", &sels)) {
		size_t n;

		if (!json_object_is_type(sels, json_type_array))
			return -EINVAL;
		n = json_object_array_length(sels);
		if (n > CONTROL_SELECTORS_MAX)
			return -E2BIG;
		req->selectors = calloc(n ?: 1, sizeof(*req->selectors));
		if (!req->selectors)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			json_object *s = json_object_array_get_idx(sels, i);

			if (!json_object_is_type(s, json_type_string) ||
			    scan_selector_parse(json_object_get_string(s), &req->selectors[i]) < 0)
				return -EINVAL;
		}
		req->n_selectors = n;
	}
	req->flags = scan_flags_from_json(o);
	if (!(req->flags & (SCAN_ADD | SCAN_REMOVE | SCAN_RESIZE | SCAN_IDS)))
		req->flags |= SCAN_ADD;
	r = get_uint(o, "timeout_ms", 3600000, &present, &x);
	if (r < 0)
		return r;
	if (present)
		req->policy.timeout_ms = (unsigned)x;
	r = get_uint(o, "jobs", 256, &present, &x);
	if (r < 0)
		return r;
	if (present)
		req->policy.max_workers = (unsigned)x;
	r = get_uint(o, "max_lun", 100000, &present, &x);
	if (r < 0)
		return r;
	if (present)
		req->policy.seq_max_lun = x;
	r = get_uint(o, "wait_ms", CONTROL_RESCAN_WAIT_MAX_MS, &present, &x);
	if (r < 0)
		return r;
	req->wait_ms = present ? x : CONTROL_RESCAN_WAIT_DEFAULT_MS;
	return get_bool(o, "progress", &req->progress);
}

int control_request_from_json(json_object *o, ControlRequest *ret)
{
	_cleanup_(control_request_done) ControlRequest req = {};
	json_object *cmd;
	int r = 0;

	assert_return(ret, -EINVAL);
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "cmd", &cmd) ||
	    !json_object_is_type(cmd, json_type_string))
		return -EBADMSG;
	req.cmd = control_command_from_string(json_object_get_string(cmd));
	switch (req.cmd) {
	case CONTROL_LIST:
		r = parse_list(o, &req);
		break;
	case CONTROL_NAMES:
		r = parse_names(o, &req);
		break;
	case CONTROL_RESCAN:
		r = parse_rescan(o, &req);
		break;
	case CONTROL_HOLD:
	case CONTROL_RELEASE:
		r = parse_hold(o, &req, req.cmd == CONTROL_HOLD);
		break;
	case CONTROL_STATUS:
	case CONTROL_MONITOR:
	case CONTROL_RESYNC:
	case CONTROL_RELOAD:
	case CONTROL_QUEUE:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (r < 0)
		return r;
	*ret = TAKE_STRUCT(req);
	return 0;
}

/* No NaN or infinity anywhere in @o: json-c reads them (NaN, Infinity, 1e999), JSON has none,
 * and an "id" is echoed back to a client that could not parse the reply. */
static bool all_finite(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_double:
		return isfinite(json_object_get_double(o));
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if (!all_finite(json_object_array_get_idx(o, i)))
				return false;
		return true;
	case json_type_object: {
		json_object_object_foreach(o, k, v)
		{
			(void)k;
			if (!all_finite(v))
				return false;
		}
		return true;
	}
	default:
		return true;
	}
}

int control_request_parse_object(const char *buf, size_t len, json_object **ret)
{
	json_tokener *tok;
	json_object *o;
	size_t used;
	bool ok;

	assert_return(buf || len == 0, -EINVAL);
	assert_return(ret, -EINVAL);
	if (len > CONTROL_REQUEST_MAX)
		return -EMSGSIZE;
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, buf, (int)len);
	used = json_tokener_get_parse_end(tok);
	ok = o && json_tokener_get_error(tok) == json_tokener_success && used <= len &&
	     json_object_is_type(o, json_type_object);
	json_tokener_free(tok);
	/* One object, and nothing after it but white space. */
	for (size_t i = used; ok && i < len; i++)
		ok = buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r';
	if (!ok) {
		json_object_put(o);
		return -EBADMSG;
	}
	if (!all_finite(o)) {
		json_object_put(o);
		return -EDOM;
	}
	*ret = o;
	return 0;
}

int control_request_parse(const char *buf, size_t len, json_object **ret_object,
                          ControlRequest *ret)
{
	json_object *o = NULL;
	int r;

	assert_return(ret_object && ret, -EINVAL);
	r = control_request_parse_object(buf, len, &o);
	if (r < 0)
		return r;
	r = control_request_from_json(o, ret);
	if (r < 0) {
		json_object_put(o);
		return r;
	}
	*ret_object = o;
	return 0;
}
