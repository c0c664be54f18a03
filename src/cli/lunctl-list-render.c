/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * `lunctl list`'s outputs: one Row (lunctl-list.h) a line of the column table, an object of
 * the JSON, a branch of the tree, whether lund or lunctl identified it.
 */

#include <errno.h>
#include <libsmartcols.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "lunctl-list-render.h"
#include "lunctl.h"
#include "macro.h"
#include "output.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct libscols_table *, scols_unref_table);

static const struct {
	const char *name;
	const char *help;
	bool wrap;
	bool identity; /* from the identification: empty in a row that has none (Row.error) */
	size_t width;  /* on a terminal at least this wide: lsscsi's fixed INQUIRY fields */
} columns[_COL_MAX] = {
	[COL_HCTL] = { "HCTL", "Host:Channel:Target:LUN" },
	[COL_TYPE] = { "TYPE", "device type as udev's scsi_id names it (ID_TYPE)",
	               .identity = true },
	[COL_PDT] = { "PDT", "peripheral device type as lsscsi names it" },
	[COL_VENDOR] = { "VENDOR", "vendor identification (INQUIRY), as lsscsi prints it",
	                 .identity = true, .width = 8 },
	[COL_MODEL] = { "MODEL", "product identification (INQUIRY), as lsscsi prints it",
	                .identity = true, .width = 16 },
	[COL_REV] = { "REV", "product revision level (INQUIRY), as lsscsi prints it",
	              .identity = true, .width = 4 },
	[COL_TRANSPORT] = { "TRANSPORT", "transport and target port, as lsscsi -t prints it" },
	[COL_NODES] = { "NODES", "kernel device names: block, tape, sg" },
	[COL_BLOCK] = { "BLOCK", "block device" },
	[COL_TAPE] = { "TAPE", "tape device" },
	[COL_SG] = { "SG", "SCSI generic device" },
	[COL_SIZE] = { "SIZE", "size in powers of 1000, as lsscsi -s prints it" },
	[COL_ID] = { "ID", "ID_SERIAL, as udev's scsi_id gives it" },
	[COL_NAMES] = { "NAMES", "/dev/disk/by-id names", true, true },
	[COL_PATHS] = { "PATHS", "the other paths of the same LU (lund's, empty without lund)",
	                .identity = true },
	[COL_EXCLUDED] = { "EXCLUDED",
	                   "the lund.conf [exclude] rule lund leaves it alone by (lund's, empty "
	                   "without lund)" },
	[COL_PR] = { "PR", "persistent reservations, read now: registered keys and the holder" },
	[COL_STATE] = { "STATE",
	                "device state: running, offline, transport-offline, blocked, ..." },
};

/* lsscsi's order, one line per LU; the by-id names (a line each) with -o +NAMES or --tree */
static const Column default_columns[] = { COL_HCTL, COL_TYPE,  COL_VENDOR, COL_MODEL,
	                                  COL_REV,  COL_NODES, COL_ID };

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

