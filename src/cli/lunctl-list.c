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
#include <unistd.h>

#include "client.h"
#include "identify.h"
#include "log.h"
#include "lunctl-list-fmt.h"
#include "lunctl-list.h"
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

static int collect(int rootfd, ProbeFlags flags, const ListFilter *filter, Entry **ret,
                   size_t *ret_n)
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
		/* identify only what is to be shown */
		if (!list_filter_match(filter, lu.host, lu.channel, lu.target, lu.lun)) {
			lu_ref_done(&lu);
			continue;
		}
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
	char *paths; /* the other paths of the same LU, space-separated; NULL: none (or no lund) */
	json_object *multipath; /* lund's {node, uuid, name} of the dm-multipath map holding it */
	char *state;            /* the kernel's device state, as lund last saw it or sysfs has it */
	/* read from sysfs as lsscsi reads them, only when a column asks (rows_read_sysfs()) */
	int pdt;         /* -1: unknown */
	char *transport; /* "" when lsscsi prints none */
	bool have_size;
	uint64_t size; /* bytes */
} Row;

static void row_done(Row *w)
{
	free(w->paths);
	json_object_put(w->multipath);
	free(w->state);
	free(w->hctl);
	free(w->block);
	free(w->tape);
	free(w->sg);
	free(w->type);
	free(w->vendor);
	free(w->model);
	free(w->revision);
	free(w->serial);
	free(w->transport);
	json_object_put(w->properties);
	for (size_t k = 0; k < w->n_names; k++)
		free(w->names[k]);
	free(w->names);
	*w = (Row){};
}

