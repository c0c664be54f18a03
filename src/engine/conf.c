/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fnmatch.h>
#include <iniparser/iniparser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "macro.h"

struct LundConf {
	unsigned n_ref;
	char *path;
	int file_error;
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

/* Section @sec of @d, with every key iniparser holds for it. 0 or -ENOMEM. */
static int section_parse(dictionary *d, const char *sec, ConfSection *ret)
{
	_cleanup_free_ const char **keys = NULL;
	ConfSection s = { .kind = CONF_SECTION_UNKNOWN };
	int nk;

	s.title = strdup(sec);
	if (!s.title)
		goto oom;
	if (streq(sec, "defaults"))
		s.kind = CONF_SECTION_DEFAULTS;
	else if (streq(sec, "control"))
		s.kind = CONF_SECTION_CONTROL;
	else if (strneq(sec, "device ", 7) || streq(sec, "device")) {
		const char *g = sec + 6;

		g += strspn(g, " \t");
		s.kind = CONF_SECTION_DEVICE;
		s.name = strdup(*g ? g : "device");
		if (!s.name)
			goto oom;
	}

	nk = iniparser_getsecnkeys(d, sec);
	if (nk > 0) {
		keys = calloc((size_t)nk, sizeof(char *));
		s.entries = calloc((size_t)nk, sizeof(ConfEntry));
		if (!keys || !s.entries)
			goto oom;
		if (!iniparser_getseckeys(d, sec, keys))
			nk = 0;
	}
	for (int j = 0; j < nk; j++) {
		/* iniparser's keys are "section:key" */
		const char *k = strchr(keys[j], ':');
		const char *v = iniparser_getstring(d, keys[j], NULL);
		ConfEntry *e = &s.entries[s.n_entries];

		if (!v)
			continue;
		e->key = strdup(k ? k + 1 : keys[j]);
		e->value = strdup(v);
		s.n_entries++;
		if (!e->key || !e->value)
			goto oom;
	}

	if (s.kind == CONF_SECTION_DEVICE) {
		s.vendor = strdup(conf_section_get(&s, "vendor") ?: "*");
		s.model = strdup(conf_section_get(&s, "model") ?: "*");
		if (!s.vendor || !s.model)
			goto oom;
	}
	*ret = s;
	return 0;
oom:
	section_done(&s);
	return -ENOMEM;
}

/* 0 when parsed or absent (then c->file_error says which), -EBADMSG, -ENOMEM. */
static int file_load(LundConf *c)
{
	dictionary *d;
	int nsec, r = 0;

	if (access(c->path, F_OK) < 0) {
		c->file_error = -errno;
		return errno == ENOENT ? 0 : -EBADMSG;
	}
	d = iniparser_load(c->path);
	if (!d) {
		c->file_error = -EBADMSG;
		return -EBADMSG;
	}

	nsec = iniparser_getnsec(d);
	if (nsec > 0) {
		c->sections = calloc((size_t)nsec, sizeof(ConfSection));
		if (!c->sections)
			r = -ENOMEM;
	}
	for (int i = 0; i < nsec && r >= 0; i++) {
		const char *sec = iniparser_getsecname(d, i);

		if (!sec)
			continue;
		r = section_parse(d, sec, &c->sections[c->n_sections]);
		if (r >= 0)
			c->n_sections++;
	}
	iniparser_freedict(d);
	return r;
}

int conf_load(const char *conf_path, const char *hwdb_path, LundConf **ret)
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
	if (hwdb_path) {
		c->hwdb_path = strdup(hwdb_path);
		if (!c->hwdb_path)
			return -ENOMEM;
	}
	r = hwdb_open(hwdb_path, &c->hwdb);
	if (r < 0) {
		c->hwdb = NULL; /* no hwdb: nothing from it */
		c->hwdb_error = r;
	}

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
