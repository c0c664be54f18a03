/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "confcheck.h"
#include "errpolicy.h"
#include "exclusion.h"
#include "macro.h"
#include "reservation.h"
#include "policyknob.h"
#include "namerule.h"
#include "scanquirk.h"

void conf_check_report_json(const char *path, unsigned line, const char *message, void *userdata)
{
	json_object *o = json_object_new_object();

	if (!o)
		return;
	json_object_object_add(o, "file", json_object_new_string(path));
	json_object_object_add(o, "line", json_object_new_int((int)line));
	json_object_object_add(o, "message", json_object_new_string(message));
	if (json_object_array_add(userdata, o) < 0)
		json_object_put(o);
}

/* A line longer than this is reported, not read in pieces. */
#define LINE_MAX_LEN 4096

typedef struct Checker {
	const char *path;
	unsigned line, problems;
	ConfCheckReport report;
	void *userdata;
} Checker;

_printf_(2, 3) static void problem(Checker *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->problems++;
	if (c->report)
		c->report(c->path, c->line, msg, c->userdata);
}

/* The next line of @f in @buf (LINE_MAX_LEN + 2 bytes), counted; a longer line is reported and
 * skipped. false at the end of the file. */
static bool next_line(Checker *c, FILE *f, char *buf)
{
	while (fgets(buf, LINE_MAX_LEN + 2, f)) {
		int ch;

		c->line++;
		if (strchr(buf, '\n') || feof(f))
			return true;
		problem(c, "line longer than %u bytes", LINE_MAX_LEN);
		while ((ch = fgetc(f)) != EOF && ch != '\n')
			;
	}
	return false;
}

/* A policy knob's key (lund.conf's or the hwdb's) and value: 1 known, 0 not a knob. */
static int check_knob(Checker *c, const char *key, const char *value, bool hwdb)
{
	for (int k = 0; k < _KNOB_MAX; k++) {
		char canon[ERRKNOB_VALUE_MAX];
		long min, max;

		if (!streq(key, hwdb ? policy_knobs[k].hwdb_key : policy_knobs[k].conf_key))
			continue;
		if (policy_knob_validate(k, value, canon, sizeof(canon)) >= 0)
			return 1;
		if (!policy_knob_is_transport(k) &&
		    errknob_range(policy_knobs[k].errknob, &min, &max) >= 0)
			problem(c, "invalid %s \"%s\": an integer %ld..%ld expected", key, value,
			        min, max);
		else
			problem(c, "invalid %s \"%s\": %s expected", key, value,
			        policy_knob_help(k));
		return 1;
	}
	return 0;
}

/* A scan quirk's key and value: 1 known, 0 not a quirk. */
static int check_quirk(Checker *c, const char *key, const char *value, bool hwdb)
{
	int r = scan_quirk_check(key, hwdb, value);

	if (r == -ENOENT)
		return 0;
	if (r < 0 && strcasestr(key, "max_lun"))
		problem(c, "invalid %s \"%s\": an integer 1..%u expected", key, value,
		        (unsigned)SCAN_QUIRK_MAX_LUN_LIMIT);
	else if (r < 0)
		problem(c, "invalid %s \"%s\": yes or no expected", key, value);
	return 1;
}

/* Each problem of @e in @s, a section lund reads. */
static void check_entry(Checker *c, const ConfSection *s, const ConfEntry *e)
{
	const char *k = e->key, *v = e->value;
	gid_t gid;

	c->line = e->line;
	switch (s->kind) {
	case CONF_SECTION_CONTROL:
		/* an empty one is none: the socket stays root's */
		if (!streq(k, "read_group"))
			problem(c, "unknown key \"%s\" in [control]: it takes read_group", k);
		else if (*v && conf_group_lookup(v, &gid) < 0)
			problem(c, "read_group \"%s\": no such group", v);
		return;
	case CONF_SECTION_EXCLUDE:
	case CONF_SECTION_EXCEPTION:
	case CONF_SECTION_REACT: {
		const char *expected = NULL;
		int r = exclusion_check_entry(s->kind, k, v, &expected);
		bool action = s->kind == CONF_SECTION_REACT &&
		              exclusion_check_entry(s->kind, k, "report", NULL) == 0;

		if (r == -ENOENT)
			problem(c,
			        "unknown key \"%s\" in [%s]: it takes %s; the section matches no "
			        "LU",
			        k, s->title, exclusion_keys_help(s->kind));
		else if (r < 0)
			problem(c, "invalid %s \"%s\": %s expected; %s", k, v, expected,
			        streq(k, "names") ? "taken as no"
			        : action          ? "lund does what it does without it"
			                          : "the section matches no LU");
		return;
	}
	case CONF_SECTION_DEVICE:
		if (streq(k, "vendor") || streq(k, "model"))
			return;
		_fallthrough_;
	case CONF_SECTION_DEFAULTS:
		if (s->kind == CONF_SECTION_DEFAULTS && streq(k, "reservation_key")) {
			ResvConfig rc;

			if (resv_config_parse(v, &rc) < 0)
				problem(c,
				        "invalid reservation_key \"%s\": hex keys (at most %u, not "
				        "0) "
				        "or file expected; no key configured",
				        v, (unsigned)RESV_KEYS_MAX);
			return;
		}
		if (check_knob(c, k, v, false) || check_quirk(c, k, v, false))
			return;
		problem(c, "unknown key \"%s\"%s", k,
		        s->kind == CONF_SECTION_DEFAULTS &&
		                        (streq(k, "vendor") || streq(k, "model"))
		                ? " in [defaults]: vendor and model select a [device]"
		                : "");
		return;
	default:
		return;
	}
}