static void rows_free(Row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		row_done(&rows[i]);
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
	w->state = dup_or_null(str(lu, "state"), &oom);
	if (oom)
		return -ENOMEM;

	/* No scsi_id view: lund is identifying it (SG_IO, off its loop), could not, or has not
	 * yet. */
	if (!naming_error && !id && json_object_get_boolean(member(lu, "identifying"))) {
		w->error = -EINPROGRESS;
		return 0;
	}
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
	json_object *paths = member(lu, "paths");

	if (paths && !json_object_is_type(paths, json_type_array))
		paths = NULL;
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
	if (json_object_is_type(member(lu, "multipath"), json_type_object) &&
	    str(member(lu, "multipath"), "node"))
		w->multipath = json_object_get(member(lu, "multipath"));
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

/* ---- what sysfs adds: type, transport, size ---- */

typedef enum Column {
	COL_HCTL,
	COL_TYPE,
	COL_PDT,
	COL_VENDOR,
	COL_MODEL,
	COL_REV,
	COL_TRANSPORT,
	COL_NODES,
	COL_BLOCK,
	COL_TAPE,
	COL_SG,
	COL_SIZE,
	COL_ID,
	COL_NAMES,
	COL_PATHS,
	COL_STATE,
	_COL_MAX,
} Column;

static const struct {
	const char *name;
	const char *help;
	bool wrap;
} columns[_COL_MAX] = {
	[COL_HCTL] = { "HCTL", "Host:Channel:Target:LUN" },
	[COL_TYPE] = { "TYPE", "device type as udev's scsi_id names it (ID_TYPE)" },
	[COL_PDT] = { "PDT", "peripheral device type as lsscsi names it" },
	[COL_VENDOR] = { "VENDOR", "vendor identification (INQUIRY)" },
	[COL_MODEL] = { "MODEL", "product identification (INQUIRY)" },
	[COL_REV] = { "REV", "product revision level (INQUIRY)" },
	[COL_TRANSPORT] = { "TRANSPORT", "transport and target port, as lsscsi -t prints it" },
	[COL_NODES] = { "NODES", "kernel device names: block, tape, sg" },
	[COL_BLOCK] = { "BLOCK", "block device" },
	[COL_TAPE] = { "TAPE", "tape device" },
	[COL_SG] = { "SG", "SCSI generic device" },
	[COL_SIZE] = { "SIZE", "size in powers of 1000, as lsscsi -s prints it" },
	[COL_ID] = { "ID", "ID_SERIAL, as udev's scsi_id gives it" },
	[COL_NAMES] = { "NAMES", "/dev/disk/by-id names", true },
	[COL_PATHS] = { "PATHS", "the other paths of the same LU (lund's, empty without lund)" },
	[COL_STATE] = { "STATE",
	                "device state: running, offline, transport-offline, blocked, ..." },
};

static const Column default_columns[] = { COL_HCTL, COL_TYPE,  COL_VENDOR, COL_MODEL,
	                                  COL_REV,  COL_NODES, COL_ID,     COL_NAMES };

typedef struct ListOptions {
	Column cols[2 * _COL_MAX];
	size_t n_cols;
	bool want[_COL_MAX];
	bool noheadings, raw, pairs, tree, hosts, transport, size;
	ListFilter filter;
} ListOptions;

static void rows_read_sysfs(int rootfd, Row *rows, size_t n, const ListOptions *lo)
{
	for (size_t i = 0; i < n; i++) {
		Row *w = &rows[i];

		w->pdt = list_lu_pdt(rootfd, w->hctl);
		if (!w->state)
			w->state = list_lu_state(rootfd, w->hctl);
		if (lo->want[COL_TRANSPORT] &&
		    list_lu_transport(rootfd, w->hctl, w->host, w->target, &w->transport) < 0)
			w->transport = NULL;
		if (lo->want[COL_SIZE])
			w->have_size = list_lu_size(rootfd, w->pdt, w->block, &w->size) >= 0;
	}
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

/* The names joined by @sep: a blank, or on a terminal a newline, one name per line. */
static char *names_string(const Row *w, char sep)
{
	size_t len = 1;
	char *s, *p;

	for (size_t k = 0; k < w->n_names; k++)
		len += strlen(w->names[k]) + 1;
	s = p = malloc(len);
	if (!s)
		return NULL;
	*p = 0;
	for (size_t k = 0; k < w->n_names; k++)
		p += sprintf(p, "%.*s%s", k ? 1 : 0, &sep, w->names[k]);
	return s;
}

/*
 * On a terminal, an ID longer than @max is cut in its middle ("QEMU_QEMU_H...serial0001"):
 * the end of a serial number is what tells two LUs apart, the start names the vendor. Other
 * outputs (pipes, --raw, --pairs, --json) always get it whole.
 */
static char *cut_middle(const char *s, size_t max)
{
	size_t len = strlen(s), head, tail;
	char *r;

	if (len <= max || max < 8)
		return strdup(s);
	head = (max - 3) / 2;
	tail = max - 3 - head;
	r = malloc(max + 1);
	if (!r)
		return NULL;
	memcpy(r, s, head);
	memcpy(r + head, "...", 3);
	memcpy(r + head + 3, s + len - tail, tail);
	r[max] = 0;
	return r;
}

#define ID_MIN_WIDTH 24

static int set_cell(struct libscols_line *ln, size_t col, const char *s)
{
	return scols_line_set_data(ln, col, s) < 0 ? -ENOMEM : 0;
}

static int row_cell(const Row *w, Column c, bool tty, size_t id_width, char **ret)
{
	char buf[32];
	_cleanup_free_ char *id = NULL;

	*ret = NULL;
	if (w->error < 0 && c != COL_HCTL && c != COL_NODES && c != COL_BLOCK && c != COL_TAPE &&
	    c != COL_SG && c != COL_ID && c != COL_TRANSPORT && c != COL_SIZE && c != COL_PDT &&
	    c != COL_STATE)
		return 0;
	switch (c) {
	case COL_HCTL:
		*ret = strdup(w->hctl);
		break;
	case COL_TYPE:
		*ret = strdup(w->type ?: "");
		break;
	case COL_PDT:
		*ret = strdup(list_type_name(w->pdt));
		break;
	case COL_VENDOR:
		*ret = strdup(w->vendor ?: "");
		break;
	case COL_MODEL:
		*ret = strdup(w->model ?: "");
		break;
	case COL_REV:
		*ret = strdup(w->revision ?: "");
		break;
	case COL_TRANSPORT:
		*ret = strdup(w->transport ?: "");
		break;
	case COL_NODES:
		*ret = nodes_string(w);
		break;
	case COL_BLOCK:
		*ret = strdup(w->block ?: "");
		break;
	case COL_TAPE:
		*ret = strdup(w->tape ?: "");
		break;
	case COL_SG:
		*ret = strdup(w->sg ?: "");
		break;
	case COL_SIZE:
		/* "-" where lsscsi -s shows no size */
		if (!w->have_size)
			*ret = strdup("-");
		else if (list_size_string(w->size, buf, sizeof(buf)) >= 0)
			*ret = strdup(buf);
		break;
	case COL_ID:
		if (w->error < 0) {
			*ret = strdup(w->error == -EINPROGRESS ? "(identifying)" : "(unreadable)");
			break;
		}
		if (!w->serial) {
			*ret = strdup("-");
			break;
		}
		id = output_escape(w->serial, strlen(w->serial));
		if (id)
			*ret = tty ? cut_middle(id, id_width) : strdup(id);
		break;
	case COL_NAMES:
		*ret = names_string(w, tty ? '\n' : ' ');
		break;
	case COL_PATHS:
		/* the map holding the paths, when dm-multipath does: "[dm-3]" */
		if (w->multipath) {
			if (asprintf(ret, "%s%s[%s]", w->paths ?: "", w->paths ? " " : "",
			             str(w->multipath, "node")) < 0)
				*ret = NULL;
		} else
			*ret = strdup(w->paths ?: "");
		break;
	case COL_STATE:
		*ret = strdup(w->state ?: "-");
		break;
	default:
		return -EINVAL;
	}
	return *ret ? 0 : -ENOMEM;
}

static struct libscols_table *new_table(const ListOptions *lo)
{
	struct libscols_table *tb = scols_new_table();

	if (!tb)
		return NULL;
	scols_table_enable_noheadings(tb, lo->noheadings);
	scols_table_enable_raw(tb, lo->raw);
	scols_table_enable_export(tb, lo->pairs);
	return tb;
}

static int print_table(const Row *w, size_t n, const ListOptions *lo)
{
	struct libscols_table *tb = new_table(lo);
	bool tty = !lo->raw && !lo->pairs && isatty(STDOUT_FILENO);
	size_t id_width = ID_MIN_WIDTH;
	int r = 0;

	if (!tb)
		return -ENOMEM;
	if (tty) {
		/* a quarter of the terminal for the ID, never less than ID_MIN_WIDTH */
		size_t tw = scols_table_get_termwidth(tb);

		id_width = MAX((size_t)ID_MIN_WIDTH, tw / 4);
	}
	for (size_t c = 0; c < lo->n_cols; c++) {
		struct libscols_column *cl = scols_table_new_column(
		        tb, columns[lo->cols[c]].name, 0,
		        tty && columns[lo->cols[c]].wrap ? SCOLS_FL_WRAP : 0);

		if (!cl) {
			scols_unref_table(tb);
			return -ENOMEM;
		}
		/* on a terminal, a cell of several names wraps between names, never inside one */
		if (tty && columns[lo->cols[c]].wrap) {
			scols_column_set_wrapfunc(cl, scols_wrapnl_chunksize,
			                          scols_wrapnl_nextchunk, NULL);
			scols_column_set_safechars(cl, "\n");
		}
	}
	for (size_t i = 0; r >= 0 && i < n; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln) {
			r = -ENOMEM;
			break;
		}
		for (size_t c = 0; r >= 0 && c < lo->n_cols; c++) {
			_cleanup_free_ char *s = NULL;

			r = row_cell(&w[i], lo->cols[c], tty, id_width, &s);
			if (r >= 0 && s)
				r = set_cell(ln, c, s);
		}
	}
	if (r >= 0)
		r = scols_print_table(tb);
	scols_unref_table(tb);
	return r;
}

static json_object *row_json(const Row *w, const ListOptions *lo)
{
	json_object *o = json_object_new_object(), *nodes = json_object_new_object(),
	            *names = json_object_new_array();

	if (!o || !nodes || !names) {
		json_object_put(o);
		json_object_put(nodes);
		json_object_put(names);
		return NULL;
	}
	json_object_object_add(o, "hctl", json_object_new_string(w->hctl));
	json_object_object_add(o, "nodes", nodes);
	if (w->block)
		json_object_object_add(nodes, "block", json_object_new_string(w->block));
	if (w->tape)
		json_object_object_add(nodes, "tape", json_object_new_string(w->tape));
	if (w->sg)
		json_object_object_add(nodes, "sg", json_object_new_string(w->sg));
	json_object_object_add(o, "names", names);
	json_object_object_add(o, "state", w->state ? json_object_new_string(w->state) : NULL);
	/* the sysfs columns, when asked for */
	if (lo->want[COL_PDT]) {
		json_object_object_add(o, "pdt", w->pdt >= 0 ? json_object_new_int(w->pdt) : NULL);
		json_object_object_add(o, "pdt_name",
		                       json_object_new_string(list_type_name(w->pdt)));
	}
	if (lo->want[COL_TRANSPORT])
		json_object_object_add(o, "transport", json_object_new_string(w->transport ?: ""));
	if (lo->want[COL_SIZE]) {
		char buf[32];

		if (w->have_size && list_size_string(w->size, buf, sizeof(buf)) >= 0) {
			json_object_object_add(o, "size", json_object_new_string(buf));
			json_object_object_add(o, "size_bytes", json_object_new_uint64(w->size));
		} else {
			json_object_object_add(o, "size", NULL);
			json_object_object_add(o, "size_bytes", NULL);
		}
	}
	if (w->error < 0) {
		json_object_object_add(o, "error", json_object_new_int(w->error));
		return o;
	}
	json_object_object_add(o, "type", w->type ? json_object_new_string(w->type) : NULL);
	json_object_object_add(o, "properties", json_object_get(w->properties));
	if (lo->want[COL_PATHS] && w->paths) {
		_cleanup_free_ char *copy = strdup(w->paths);
		json_object *ps = json_object_new_array();

		for (char *save = NULL, *t = copy ? strtok_r(copy, " ", &save) : NULL; t;
		     t = strtok_r(NULL, " ", &save))
			json_object_array_add(ps, json_object_new_string(t));
		json_object_object_add(o, "paths", ps);
	}
	if (lo->want[COL_PATHS] && w->multipath)
		json_object_object_add(o, "multipath", json_object_get(w->multipath));
	for (size_t k = 0; k < w->n_names; k++)
		json_object_array_add(names, json_object_new_string(w->names[k]));
	return o;
}

static int print_json(const Row *w, size_t n, const char *source, const ListOptions *lo)
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
		json_object *o = row_json(&w[i], lo);

		if (!o)
			return -ENOMEM;
		json_object_array_add(arr, o);
	}
	return output_json(stdout, root);
}