int list_parse_columns(ListOptions *lo, const char *arg)
{
	const char *p = arg, *end;

	if (!arg) {
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
		return 0;
	}
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

void list_print_columns(void)
{
	for (size_t c = 0; c < _COL_MAX; c++)
		printf("%-10s %s\n", columns[c].name, columns[c].help);
}

/* ---- the column table ---- */

static char *nodes_string(const Row *w)
{
	char *s = NULL;

	if (asprintf(&s, "%s%s%s%s%s", w->lu.block ?: "",
	             w->lu.block && (w->lu.tape || w->lu.sg) ? "," : "", w->lu.tape ?: "",
	             w->lu.tape && w->lu.sg ? "," : "", w->lu.sg ?: "") < 0)
		return NULL;
	return s;
}

/* The NAMES column: the names joined by @sep, a blank, or on a terminal a newline, one name
 * per line. */
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

#define ID_MIN_WIDTH 16

static int set_cell(struct libscols_line *ln, size_t col, const char *s)
{
	return scols_line_set_data(ln, col, s) < 0 ? -ENOMEM : 0;
}

/*
 * INQUIRY's vendor or product identification as lsscsi prints it ("SD/MMC Reader", where udev's
 * ID_MODEL has "SD_MMC_Reader"), from udev's encoding of its bytes in property @key
 * (ID_VENDOR_ENC, ID_MODEL_ENC: \xNN for each byte udev does not keep): decoded, trailing
 * blanks cut, anything unprintable escaped. @fallback (udev's form) when the row has no @key.
 */
static char *inquiry_field(const Row *w, const char *key, const char *fallback)
{
	const char *enc = w->properties ? json_str(w->properties, key) : NULL;
	_cleanup_free_ char *raw = NULL;
	size_t n = 0;

	if (!enc)
		return strdup(fallback ?: "");
	raw = malloc(strlen(enc) + 1);
	if (!raw)
		return NULL;
	for (const char *p = enc; *p;) {
		int hi = p[0] == '\\' && p[1] == 'x' ? unhexchar(p[2]) : -1;
		int lo = hi >= 0 ? unhexchar(p[3]) : -1;

		if (lo >= 0) {
			raw[n++] = (char)(hi << 4 | lo);
			p += 4;
		} else
			raw[n++] = *p++;
	}
	while (n > 0 && raw[n - 1] == ' ')
		n--;
	return output_escape(raw, n);
}

/* The "(identifying)" or "(unreadable)" that stands for the identity a row has not. */
static const char *row_error_string(const Row *w)
{
	return w->error == -EINPROGRESS ? "(identifying)" : "(unreadable)";
}

static int row_cell(const Row *w, Column c, bool tty, char **ret)
{
	/* the columns that are one string of the row, "" when it has none */
	const char *text[_COL_MAX] = {
		[COL_HCTL] = w->lu.hctl,        [COL_TYPE] = w->type,    [COL_REV] = w->revision,
		[COL_BLOCK] = w->lu.block,      [COL_TAPE] = w->lu.tape, [COL_SG] = w->lu.sg,
		[COL_TRANSPORT] = w->transport,
	};
	char buf[32];

	*ret = NULL;
	if (w->error < 0 && columns[c].identity)
		return 0;
	switch (c) {
	case COL_PDT:
		*ret = strdup(list_type_name(w->pdt));
		break;
	case COL_VENDOR:
		*ret = inquiry_field(w, "ID_VENDOR_ENC", w->vendor);
		break;
	case COL_MODEL:
		*ret = inquiry_field(w, "ID_MODEL_ENC", w->model);
		break;
	case COL_NODES:
		*ret = nodes_string(w);
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
			*ret = strdup(row_error_string(w));
			break;
		}
		if (!w->serial) {
			*ret = strdup("-");
			break;
		}
		*ret = output_escape(w->serial, strlen(w->serial));
		break;
	case COL_NAMES:
		*ret = names_string(w, tty ? '\n' : ' ');
		break;
	case COL_PATHS:
		/* the map holding the paths, when dm-multipath does: "[dm-3]" */
		if (w->multipath) {
			if (asprintf(ret, "%s%s[%s]", w->paths ?: "", w->paths ? " " : "",
			             json_str(w->multipath, "node")) < 0)
				*ret = NULL;
		} else
			*ret = strdup(w->paths ?: "");
		break;
	case COL_STATE:
		*ret = strdup(w->state ?: "-");
		break;
	case COL_EXCLUDED:
		*ret = strdup(w->excluded ?: "");
		break;
	case COL_PR:
		*ret = strdup(w->pr ?: "-");
		break;
	default:
		*ret = strdup(text[c] ?: "");
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

static void cells_free(char **cells, size_t n)
{
	for (size_t i = 0; cells && i < n; i++)
		free(cells[i]);
	free(cells);
}

/* On a terminal the ID gets what the other columns leave of its width (a line per LU, as
 * lsscsi's), never less than ID_MIN_WIDTH: the widest cell (or heading, or lsscsi's width) of
 * each other column and a blank between columns. */
static size_t id_width_left(const ListOptions *lo, char **cells, size_t n, size_t termwidth)
{
	size_t used = 0;

	for (size_t c = 0; c < lo->n_cols; c++) {
		size_t wd = MAX(strlen(columns[lo->cols[c]].name), columns[lo->cols[c]].width);

		if (lo->cols[c] == COL_ID)
			continue;
		for (size_t i = 0; i < n; i++)
			if (cells[i * lo->n_cols + c])
				wd = MAX(wd, strlen(cells[i * lo->n_cols + c]));
		used += wd + 1;
	}
	return used + ID_MIN_WIDTH < termwidth ? termwidth - used : ID_MIN_WIDTH;
}

static int print_table(const Row *w, size_t n, const ListOptions *lo)
{
	_cleanup_(scols_unref_tablep) struct libscols_table *tb = new_table(lo);
	bool tty = !lo->raw && !lo->pairs && isatty(STDOUT_FILENO);
	size_t id_width = SIZE_MAX;
	char **cells;
	int r = 0;

	if (!tb)
		return -ENOMEM;
	cells = calloc(n * lo->n_cols + 1, sizeof(*cells));
	if (!cells)
		return -ENOMEM;
	for (size_t i = 0; r >= 0 && i < n; i++)
		for (size_t c = 0; r >= 0 && c < lo->n_cols; c++)
			r = row_cell(&w[i], lo->cols[c], tty, &cells[i * lo->n_cols + c]);
	if (r >= 0 && tty)
		id_width = id_width_left(lo, cells, n, scols_table_get_termwidth(tb));
	for (size_t c = 0; r >= 0 && c < lo->n_cols; c++) {
		const Column col = lo->cols[c];
		struct libscols_column *cl = scols_table_new_column(
		        tb, columns[col].name, tty ? (double)columns[col].width : 0,
		        tty && columns[col].wrap ? SCOLS_FL_WRAP : 0);

		if (!cl)
			r = -ENOMEM;
		/* on a terminal, a cell of several names wraps between names, never inside one */
		else if (tty && columns[col].wrap) {
			scols_column_set_wrapfunc(cl, scols_wrapnl_chunksize,
			                          scols_wrapnl_nextchunk, NULL);
			scols_column_set_safechars(cl, "\n");
		}
	}
	for (size_t i = 0; r >= 0 && i < n; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln)
			r = -ENOMEM;
		for (size_t c = 0; r >= 0 && c < lo->n_cols; c++) {
			char **cell = &cells[i * lo->n_cols + c];

			if (*cell && lo->cols[c] == COL_ID && strlen(*cell) > id_width) {
				char *cut = cut_middle(*cell, id_width);

				if (!cut) {
					r = -ENOMEM;
					break;
				}
				free(*cell);
				*cell = cut;
			}
			if (*cell)
				r = set_cell(ln, c, *cell);
		}
	}
	cells_free(cells, n * lo->n_cols);
	return r < 0 ? r : scols_print_table(tb);
}

/* ---- JSON ---- */

/* {"source": @source (unless NULL), @key: []}, the array in *@ret_arr; NULL on ENOMEM. */
static json_object *json_root(const char *source, const char *key, json_object **ret_arr)
{
	json_object *root = json_object_new_object(), *arr = json_object_new_array();

	if (!root || !arr) {
		json_object_put(root);
		json_object_put(arr);
		return NULL;
	}
	if (source)
		json_object_object_add(root, "source", json_object_new_string(source));
	json_object_object_add(root, key, arr);
	*ret_arr = arr;
	return root;
}

static json_object *row_json(const Row *w, const ListOptions *lo)
{
	json_object *o = json_object_new_object(), *nodes = lunctl_nodes_json(&w->lu),
	            *names = json_object_new_array();

	if (!o || !nodes || !names) {
		json_object_put(o);
		json_object_put(nodes);
		json_object_put(names);
		return NULL;
	}
	json_object_object_add(o, "hctl", json_object_new_string(w->lu.hctl));
	json_object_object_add(o, "nodes", nodes);
	json_object_object_add(o, "names", names);
	json_object_object_add(o, "state", w->state ? json_object_new_string(w->state) : NULL);
	if (w->excluded)
		json_object_object_add(o, "excluded", json_object_new_string(w->excluded));
	/* the sysfs columns, when asked for */
	if (lo->want[COL_PDT]) {
		json_object_object_add(o, "pdt", w->pdt >= 0 ? json_object_new_int(w->pdt) : NULL);
		json_object_object_add(o, "pdt_name",
		                       json_object_new_string(list_type_name(w->pdt)));
	}
	if (lo->want[COL_TRANSPORT])
		json_object_object_add(o, "transport", json_object_new_string(w->transport ?: ""));
	if (lo->want[COL_PR])
		json_object_object_add(o, "pr", json_object_get(w->pr_json));
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

/* ---- hosts ---- */

static json_object *host_json(const Host *h, const ListOptions *lo)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "host", json_object_new_int64(h->host));
	json_object_object_add(o, "driver", h->driver ? json_object_new_string(h->driver) : NULL);
	if (lo->transport)
		json_object_object_add(o, "transport", json_object_new_string(h->transport ?: ""));
	return o;
}

