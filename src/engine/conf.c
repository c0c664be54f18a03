/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <grp.h>
#include <iniparser/iniparser.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "decimal.h"
#include "grow.h"
#include "macro.h"
#include "openfile.h"

struct LundConf {
	unsigned n_ref;
	char *path;
	int file_error;
	ConfError *errors;
	size_t n_errors;
	ConfSection *sections;
	size_t n_sections;
	Hwdb *hwdb;
	char *hwdb_path;
	int hwdb_error;
};

static void section_done(ConfSection *s)
{
	for (size_t i = 0; i < s->n_entries; i++) {
		free(s->entries[i].key);
		free(s->entries[i].value);
		free(s->entries[i].overridden);
	}
	free(s->entries);
	free(s->title);
	free(s->name);
	free(s->vendor);
	free(s->model);
	*s = (ConfSection){};
}

const char *conf_section_get(const ConfSection *s, const char *key)
{
	assert_return(s && key, NULL);

	for (size_t i = 0; i < s->n_entries; i++)
		if (streq(s->entries[i].key, key))
			return s->entries[i].value;
	return NULL;
}

bool conf_section_applies(const ConfSection *s, int pass, const char *vendor, const char *model)
{
	if (s->kind == CONF_SECTION_DEFAULTS)
		return pass == 0;
	if (s->kind != CONF_SECTION_DEVICE || pass != 1)
		return false;
	return fnmatch(s->vendor, vendor ?: "", FNM_CASEFOLD) == 0 &&
	       fnmatch(s->model, model ?: "", FNM_CASEFOLD) == 0;
}

/* A section titled @title (as iniparser names it), without entries yet. 0 or -ENOMEM. */
static int section_init(ConfSection *s, ConfSectionKind kind, const char *title)
{
	*s = (ConfSection){ .kind = kind, .title = strdup(title) };
	if (!s->title)
		return -ENOMEM;
	if (kind != CONF_SECTION_UNKNOWN)
		return 0;
	if (streq(title, "defaults"))
		s->kind = CONF_SECTION_DEFAULTS;
	else if (streq(title, "control"))
		s->kind = CONF_SECTION_CONTROL;
	else {
		/* "[WORD NAME]" sections: the word says the kind, NAME labels it */
		static const struct {
			const char *word;
			ConfSectionKind kind;
		} named[] = {
			{ "device", CONF_SECTION_DEVICE },
			{ "exclude", CONF_SECTION_EXCLUDE },
			{ "exception", CONF_SECTION_EXCEPTION },
			{ "react", CONF_SECTION_REACT },
		};

		for (size_t i = 0; i < ELEMENTSOF(named); i++) {
			size_t n = strlen(named[i].word);
			const char *g = title + n;

			if (!strneq(title, named[i].word, n) || (*g && *g != ' ' && *g != '\t'))
				continue;
			g += strspn(g, " \t");
			s->kind = named[i].kind;
			s->name = strdup(*g ? g : named[i].word);
			return s->name ? 0 : -ENOMEM;
		}
	}
	return 0;
}

/* The section of the dictionary key @k, "SECTION:KEY" (either may hold a ':'): the one with
 * the longest title that prefixes it, NULL for none. */
static ConfSection *section_of(LundConf *c, const char *k)
{
	ConfSection *best = NULL;

	for (size_t i = 0; i < c->n_sections; i++) {
		ConfSection *s = &c->sections[i];
		size_t n = strlen(s->title);

		if (s->kind != CONF_SECTION_NONE && strneq(k, s->title, n) && k[n] == ':' &&
		    (!best || n > strlen(best->title)))
			best = s;
	}
	return best;
}

/*
 * The sections and keys of @d in the order iniparser met them, which is its dictionary's: a
 * header is "SECTION" without a value, a key "SECTION:KEY" with one. Keys of no section (before
 * the first header) go to a CONF_SECTION_NONE one. 0 or -ENOMEM.
 */