/* ---- hosts ---- */

typedef struct Host {
	unsigned host;
	char *driver, *transport;
} Host;

static void hosts_free(Host *h, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(h[i].driver);
		free(h[i].transport);
	}
	free(h);
}

static int host_cmp(const void *a, const void *b)
{
	const Host *x = a, *y = b;

	return CMP(x->host, y->host);
}

/* The hosts in sys/class/scsi_host that @filter lets through, sorted. */
static int collect_hosts(int rootfd, const ListOptions *lo, Host **ret, size_t *ret_n)
{
	_cleanup_(closedirp) DIR *d = NULL;
	Host *v = NULL;
	size_t n = 0;
	int r;

	r = sysfs_opendir(rootfd, "sys/class/scsi_host", &d);
	if (r == -ENOENT) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	if (r < 0)
		return r;
	for (struct dirent *de; (de = readdir(d));) {
		unsigned h;
		Host *nv;

		if (sysfs_scsi_host_parse(de->d_name, &h) < 0 ||
		    !list_filter_match_host(&lo->filter, h))
			continue;
		nv = reallocarray(v, n + 1, sizeof(*v));
		if (!nv) {
			hosts_free(v, n);
			return -ENOMEM;
		}
		v = nv;
		v[n] = (Host){ .host = h, .driver = list_host_driver(rootfd, h) };
		n++;
		if (lo->transport && list_host_transport(rootfd, h, &v[n - 1].transport) < 0) {
			hosts_free(v, n);
			return -ENOMEM;
		}
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), host_cmp);
	*ret = v;
	*ret_n = n;
	return 0;
}

