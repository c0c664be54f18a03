/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Persistent reservations (lund(8) RESERVATIONS): before a scan removes an LU, the scan thread
 * reads its reservations (engine/reservation.h) and keeps an LU this host is registered on or
 * holds. A LUN masked from this host no longer answers, so what lund read while it still did
 * decides then: lund reads an LU's reservations off the loop when its identification ends and
 * when its disk gets a "change" uevent (udev's watch sends one when a program that opened the
 * disk for writing closes it, as sg_persist and mpathpersist do), and remembers the LUs this
 * host was registered on, with what it read, and only those: nothing for every other LU.
 *
 * The list is shared by the loop (refreshes, removals, `status`), the refresh jobs and the scan
 * threads, under resv_lock.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exclusion.h"
#include "grow.h"
#include "log.h"
#include "macro.h"
#include "manager-private.h"
#include "reservation.h"
#include "worker.h"

struct ReservedLu {
	char *hctl;
	PrinStatus st; /* what was read last, showing this host registered or holding */
	char *kept;    /* why the last scan kept it instead of removing it, NULL if none did */
};

/* SCSI commands of a refresh: READ FULL STATUS, or READ KEYS and READ RESERVATION. */
#define RESV_JOB_TIMEOUT_USEC (60 * 1000 * 1000ULL)
#define RESV_THREADS          2

static ssize_t reserved_find(Manager *m, const char *hctl)
{
	for (size_t i = 0; i < m->n_reserved; i++)
		if (streq(m->reserved[i].hctl, hctl))
			return (ssize_t)i;
	return -1;
}

static void reserved_drop(Manager *m, size_t i)
{
	free(m->reserved[i].hctl);
	free(m->reserved[i].kept);
	m->reserved[i] = m->reserved[--m->n_reserved];
}

/* Under resv_lock: remember @st for @hctl when it shows this host, forget it otherwise.
 * Returns whether the LU was remembered before. */
static bool reserved_set(Manager *m, const char *hctl, const PrinStatus *st)
{
	ssize_t i = reserved_find(m, hctl);
	char *h;

	if (!resv_ours(st)) {
		if (i >= 0)
			reserved_drop(m, (size_t)i);
		return i >= 0;
	}
	if (i >= 0) {
		/* it answered: a keep of an earlier scan is history */
		m->reserved[i].st = *st;
		m->reserved[i].kept = mfree(m->reserved[i].kept);
		return true;
	}
	h = strdup(hctl);
	if (!h || GREEDY_REALLOC_EXACT(m->reserved, m->n_reserved + 1) < 0) {
		free(h); /* out of memory: the next read tries again */
		return false;
	}
	m->reserved[m->n_reserved++] = (ReservedLu){ .hctl = h, .st = *st };
	return false;
}

typedef struct ResvJob {
	Manager *m;
	int rootfd;
	char *hctl, *node;
	ResvConfig cfg;
	PrinStatus st;
	bool was, is; /* remembered before, and after */
} ResvJob;

static void resv_job_free(void *data)
{
	ResvJob *j = data;

	free(j->hctl);
	free(j->node);
	free(j);
}

static int resv_job_run(void *data)
{
	ResvJob *j = data;
	unsigned cmds = 0;
	int r;

	if (!resv_can_tell(j->rootfd, j->hctl, &j->cfg))
		return -ENOKEY; /* nothing read could be this host's */
	r = resv_read(j->rootfd, j->node, j->hctl, &j->cfg, RESV_TIMEOUT_MS, &j->st, &cmds);
	if (r < 0)
		return r; /* not answering: what was read before stays */
	pthread_mutex_lock(&j->m->resv_lock);
	j->was = reserved_set(j->m, j->hctl, &j->st);
	j->is = resv_ours(&j->st);
	pthread_mutex_unlock(&j->m->resv_lock);
	return 0;
}

static void resv_job_done(void *data, int r)
{
	ResvJob *j = data;
	LogDevice dev = { .hctl = j->hctl };
	char d[PRIN_DESCRIBE_MAX];

	if (r == -EOPNOTSUPP || r == -ENXIO || r == -ENOKEY)
		return; /* no PERSISTENT RESERVE IN, gone, or no way to tell: nothing to remember */
	if (r < 0) {
		log_device_full(LOG_DEBUG, r, &dev, "cannot read the reservations, ignoring: %m");
		return;
	}
	(void)prin_describe(&j->st, d, sizeof(d));
	if (j->is != j->was)
		log_device_full(LOG_INFO, 0, &dev, "reservations: %s%s", d,
		                j->is ? "; kept if a scan no longer finds it" : "");
	else
		log_device_full(LOG_DEBUG, 0, &dev, "reservations: %s", d);
	if (j->is != j->was)
		manager_status_dirty(j->m);
}

