/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "confcheck.h"
#include "errpolicy.h"
#include "hwdb.h"
#include "log.h"
#include "macro.h"
#include "policy-apply.h"
#include "policyknob.h"
#include "sysfs.h"
#include "tportknob.h"
#include "worker.h"

struct PolicyEngine {
	int rootfd;
	LundConf *conf;
	Worker *worker; /* transport timeouts are written here; not owned */
};

/* A transport write waits on the transport class's locks, at most this long. */
#define TPORT_JOB_TIMEOUT_USEC (30 * 1000 * 1000ULL)

/* What one LU gets, and where each value came from (for the log). */
typedef struct LuPolicy {
	char *value[_KNOB_MAX];
	char *source[_KNOB_MAX];
} LuPolicy;

static void lu_policy_done(LuPolicy *p)
{
	for (int k = 0; k < _KNOB_MAX; k++) {
		free(p->value[k]);
		free(p->source[k]);
	}
}

/* @value for @k, in its canonical form, from @source. -EINVAL when @k does not take it (then
 * nothing is set: an earlier source's value stays), -ENOMEM. */
static int lu_policy_set(LuPolicy *p, PolicyKnob k, const char *value, const char *source)
{
	char canon[ERRKNOB_VALUE_MAX], *v, *s; /* TPORT_VALUE_MAX is shorter */

	if (policy_knob_validate(k, value, canon, sizeof(canon)) < 0)
		return -EINVAL;
	v = strdup(canon);
	s = strdup(source);
	if (!v || !s) {
		free(v);
		free(s);
		return -ENOMEM;
	}
	free(p->value[k]);
	free(p->source[k]);
	p->value[k] = v;
	p->source[k] = s;
	return 0;
}

static void on_conf_problem(const char *path, unsigned line, const char *message, void *userdata)
{
	log_warning("%s:%u: %s, ignoring", path, line, message);
}

int policy_conf_load(const char *conf_path, const char *hwdb_path, LundConf **ret)
{
	_cleanup_(conf_unrefp) LundConf *c = NULL;
	const char *path;
	size_t n = 0;
	int r;

	r = conf_load(conf_path, hwdb_path, &c);
	if (r == -ENOMEM)
		return log_error_errno(r, "Out of memory");
	path = conf_get_path(c);
	r = conf_file_error(c);
	if (r == -ENOENT)
		log_debug("%s: not present, no configured policy", path);
	else if (r < 0 && r != -EBADMSG)
		log_warning_errno(r, "%s: cannot access: %m", path);
	else {
		/* exactly what lunctl check-config reports */
		(void)conf_check(c, on_conf_problem, NULL);
		if (r == -EBADMSG)
			log_error_errno(r, "%s: cannot parse, ignoring the whole file", path);
		else {
			for (size_t i = 0; i < conf_n_sections(c); i++)
				n += conf_section(c, i)->kind == CONF_SECTION_DEFAULTS ||
				     conf_section(c, i)->kind == CONF_SECTION_DEVICE;
			log_info("%s: %zu policy section(s)", path, n);
		}
	}
	r = conf_hwdb_error(c);
	if (r < 0) {
		if (conf_hwdb_path(c))
			log_warning_errno(r, "%s: cannot open the hwdb, no hwdb policy: %m",
			                  conf_hwdb_path(c));
		else
			log_debug_errno(r, "No compiled hwdb, no hwdb policy: %m");
	}
	*ret = TAKE_PTR(c);
	return 0;
}

int policy_engine_new(int rootfd, LundConf *conf, PolicyEngine **ret)
{
	PolicyEngine *p;

	assert_return(conf && ret, -EINVAL);

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->rootfd = rootfd;
	p->conf = conf_ref(conf);
	*ret = p;
	return 0;
}

PolicyEngine *policy_engine_free(PolicyEngine *p)
{
	if (!p)
		return NULL;
	conf_unref(p->conf);
	free(p);
	return NULL;
}

void policy_engine_set_worker(PolicyEngine *p, Worker *w)
{
	if (p)
		p->worker = w;
}