/* {"source": @source, "logical_units": [the @n rows @w]}, or for --hosts {"hosts": [the @n
 * hosts @h]}. */
static int print_json(const Host *h, const Row *w, size_t n, const char *source,
                      const ListOptions *lo)
{
	json_object *arr;
	_cleanup_(json_object_putp) json_object *root =
	        json_root(lo->hosts ? NULL : source, lo->hosts ? "hosts" : "logical_units", &arr);

	if (!root)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *o = lo->hosts ? host_json(&h[i], lo) : row_json(&w[i], lo);

		if (!o)
			return -ENOMEM;
		json_object_array_add(arr, o);
	}
	return output_json(stdout, root);
}

static int print_hosts(const Host *h, size_t n, const ListOptions *lo)
{
	_cleanup_(scols_unref_tablep) struct libscols_table *tb = new_table(lo);

	if (!tb || !scols_table_new_column(tb, "HOST", 0, SCOLS_FL_RIGHT) ||
	    !scols_table_new_column(tb, "DRIVER", 0, 0) ||
	    (lo->transport && !scols_table_new_column(tb, "TRANSPORT", 0, 0)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		char num[16];

		snprintf(num, sizeof(num), "%u", h[i].host);
		if (!ln || set_cell(ln, 0, num) < 0 || set_cell(ln, 1, h[i].driver ?: "") < 0 ||
		    (lo->transport && set_cell(ln, 2, h[i].transport ?: "") < 0))
			return -ENOMEM;
	}
	return scols_print_table(tb);
}

/* ---- tree: host, target, LU, nodes and names ---- */

/* Does row @k begin a target (the rows sorted by H:C:T:L)? */
static bool row_begins_target(const Row *w, size_t k)
{
	return k == 0 || w[k - 1].lu.host != w[k].lu.host ||
	       w[k - 1].lu.channel != w[k].lu.channel || w[k - 1].lu.target != w[k].lu.target;
}

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
	_cleanup_free_ char *id = NULL, *vendor = NULL, *model = NULL;
	char size[32] = "";
	char *s = NULL;

	if (lo->size && w->have_size)
		(void)list_size_string(w->size, size, sizeof(size));
	if (w->error >= 0) {
		vendor = inquiry_field(w, "ID_VENDOR_ENC", w->vendor);
		model = inquiry_field(w, "ID_MODEL_ENC", w->model);
		if (!vendor || !model ||
		    asprintf(&id, "%s  %s %s %s", w->type ?: "?", vendor, model,
		             w->revision ?: "") < 0)
			return NULL;
	}
	if (asprintf(&s, "%s%s%s%s%s", id ?: row_error_string(w),
	             lo->transport && !isempty(w->transport) ? "  " : "",
	             lo->transport ? w->transport ?: "" : "", *size ? "  " : "", size) < 0)
		return NULL;
	return s;
}

