/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * scan_run(): the entry point of the scan engine (scan.h). It sets the defaults, queues a job
 * per host for the pool (scan-pool.c), and turns what the jobs recorded into the ScanResult.
 * The pieces are described in scan-private.h.
 */

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "grow.h"
#include "macro.h"
#include "scan-private.h"

#define SCAN_DEFAULT_TIMEOUT_MS  10000u
#define SCAN_DEFAULT_WORKERS     8u
#define SCAN_DEFAULT_SEQ_MAX_LUN 8u

/*
 * Format a sysfs path. A path that does not fit becomes "", which every *at() call refuses
 * (ENOENT), so a truncated name can never address a different file.
 */
int _printf_(3, 4) scan_pathfmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= size) {
		buf[0] = 0;
		return -ENAMETOOLONG;
	}
	return 0;
}

static const char *const action_kind_names[_SCAN_ACTION_KIND_MAX] = {
	[SCAN_ACTION_PROBE] = "probe",   [SCAN_ACTION_ADD] = "add",
	[SCAN_ACTION_REMOVE] = "remove", [SCAN_ACTION_KEEP] = "keep",
	[SCAN_ACTION_RESIZE] = "resize", [SCAN_ACTION_REIDENTIFY] = "reidentify",
};
static const char *const method_names[_SCAN_METHOD_MAX] = {
	[SCAN_METHOD_NONE] = "none",
	[SCAN_METHOD_REPORT_LUNS] = "report-luns",
	[SCAN_METHOD_SEQUENTIAL] = "sequential",
	[SCAN_METHOD_KERNEL] = "kernel",
};

DEFINE_NAME_LOOKUP(scan_action_kind_name, ScanActionKind, action_kind_names)
DEFINE_NAME_LOOKUP(scan_method_name, ScanMethod, method_names)

void scan_result_done(ScanResult *r)
{
	if (!r)
		return;
	free(r->hosts);
	free(r->targets);
	free(r->actions);
	*r = (ScanResult){};
}

/* --- recording -------------------------------------------------------------------------------- */

bool scan_was_probe_added(Scan *s, const char *hctl)
{
	bool found = false;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n_probe_added && !found; i++)
		found = streq(s->probe_added[i], hctl);
	pthread_mutex_unlock(&s->lock);
	return found;
}

void scan_emit_locked(Scan *s, ScanEvent *ev)
{
	if (!s->ctx->event)
		return;
	ev->targets_done = s->targets_done;
	ev->targets_total = (unsigned)s->n_targets;
	ev->hosts_total = (unsigned)s->n_hosts;
	s->ctx->event(s->ctx->event_userdata, ev);
}

void _printf_(2, 3) scan_debug(Scan *s, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!s->ctx->event)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&s->lock);
	scan_emit_locked(s, &(ScanEvent){ .kind = SCAN_EVENT_DEBUG, .message = msg });
	pthread_mutex_unlock(&s->lock);
}

int scan_record_action(Scan *s, const ScanAction *a)
{
	int r = 0;

	pthread_mutex_lock(&s->lock);
	if (GREEDY_REALLOC(s->actions, s->cap_actions, s->n_actions + 1) < 0) {
		r = s->fatal = -ENOMEM;
		goto out;
	}
	s->actions[s->n_actions++] = *a;
	scan_emit_locked(s, &(ScanEvent){ .kind = SCAN_EVENT_ACTION, .action = a });
out:
	pthread_mutex_unlock(&s->lock);
	return r;
}

void scan_action_init(ScanAction *a, ScanActionKind kind, const ScanLu *lu)
{
	*a = (ScanAction){ .kind = kind };
	if (lu) {
		a->host = lu->host;
		a->channel = lu->channel;
		a->target = lu->target;
		a->lun = lu->lun;
		snprintf(a->hctl, sizeof(a->hctl), "%s", lu->hctl);
	}
}

void scan_record_failure(Scan *s, ScanActionKind kind, const ScanLu *lu, int error, const char *fmt,
                         ...)
{
	ScanAction a;
	va_list ap;

	scan_action_init(&a, kind, lu);
	a.error = error;
	va_start(ap, fmt);
	vsnprintf(a.reason, sizeof(a.reason), fmt, ap);
	va_end(ap);
	(void)scan_record_action(s, &a);
}

/* Write (unless a dry run) and record. */
int scan_apply(Scan *s, ScanAction *a)
{
	if (!(s->flags & SCAN_DRY_RUN) && a->path[0]) {
		a->error = s->io->write_attr(s->ctx->io_userdata, s->rootfd, a->path, a->value);
		a->applied = a->error >= 0;
	}
	return scan_record_action(s, a);
}

/* --- the result ------------------------------------------------------------------------------- */

static int host_cmp(const void *a, const void *b)
{
	const ScanHost *x = a, *y = b;

	return CMP(x->host, y->host);
}

static int target_cmp(const void *a, const void *b)
{
	const ScanTarget *x = a, *y = b;

	return CMP(x->host, y->host) ?: CMP(x->channel, y->channel) ?: CMP(x->target, y->target);
}

