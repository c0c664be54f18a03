/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <libsmartcols.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "identify.h"
#include "log.h"
#include "luns.h"
#include "lunctl.h"
#include "macro.h"
#include "output.h"
#include "sysfs.h"

typedef struct Entry {
	LuRef lu;
	Identity ident;
	int error; /* identification failed: the row shows the LU with what sysfs has */
} Entry;

static int entry_cmp(const void *a, const void *b)
{
	const Entry *x = a, *y = b;

	return CMP(x->lu.host, y->lu.host) ?: CMP(x->lu.channel, y->lu.channel) ?:
               CMP(x->lu.target, y->lu.target) ?: CMP(x->lu.lun, y->lu.lun);
}

static void entries_free(Entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		lu_ref_done(&e[i].lu);
		identity_done(&e[i].ident);
	}
	free(e);
}

static int collect(int rootfd, ProbeFlags flags, Entry **ret, size_t *ret_n)
{
	Entry *e = NULL;
	size_t n = 0, allocated = 0;
	DIR *d;
	int r;

	r = sysfs_opendir(rootfd, "sys/bus/scsi/devices", &d);
	if (r < 0)
		return r;

	for (struct dirent *de; (de = readdir(d));) {
		LuRef lu;

		/* host*, target* and the transport's objects live here too: only H:C:T:L. */
		if (probe_resolve(rootfd, de->d_name, &lu) < 0)
			continue;
		if (n == allocated) {
			size_t m = allocated ? 2 * allocated : 64;
			Entry *ne = reallocarray(e, m, sizeof(*e));

			if (!ne) {
				lu_ref_done(&lu);
				closedir(d);
				entries_free(e, n);
				return -ENOMEM;
			}
			e = ne;
			allocated = m;
		}
		e[n] = (Entry){ .lu = lu };
		r = identify_lu(rootfd, &e[n].lu, &(IdentifyOptions){ .flags = flags },
		                &e[n].ident);
		if (r < 0) {
			LogDevice dev = { .hctl = lu.hctl };

			e[n].error = r;
			log_device_full(LOG_WARNING, r, &dev, "cannot identify: %m");
		}
		n++;
	}
	closedir(d);

	if (n > 0)
		qsort(e, n, sizeof(*e), entry_cmp);
	*ret = e;
	*ret_n = n;
	return 0;
}

/*
 * One row of the listing, whoever computed it: lunctl from sysfs (and SG_IO), or lund from its
 * inventory. Both fill the same fields, so the table and the JSON are the same either way.
 */
typedef struct Row {
	char *hctl;
	unsigned host, channel, target;
	uint64_t lun;
	char *block, *tape, *sg;
	int error; /* identification failed: only hctl and nodes are shown */
	char *type, *vendor, *model, *revision;
	char *serial;            /* ID_SERIAL, NULL when scsi_id prints none */
	json_object *properties; /* scsi_id --export, as an object */
	char **names;
	size_t n_names;
} Row;

static void rows_free(Row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		Row *w = &rows[i];

		free(w->hctl);
		free(w->block);
		free(w->tape);
		free(w->sg);
		free(w->type);
		free(w->vendor);
		free(w->model);
		free(w->revision);
		free(w->serial);
		json_object_put(w->properties);
		for (size_t k = 0; k < w->n_names; k++)
			free(w->names[k]);
		free(w->names);
	}
	free(rows);
}

static int row_cmp(const void *a, const void *b)
{
	const Row *x = a, *y = b;

	return CMP(x->host, y->host) ?: CMP(x->channel, y->channel) ?:
               CMP(x->target, y->target) ?: CMP(x->lun, y->lun);
}

/* strdup() that keeps NULL and records a failure in *oom. */
static char *dup_or_null(const char *s, bool *oom)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

static int rows_add_name(Row *w, const char *name)
{
	char **nn = reallocarray(w->names, w->n_names + 1, sizeof(*nn));

	if (!nn)
		return -ENOMEM;
	w->names = nn;
	nn[w->n_names] = strdup(name);
	if (!nn[w->n_names])
		return -ENOMEM;
	w->n_names++;
	return 0;
}