void manager_reservation_refresh(Manager *m, const Lu *lu)
{
	ExclusionVerdict v = {};
	ResvJob *j;
	int r;

	/* --sysfs-only: no command outside a scan */
	if (!lu || !resv_type_applies(lu->type) || (!lu->sg && !lu->bsg) ||
	    (m->config.probe_flags & PROBE_SYSFS_ONLY))
		return;
	/* an excluded LU gets no command from lund; a scan never removes it anyway */
	policy_lu_verdict(m->policy, lu, &v);
	if (v.excluded)
		return;
	if (!m->resv_worker) {
		r = worker_new(m->event, "reservations", RESV_THREADS, &m->resv_worker);
		if (r < 0) {
			log_warning_errno(r, "Cannot read reservations off the loop, ignoring: %m");
			return;
		}
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return;
	j->m = m;
	j->rootfd = m->rootfd;
	j->hctl = strdup(lu->hctl);
	j->node = strdup(lu->sg ?: lu->bsg);
	resv_config_from_conf(policy_engine_conf(m->policy), &j->cfg);
	if (!j->hctl || !j->node) {
		resv_job_free(j);
		return;
	}
	(void)worker_submit(m->resv_worker, resv_job_run, resv_job_done, resv_job_free, j,
	                    RESV_JOB_TIMEOUT_USEC);
}

void manager_reservation_uevent(Manager *m, const Uevent *ev)
{
	_cleanup_free_ char *hctl = NULL;

	if (!ev->action || !streq(ev->action, "change") || !ev->devpath ||
	    uevent_devpath_hctl(ev->devpath, &hctl) < 0)
		return;
	manager_reservation_refresh(m, inventory_find(m->inventory, hctl));
}

void manager_reservation_forget(Manager *m, const char *hctl)
{
	ssize_t i;

	pthread_mutex_lock(&m->resv_lock);
	i = reserved_find(m, hctl);
	if (i >= 0)
		reserved_drop(m, (size_t)i);
	pthread_mutex_unlock(&m->resv_lock);
}

bool manager_reservation_keeps(Manager *m, const ScanLu *lu, char *why, size_t size)
{
	PrinStatus now = {}, before;
	ResvConfig cfg;
	bool remembered, keep;
	ssize_t i;
	int r;

	if (!resv_type_applies(lu->type))
		return false;
	/* the configuration is not replaced while a scan runs (scan_lock) */
	resv_config_from_conf(policy_engine_conf(m->policy), &cfg);
	if (!resv_can_tell(m->rootfd, lu->hctl, &cfg))
		return false;
	r = resv_read_scan_lu(m->rootfd, lu, &cfg, &now);

	pthread_mutex_lock(&m->resv_lock);
	i = reserved_find(m, lu->hctl);
	remembered = i >= 0;
	if (remembered)
		before = m->reserved[i].st;
	keep = resv_decide(r, &now, remembered ? &before : NULL, why, size);
	if (r >= 0) {
		(void)reserved_set(m, lu->hctl, &now);
		i = reserved_find(m, lu->hctl);
	}
	if (keep && i >= 0) {
		free(m->reserved[i].kept);
		m->reserved[i].kept = strdup(why);
	}
	pthread_mutex_unlock(&m->resv_lock);
	/* a removal whose reservations could not be read: said beside it (lund(8)) */
	if (!keep && r < 0 && r != -EOPNOTSUPP) {
		LogDevice dev = { .hctl = lu->hctl };

		log_device_full(LOG_INFO, 0, &dev, "scan: %s", why);
	}
	return keep;
}

json_object *manager_reservations_json(Manager *m)
{
	json_object *a = json_object_new_array();

	pthread_mutex_lock(&m->resv_lock);
	for (size_t i = 0; a && i < m->n_reserved; i++) {
		json_object *o = json_object_new_object();
		char d[PRIN_DESCRIBE_MAX];

		(void)prin_describe(&m->reserved[i].st, d, sizeof(d));
		json_object_object_add(o, "hctl", json_object_new_string(m->reserved[i].hctl));
		json_object_object_add(o, "reservations", json_object_new_string(d));
		json_object_object_add(
		        o, "kept",
		        m->reserved[i].kept ? json_object_new_string(m->reserved[i].kept) : NULL);
		json_object_array_add(a, o);
	}
	pthread_mutex_unlock(&m->resv_lock);
	return a;
}

void manager_reservations_free(Manager *m)
{
	pthread_mutex_lock(&m->resv_lock);
	while (m->n_reserved > 0)
		reserved_drop(m, m->n_reserved - 1);
	m->reserved = mfree(m->reserved);
	pthread_mutex_unlock(&m->resv_lock);
}
