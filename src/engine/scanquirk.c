/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "decimal.h"
#include "hwdb.h"
#include "macro.h"
#include "scanquirk.h"

typedef enum QuirkKey {
	QK_SEQUENTIAL,
	QK_SPARSE,
	QK_MAX_LUN,
	_QK_MAX,
} QuirkKey;

static const struct {
	const char *conf_key;
	const char *hwdb_key;
} quirk_keys[_QK_MAX] = {
	[QK_SEQUENTIAL] = { "scan_sequential", "LUND_SCAN_SEQUENTIAL" },
	[QK_SPARSE] = { "scan_sparse", "LUND_SCAN_SPARSE" },
	[QK_MAX_LUN] = { "scan_max_lun", "LUND_SCAN_MAX_LUN" },
};

struct ScanQuirks {
	LundConf *conf;
	bool active; /* a hwdb, or a section that sets a scan key */
};

int scan_quirk_parse_bool(const char *s, bool *ret)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };

	assert_return(s && ret, -EINVAL);
	for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*ret = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*ret = false;
			return 0;
		}
	}
	return -EINVAL;
}

int scan_quirk_parse_max_lun(const char *s, uint64_t *ret)
{
	long v;

	assert_return(s && ret, -EINVAL);
	if (parse_decimal(s, 1, SCAN_QUIRK_MAX_LUN_LIMIT, &v) < 0)
		return -EINVAL;
	*ret = (uint64_t)v;
	return 0;
}

int scan_quirk_check(const char *key, bool hwdb, const char *value)
{
	for (int k = 0; k < _QK_MAX; k++) {
		uint64_t n;
		bool b;

		if (!streq_ptr(key, hwdb ? quirk_keys[k].hwdb_key : quirk_keys[k].conf_key))
			continue;
		if (k == QK_MAX_LUN)
			return scan_quirk_parse_max_lun(value, &n) < 0 ? -EINVAL : 0;
		return scan_quirk_parse_bool(value, &b) < 0 ? -EINVAL : 0;
	}
	return -ENOENT;
}

int scan_quirks_new_from_conf(LundConf *conf, ScanQuirks **ret)
{
	ScanQuirks *q;

	assert_return(conf && ret, -EINVAL);

	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->conf = conf_ref(conf);
	q->active = conf_hwdb(conf) != NULL;
	for (size_t i = 0; i < conf_n_sections(conf) && !q->active; i++) {
		const ConfSection *sec = conf_section(conf, i);

		if (sec->kind == CONF_SECTION_UNKNOWN || sec->kind == CONF_SECTION_CONTROL)
			continue;
		for (int k = 0; k < _QK_MAX && !q->active; k++)
			q->active = conf_section_get(sec, quirk_keys[k].conf_key) != NULL;
	}
	*ret = q;
	return 0;
}

int scan_quirks_new(const char *hwdb_path, const char *conf_path, ScanQuirks **ret)
{
	_cleanup_(conf_unrefp) LundConf *conf = NULL;
	int r, k;

	assert_return(ret, -EINVAL);

	k = conf_load(conf_path, hwdb_path, &conf);
	if (k == -ENOMEM)
		return k;
	r = scan_quirks_new_from_conf(conf, ret);
	if (r < 0)
		return r;
	return k < 0 ? -EBADMSG : 0;
}

ScanQuirks *scan_quirks_free(ScanQuirks *q)
{
	if (!q)
		return NULL;
	conf_unref(q->conf);
	free(q);
	return NULL;
}

LundConf *scan_quirks_conf(const ScanQuirks *q)
{
	assert_return(q, NULL);
	return q->conf;
}

bool scan_quirks_active(const ScanQuirks *q)
{
	return q && q->active;
}

typedef struct LookupCtx {
	ScanQuirk *quirk;
	const char *source;
	char *why;
	size_t why_size;
	int error;
} LookupCtx;

static void quirk_set(LookupCtx *c, QuirkKey k, const char *key, const char *value)
{
	bool b;
	uint64_t n;
	int r;

	if (k == QK_MAX_LUN) {
		r = scan_quirk_parse_max_lun(value, &n);
		if (r >= 0)
			c->quirk->max_lun = n;
	} else {
		r = scan_quirk_parse_bool(value, &b);
		if (r >= 0 && k == QK_SEQUENTIAL)
			c->quirk->sequential = b;
		else if (r >= 0)
			c->quirk->sparse = b;
	}
	if (r < 0 && c->error == 0) {
		c->error = -EINVAL;
		if (c->why && c->why_size > 0)
			snprintf(c->why, c->why_size, "%s: invalid %s \"%s\"", c->source, key,
			         value);
	}
}

static void on_hwdb_property(const char *key, const char *value, void *userdata)
{
	for (int k = 0; k < _QK_MAX; k++)
		if (streq(key, quirk_keys[k].hwdb_key))
			quirk_set(userdata, k, key, value);
}

int scan_quirks_lookup(ScanQuirks *q, int type, const char *vendor, const char *model,
                       const char *revision, ScanQuirk *ret, char *why, size_t why_size)
{
	ScanQuirk quirk = {};
	LookupCtx c = { .quirk = &quirk, .why = why, .why_size = why_size };

	assert_return(q && ret, -EINVAL);

	if (conf_hwdb(q->conf)) {
		_cleanup_free_ char *alias = hwdb_modalias(type, vendor, model, revision);

		if (!alias)
			return -ENOMEM;
		c.source = "hwdb";
		(void)hwdb_lookup(conf_hwdb(q->conf), alias, on_hwdb_property, &c);
	}
	/* [defaults] first, then [device] sections in file order; the last one wins. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < conf_n_sections(q->conf); i++) {
			const ConfSection *sec = conf_section(q->conf, i);

			if (!conf_section_applies(sec, pass, vendor, model))
				continue;
			c.source = conf_get_path(q->conf);
			for (int k = 0; k < _QK_MAX; k++) {
				const char *v = conf_section_get(sec, quirk_keys[k].conf_key);

				if (v)
					quirk_set(&c, k, quirk_keys[k].conf_key, v);
			}
		}
	*ret = quirk;
	return c.error;
}