static int print_hosts(const Host *h, size_t n, const ListOptions *lo, OutputMode mode)
{
	struct libscols_table *tb;
	int r = 0;

	if (mode == OUTPUT_JSON) {
		_cleanup_(json_object_putp) json_object *root = json_object_new_object();
		json_object *arr = json_object_new_array();

		if (!root || !arr) {
			json_object_put(arr);
			return -ENOMEM;
		}
		json_object_object_add(root, "hosts", arr);
		for (size_t i = 0; i < n; i++) {
			json_object *o = json_object_new_object();

			if (!o)
				return -ENOMEM;
			json_object_array_add(arr, o);
			json_object_object_add(o, "host", json_object_new_int64(h[i].host));
			json_object_object_add(o, "driver",
			                       h[i].driver ? json_object_new_string(h[i].driver)
			                                   : NULL);
			if (lo->transport)
				json_object_object_add(
				        o, "transport",
				        json_object_new_string(h[i].transport ?: ""));
		}
		return output_json(stdout, root);
	}

	tb = new_table(lo);
	if (!tb || !scols_table_new_column(tb, "HOST", 0, SCOLS_FL_RIGHT) ||
	    !scols_table_new_column(tb, "DRIVER", 0, 0) ||
	    (lo->transport && !scols_table_new_column(tb, "TRANSPORT", 0, 0))) {
		scols_unref_table(tb);
		return -ENOMEM;
	}
	for (size_t i = 0; r >= 0 && i < n; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		char num[16];

		snprintf(num, sizeof(num), "%u", h[i].host);
		if (!ln || set_cell(ln, 0, num) < 0 || set_cell(ln, 1, h[i].driver ?: "") < 0 ||
		    (lo->transport && set_cell(ln, 2, h[i].transport ?: "") < 0))
			r = -ENOMEM;
	}
	if (r >= 0)
		r = scols_print_table(tb);
	scols_unref_table(tb);
	return r;
}

