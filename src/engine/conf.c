/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "macro.h"

void conf_section_done(ConfSection *s)
{
	s->name = mfree(s->name);
	s->vendor = mfree(s->vendor);
	s->model = mfree(s->model);
}

int conf_section_parse(dictionary *d, const char *sec, ConfSection *ret)
{
	_cleanup_free_ char *kv = NULL, *km = NULL;
	ConfSection s = {};
	const char *g;

	*ret = (ConfSection){};
	if (streq(sec, "defaults"))
		return 0;
	if (!strneq(sec, "device ", 7) && !streq(sec, "device"))
		return -ENOENT;
	g = sec + 6;
	g += strspn(g, " \t");
	if (asprintf(&kv, "%s:vendor", sec) < 0 || asprintf(&km, "%s:model", sec) < 0)
		return -ENOMEM;
	s.name = strdup(*g ? g : "device");
	s.vendor = strdup(iniparser_getstring(d, kv, "*"));
	s.model = strdup(iniparser_getstring(d, km, "*"));
	if (!s.name || !s.vendor || !s.model) {
		conf_section_done(&s);
		return -ENOMEM;
	}
	*ret = s;
	return 1;
}

bool conf_section_applies(const ConfSection *s, int pass, const char *vendor, const char *model)
{
	if ((pass == 0) != !s->name)
		return false;
	return !s->name || (fnmatch(s->vendor, vendor ?: "", FNM_CASEFOLD) == 0 &&
	                    fnmatch(s->model, model ?: "", FNM_CASEFOLD) == 0);
}