static int action_cmp(const void *a, const void *b)
{
	const ScanAction *x = a, *y = b;

	/* probes first: they happen before anything else on the host */
	return CMP(x->host, y->host) ?:
               CMP(x->kind != SCAN_ACTION_PROBE, y->kind != SCAN_ACTION_PROBE) ?:
               CMP(x->channel, y->channel) ?: CMP(x->target, y->target) ?: CMP(x->lun, y->lun) ?:
               CMP(x->kind, y->kind);
}

static ScanHost *find_host(ScanHost *v, size_t n, unsigned h)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].host == h)
			return &v[i];
	return NULL;
}

int scan_run(const ScanContext *ctx, const ScanSelector *sel, size_t n_sel, ScanFlags flags,
             ScanResult *ret)
{
	Scan s = {
		.ctx = ctx,
		.flags = flags,
		.sel = sel,
		.n_sel = n_sel,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
	};
	pthread_condattr_t ca;
	ScanResult res = {};
	int r;

	assert_return(ctx && ctx->rootfd >= 0, -EINVAL);
	assert_return(n_sel == 0 || sel, -EINVAL);
	assert_return(ret, -EINVAL);

	/* scan_pool_run() waits for the end with a timeout that must not jump with the
	 * wall clock */
	if (pthread_condattr_init(&ca) != 0)
		return -ENOMEM;
	(void)pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	r = pthread_cond_init(&s.pool_cond, &ca);
	pthread_condattr_destroy(&ca);
	if (r != 0)
		return -r;

	s.rootfd = ctx->rootfd;
	s.io = ctx->io ?: &scan_io_default;
	if (ctx->policy)
		s.pol = *ctx->policy;
	if (s.pol.timeout_ms == 0)
		s.pol.timeout_ms = SCAN_DEFAULT_TIMEOUT_MS;
	if (s.pol.max_workers == 0)
		s.pol.max_workers = SCAN_DEFAULT_WORKERS;
	if (s.pol.seq_max_lun == 0)
		s.pol.seq_max_lun = SCAN_DEFAULT_SEQ_MAX_LUN;

	r = scan_list_hosts(&s);
	if (r < 0)
		goto out;
	if (s.n_hosts == 0) {
		r = -ENOENT;
		goto out;
	}
	qsort(s.hosts, s.n_hosts, sizeof(*s.hosts), host_cmp);
	s.host_writing = calloc(s.n_hosts, sizeof(*s.host_writing));
	if (!s.host_writing) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < s.n_hosts; i++) {
		r = scan_push_job_locked(&s, (Job){ .is_host = true, .index = i });
		if (r < 0)
			goto out;
	}

	r = scan_pool_run(&s);
	if (r < 0)
		goto out;
	if (s.fatal < 0) {
		r = s.fatal;
		goto out;
	}

	/* Flatten, sort and count. */
	res.hosts = TAKE_PTR(s.hosts);
	res.n_hosts = s.n_hosts;
	if (s.n_targets > 0) {
		res.targets = calloc(s.n_targets, sizeof(*res.targets));
		if (!res.targets) {
			r = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < s.n_targets; i++)
			res.targets[i] = s.targets[i]->t;
		res.n_targets = s.n_targets;
		qsort(res.targets, res.n_targets, sizeof(*res.targets), target_cmp);
	}
	res.actions = TAKE_PTR(s.actions);
	res.n_actions = s.n_actions;
	if (res.n_actions > 1)
		qsort(res.actions, res.n_actions, sizeof(*res.actions), action_cmp);
	res.commands = s.commands;

	for (size_t i = 0; i < res.n_hosts; i++)
		if (res.hosts[i].error < 0) {
			res.hosts[i].failed++;
			res.failed++;
		}
	for (size_t i = 0; i < res.n_targets; i++) {
		ScanHost *h = find_host(res.hosts, res.n_hosts, res.targets[i].host);

		if (!h)
			continue;
		h->unchanged += (unsigned)res.targets[i].unchanged;
		if (res.targets[i].error < 0) {
			h->failed++;
			res.failed++;
		}
	}
	for (size_t i = 0; i < res.n_actions; i++) {
		const ScanAction *a = &res.actions[i];
		ScanHost *h = find_host(res.hosts, res.n_hosts, a->host);

		if (!h)
			continue;
		if (a->error < 0) {
			h->failed++;
			res.failed++;
			continue;
		}
		switch (a->kind) {
		case SCAN_ACTION_ADD:
			h->added++;
			break;
		case SCAN_ACTION_REMOVE:
			h->removed++;
			break;
		case SCAN_ACTION_RESIZE:
			h->resized++;
			break;
		case SCAN_ACTION_REIDENTIFY:
			h->reidentified++;
			break;
		case SCAN_ACTION_KEEP:
			h->kept++;
			break;
		default:
			break;
		}
	}
	*ret = TAKE_STRUCT(res);
	r = 0;
out:
	for (size_t i = 0; i < s.n_targets; i++) {
		scan_lus_free(s.targets[i]->lus, s.targets[i]->n_lus);
		free(s.targets[i]->rep);
		free(s.targets[i]->missing);
		free(s.targets[i]);
	}
	free(s.host_writing);
	free(s.targets);
	free(s.hosts);
	free(s.actions);
	free(s.queue);
	free(s.probe_added);
	scan_result_done(&res);
	pthread_mutex_destroy(&s.lock);
	pthread_cond_destroy(&s.cond);
	pthread_cond_destroy(&s.pool_cond);
	return r;
}