/* ---- tree: host, target, LU, nodes and names ---- */

static struct libscols_line *tree_line(struct libscols_table *tb, struct libscols_line *parent,
                                       const char *name, const char *desc)
{
	struct libscols_line *ln = scols_table_new_line(tb, parent);

	if (!ln || set_cell(ln, 0, name) < 0 || set_cell(ln, 1, desc ?: "") < 0)
		return NULL;
	return ln;
}

static char *lu_description(const Row *w, const ListOptions *lo)
{
	char size[32] = "";
	char *s = NULL;

	if (lo->size && w->have_size)
		(void)list_size_string(w->size, size, sizeof(size));
	if (w->error < 0)
		return asprintf(&s, "%s%s%s%s%s",
		                w->error == -EINPROGRESS ? "(identifying)" : "(unreadable)",
		                lo->transport && !isempty(w->transport) ? "  " : "",
		                lo->transport ? w->transport ?: "" : "", *size ? "  " : "",
		                size) < 0
		               ? NULL
		               : s;
	if (asprintf(&s, "%s  %s %s %s%s%s%s%s", w->type ?: "?", w->vendor ?: "", w->model ?: "",
	             w->revision ?: "", lo->transport && !isempty(w->transport) ? "  " : "",
	             lo->transport ? w->transport ?: "" : "", *size ? "  " : "", size) < 0)
		return NULL;
	return s;
}

static int print_tree_json(const Host *h, size_t nh, const Row *w, size_t n, const char *source,
                           const ListOptions *lo)
{
	_cleanup_(json_object_putp) json_object *root = json_object_new_object();
	json_object *hosts = json_object_new_array();

	if (!root || !hosts) {
		json_object_put(hosts);
		return -ENOMEM;
	}
	json_object_object_add(root, "source", json_object_new_string(source));
	json_object_object_add(root, "hosts", hosts);
	for (size_t i = 0; i < nh; i++) {
		json_object *ho = json_object_new_object(), *targets = json_object_new_array(),
		            *lus = NULL;
		char last[64] = "";

		if (!ho || !targets) {
			json_object_put(ho);
			json_object_put(targets);
			return -ENOMEM;
		}
		json_object_array_add(hosts, ho);
		json_object_object_add(ho, "host", json_object_new_int64(h[i].host));
		json_object_object_add(ho, "driver",
		                       h[i].driver ? json_object_new_string(h[i].driver) : NULL);
		if (lo->transport)
			json_object_object_add(ho, "transport",
			                       json_object_new_string(h[i].transport ?: ""));
		json_object_object_add(ho, "targets", targets);
		for (size_t k = 0; k < n; k++) {
			char t[64];
			json_object *o;

			if (w[k].host != h[i].host)
				continue;
			snprintf(t, sizeof(t), "%u:%u:%u", w[k].host, w[k].channel, w[k].target);
			if (!streq(t, last)) {
				json_object *to = json_object_new_object();

				lus = json_object_new_array();
				if (!to || !lus) {
					json_object_put(to);
					json_object_put(lus);
					return -ENOMEM;
				}
				json_object_array_add(targets, to);
				json_object_object_add(to, "target", json_object_new_string(t));
				json_object_object_add(to, "logical_units", lus);
				snprintf(last, sizeof(last), "%s", t);
			}
			o = row_json(&w[k], lo);
			if (!o)
				return -ENOMEM;
			json_object_array_add(lus, o);
		}
	}
	return output_json(stdout, root);
}