static int sections_build(LundConf *c, const dictionary *d)
{
	ConfSection *none = NULL;
	int r;

	c->sections = calloc((size_t)d->n + 1, sizeof(ConfSection));
	if (!c->sections)
		return -ENOMEM;
	for (size_t i = 0; i < (size_t)d->size; i++) {
		ConfSection *s;
		ConfEntry *e;

		if (!d->key[i])
			continue;
		if (!d->val[i]) {
			r = section_init(&c->sections[c->n_sections], CONF_SECTION_UNKNOWN,
			                 d->key[i]);
			c->n_sections++;
			if (r < 0)
				return r;
			continue;
		}
		s = section_of(c, d->key[i]);
		if (!s && !none) {
			none = &c->sections[c->n_sections++];
			r = section_init(none, CONF_SECTION_NONE, "");
			if (r < 0)
				return r;
		}
		s = s ?: none;
		if (GREEDY_REALLOC_EXACT(s->entries, s->n_entries + 1) < 0)
			return -ENOMEM;
		e = &s->entries[s->n_entries++];
		*e = (ConfEntry){
			.key = strdup(s == none ? d->key[i] : d->key[i] + strlen(s->title) + 1),
			.value = strdup(d->val[i]),
		};
		if (!e->key || !e->value)
			return -ENOMEM;
	}
	for (size_t i = 0; i < c->n_sections; i++) {
		ConfSection *s = &c->sections[i];

		if (s->kind != CONF_SECTION_DEVICE)
			continue;
		s->vendor = strdup(conf_section_get(s, "vendor") ?: "*");
		s->model = strdup(conf_section_get(s, "model") ?: "*");
		if (!s->vendor || !s->model)
			return -ENOMEM;
	}
	return 0;
}

/* Appends @e, taking its message: 0 or -ENOMEM (then it is freed). */
static int error_push(LundConf *c, ConfError e)
{
	if (GREEDY_REALLOC_EXACT(c->errors, c->n_errors + 1) < 0) {
		free(e.message);
		return -ENOMEM;
	}
	c->errors[c->n_errors++] = e;
	return 0;
}

static int conf_error_add(LundConf *c, unsigned line, const char *message)
{
	ConfError e = { .line = line, .message = strdup(message) };

	return e.message ? error_push(c, e) : -ENOMEM;
}

/* The load iniparser's error callback reports to: the callback takes no userdata. */
static _Thread_local LundConf *loading;
/* The path iniparser was given for it, which its messages name. */
static _Thread_local const char *loading_path;

/* iniparser's "iniparser: WHAT in PATH (LINE)[:\n-> TEXT]\n", kept as "WHAT[: "TEXT"]" at LINE. */
static int on_iniparser_error(const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL, *at = NULL;
	LundConf *c = loading;
	ConfError e = {};
	char *what, *where, *text;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0 || !c)
		return 0;
	what = strneq(msg, "iniparser: ", 11) ? msg + 11 : msg;
	text = strstr(what, "\n-> ");
	if (text) {
		*text = 0;
		text += 4;
		text[strcspn(text, "\n")] = 0;
	}
	what[strcspn(what, "\n")] = 0;
	at = strjoin(" in ", loading_path ?: c->path, " (");
	where = at ? strstr(what, at) : NULL;
	if (where) {
		*where = 0;
		e.line = (unsigned)strtoul(where + strlen(at), NULL, 10);
	}
	if (text ? asprintf(&e.message, "%s: \"%s\"", what, text) >= 0
	         : !!(e.message = strdup(what)))
		(void)error_push(c, e);
	return 0;
}

