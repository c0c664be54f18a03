/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * `lunctl list`'s rows from lund's inventory: its "list" reply (lund(8), CONTROL PROTOCOL), a
 * page at a time, each LU of it checked and turned into a Row.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "log.h"
#include "lunctl-list.h"
#include "luns.h"
#include "macro.h"
#include "output.h"

/* @key of @o when it is of @type, else NULL. */
static json_object *typed_member(json_object *o, const char *key, json_type type)
{
	json_object *v = json_member(o, key);

	return v && json_object_is_type(v, type) ? v : NULL;
}

static const char *str(json_object *o, const char *key)
{
	return json_object_get_string(typed_member(o, key, json_type_string));
}

static bool uint_member(json_object *o, const char *key, uint64_t max, uint64_t *ret)
{
	json_object *v = typed_member(o, key, json_type_int);

	/* json-c keeps integers above INT64_MAX (a LUN can be one) as uint64. */
	if (!v || json_object_get_int64(v) < 0)
		return false;
	*ret = json_object_get_uint64(v);
	return *ret <= max;
}

/* A node as lund gives it ("/dev/sda", "/dev/bsg/0:0:0:0") as sysfs names it ("sda"). */
static const char *node_name(json_object *nodes, const char *key)
{
	const char *s = str(nodes, key);

	if (s && strneq(s, "/dev/", 5))
		return s + 5;
	return s;
}

static int row_from_lund(json_object *lu, Row *w)
{
	json_object *nodes = json_member(lu, "nodes"), *id = json_member(lu, "id"),
	            *names = json_member(lu, "names");
	const char *naming_error = str(lu, "naming_error");
	uint64_t h, c, t, l;
	bool oom = false;

	if (!json_object_is_type(lu, json_type_object) ||
	    (nodes && !json_object_is_type(nodes, json_type_object)) ||
	    (id && !json_object_is_type(id, json_type_object)) || !str(lu, "hctl") ||
	    !uint_member(lu, "host", UINT_MAX, &h) || !uint_member(lu, "channel", UINT_MAX, &c) ||
	    !uint_member(lu, "target", UINT_MAX, &t) || !uint_member(lu, "lun", UINT64_MAX, &l) ||
	    (names && !json_object_is_type(names, json_type_array)))
		return -EBADMSG;
	w->lu.hctl = row_strdup(str(lu, "hctl"), &oom);
	w->lu.host = (unsigned)h;
	w->lu.channel = (unsigned)c;
	w->lu.target = (unsigned)t;
	w->lu.lun = l;
	w->lu.block = row_strdup(node_name(nodes, "block"), &oom);
	w->lu.tape = row_strdup(node_name(nodes, "tape"), &oom);
	w->lu.sg = row_strdup(node_name(nodes, "sg"), &oom);
	w->state = row_strdup(str(lu, "state"), &oom);
	if (json_object_get_boolean(typed_member(lu, "excluded", json_type_boolean)))
		w->excluded = row_strdup(str(json_member(lu, "exclusion"), "rule") ?: "?", &oom);
	if (oom)
		return -ENOMEM;

	/* No scsi_id view: lund is identifying it (SG_IO, off its loop), could not, or has not
	 * yet. */
	if (!naming_error && !id && json_object_get_boolean(json_member(lu, "identifying"))) {
		w->error = -EINPROGRESS;
		return 0;
	}
	if (naming_error || !id) {
		w->error = naming_error ? -lund_errno_from_name(naming_error) : -ENODATA;
		return 0;
	}
	if (!str(id, "vendor") || !str(id, "model") || !str(id, "revision") ||
	    !json_object_is_type(json_member(lu, "properties"), json_type_object))
		return -EBADMSG;
	w->type = row_strdup(str(id, "type"), &oom);
	w->vendor = row_strdup(str(id, "vendor"), &oom);
	w->model = row_strdup(str(id, "model"), &oom);
	w->revision = row_strdup(str(id, "revision"), &oom);
	w->serial = row_strdup(str(id, "serial"), &oom);
	w->properties = json_object_get(json_member(lu, "properties"));
	json_object *paths = typed_member(lu, "paths", json_type_array),
	            *multipath = typed_member(lu, "multipath", json_type_object);

	for (size_t k = 0; !oom && paths && k < json_object_array_length(paths); k++) {
		const char *hp = json_object_get_string(json_object_array_get_idx(paths, k));
		char *p = NULL;

		if (!hp || asprintf(&p, "%s%s%s", w->paths ?: "", w->paths ? " " : "", hp) < 0) {
			oom = !!hp;
			continue;
		}
		free(w->paths);
		w->paths = p;
	}
	if (str(multipath, "node"))
		w->multipath = json_object_get(multipath);
	for (size_t k = 0; !oom && names && k < json_object_array_length(names); k++) {
		json_object *v = json_object_array_get_idx(names, k);

		if (!json_object_is_type(v, json_type_string))
			return -EBADMSG;
		if (row_add_name(w, json_object_get_string(v)) < 0)
			oom = true;
	}
	return oom ? -ENOMEM : 0;
}