static int print_tree(const Host *h, size_t nh, const Row *w, size_t n, const ListOptions *lo)
{
	struct libscols_table *tb = new_table(lo);
	int r = 0;

	if (!tb || !scols_table_new_column(tb, "NAME", 0, SCOLS_FL_TREE) ||
	    !scols_table_new_column(tb, "DESCRIPTION", 0, SCOLS_FL_WRAP)) {
		scols_unref_table(tb);
		return -ENOMEM;
	}
	for (size_t i = 0; r >= 0 && i < nh; i++) {
		struct libscols_line *hl, *tl = NULL;
		char name[64], desc[1100], last[64] = "";

		snprintf(name, sizeof(name), "host%u", h[i].host);
		snprintf(desc, sizeof(desc), "%s%s%s", h[i].driver ?: "",
		         lo->transport && !isempty(h[i].transport) ? "  " : "",
		         lo->transport ? h[i].transport ?: "" : "");
		hl = tree_line(tb, NULL, name, desc);
		if (!hl) {
			r = -ENOMEM;
			break;
		}
		for (size_t k = 0; r >= 0 && k < n; k++) {
			_cleanup_free_ char *d = NULL;
			struct libscols_line *ll;
			const char *nodes[] = { w[k].block, w[k].tape, w[k].sg };

			if (w[k].host != h[i].host)
				continue;
			snprintf(name, sizeof(name), "target%u:%u:%u", w[k].host, w[k].channel,
			         w[k].target);
			if (!streq(name, last)) {
				tl = tree_line(tb, hl, name, NULL);
				snprintf(last, sizeof(last), "%s", name);
			}
			d = lu_description(&w[k], lo);
			ll = tl && d ? tree_line(tb, tl, w[k].hctl, d) : NULL;
			if (!ll) {
				r = -ENOMEM;
				break;
			}
			for (size_t m = 0; r >= 0 && m < ELEMENTSOF(nodes); m++) {
				char dev[PATH_MAX];

				if (!nodes[m])
					continue;
				snprintf(dev, sizeof(dev), "/dev/%s", nodes[m]);
				if (!tree_line(tb, ll, dev,
				               m == 0   ? "block"
				               : m == 1 ? "tape"
				                        : "sg"))
					r = -ENOMEM;
			}
			for (size_t m = 0; r >= 0 && m < w[k].n_names; m++)
				if (!tree_line(tb, ll, w[k].names[m], "by-id"))
					r = -ENOMEM;
		}
	}
	if (r >= 0)
		r = scols_print_table(tb);
	scols_unref_table(tb);
	return r;
}

/* ---- options ---- */

static int column_by_name(const char *name, size_t len)
{
	for (size_t c = 0; c < _COL_MAX; c++)
		if (strlen(columns[c].name) == len && strncasecmp(columns[c].name, name, len) == 0)
			return (int)c;
	return -EINVAL;
}

static int add_column(ListOptions *lo, Column c)
{
	if (lo->n_cols >= ELEMENTSOF(lo->cols))
		return -E2BIG;
	lo->cols[lo->n_cols++] = c;
	lo->want[c] = true;
	return 0;
}

/* -o LIST: columns replace the default; "+LIST" adds to it (as lsblk takes it). */
static int parse_columns(ListOptions *lo, const char *arg)
{
	const char *p = arg, *end;

	if (*p == '+') {
		p++;
		for (size_t i = 0; i < ELEMENTSOF(default_columns); i++)
			(void)add_column(lo, default_columns[i]);
	}
	if (*p == 0) {
		log_error("No column named in '%s'", arg);
		return -EINVAL;
	}
	for (;; p = end + 1) {
		int c;

		end = strchrnul(p, ',');
		c = column_by_name(p, (size_t)(end - p));
		if (c < 0) {
			log_error("Unknown column '%.*s' (see --list-columns)", (int)(end - p), p);
			return -EINVAL;
		}
		if (add_column(lo, (Column)c) < 0) {
			log_error("Too many columns in '%s'", arg);
			return -EINVAL;
		}
		if (*end == 0)
			return 0;
	}
}

