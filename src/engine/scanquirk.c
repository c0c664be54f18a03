/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fnmatch.h>
#include <iniparser/iniparser.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "hwdb.h"
#include "macro.h"
#include "conf.h"
#include "scanquirk.h"

#define LUND_CONF_DEFAULT "/etc/lund/lund.conf"

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

/* One [defaults] or [device NAME] section that sets at least one scan key. */
typedef struct QuirkRule {
	ConfSection sec;
	char *value[_QK_MAX];
} QuirkRule;

struct ScanQuirks {
	pthread_mutex_t lock; /* sd-hwdb iterates with state inside the object */
	Hwdb *hwdb;
	char *conf_path;
	QuirkRule *rules;
	size_t n_rules;
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
	unsigned long long v;
	char *end;

	assert_return(s && ret, -EINVAL);
	if (s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != 0 || v < 1 || v > SCAN_QUIRK_MAX_LUN_LIMIT)
		return -EINVAL;
	*ret = v;
	return 0;
}

static void rule_done(QuirkRule *r)
{
	conf_section_done(&r->sec);
	for (int k = 0; k < _QK_MAX; k++)
		free(r->value[k]);
}

static int conf_load(ScanQuirks *q, const char *path)
{
	dictionary *d;
	int nsec, r = 0;

	if (access(path, F_OK) < 0)
		return errno == ENOENT ? 0 : -errno;
	d = iniparser_load(path);
	if (!d)
		return -EBADMSG;

	nsec = iniparser_getnsec(d);
	for (int i = 0; i < nsec; i++) {
		const char *sec = iniparser_getsecname(d, i);
		QuirkRule rule = {}, *v;
		bool any = false;

		if (!sec)
			continue;
		r = conf_section_parse(d, sec, &rule.sec);
		if (r == -ENOENT) {
			r = 0;
			continue;
		}
		if (r < 0)
			break;
		r = 0;
		for (int k = 0; k < _QK_MAX; k++) {
			_cleanup_free_ char *key = NULL;
			const char *val;

			if (asprintf(&key, "%s:%s", sec, quirk_keys[k].conf_key) < 0) {
				r = -ENOMEM;
				break;
			}
			val = iniparser_getstring(d, key, NULL);
			if (!val)
				continue;
			rule.value[k] = strdup(val);
			if (!rule.value[k]) {
				r = -ENOMEM;
				break;
			}
			any = true;
		}
		if (r < 0 || !any) {
			rule_done(&rule);
			if (r < 0)
				break;
			continue;
		}
		v = reallocarray(q->rules, q->n_rules + 1, sizeof(*v));
		if (!v) {
			rule_done(&rule);
			r = -ENOMEM;
			break;
		}
		q->rules = v;
		q->rules[q->n_rules++] = rule;
	}
	iniparser_freedict(d);
	return r;
}

int scan_quirks_new(const char *hwdb_path, const char *conf_path, ScanQuirks **ret)
{
	ScanQuirks *q;
	int r;

	assert_return(ret, -EINVAL);

	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	pthread_mutex_init(&q->lock, NULL);
	q->conf_path = strdup(conf_path ?: LUND_CONF_DEFAULT);
	if (!q->conf_path) {
		scan_quirks_free(q);
		return -ENOMEM;
	}
	if (hwdb_open(hwdb_path, &q->hwdb) < 0)
		q->hwdb = NULL; /* no hwdb: no hwdb quirks */
	r = conf_load(q, q->conf_path);
	if (r == -ENOMEM) {
		scan_quirks_free(q);
		return r;
	}
	*ret = q;
	return r < 0 ? -EBADMSG : 0;
}

ScanQuirks *scan_quirks_free(ScanQuirks *q)
{
	if (!q)
		return NULL;
	for (size_t i = 0; i < q->n_rules; i++)
		rule_done(&q->rules[i]);
	free(q->rules);
	hwdb_free(q->hwdb);
	free(q->conf_path);
	pthread_mutex_destroy(&q->lock);
	free(q);
	return NULL;
}

bool scan_quirks_active(const ScanQuirks *q)
{
	return q && (q->hwdb || q->n_rules > 0);
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

	if (q->hwdb) {
		_cleanup_free_ char *alias = hwdb_modalias(type, vendor, model, revision);

		if (!alias)
			return -ENOMEM;
		c.source = "hwdb";
		pthread_mutex_lock(&q->lock);
		(void)hwdb_lookup(q->hwdb, alias, on_hwdb_property, &c);
		pthread_mutex_unlock(&q->lock);
	}
	/* [defaults] first, then [device] sections in file order; the last one wins. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < q->n_rules; i++) {
			const QuirkRule *rule = &q->rules[i];

			if (!conf_section_applies(&rule->sec, pass, vendor, model))
				continue;
			c.source = q->conf_path;
			for (int k = 0; k < _QK_MAX; k++)
				if (rule->value[k])
					quirk_set(&c, k, quirk_keys[k].conf_key, rule->value[k]);
		}
	*ret = quirk;
	return c.error;
}