LundConf *policy_engine_conf(const PolicyEngine *p)
{
	assert_return(p, NULL);
	return p->conf;
}

typedef struct HwdbCtx {
	LuPolicy *pol;
	const Lu *lu;
	int error;
} HwdbCtx;

static void on_hwdb_property(const char *key, const char *value, void *userdata)
{
	HwdbCtx *c = userdata;
	LogDevice dev = { .hctl = c->lu->hctl, .wwid = c->lu->naming.wwn };

	for (int k = 0; k < _KNOB_MAX; k++)
		if (streq(key, policy_knobs[k].hwdb_key)) {
			int r = lu_policy_set(c->pol, k, value, "hwdb");

			/* the compiled hwdb is checked nowhere else (lunctl check-config checks
			 * its sources) */
			if (r == -EINVAL)
				log_device_full(
				        LOG_WARNING, 0, &dev,
				        "hwdb: invalid %s \"%s\" (%s=, %s expected), ignoring",
				        policy_knobs[k].conf_key, value, key, policy_knob_help(k));
			else if (r < 0)
				c->error = r;
		}
}

/* hwdb first, then lund.conf's [defaults], then its [device] sections in file order. */
static int lu_policy_compute(PolicyEngine *p, const Lu *lu, LuPolicy *pol)
{
	_cleanup_free_ char *vendor = NULL, *model = NULL;
	int r;

	if (conf_hwdb(p->conf)) {
		_cleanup_free_ char *alias =
		        hwdb_modalias(lu->type, lu->vendor, lu->model, lu->revision);
		HwdbCtx c = { pol, lu, 0 };

		if (!alias)
			return -ENOMEM;
		r = hwdb_lookup(conf_hwdb(p->conf), alias, on_hwdb_property, &c);
		if (c.error < 0)
			return c.error;
		if (r < 0)
			log_debug_errno(r, "hwdb lookup of \"%s\" failed: %m", alias);
	}
	vendor = strdup(lu->vendor ?: "");
	model = strdup(lu->model ?: "");
	if (!vendor || !model)
		return -ENOMEM;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < conf_n_sections(p->conf); i++) {
			const ConfSection *sec = conf_section(p->conf, i);
			_cleanup_free_ char *src = NULL;

			if (!conf_section_applies(sec, pass, vendor, model))
				continue;
			if (asprintf(&src, "%s [%s%s]", conf_get_path(p->conf),
			             sec->name ? "device " : "defaults", sec->name ?: "") < 0)
				return -ENOMEM;
			for (int k = 0; k < _KNOB_MAX; k++) {
				const char *v = conf_section_get(sec, policy_knobs[k].conf_key);

				if (!v)
					continue;
				/* a value the knob does not take was reported at the load */
				r = lu_policy_set(pol, k, v, src);
				if (r == -ENOMEM)
					return r;
			}
		}
	return 0;
}

/* @value is canonical (lu_policy_set()); an attribute the LU has not is logged, not set. */
static int apply_knob(PolicyEngine *p, const Lu *lu, PolicyKnob k, const char *value,
                      const char *source, const char *why)
{
	LogDevice dev = { .hctl = lu->hctl, .wwid = lu->naming.wwn };
	ErrKnob ek = policy_knobs[k].errknob;
	_cleanup_free_ char *path = NULL, *cur = NULL;
	const char *name = policy_knobs[k].conf_key;
	char have[ERRKNOB_VALUE_MAX];
	int r;

	if (errknob_disk_only(ek) && (!lu->block || strneq(lu->block, "sr", 2)))
		return 0; /* sd's attribute: only disks have it */
	r = errknob_path(lu->syspath, lu->hctl, ek, &path);
	if (r < 0)
		return r;
	r = sysfs_read_string(p->rootfd, path, &cur);
	if (r == -ENOENT) {
		log_device_full(LOG_NOTICE, 0, &dev, "%s: %s is not available %s, not set", source,
		                name,
		                errknob_patched(ek) ? "on this kernel (the lund kernel companion "
		                                      "patchset adds it)"
		                                    : "for this device on this kernel");
		return 0;
	}
	if (r < 0)
		return log_device_warning_errno(&dev, r, "Failed to read %s, leaving it: %m", path);
	/* The kernel shows failfast classes blank-separated; compare canonical forms. */
	if (errknob_validate(ek, cur, have, sizeof(have)) >= 0 && streq(have, value))
		return 0;
	r = errpolicy_write(p->rootfd, lu->syspath, lu->hctl, ek, value);
	if (r < 0)
		return log_device_warning_errno(
		        &dev, r, "%s: the kernel refused %s=%s (%s), %s left at %s: %m", source,
		        name, value, why, name, cur);
	log_device_full(LOG_INFO, 0, &dev, "%s %s -> %s (%s, %s)", name, cur, value, source, why);
	return 1;
}