static void help(void)
{
	printf("Usage: lunctl list [options] [H[:C[:T[:L]]] | H C T L]\n"
	       "\n"
	       "List SCSI logical units with their identifiers and /dev/disk/by-id names.\n"
	       "The filter takes lsscsi's form: '-', '*' or '?' for any value, \"hostH\" for a\n"
	       "host; a filter starting with '-' goes after \"--\".\n"
	       "\n"
	       "When lund answers on its control socket ($LUND_RUN_DIR/control, default\n"
	       "/run/lund/control) the list is its live inventory; otherwise, or with --root,\n"
	       "--sysfs-only or --sgio-only, lunctl identifies every LU itself from sysfs.\n"
	       "Same columns and JSON either way; the JSON's \"source\" says which (lund, sysfs).\n"
	       "\n"
	       "Options:\n"
	       " -t, --transport      add the TRANSPORT column (as lsscsi -t prints it)\n"
	       " -s, --size           add the SIZE column (as lsscsi -s prints it)\n"
	       " -H, --hosts          list the SCSI hosts, not the logical units\n"
	       "     --tree           hosts, targets, logical units, nodes and names as a tree\n"
	       " -o, --output <list>  the columns to print; \"+<list>\" adds to the default\n"
	       "     --list-columns   print the columns -o takes, and exit\n"
	       " -n, --noheadings     do not print the headings\n"
	       " -r, --raw            raw output: one space between columns, nothing aligned\n"
	       " -P, --pairs          KEY=\"value\" output, one line per LU\n"
	       " -J, --json           print JSON\n"
	       " -h, --help           display this help\n"
	       "\n"
	       "For more details see lunctl(8).\n");
}

static int list_columns(void)
{
	for (size_t c = 0; c < _COL_MAX; c++)
		printf("%-10s %s\n", columns[c].name, columns[c].help);
	return EXIT_OK;
}

