/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "decimal.h"
#include "exclusion.h"
#include "macro.h"
#include "scanquirk.h"

/* SPC-6 table 50 (peripheral device type): the names a type= key takes besides its number,
 * lsscsi's where they are one word, and the names admins know them by. */
static const struct {
	const char *name;
	int type;
} type_names[] = {
	{ "disk", 0x00 },    { "tape", 0x01 },    { "printer", 0x02 },   { "processor", 0x03 },
	{ "worm", 0x04 },    { "cdrom", 0x05 },   { "cd/dvd", 0x05 },    { "scanner", 0x06 },
	{ "optical", 0x07 }, { "changer", 0x08 }, { "mediumx", 0x08 },   { "comms", 0x09 },
	{ "storage", 0x0c }, { "raid", 0x0c },    { "enclosure", 0x0d }, { "rbc", 0x0e },
	{ "osd", 0x11 },     { "zbc", 0x14 },     { "wlun", 0x1e },
};

int exclusion_type_from_string(const char *s)
{
	long n;

	if (!s)
		return -EINVAL;
	if (parse_decimal(s, 0, 31, &n) >= 0)
		return (int)n;
	for (size_t i = 0; i < ELEMENTSOF(type_names); i++)
		if (strcasecmp(s, type_names[i].name) == 0)
			return type_names[i].type;
	return -EINVAL;
}