/* Rows from one page of lund's "list" reply (hosts[].targets[].lus[]), those @filter lets
 * through appended to *rows. */
static int rows_from_lund(json_object *reply, const ListFilter *filter, Row **rows, size_t *n,
                          size_t *size)
{
	json_object *hosts = typed_member(reply, "hosts", json_type_array);
	size_t nh = hosts ? json_object_array_length(hosts) : 0;
	int r = 0;

	if (!hosts)
		return -EBADMSG;
	for (size_t i = 0; r >= 0 && i < nh; i++) {
		json_object *targets = typed_member(json_object_array_get_idx(hosts, i), "targets",
		                                    json_type_array);
		size_t nt = targets ? json_object_array_length(targets) : 0;

		for (size_t j = 0; r >= 0 && j < nt; j++) {
			json_object *lus = typed_member(json_object_array_get_idx(targets, j),
			                                "lus", json_type_array);
			size_t nl = lus ? json_object_array_length(lus) : 0;

			for (size_t k = 0; r >= 0 && k < nl; k++) {
				Row *w = rows_append(rows, n, size);

				if (!w)
					return -ENOMEM;
				r = row_from_lund(json_object_array_get_idx(lus, k), w);
				/* lund serves every LU: keep those the filter lets through */
				if (r >= 0 && !list_filter_match(filter, w->lu.host, w->lu.channel,
				                                 w->lu.target, w->lu.lun))
					row_done(&(*rows)[--(*n)]);
			}
		}
	}
	return r;
}

/* 0 when H:C:T:L @next comes after @prev (NULL: the start), -EBADMSG otherwise. */
static int cursor_advances(const char *prev, const char *next)
{
	Row a = {}, b = {};

	if (hctl_parse(next, &b.lu.host, &b.lu.channel, &b.lu.target, &b.lu.lun) < 0)
		return -EBADMSG;
	if (!prev)
		return 0;
	if (hctl_parse(prev, &a.lu.host, &a.lu.channel, &a.lu.target, &a.lu.lun) < 0)
		return -EBADMSG;
	return row_cmp(&a, &b) < 0 ? 0 : -EBADMSG;
}

/*
 * Ask lund for its inventory, a page of LIST_PAGE LUs at a time (lund(8), CONTROL PROTOCOL), so
 * that no reply comes near the socket's per-client limit however many LUs there are.
 */
#define LIST_PAGE 1000

int list_rows_from_lund(const ListFilter *filter, Row **ret, size_t *ret_n)
{
	_cleanup_(lund_client_freep) LundClient *c = NULL;
	_cleanup_free_ char *after = NULL;
	Row *rows = NULL;
	size_t n = 0, size = 0;
	int r;

	r = lund_client_connect(NULL, &c);
	if (r < 0) {
		log_debug_errno(r, "No answer on lund's control socket, reading sysfs: %m");
		return 0;
	}
	for (;;) {
		_cleanup_(json_object_putp) json_object *req = json_object_new_object();
		_cleanup_(json_object_putp) json_object *reply = NULL;
		const char *next;

		if (!req) {
			r = -ENOMEM;
			break;
		}
		json_object_object_add(req, "cmd", json_object_new_string("list"));
		json_object_object_add(req, "limit", json_object_new_int(LIST_PAGE));
		if (after)
			json_object_object_add(req, "after", json_object_new_string(after));
		r = lund_client_call(c, req, &reply);
		if (r < 0)
			break;
		r = rows_from_lund(reply, filter, &rows, &n, &size);
		if (r < 0)
			break;
		/* The cursor must move forward: a daemon repeating itself would loop forever. */
		next = str(reply, "next");
		if (!next)
			break;
		r = cursor_advances(after, next);
		if (r < 0)
			break;
		free(after);
		after = strdup(next);
		if (!after) {
			r = -ENOMEM;
			break;
		}
	}
	if (r < 0) {
		rows_free(rows, n);
		return r;
	}
	*ret = rows;
	*ret_n = n;
	return 1;
}