/* Lower case as iniparser's strlwc(). */
static char *lowercase(char *s)
{
	for (char *p = s; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return s;
}

static ConfSection *section_find(LundConf *c, const char *title)
{
	for (size_t i = 0; i < c->n_sections; i++)
		if (c->sections[i].kind != CONF_SECTION_NONE && streq(c->sections[i].title, title))
			return &c->sections[i];
	return NULL;
}

/* The entry iniparser made of KEY under [SEC] ("SEC:KEY" in its dictionary), or NULL. */
static ConfEntry *entry_find(LundConf *c, const char *sec, const char *key)
{
	size_t n = strlen(sec);

	for (size_t i = 0; i < c->n_sections; i++) {
		ConfSection *s = &c->sections[i];
		bool none = s->kind == CONF_SECTION_NONE;

		if (!none && !streq(s->title, sec))
			continue;
		for (size_t j = 0; j < s->n_entries; j++) {
			const char *k = s->entries[j].key;

			if (none ? strneq(k, sec, n) && k[n] == ':' && streq(k + n + 1, key)
			         : streq(k, key))
				return &s->entries[j];
		}
	}
	return NULL;
}

/*
 * One logical line (continuations joined, as iniparser joins them) starting at @lineno: the
 * header or key it holds, told the way iniparser tells them, located among what iniparser made
 * of the file. @sec is the section the lines below a header belong to.
 */
static int locate_line(LundConf *c, char *line, unsigned lineno, char **sec)
{
	ConfSection *s;
	ConfEntry *e;
	size_t n;
	char *eq;

	line = strstrip(line);
	n = strlen(line);
	if (n == 0 || line[0] == '#' || line[0] == ';')
		return 0;
	if (line[0] == '[' && line[n - 1] == ']') {
		line[n - 1] = 0;
		free(*sec);
		*sec = strdup(lowercase(strstrip(line + 1)));
		if (!*sec)
			return -ENOMEM;
		/* iniparser 4.1 ends the title at its first ']', 4.2 at its last */
		if (!section_find(c, *sec) && strchr(*sec, ']')) {
			char *t = *sec;

			t[strcspn(t, "]")] = 0;
			t = strstrip(t);
			memmove(*sec, t, strlen(t) + 1);
		}
		s = section_find(c, *sec);
		if (s && s->line == 0)
			s->line = lineno;
		return 0;
	}
	eq = strchr(line, '=');
	if (!eq)
		return 0;
	*eq = 0;
	e = entry_find(c, *sec, lowercase(strstrip(line)));
	if (!e)
		return 0;
	if (e->line > 0) {
		if (GREEDY_REALLOC_EXACT(e->overridden, e->n_overridden + 1) < 0)
			return -ENOMEM;
		e->overridden[e->n_overridden++] = e->line;
	}
	e->line = lineno;
	return 0;
}

/* Where each section and entry is in @f. 0, -EBADMSG (a NUL byte), -ENOMEM. */
static int locate(LundConf *c, FILE *f)
{
	_cleanup_free_ char *buf = NULL, *logical = NULL, *sec = strdup("");
	size_t size = 0, len = 0;
	unsigned lineno = 0, start = 0;
	ssize_t got;
	int r = 0;

	if (!sec)
		return -ENOMEM;
	while (r >= 0 && (got = getline(&buf, &size, f)) >= 0) {
		size_t n = strlen(buf);

		lineno++;
		/* iniparser refuses a NUL, as a line too long, but in the last line it reads up to
		 * it and drops the rest: refused here too, whatever the line */
		if (n < (size_t)got)
			return conf_error_add(c, lineno, "a NUL byte") ?: -EBADMSG;
		while (n > 0 && isspace((unsigned char)buf[n - 1]))
			buf[--n] = 0;
		if (len == 0)
			start = lineno;
		if (GREEDY_REALLOC_EXACT(logical, len + n + 1) < 0)
			return -ENOMEM;
		memcpy(logical + len, buf, n + 1);
		len += n;
		/* a trailing '\' joins the next line to this one, in place of the '\' */
		if (n > 0 && buf[n - 1] == '\\') {
			logical[--len] = 0;
			continue;
		}
		r = locate_line(c, logical, start, &sec);
		len = 0;
	}
	/* a continuation still open at the end is dropped, by iniparser as here */
	return r;
}

/* 0 when parsed or absent (then c->file_error says which), -EBADMSG, -ENOMEM. */
static int file_load(LundConf *c)
{
	_cleanup_fclose_ FILE *f = NULL;
	char fdpath[64];
	dictionary *d;
	int fd, r;

	/* Not a FIFO, a device or a file too big: each would stall or swamp the loader. */
	fd = open_regular(AT_FDCWD, c->path, 0, CONF_FILE_MAX, NULL);
	if (fd < 0) {
		c->file_error = fd;
		return fd == -ENOENT ? 0 : -EBADMSG;
	}
	f = fdopen(fd, "re");
	if (!f) {
		c->file_error = -errno;
		close(fd);
		return -EBADMSG;
	}
	/* Ours for good: the default prints to stderr, and the daemon has none to read. */
	iniparser_set_error_callback(on_iniparser_error);
	loading = c;
	/* The file just checked, even if the path is replaced meanwhile (needs /proc). */
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%i", fd);
	loading_path = access(fdpath, R_OK) == 0 ? fdpath : c->path;
	d = iniparser_load(loading_path);
	loading = NULL;
	loading_path = NULL;
	if (!d) {
		c->file_error = -EBADMSG;
		return -EBADMSG;
	}

	r = sections_build(c, d);
	iniparser_freedict(d);
	if (r >= 0)
		r = locate(c, f);
	if (r == -EBADMSG)
		c->file_error = r;
	return r;
}

int conf_load_file(const char *conf_path, LundConf **ret)
{
	_cleanup_(conf_unrefp) LundConf *c = NULL;
	int r;

	assert_return(ret, -EINVAL);

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->n_ref = 1;
	c->path = strdup(conf_path ?: LUND_CONF_DEFAULT);
	if (!c->path)
		return -ENOMEM;
	r = file_load(c);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		/* A file that cannot be parsed is ignored as a whole, never half applied. */
		for (size_t i = 0; i < c->n_sections; i++)
			section_done(&c->sections[i]);
		c->n_sections = 0;
	}
	*ret = TAKE_PTR(c);
	return r < 0 ? -EBADMSG : 0;
}