/* One H:C:T:L field, "*" or a decimal number: 0 with *ret (-1 for "*"), -EINVAL. */
static int hctl_field(const char *s, size_t n, int64_t *ret)
{
	char buf[16];
	long v;

	if (n == 1 && s[0] == '*') {
		*ret = -1;
		return 0;
	}
	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (parse_decimal(buf, 0, 2147483647L, &v) < 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* "H:C:T:L" with '*' fields: 0 with ret[4], -EINVAL. */
static int parse_hctl(const char *s, int64_t ret[4])
{
	for (int i = 0; i < 4; i++) {
		size_t n = strcspn(s, ":");

		if (hctl_field(s, n, &ret[i]) < 0)
			return -EINVAL;
		s += n;
		if (i < 3 && *s++ != ':')
			return -EINVAL;
	}
	return *s ? -EINVAL : 0;
}

/* "N" or "N-M" (N <= M): 0 with *ret_min, *ret_max; -EINVAL. */
static int parse_host_range(const char *s, long *ret_min, long *ret_max)
{
	const char *dash = strchr(s, '-');
	long lo, hi;

	if (!dash) {
		if (parse_decimal(s, 0, 2147483647L, &lo) < 0)
			return -EINVAL;
		*ret_min = *ret_max = lo;
		return 0;
	}
	char buf[16];
	size_t n = (size_t)(dash - s);

	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (parse_decimal(buf, 0, 2147483647L, &lo) < 0 ||
	    parse_decimal(dash + 1, 0, 2147483647L, &hi) < 0 || hi < lo)
		return -EINVAL;
	*ret_min = lo;
	*ret_max = hi;
	return 0;
}

/* The transport kinds lsscsi -t names (io/hostfacts.h), which transport= takes besides globs. */
static const char *const transport_kinds[] = {
	"fc", "fcoe", "sas", "iscsi", "spi", "srp", "sata", "ata", "usb", "sbp", "none",
};

/* The [react] action keys, their values (the first is lund's default) and the actions each
 * value lets lund take. */
static const struct {
	const char *key;
	const char *values[3];
	unsigned does[3]; /* 1 << ReactAction per value */
	const char *expected;
} react_keys[] = {
	{ "luns",
	  { "add-remove", "add", "report" },
	  { 1u << REACT_ADD | 1u << REACT_REMOVE, 1u << REACT_ADD, 0 },
	  "add-remove, add or report" },
	{ "capacity", { "resize", "report" }, { 1u << REACT_RESIZE, 0 }, "resize or report" },
	{ "identity", { "rename", "report" }, { 1u << REACT_RENAME, 0 }, "rename or report" },
	{ "new_hosts", { "scan", "report" }, { 1u << REACT_SCAN_HOST, 0 }, "scan or report" },
};

/* The action key deciding @what. */
static size_t react_key_of(ReactAction what)
{
	switch (what) {
	case REACT_ADD:
	case REACT_REMOVE:
		return 0;
	case REACT_RESIZE:
		return 1;
	case REACT_RENAME:
		return 2;
	default:
		return 3;
	}
}

/* The index of @value among @key's values, -EINVAL; -ENOENT when @key is no action key. */
static int react_value(const char *key, const char *value, size_t *ret_key)
{
	for (size_t k = 0; k < ELEMENTSOF(react_keys); k++) {
		if (!streq(key, react_keys[k].key))
			continue;
		*ret_key = k;
		for (int v = 0; v < 3 && react_keys[k].values[v]; v++)
			if (strcasecmp(value, react_keys[k].values[v]) == 0)
				return v;
		return -EINVAL;
	}
	return -ENOENT;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

int exclusion_check_entry(ConfSectionKind kind, const char *key, const char *value,
                          const char **ret_expected)
{
	const char *expected = NULL;
	int64_t hctl[4];
	long lo, hi;
	size_t k;
	bool b;

	if (streq(key, "wwid") || streq(key, "vendor") || streq(key, "model") ||
	    streq(key, "driver")) {
		if (!*value)
			expected = "a glob";
	} else if (streq(key, "transport")) {
		bool known = *value && is_glob(value);

		for (size_t i = 0; i < ELEMENTSOF(transport_kinds) && !known; i++)
			known = strcasecmp(value, transport_kinds[i]) == 0;
		if (!known)
			expected =
			        "a transport (fc, fcoe, sas, iscsi, spi, srp, sata, ata, usb, sbp, "
			        "none) or a glob";
	} else if (streq(key, "hctl")) {
		if (parse_hctl(value, hctl) < 0)
			expected = "H:C:T:L, each a number or *";
	} else if (streq(key, "host")) {
		if (parse_host_range(value, &lo, &hi) < 0)
			expected = "a host number or a range N-M";
	} else if (streq(key, "type")) {
		if (exclusion_type_from_string(value) < 0)
			expected = "a device type 0..31 or a name (disk, tape, cdrom, changer, "
			           "enclosure, ...)";
	} else if (streq(key, "names") && kind == CONF_SECTION_EXCLUDE) {
		if (scan_quirk_parse_bool(value, &b) < 0)
			expected = "yes or no";
	} else if (kind == CONF_SECTION_REACT && react_value(key, value, &k) != -ENOENT) {
		if (react_value(key, value, &k) < 0)
			expected = react_keys[k].expected;
	} else
		return -ENOENT;
	if (!expected)
		return 0;
	if (ret_expected)
		*ret_expected = expected;
	return -EINVAL;
}

const char *exclusion_keys_help(ConfSectionKind kind)
{
	switch (kind) {
	case CONF_SECTION_EXCLUDE:
		return "wwid, vendor, model, hctl, host, type, driver, transport and names";
	case CONF_SECTION_REACT:
		return "wwid, vendor, model, hctl, host, type, driver and transport, and luns, "
		       "capacity, identity and new_hosts";
	default:
		return "wwid, vendor, model, hctl, host, type, driver and transport";
	}
}

static bool glob_matches(const char *pattern, const char *s)
{
	return s && fnmatch(pattern, s, FNM_CASEFOLD) == 0;
}

/* Does @e, an entry of an [exclude], [exception] or [react] section, match @f? An invalid value
 * matches nothing; names= and the action keys are no match keys. */
static bool entry_matches(const ConfEntry *e, ConfSectionKind kind, const ExclusionFacts *f)
{
	const char *k = e->key, *v = e->value;
	int64_t hctl[4];
	const int64_t have[4] = { f->host, f->channel, f->target, f->lun };
	long lo, hi;
	size_t key;

	if (streq(k, "names"))
		return kind == CONF_SECTION_EXCLUDE;
	if (kind == CONF_SECTION_REACT && react_value(k, v, &key) != -ENOENT)
		return true;
	if (streq(k, "wwid"))
		return *v && (glob_matches(v, f->serial) || glob_matches(v, f->wwn));
	if (streq(k, "vendor"))
		return *v && glob_matches(v, f->vendor);
	if (streq(k, "model"))
		return *v && glob_matches(v, f->model);
	if (streq(k, "driver"))
		return *v && glob_matches(v, f->driver);
	if (streq(k, "transport"))
		return *v && glob_matches(v, f->transport);
	if (streq(k, "hctl")) {
		if (parse_hctl(v, hctl) < 0)
			return false;
		for (int i = 0; i < 4; i++)
			if (hctl[i] >= 0 && hctl[i] != have[i])
				return false;
		return true;
	}
	if (streq(k, "host"))
		return parse_host_range(v, &lo, &hi) >= 0 && f->host >= lo && f->host <= hi;
	if (streq(k, "type"))
		return f->type >= 0 && exclusion_type_from_string(v) == f->type;
	return false; /* an unknown key: conf_check() reports it, and the section matches none */
}

static bool section_matches(const ConfSection *s, const ExclusionFacts *f)
{
	for (size_t i = 0; i < s->n_entries; i++)
		if (!entry_matches(&s->entries[i], s->kind, f))
			return false;
	return true;
}

bool exclusion_any(const LundConf *conf)
{
	for (size_t i = 0; conf && i < conf_n_sections(conf); i++)
		if (conf_section(conf, i)->kind == CONF_SECTION_EXCLUDE)
			return true;
	return false;
}

void exclusion_judge(const LundConf *conf, const ExclusionFacts *facts, ExclusionVerdict *ret)
{
	const ConfSection *excl = NULL, *exc = NULL;

	assert(facts && ret);
	for (size_t i = 0; conf && i < conf_n_sections(conf); i++) {
		const ConfSection *s = conf_section(conf, i);

		if (s->kind == CONF_SECTION_EXCLUDE && section_matches(s, facts))
			excl = s;
		else if (s->kind == CONF_SECTION_EXCEPTION && section_matches(s, facts))
			exc = s;
	}
	*ret = (ExclusionVerdict){};
	/* an exception says something only about an LU an exclusion matches */
	if (excl && exc) {
		*ret = (ExclusionVerdict){ .kind = "exception",
			                   .rule = exc->name,
			                   .line = exc->line };
		return;
	}
	if (excl) {
		const char *names = conf_section_get(excl, "names");
		bool b = false;

		if (names)
			(void)scan_quirk_parse_bool(names, &b);
		*ret = (ExclusionVerdict){ .excluded = true,
			                   .names = b,
			                   .kind = "exclude",
			                   .rule = excl->name,
			                   .line = excl->line };
	}
}

void reaction_judge(const LundConf *conf, const ExclusionFacts *facts, ReactAction what,
                    ReactVerdict *ret)
{
	size_t want = react_key_of(what);

	assert(facts && ret);
	*ret = (ReactVerdict){};
	for (size_t i = 0; conf && i < conf_n_sections(conf); i++) {
		const ConfSection *s = conf_section(conf, i);

		if (s->kind != CONF_SECTION_REACT || !section_matches(s, facts))
			continue;
		for (size_t j = 0; j < s->n_entries; j++) {
			const ConfEntry *e = &s->entries[j];
			size_t k;
			int v = react_value(e->key, e->value, &k);

			/* an invalid value (conf_check() reports it) leaves the key unset */
			if (v < 0 || k != want)
				continue;
			*ret = (ReactVerdict){ .report = !(react_keys[k].does[v] & (1u << what)),
				               .key = react_keys[k].key,
				               .value = react_keys[k].values[v],
				               .rule = s->name,
				               .line = e->line };
		}
	}
}

bool reaction_any(const LundConf *conf)
{
	for (size_t i = 0; conf && i < conf_n_sections(conf); i++)
		if (conf_section(conf, i)->kind == CONF_SECTION_REACT)
			return true;
	return false;
}

void reaction_why(const ReactVerdict *v, char *buf, size_t size)
{
	if (size > 0)
		snprintf(buf, size, "%s = %s by [react %s]", v->key ?: "?", v->value ?: "?",
		         v->rule ?: "?");
}

bool exclusion_leaves(const LundConf *conf, const ExclusionFacts *facts, ScanActionKind what,
                      char *why, size_t size)
{
	static const ReactAction react[_SCAN_ACTION_KIND_MAX] = {
		[SCAN_ACTION_PROBE] = _REACT_ACTION_INVALID,
		[SCAN_ACTION_ADD] = REACT_ADD,
		[SCAN_ACTION_REMOVE] = REACT_REMOVE,
		[SCAN_ACTION_KEEP] = _REACT_ACTION_INVALID,
		[SCAN_ACTION_RESIZE] = REACT_RESIZE,
		[SCAN_ACTION_REIDENTIFY] = REACT_RENAME,
	};
	ExclusionVerdict v;
	ReactVerdict rv;

	exclusion_judge(conf, facts, &v);
	if (v.excluded) {
		snprintf(why, size, "excluded by [exclude %s]", v.rule);
		return true;
	}
	if (what < 0 || what >= _SCAN_ACTION_KIND_MAX || react[what] < 0)
		return false;
	reaction_judge(conf, facts, react[what], &rv);
	if (rv.report)
		reaction_why(&rv, why, size);
	return rv.report;
}

bool exclusion_needs_host_facts(const LundConf *conf)
{
	for (size_t i = 0; conf && i < conf_n_sections(conf); i++) {
		const ConfSection *s = conf_section(conf, i);

		if ((s->kind == CONF_SECTION_EXCLUDE || s->kind == CONF_SECTION_EXCEPTION ||
		     s->kind == CONF_SECTION_REACT) &&
		    (conf_section_get(s, "driver") || conf_section_get(s, "transport")))
			return true;
	}
	return false;
}