static int print_tree_json(const Host *h, size_t nh, const Row *w, size_t n, const char *source,
                           const ListOptions *lo)
{
	json_object *hosts;
	_cleanup_(json_object_putp) json_object *root = json_root(source, "hosts", &hosts);

	if (!root)
		return -ENOMEM;
	for (size_t i = 0; i < nh; i++) {
		json_object *ho = host_json(&h[i], lo), *targets = json_object_new_array(),
		            *lus = NULL;

		if (!ho || !targets) {
			json_object_put(ho);
			json_object_put(targets);
			return -ENOMEM;
		}
		json_object_array_add(hosts, ho);
		json_object_object_add(ho, "targets", targets);
		for (size_t k = 0; k < n; k++) {
			json_object *o;

			if (w[k].lu.host != h[i].host)
				continue;
			if (row_begins_target(w, k)) {
				json_object *to = json_object_new_object();
				char t[64];

				lus = json_object_new_array();
				if (!to || !lus) {
					json_object_put(to);
					json_object_put(lus);
					return -ENOMEM;
				}
				snprintf(t, sizeof(t), "%u:%u:%u", w[k].lu.host, w[k].lu.channel,
				         w[k].lu.target);
				json_object_array_add(targets, to);
				json_object_object_add(to, "target", json_object_new_string(t));
				json_object_object_add(to, "logical_units", lus);
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
	_cleanup_(scols_unref_tablep) struct libscols_table *tb = new_table(lo);

	if (!tb || !scols_table_new_column(tb, "NAME", 0, SCOLS_FL_TREE) ||
	    !scols_table_new_column(tb, "DESCRIPTION", 0, SCOLS_FL_WRAP))
		return -ENOMEM;
	for (size_t i = 0; i < nh; i++) {
		struct libscols_line *hl, *tl = NULL;
		char name[64], desc[1100];

		snprintf(name, sizeof(name), "host%u", h[i].host);
		snprintf(desc, sizeof(desc), "%s%s%s", h[i].driver ?: "",
		         lo->transport && !isempty(h[i].transport) ? "  " : "",
		         lo->transport ? h[i].transport ?: "" : "");
		hl = tree_line(tb, NULL, name, desc);
		if (!hl)
			return -ENOMEM;
		for (size_t k = 0; k < n; k++) {
			_cleanup_free_ char *d = NULL;
			struct libscols_line *ll;
			const char *nodes[] = { w[k].lu.block, w[k].lu.tape, w[k].lu.sg };
			const char *kinds[] = { "block", "tape", "sg" };

			if (w[k].lu.host != h[i].host)
				continue;
			if (row_begins_target(w, k)) {
				snprintf(name, sizeof(name), "target%u:%u:%u", w[k].lu.host,
				         w[k].lu.channel, w[k].lu.target);
				tl = tree_line(tb, hl, name, NULL);
			}
			d = lu_description(&w[k], lo);
			ll = tl && d ? tree_line(tb, tl, w[k].lu.hctl, d) : NULL;
			if (!ll)
				return -ENOMEM;
			for (size_t m = 0; m < ELEMENTSOF(nodes); m++) {
				char dev[PATH_MAX];

				if (!nodes[m])
					continue;
				snprintf(dev, sizeof(dev), "/dev/%s", nodes[m]);
				if (!tree_line(tb, ll, dev, kinds[m]))
					return -ENOMEM;
			}
			for (size_t m = 0; m < w[k].n_names; m++)
				if (!tree_line(tb, ll, w[k].names[m], "by-id"))
					return -ENOMEM;
		}
	}
	return scols_print_table(tb);
}

int list_print(const ListOptions *lo, const Host *h, size_t nh, const Row *w, size_t n,
               const char *source)
{
	if (lo->hosts)
		return lo->json ? print_json(h, NULL, nh, NULL, lo) : print_hosts(h, nh, lo);
	if (lo->tree)
		return lo->json ? print_tree_json(h, nh, w, n, source, lo)
		                : print_tree(h, nh, w, n, lo);
	return lo->json ? print_json(NULL, w, n, source, lo) : print_table(w, n, lo);
}