int conf_load(const char *conf_path, const char *hwdb_path, LundConf **ret)
{
	LundConf *c = NULL;
	int r, k;

	assert_return(ret, -EINVAL);

	k = conf_load_file(conf_path, &c);
	if (k == -ENOMEM)
		return k;
	if (hwdb_path) {
		c->hwdb_path = strdup(hwdb_path);
		if (!c->hwdb_path) {
			conf_unref(c);
			return -ENOMEM;
		}
	}
	r = hwdb_open(hwdb_path, &c->hwdb);
	if (r < 0) {
		c->hwdb = NULL; /* no hwdb: nothing from it */
		c->hwdb_error = r;
	}
	*ret = c;
	return k;
}

LundConf *conf_ref(LundConf *c)
{
	if (c)
		c->n_ref++;
	return c;
}

LundConf *conf_unref(LundConf *c)
{
	if (!c || --c->n_ref > 0)
		return NULL;
	for (size_t i = 0; i < c->n_sections; i++)
		section_done(&c->sections[i]);
	free(c->sections);
	for (size_t i = 0; i < c->n_errors; i++)
		free(c->errors[i].message);
	free(c->errors);
	hwdb_free(c->hwdb);
	free(c->hwdb_path);
	free(c->path);
	free(c);
	return NULL;
}

const char *conf_get_path(const LundConf *c)
{
	assert_return(c, NULL);
	return c->path;
}

int conf_file_error(const LundConf *c)
{
	assert_return(c, -EINVAL);
	return c->file_error;
}

Hwdb *conf_hwdb(const LundConf *c)
{
	assert_return(c, NULL);
	return c->hwdb;
}

const char *conf_hwdb_path(const LundConf *c)
{
	assert_return(c, NULL);
	return c->hwdb_path;
}

int conf_hwdb_error(const LundConf *c)
{
	assert_return(c, -EINVAL);
	return c->hwdb_error;
}

const char *conf_read_group(const LundConf *c)
{
	const char *g = NULL;

	for (size_t i = 0; c && i < conf_n_sections(c); i++) {
		const ConfSection *sec = conf_section(c, i);

		if (sec->kind == CONF_SECTION_CONTROL && conf_section_get(sec, "read_group"))
			g = conf_section_get(sec, "read_group");
	}
	return g && *g ? g : NULL;
}

int conf_group_lookup(const char *name, gid_t *ret)
{
	struct group grp, *res = NULL;
	_cleanup_free_ char *buf = NULL;
	size_t size = 4096;
	long n;
	int r;

	assert_return(name && ret, -EINVAL);

	/* (gid_t)-1 means no group to chown() */
	if (parse_decimal(name, 0, (long)(gid_t)-2, &n) >= 0) {
		*ret = (gid_t)n;
		return 0;
	}
	for (;;) {
		free(buf);
		buf = malloc(size);
		if (!buf)
			return -ENOMEM;
		r = getgrnam_r(name, &grp, buf, size, &res);
		if (r != ERANGE || size >= 1u << 20)
			break;
		size *= 2;
	}
	if (r != 0)
		return -r;
	if (!res)
		return -ENOENT;
	*ret = grp.gr_gid;
	return 0;
}

size_t conf_n_errors(const LundConf *c)
{
	assert_return(c, 0);
	return c->n_errors;
}

const ConfError *conf_error(const LundConf *c, size_t i)
{
	assert_return(c && i < c->n_errors, NULL);
	return &c->errors[i];
}

size_t conf_n_sections(const LundConf *c)
{
	assert_return(c, 0);
	return c->n_sections;
}

const ConfSection *conf_section(const LundConf *c, size_t i)
{
	assert_return(c && i < c->n_sections, NULL);
	return &c->sections[i];
}