int conf_check(const LundConf *conf, ConfCheckReport report, void *userdata)
{
	Checker c = { .path = conf_get_path(conf), .report = report, .userdata = userdata };

	for (size_t i = 0; i < conf_n_errors(conf); i++) {
		c.line = conf_error(conf, i)->line;
		problem(&c, "%s", conf_error(conf, i)->message);
	}
	if (conf_file_error(conf) == -EBADMSG && conf_n_errors(conf) == 0)
		problem(&c, "cannot be parsed");
	for (size_t i = 0; i < conf_n_sections(conf); i++) {
		const ConfSection *s = conf_section(conf, i);

		c.line = s->line;
		if (s->kind == CONF_SECTION_UNKNOWN) {
			/* its keys apply to nothing either: said once, here */
			problem(&c,
			        "unknown section [%s]: lund reads [defaults], [device NAME], "
			        "[exclude NAME], [exception NAME] and [control]",
			        s->title);
			continue;
		}
		for (size_t j = 0; j < s->n_entries; j++) {
			const ConfEntry *e = &s->entries[j];
			/* iniparser's ":KEY" before the first header */
			const char *key =
			        e->key + (s->kind == CONF_SECTION_NONE && e->key[0] == ':');

			for (size_t o = 0; o < e->n_overridden; o++) {
				c.line = e->overridden[o];
				problem(&c, "%s is set again on line %u, which wins", key, e->line);
			}
			c.line = e->line;
			if (s->kind == CONF_SECTION_NONE)
				problem(&c, "%s outside a section: it applies to nothing", key);
			else
				check_entry(&c, s, e);
		}
	}
	return (int)c.problems;
}

int conf_check_file(const char *path, ConfCheckReport report, void *userdata)
{
	_cleanup_(conf_unrefp) LundConf *conf = NULL;
	int r;

	r = conf_load_file(path, &conf);
	if (r == -ENOMEM)
		return r;
	r = conf_file_error(conf);
	if (r < 0 && r != -EBADMSG)
		return r;
	return conf_check(conf, report, userdata);
}

int hwdb_check_file(const char *path, ConfCheckReport report, void *userdata)
{
	_cleanup_fclose_ FILE *f = NULL;
	Checker c = { .path = path, .report = report, .userdata = userdata };
	bool in_record = false, in_props = false, lunds = false, others = false, mixed = false;
	char buf[LINE_MAX_LEN + 2];

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (next_line(&c, f, buf)) {
		char *l, *eq;
		bool property;
		int r;

		property = buf[0] == ' ';
		l = strstrip(buf);
		if (!*l) {
			/* an empty line ends a record */
			in_record = in_props = lunds = others = mixed = false;
			continue;
		}
		if (*l == '#')
			continue;
		if (!property) {
			/* a match line; several may start one record, before its properties */
			if (in_props) {
				problem(&c,
				        "a match line right after properties: udev's hwdb drops "
				        "the record (an empty line must end it)");
				lunds = others = mixed = in_props = false;
			}
			if (strncmp(l, "lund:", 5) == 0) {
				lunds = true;
				if (strncmp(l, "lund:scsi:", 10) != 0 &&
				    strncmp(l, "lund:usb:", 9) != 0)
					problem(&c,
					        "match \"%s\": lund looks up lund:scsi:... and "
					        "lund:usb:... only",
					        l);
			} else
				others = true;
			if (lunds && others)
				problem(&c, "a record mixing lund's matches with others'");
			in_record = true;
			continue;
		}
		if (!in_record) {
			problem(&c, "a property line outside a record (no match line before it)");
			continue;
		}
		in_props = true;
		if (!lunds)
			continue; /* someone else's record */
		eq = strchr(l, '=');
		if (!eq || eq == l) {
			problem(&c, "not a \" KEY=value\" property line");
			continue;
		}
		*eq = 0;
		if (check_knob(&c, l, eq + 1, true) || check_quirk(&c, l, eq + 1, true))
			continue;
		r = name_rule_check(l, eq + 1);
		if (r == -EINVAL)
			problem(&c,
			        "invalid %s \"%s\": identity, serial-path or unit-serial expected",
			        l, eq + 1);
		else if (r < 0)
			problem(&c, "unknown property \"%s\" in a lund record", l);
	}
	if (ferror(f))
		return -EIO;
	return (int)c.problems;
}

int hwdb_check_sources(const char *root,
                       void (*checked)(const char *path, int problems, void *userdata),
                       ConfCheckReport report, void *userdata)
{
	static const char *const dirs[] = { "etc/udev/hwdb.d", "lib/udev/hwdb.d",
		                            "usr/lib/udev/hwdb.d" };
	int total = 0, r = 0;

	for (size_t d = 0; d < ELEMENTSOF(dirs) && r >= 0; d++) {
		_cleanup_free_ char *pattern = NULL;
		glob_t g = {};

		if (asprintf(&pattern, "%s/%s/*lund*.hwdb", root && !streq(root, "/") ? root : "",
		             dirs[d]) < 0)
			return -ENOMEM;
		if (glob(pattern, 0, NULL, &g) == 0)
			for (size_t i = 0; i < g.gl_pathc && r >= 0; i++) {
				r = hwdb_check_file(g.gl_pathv[i], report, userdata);
				if (r >= 0) {
					total += r;
					if (checked)
						checked(g.gl_pathv[i], r, userdata);
				}
			}
		globfree(&g);
	}
	return r < 0 ? r : total;
}