static int rows_from_entries(const Entry *e, size_t n, Row **ret)
{
	Row *rows = calloc(n ?: 1, sizeof(*rows));
	bool oom = false;

	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		Row *w = &rows[i];
		const ScsiIdent *id;

		w->hctl = dup_or_null(e[i].lu.hctl, &oom);
		w->host = e[i].lu.host;
		w->channel = e[i].lu.channel;
		w->target = e[i].lu.target;
		w->lun = e[i].lu.lun;
		w->block = dup_or_null(e[i].lu.block, &oom);
		w->tape = dup_or_null(e[i].lu.tape, &oom);
		w->sg = dup_or_null(e[i].lu.sg, &oom);
		w->error = e[i].error;
		if (w->error < 0)
			continue;
		id = e[i].ident.id;
		w->type = dup_or_null(id->type, &oom);
		w->vendor = dup_or_null(id->vendor, &oom);
		w->model = dup_or_null(id->model, &oom);
		w->revision = dup_or_null(id->revision, &oom);
		if (id->have_serial)
			w->serial = dup_or_null(id->serial, &oom);
		/* scsi_id's set only, as lund serves it. */
		w->properties = output_lines_json(e[i].ident.lines, e[i].ident.udev_size);
		if (!w->properties)
			oom = true;
		for (size_t k = 0; !oom && k < e[i].ident.names->n; k++)
			if (rows_add_name(w, e[i].ident.names->name[k]) < 0)
				oom = true;
	}
	if (oom) {
		rows_free(rows, n);
		return -ENOMEM;
	}
	*ret = rows;
	return 0;
}

/* ---- served by lund ---- */

static json_object *member(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return NULL;
	return v;
}