/* One LU's transport timeouts, set in a worker: finding the session or remote port and
 * writing its attributes happen there, the log lines back in the loop. */
typedef struct TportJob {
	int rootfd;
	char *syspath, *hctl, *wwid, *why;
	char *want[_TPORT_KNOB_MAX];
	char *source[_TPORT_KNOB_MAX];
	Tport tport;
	TportResult result;
	int error; /* finding the transport */
} TportJob;

static void tport_job_free(void *data)
{
	TportJob *j = data;

	if (!j)
		return;
	free(j->syspath);
	free(j->hctl);
	free(j->wwid);
	free(j->why);
	for (int k = 0; k < _TPORT_KNOB_MAX; k++) {
		free(j->want[k]);
		free(j->source[k]);
	}
	tport_done(&j->tport);
	tport_result_done(&j->result);
	free(j);
}

static int tport_job_run(void *data)
{
	TportJob *j = data;
	int r;

	r = tport_find(j->rootfd, j->syspath, &j->tport);
	if (r < 0)
		return j->error = r;
	if (j->tport.kind == TPORT_NONE)
		return 0;
	r = tport_apply(j->rootfd, &j->tport, (const char *const *)j->want, &j->result);
	return r < 0 ? r : 0;
}

static void tport_job_done(void *data, int r)
{
	TportJob *j = data;
	LogDevice dev = { .hctl = j->hctl, .wwid = j->wwid };

	if (r == -ETIMEDOUT) {
		log_device_warning_errno(
		        &dev, r, "Setting the transport timeouts took too long, giving up: %m");
		return;
	}
	if (r < 0 || j->error < 0) {
		log_device_warning_errno(
		        &dev, r < 0 ? r : j->error,
		        "Cannot find the LU's transport, its timeouts not set: %m");
		return;
	}
	for (TportKnob k = 0; k < _TPORT_KNOB_MAX; k++) {
		const char *name = tport_knob_to_string(k);
		int e = j->result.error[k];

		if (!j->want[k])
			continue;
		if (j->tport.kind != tport_knob_kind(k))
			/* A [defaults] timeout of one transport meets LUs of every other. */
			log_device_debug(
			        &dev, "%s: %s is %s's, this LU is on %s, not set", j->source[k],
			        name, tport_kind_to_string(tport_knob_kind(k)),
			        j->tport.kind == TPORT_NONE ? "no such transport" : j->tport.name);
		else if (e == -ENOENT)
			log_device_full(LOG_NOTICE, 0, &dev, "%s: %s has no %s, not set",
			                j->source[k], j->tport.name, name);
		else if (e < 0)
			log_device_warning_errno(
			        &dev, e, "%s: the kernel refused %s %s=%s (%s), left at %s: %m",
			        j->source[k], j->tport.name, name, j->want[k], j->why,
			        j->result.old[k] ?: "?");
		else if (j->result.changed[k])
			log_device_info(&dev, "%s %s %s -> %s (%s, %s)", j->tport.name, name,
			                j->result.old[k] ?: "?", j->want[k], j->source[k], j->why);
	}
}