static int parse_options(int argc, char *argv[], Options *o, ListOptions *lo)
{
	enum { OPT_TREE = 0x100, OPT_LIST_COLUMNS };
	static const struct option longopts[] = {
		{ "transport", no_argument, NULL, 't' },
		{ "size", no_argument, NULL, 's' },
		{ "hosts", no_argument, NULL, 'H' },
		{ "tree", no_argument, NULL, OPT_TREE },
		{ "output", required_argument, NULL, 'o' },
		{ "list-columns", no_argument, NULL, OPT_LIST_COLUMNS },
		{ "noheadings", no_argument, NULL, 'n' },
		{ "raw", no_argument, NULL, 'r' },
		{ "pairs", no_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *output = NULL;
	char err[256] = "";
	int c;

	while ((c = getopt_long(argc, argv, "tsHo:nrPJh", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			lo->transport = true;
			break;
		case 's':
			lo->size = true;
			break;
		case 'H':
			lo->hosts = true;
			break;
		case OPT_TREE:
			lo->tree = true;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_LIST_COLUMNS:
			return list_columns();
		case 'n':
			lo->noheadings = true;
			break;
		case 'r':
			lo->raw = true;
			break;
		case 'P':
			lo->pairs = true;
			break;
		case 'J':
			o->output = OUTPUT_JSON;
			break;
		case 'h':
			help();
			return EXIT_OK;
		default:
			fprintf(stderr, "Try 'lunctl list --help' for more information.\n");
			return EXIT_USAGE;
		}
	}
	if (lo->raw + lo->pairs + (o->output == OUTPUT_JSON) > 1) {
		log_error("--raw, --pairs and --json exclude each other");
		return EXIT_USAGE;
	}
	if (lo->hosts + lo->tree > 1) {
		log_error("--hosts and --tree exclude each other");
		return EXIT_USAGE;
	}
	if (output && (lo->hosts || lo->tree)) {
		log_error("-o/--output chooses the columns of the LU listing, not of --hosts or "
		          "--tree");
		return EXIT_USAGE;
	}
	if (list_filter_parse(argv + optind, (size_t)(argc - optind), &lo->filter, err,
	                      sizeof(err)) < 0) {
		log_error("Invalid filter: %s", err);
		return EXIT_USAGE;
	}

	if (output) {
		if (parse_columns(lo, output) < 0)
			return EXIT_USAGE;
	} else
		for (size_t i = 0; i < ELEMENTSOF(default_columns); i++) {
			Column col = default_columns[i];

			(void)add_column(lo, col);
			/* lsscsi's transport stands after the type, its size at the end of the
			 * device: here after the nodes */
			if (col == COL_TYPE && lo->transport)
				(void)add_column(lo, COL_TRANSPORT);
			if (col == COL_NODES && lo->size)
				(void)add_column(lo, COL_SIZE);
		}
	if (lo->transport)
		lo->want[COL_TRANSPORT] = true;
	if (lo->size)
		lo->want[COL_SIZE] = true;
	return -1;
}

int verb_list(int argc, char *argv[], Options *o)
{
	_cleanup_close_ int rootfd = -EBADF;
	ListOptions lo = {};
	ProbeFlags flags = 0;
	const char *source = "sysfs";
	Row *rows = NULL;
	Host *hosts = NULL;
	size_t n = 0, nh = 0;
	int r = 0;

	r = parse_options(argc, argv, o, &lo);
	if (r >= 0)
		return r;
	r = 0;

	if (lunctl_open_root(o, &rootfd) != EXIT_OK)
		return EXIT_USAGE;
	if (lo.hosts || lo.tree) {
		r = collect_hosts(rootfd, &lo, &hosts, &nh);
		if (r < 0) {
			log_error_errno(r, "Failed to enumerate SCSI hosts: %m");
			return EXIT_DEVICE;
		}
	}
	if (lo.hosts) {
		r = print_hosts(hosts, nh, &lo, o->output);
		hosts_free(hosts, nh);
		if (r < 0) {
			log_error_errno(r, "Failed to print: %m");
			return EXIT_DEVICE;
		}
		return EXIT_OK;
	}

	/* lund's inventory is the live one; a tree elsewhere, or a way of reading the devices
	 * asked for explicitly, is lunctl's own work. */
	if (!o->root && !o->sysfs_only && !o->sgio_only) {
		r = list_from_lund(&rows, &n);
		if (r < 0)
			log_warning_errno(
			        r, "lund's inventory is unusable, reading sysfs instead: %m");
		else if (r > 0) {
			size_t k = 0;

			source = "lund";
			/* lund serves every LU: keep those the filter lets through */
			for (size_t i = 0; i < n; i++) {
				if (list_filter_match(&lo.filter, rows[i].host, rows[i].channel,
				                      rows[i].target, rows[i].lun)) {
					rows[k++] = rows[i];
					continue;
				}
				row_done(&rows[i]);
			}
			n = k;
		}
	}
	if (r <= 0) {
		Entry *e = NULL;
		size_t ne = 0;

		if (o->sysfs_only)
			flags |= PROBE_SYSFS_ONLY;
		if (o->sgio_only)
			flags |= PROBE_SGIO_ONLY;

		r = collect(rootfd, flags, &lo.filter, &e, &ne);
		if (r == -ENOENT) {
			/* No SCSI subsystem at all: nothing to list, not an error. */
			e = NULL;
			ne = 0;
		} else if (r < 0) {
			log_error_errno(r, "Failed to enumerate SCSI devices: %m");
			hosts_free(hosts, nh);
			return EXIT_DEVICE;
		}
		r = rows_from_entries(e, ne, &rows);
		entries_free(e, ne);
		if (r < 0) {
			log_error_errno(r, "Out of memory");
			hosts_free(hosts, nh);
			return EXIT_DEVICE;
		}
		n = ne;
	}
	rows_read_sysfs(rootfd, rows, n, &lo);

	if (lo.tree) {
		/* a filter narrower than a host shows only the hosts it finds LUs on */
		if (lo.filter.channel != LIST_ANY || lo.filter.target != LIST_ANY ||
		    !lo.filter.lun_any) {
			size_t k = 0;

			for (size_t i = 0; i < nh; i++) {
				bool has = false;

				for (size_t j = 0; !has && j < n; j++)
					has = rows[j].host == hosts[i].host;
				if (has)
					hosts[k++] = hosts[i];
				else {
					free(hosts[i].driver);
					free(hosts[i].transport);
				}
			}
			nh = k;
		}
		r = o->output == OUTPUT_JSON ? print_tree_json(hosts, nh, rows, n, source, &lo)
		                             : print_tree(hosts, nh, rows, n, &lo);
	} else
		r = o->output == OUTPUT_JSON ? print_json(rows, n, source, &lo)
		                             : print_table(rows, n, &lo);
	rows_free(rows, n);
	hosts_free(hosts, nh);
	if (r < 0) {
		log_error_errno(r, "Failed to print: %m");
		return EXIT_DEVICE;
	}
	return EXIT_OK;
}