static const char *str(json_object *o, const char *key)
{
	json_object *v = member(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static bool uint_member(json_object *o, const char *key, uint64_t max, uint64_t *ret)
{
	json_object *v = member(o, key);

	/* json-c keeps integers above INT64_MAX (a LUN can be one) as uint64. */
	if (!v || !json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
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
	json_object *nodes = member(lu, "nodes"), *id = member(lu, "id"),
	            *names = member(lu, "names");
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
	w->hctl = dup_or_null(str(lu, "hctl"), &oom);
	w->host = (unsigned)h;
	w->channel = (unsigned)c;
	w->target = (unsigned)t;
	w->lun = l;
	w->block = dup_or_null(node_name(nodes, "block"), &oom);
	w->tape = dup_or_null(node_name(nodes, "tape"), &oom);
	w->sg = dup_or_null(node_name(nodes, "sg"), &oom);
	if (oom)
		return -ENOMEM;

	/* No scsi_id view: lund could not identify it (or has not yet). */
	if (naming_error || !id) {
		w->error = naming_error ? -lund_errno_from_name(naming_error) : -ENODATA;
		return 0;
	}
	if (!str(id, "vendor") || !str(id, "model") || !str(id, "revision") ||
	    !json_object_is_type(member(lu, "properties"), json_type_object))
		return -EBADMSG;
	w->type = dup_or_null(str(id, "type"), &oom);
	w->vendor = dup_or_null(str(id, "vendor"), &oom);
	w->model = dup_or_null(str(id, "model"), &oom);
	w->revision = dup_or_null(str(id, "revision"), &oom);
	w->serial = dup_or_null(str(id, "serial"), &oom);
	w->properties = json_object_get(member(lu, "properties"));
	for (size_t k = 0; !oom && names && k < json_object_array_length(names); k++) {
		json_object *v = json_object_array_get_idx(names, k);

		if (!json_object_is_type(v, json_type_string))
			return -EBADMSG;
		if (rows_add_name(w, json_object_get_string(v)) < 0)
			oom = true;
	}
	return oom ? -ENOMEM : 0;
}

/* @key of @o when it is an array, else NULL. */
static json_object *array_member(json_object *o, const char *key)
{
	json_object *v = member(o, key);

	return v && json_object_is_type(v, json_type_array) ? v : NULL;
}

/* Rows from one page of lund's "list" reply (hosts[].targets[].lus[]), appended to *rows. */
static int rows_from_lund(json_object *reply, Row **rows, size_t *n, size_t *size)
{
	json_object *hosts = array_member(reply, "hosts");
	size_t nh = hosts ? json_object_array_length(hosts) : 0;
	int r = 0;

	if (!hosts)
		return -EBADMSG;
	for (size_t i = 0; r >= 0 && i < nh; i++) {
		json_object *targets = array_member(json_object_array_get_idx(hosts, i), "targets");
		size_t nt = targets ? json_object_array_length(targets) : 0;

		for (size_t j = 0; r >= 0 && j < nt; j++) {
			json_object *lus =
			        array_member(json_object_array_get_idx(targets, j), "lus");
			size_t nl = lus ? json_object_array_length(lus) : 0;

			for (size_t k = 0; r >= 0 && k < nl; k++) {
				if (*n == *size) {
					size_t sz = *size ? *size * 2 : 64;
					Row *nr = reallocarray(*rows, sz, sizeof(*nr));

					if (!nr)
						return -ENOMEM;
					*rows = nr;
					*size = sz;
				}
				(*rows)[*n] = (Row){};
				r = row_from_lund(json_object_array_get_idx(lus, k), &(*rows)[*n]);
				(*n)++;
			}
		}
	}
	return r;
}

/*
 * Ask lund for its inventory, a page of LIST_PAGE LUs at a time (lund(8), CONTROL PROTOCOL), so
 * that no reply comes near the socket's per-client limit however many LUs there are. Returns 1
 * with the rows, 0 when no daemon answers on the control socket (absent, refused, not
 * permitted: list then reads sysfs itself), -errno when one answered but its reply was unusable.
 */
#define LIST_PAGE 1000

/* 0 when H:C:T:L @next comes after @prev (NULL: the start), -EBADMSG otherwise. */
static int cursor_advances(const char *prev, const char *next)
{
	unsigned h[2] = {}, c[2] = {}, t[2] = {};
	uint64_t l[2] = {};

	if (hctl_parse(next, &h[1], &c[1], &t[1], &l[1]) < 0)
		return -EBADMSG;
	if (!prev)
		return 0;
	if (hctl_parse(prev, &h[0], &c[0], &t[0], &l[0]) < 0)
		return -EBADMSG;
	if (h[1] != h[0])
		return h[1] > h[0] ? 0 : -EBADMSG;
	if (c[1] != c[0])
		return c[1] > c[0] ? 0 : -EBADMSG;
	if (t[1] != t[0])
		return t[1] > t[0] ? 0 : -EBADMSG;
	return l[1] > l[0] ? 0 : -EBADMSG;
}
static int list_from_lund(Row **ret, size_t *ret_n)
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
		r = rows_from_lund(reply, &rows, &n, &size);
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
	if (n > 1)
		qsort(rows, n, sizeof(*rows), row_cmp);
	*ret = rows;
	*ret_n = n;
	return 1;
}

/* ---- output ---- */

static char *nodes_string(const Row *w)
{
	char *s = NULL;

	if (asprintf(&s, "%s%s%s%s%s", w->block ?: "", w->block && (w->tape || w->sg) ? "," : "",
	             w->tape ?: "", w->tape && w->sg ? "," : "", w->sg ?: "") < 0)
		return NULL;
	return s;
}

static int print_table(const Row *w, size_t n)
{
	struct libscols_table *tb = scols_new_table();
	enum { COL_HCTL, COL_TYPE, COL_VENDOR, COL_MODEL, COL_REV, COL_NODES, COL_ID, COL_NAMES };
	int r = 0;

	if (!tb)
		return -ENOMEM;
	scols_table_new_column(tb, "HCTL", 0, 0);
	scols_table_new_column(tb, "TYPE", 0, 0);
	scols_table_new_column(tb, "VENDOR", 0, 0);
	scols_table_new_column(tb, "MODEL", 0, 0);
	scols_table_new_column(tb, "REV", 0, 0);
	scols_table_new_column(tb, "NODES", 0, 0);
	scols_table_new_column(tb, "ID", 0, SCOLS_FL_TRUNC);
	scols_table_new_column(tb, "NAMES", 0, SCOLS_FL_WRAP);

	for (size_t i = 0; i < n; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		_cleanup_free_ char *nodes = nodes_string(&w[i]), *names = NULL, *id = NULL;

		if (!ln) {
			r = -ENOMEM;
			break;
		}
		scols_line_set_data(ln, COL_HCTL, w[i].hctl);
		scols_line_set_data(ln, COL_NODES, nodes);
		if (w[i].error < 0) {
			scols_line_set_data(ln, COL_ID, "(unreadable)");
			continue;
		}
		scols_line_set_data(ln, COL_TYPE, w[i].type);
		scols_line_set_data(ln, COL_VENDOR, w[i].vendor);
		scols_line_set_data(ln, COL_MODEL, w[i].model);
		scols_line_set_data(ln, COL_REV, w[i].revision);
		if (w[i].serial)
			id = output_escape(w[i].serial, strlen(w[i].serial));
		scols_line_set_data(ln, COL_ID, id ?: "-");
		for (size_t k = 0; k < w[i].n_names; k++) {
			char *s = NULL;

			if (asprintf(&s, "%s%s%s", names ?: "", names ? " " : "", w[i].names[k]) <
			    0) {
				r = -ENOMEM;
				break;
			}
			free(names);
			names = s;
		}
		scols_line_set_data(ln, COL_NAMES, names ?: "");
	}
	if (r >= 0)
		r = scols_print_table(tb);
	scols_unref_table(tb);
	return r;
}

static int print_json(const Row *w, size_t n, const char *source)
{
	_cleanup_(json_object_putp) json_object *root = json_object_new_object();
	json_object *arr = json_object_new_array();

	if (!root || !arr) {
		json_object_put(arr);
		return -ENOMEM;
	}
	json_object_object_add(root, "source", json_object_new_string(source));
	json_object_object_add(root, "logical_units", arr);

	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_new_object(), *nodes = json_object_new_object(),
		            *names = json_object_new_array();

		json_object_array_add(arr, o);
		json_object_object_add(o, "hctl", json_object_new_string(w[i].hctl));
		json_object_object_add(o, "nodes", nodes);
		if (w[i].block)
			json_object_object_add(nodes, "block", json_object_new_string(w[i].block));
		if (w[i].tape)
			json_object_object_add(nodes, "tape", json_object_new_string(w[i].tape));
		if (w[i].sg)
			json_object_object_add(nodes, "sg", json_object_new_string(w[i].sg));
		json_object_object_add(o, "names", names);
		if (w[i].error < 0) {
			json_object_object_add(o, "error", json_object_new_int(w[i].error));
			continue;
		}
		json_object_object_add(o, "type",
		                       w[i].type ? json_object_new_string(w[i].type) : NULL);
		json_object_object_add(o, "properties", json_object_get(w[i].properties));
		for (size_t k = 0; k < w[i].n_names; k++)
			json_object_array_add(names, json_object_new_string(w[i].names[k]));
	}
	return output_json(stdout, root);
}

static const char list_help[] =
        "List SCSI logical units with their identifiers and /dev/disk/by-id names.\n"
        "\n"
        "When lund answers on its control socket ($LUND_RUN_DIR/control, default\n"
        "/run/lund/control) the list is its live inventory; otherwise, or with --root,\n"
        "--sysfs-only or --sgio-only, lunctl identifies every LU itself from sysfs.\n"
        "Same columns and JSON either way; the JSON's \"source\" says which (lund, sysfs).\n"
        "\n"
        " -J, --json           print JSON\n"
        " -h, --help           display this help\n"
        "\n"
        "For more details see lunctl(8).\n";

int verb_list(int argc, char *argv[], Options *o)
{
	_cleanup_close_ int rootfd = -EBADF;
	ProbeFlags flags = 0;
	const char *source = "sysfs";
	Row *rows = NULL;
	size_t n = 0;
	int r = 0;

	r = lunctl_parse_noargs(argc, argv, o, "list", list_help);
	if (r >= 0)
		return r;
	r = 0;

	/* lund's inventory is the live one; a tree elsewhere, or a way of reading the devices
	 * asked for explicitly, is lunctl's own work. */
	if (!o->root && !o->sysfs_only && !o->sgio_only) {
		r = list_from_lund(&rows, &n);
		if (r < 0)
			log_warning_errno(
			        r, "lund's inventory is unusable, reading sysfs instead: %m");
		else if (r > 0)
			source = "lund";
	}
	if (r <= 0) {
		Entry *e = NULL;
		size_t ne = 0;

		if (lunctl_open_root(o, &rootfd) != EXIT_OK)
			return EXIT_USAGE;
		if (o->sysfs_only)
			flags |= PROBE_SYSFS_ONLY;
		if (o->sgio_only)
			flags |= PROBE_SGIO_ONLY;

		r = collect(rootfd, flags, &e, &ne);
		if (r == -ENOENT) {
			/* No SCSI subsystem at all: nothing to list, not an error. */
			e = NULL;
			ne = 0;
		} else if (r < 0) {
			log_error_errno(r, "Failed to enumerate SCSI devices: %m");
			return EXIT_DEVICE;
		}
		r = rows_from_entries(e, ne, &rows);
		entries_free(e, ne);
		if (r < 0) {
			log_error_errno(r, "Out of memory");
			return EXIT_DEVICE;
		}
		n = ne;
	}

	r = o->output == OUTPUT_JSON ? print_json(rows, n, source) : print_table(rows, n);
	rows_free(rows, n);
	if (r < 0) {
		log_error_errno(r, "Failed to print: %m");
		return EXIT_DEVICE;
	}
	return EXIT_OK;
}