/* Hand the transport knobs of @pol (valid: lu_policy_set()) to the worker. */
static int tport_submit(PolicyEngine *p, const Lu *lu, const LuPolicy *pol, const char *why)
{
	LogDevice dev = { .hctl = lu->hctl, .wwid = lu->naming.wwn };
	TportJob *j;
	bool any = false;

	/* Most LUs have no transport knob at all: nothing to allocate then (this runs at every
	 * add and every node an LU gains). */
	for (int k = 0; k < _KNOB_MAX && !any; k++)
		any = policy_knob_is_transport(k) && pol->value[k];
	if (!any)
		return 0;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->rootfd = p->rootfd;
	for (int k = 0; k < _KNOB_MAX; k++) {
		TportKnob tk = policy_knobs[k].tportknob;

		if (!policy_knob_is_transport(k) || !pol->value[k])
			continue;
		j->want[tk] = strdup(pol->value[k]);
		j->source[tk] = strdup(pol->source[k]);
		if (!j->want[tk] || !j->source[tk]) {
			tport_job_free(j);
			return -ENOMEM;
		}
	}
	if (!p->worker) {
		/* Never in the loop: the transport class may hold its locks for long. */
		log_device_full(LOG_WARNING, 0, &dev,
		                "No worker thread, transport timeouts not set (%s)", why);
		tport_job_free(j);
		return 0;
	}
	j->syspath = strdup(lu->syspath);
	j->hctl = strdup(lu->hctl);
	j->wwid = lu->naming.wwn ? strdup(lu->naming.wwn) : NULL;
	j->why = strdup(why);
	if (!j->syspath || !j->hctl || !j->why || (lu->naming.wwn && !j->wwid)) {
		tport_job_free(j);
		return -ENOMEM;
	}
	return worker_submit(p->worker, tport_job_run, tport_job_done, tport_job_free, j,
	                     TPORT_JOB_TIMEOUT_USEC);
}

void policy_lu_facts(const Lu *lu, ExclusionFacts *ret)
{
	const Host *h = lu->target ? lu->target->host : NULL;

	*ret = (ExclusionFacts){
		.serial = lu->naming.serial,
		.wwn = lu->naming.wwn,
		.vendor = lu->vendor,
		.model = lu->model,
		.host = lu->target ? (int64_t)lu->target->host->number : -1,
		.channel = lu->target ? (int64_t)lu->target->channel : -1,
		.target = lu->target ? (int64_t)lu->target->id : -1,
		.lun = (int64_t)lu->lun,
		.type = lu->type,
		.driver = h ? h->facts.driver : NULL,
		.transport = h && h->facts.kind[0] ? h->facts.kind : NULL,
	};
}

void policy_lu_verdict(const PolicyEngine *p, const Lu *lu, ExclusionVerdict *ret)
{
	ExclusionFacts f;

	policy_lu_facts(lu, &f);
	exclusion_judge(p ? p->conf : NULL, &f, ret);
}

int policy_apply(PolicyEngine *p, const Lu *lu, const char *why)
{
	LogDevice dev = { .hctl = lu->hctl, .wwid = lu->naming.wwn };
	ExclusionVerdict v;
	LuPolicy pol = {};
	int r, changed = 0, first_error = 0;

	if (!p)
		return 0;
	/* an identity not known yet may be an excluded one: applied once it is
	 * (on_lu_identified()) */
	if (lu->naming_pending && exclusion_any(p->conf)) {
		log_device_full(LOG_DEBUG, 0, &dev, "%s: being identified, policy waits", why);
		return 0;
	}
	policy_lu_verdict(p, lu, &v);
	if (v.excluded) {
		log_device_full(LOG_DEBUG, 0, &dev,
		                "%s: excluded by [exclude %s], no policy written", why, v.rule);
		return 0;
	}
	r = lu_policy_compute(p, lu, &pol);
	if (r < 0) {
		lu_policy_done(&pol);
		return r;
	}
	r = tport_submit(p, lu, &pol, why);
	if (r < 0)
		first_error = r;
	for (int k = 0; k < _KNOB_MAX; k++) {
		if (!pol.value[k] || policy_knob_is_transport(k))
			continue;
		r = apply_knob(p, lu, k, pol.value[k], pol.source[k], why);
		if (r > 0)
			changed++;
		else if (r < 0 && first_error == 0)
			first_error = r;
	}
	lu_policy_done(&pol);
	return first_error < 0 ? first_error : changed;
}
