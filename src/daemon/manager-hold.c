/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Holds (lund(8), HOLDS): a root client puts a host, a target or an LU on hold, with a reason
 * and, if it likes, a time limit. While held, lund adds and removes no LU there (the scans
 * keep them, as for an exclusion), acts on no unit attention there and leaves the names of
 * its LUs as they are (an LU the kernel removes still loses its names: they would otherwise
 * name the next device). Nothing is queued meanwhile: the release (or the time limit) rescans
 * the scope and works its LUs' names out again. Holds are kept in the run directory's "holds"
 * file, so that a restarted lund keeps them; the scan threads read them under excluded_lock.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "grow.h"
#include "macro.h"
#include "manager-private.h"
#include "sysfs.h"

#define HOLDS_FILE     "holds"
#define HOLDS_FILE_MAX (256u * 1024u)
#define HOLDS_MAX      1024u

struct Hold {
	ScanSelector scope;
	char text[64]; /* "2", "2:0:1", "2:0:1:3" */
	char *reason;
	uint64_t until; /* CLOCK_REALTIME, usec; 0: until released */
	uint64_t since; /* CLOCK_REALTIME, usec */
};

static void json_putp(json_object **o)
{
	json_object_put(*o);
}

static bool scope_has(const ScanSelector *s, uint64_t host, uint64_t channel, uint64_t target,
                      uint64_t lun)
{
	return (uint64_t)s->host == host && (s->channel < 0 || (uint64_t)s->channel == channel) &&
	       (s->target < 0 || (uint64_t)s->target == target) &&
	       (s->lun < 0 || (uint64_t)s->lun == lun);
}

static void scope_text(const ScanSelector *s, char *buf, size_t size)
{
	if (s->channel < 0)
		snprintf(buf, size, "%" PRIi64, s->host);
	else if (s->lun < 0)
		snprintf(buf, size, "%" PRIi64 ":%" PRIi64 ":%" PRIi64, s->host, s->channel,
		         s->target);
	else
		snprintf(buf, size, "%" PRIi64 ":%" PRIi64 ":%" PRIi64 ":%" PRIi64, s->host,
		         s->channel, s->target, s->lun);
}

bool manager_held(Manager *m, uint64_t host, uint64_t channel, uint64_t target, uint64_t lun,
                  char *why, size_t size)
{
	bool held = false;

	pthread_mutex_lock(&m->excluded_lock);
	for (size_t i = 0; i < m->n_holds && !held; i++)
		if (scope_has(&m->holds[i].scope, host, channel, target, lun)) {
			held = true;
			if (why)
				snprintf(why, size, "a hold on %s (%s)", m->holds[i].text,
				         m->holds[i].reason);
		}
	pthread_mutex_unlock(&m->excluded_lock);
	return held;
}

bool manager_lu_held(Manager *m, const Lu *lu)
{
	const Target *t = lu->target;

	return m->n_holds > 0 &&
	       manager_held(m, t->host->number, t->channel, t->id, lu->lun, NULL, 0);
}

/* The holds file: a JSON array, written whole to a temporary file and renamed. */
static int holds_save(Manager *m)
{
	_cleanup_(json_putp) json_object *a = json_object_new_array();
	_cleanup_close_ int fd = -EBADF;
	const char *text;
	size_t len;

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_holds; i++) {
		json_object *o = json_object_new_object();

		if (!o)
			return -ENOMEM;
		json_object_object_add(o, "scope", json_object_new_string(m->holds[i].text));
		json_object_object_add(o, "reason", json_object_new_string(m->holds[i].reason));
		json_object_object_add(o, "since", json_object_new_uint64(m->holds[i].since));
		json_object_object_add(o, "until", json_object_new_uint64(m->holds[i].until));
		json_object_array_add(a, o);
	}
	text = json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN);
	len = strlen(text);
	fd = openat(m->runfd, HOLDS_FILE ".new", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len || write(fd, "\n", 1) != 1)
		return -EIO;
	if (renameat(m->runfd, HOLDS_FILE ".new", m->runfd, HOLDS_FILE) < 0)
		return -errno;
	return 0;
}

static void hold_done(Hold *h)
{
	free(h->reason);
}

/* Add (or replace) the hold on @scope. Called with excluded_lock held. */
static int holds_put(Manager *m, const ScanSelector *scope, const char *reason, uint64_t since,
                     uint64_t until)
{
	char *r = strdup(reason);
	Hold *h = NULL;

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_holds && !h; i++)
		if (!memcmp(&m->holds[i].scope, scope, sizeof(*scope)))
			h = &m->holds[i];
	if (!h) {
		if (m->n_holds >= HOLDS_MAX || GREEDY_REALLOC_EXACT(m->holds, m->n_holds + 1) < 0) {
			free(r);
			return m->n_holds >= HOLDS_MAX ? -E2BIG : -ENOMEM;
		}
		h = &m->holds[m->n_holds++];
		*h = (Hold){ .scope = *scope };
		scope_text(scope, h->text, sizeof(h->text));
	}
	free(h->reason);
	h->reason = r;
	h->since = since;
	h->until = until;
	return 0;
}

static int on_hold_timer(sd_event_source *s, uint64_t usec, void *userdata);

/* The timer for the earliest time limit, none without one. */
static void holds_arm(Manager *m)
{
	uint64_t next = 0, now = clock_now_usec(CLOCK_REALTIME);

	for (size_t i = 0; i < m->n_holds; i++)
		if (m->holds[i].until && (!next || m->holds[i].until < next))
			next = m->holds[i].until;
	m->hold_timer = sd_event_source_disable_unref(m->hold_timer);
	if (next && m->event &&
	    sd_event_add_time(m->event, &m->hold_timer, CLOCK_REALTIME, MAX(next, now), 0,
	                      on_hold_timer, m) < 0)
		log_warning("Cannot arm the time limit of holds; they end when released");
}

/* After a hold ends: rescan its scope, then work its LUs' names out again. */
static void hold_reconcile(Manager *m, const ScanSelector *scope, const char *text)
{
	for (Lu *lu = inventory_first_lu(m->inventory); lu; lu = inventory_next_lu(lu)) {
		const Target *t = lu->target;

		if (scope_has(scope, t->host->number, t->channel, t->id, lu->lun))
			manager_links_dirty(m, lu);
	}
	if (manager_queue_scope_scan(m, scope, "hold released") < 0)
		log_warning("Cannot rescan %s after its hold; a resync or `lunctl rescan %s` will",
		            text, text);
}

/* Remove hold @i (excluded_lock held by the caller); its scope is reconciled after. */
static void hold_drop(Manager *m, size_t i, ScanSelector *ret_scope, char *text, size_t size)
{
	*ret_scope = m->holds[i].scope;
	snprintf(text, size, "%s", m->holds[i].text);
	hold_done(&m->holds[i]);
	m->holds[i] = m->holds[--m->n_holds];
}

static void holds_changed(Manager *m)
{
	int r = holds_save(m);

	if (r < 0)
		log_warning_errno(r, "Cannot write %s/%s, holds will not survive a restart: %m",
		                  m->run_dir, HOLDS_FILE);
	holds_arm(m);
	manager_host_scan_set_policy(m);
	manager_status_dirty(m);
}

static int on_hold_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	Manager *m = userdata;
	uint64_t now = clock_now_usec(CLOCK_REALTIME);

	for (size_t i = 0; i < m->n_holds;) {
		ScanSelector scope;
		char text[64];

		if (!m->holds[i].until || m->holds[i].until > now) {
			i++;
			continue;
		}
		log_notice("Hold on %s (%s) reached its time limit, released", m->holds[i].text,
		           m->holds[i].reason);
		pthread_mutex_lock(&m->excluded_lock);
		hold_drop(m, i, &scope, text, sizeof(text));
		pthread_mutex_unlock(&m->excluded_lock);
		hold_reconcile(m, &scope, text);
	}
	holds_changed(m);
	return 0;
}

int manager_hold(Manager *m, const ScanSelector *scope, const char *reason, uint64_t timeout_sec)
{
	uint64_t now = clock_now_usec(CLOCK_REALTIME);
	char text[64];
	int r;

	pthread_mutex_lock(&m->excluded_lock);
	r = holds_put(m, scope, reason, now, timeout_sec ? now + timeout_sec * 1000000u : 0);
	pthread_mutex_unlock(&m->excluded_lock);
	if (r < 0)
		return r;
	scope_text(scope, text, sizeof(text));
	log_notice("Hold on %s: %s%s; no adds, removals or renames there until released", text,
	           reason, timeout_sec ? " (with a time limit)" : "");
	holds_changed(m);
	return 0;
}

int manager_release(Manager *m, const ScanSelector *scope)
{
	ScanSelector dropped;
	char text[64];
	bool found = false;

	pthread_mutex_lock(&m->excluded_lock);
	for (size_t i = 0; i < m->n_holds && !found; i++)
		if (!memcmp(&m->holds[i].scope, scope, sizeof(*scope))) {
			hold_drop(m, i, &dropped, text, sizeof(text));
			found = true;
		}
	pthread_mutex_unlock(&m->excluded_lock);
	if (!found)
		return -ENOENT;
	log_notice("Hold on %s released; rescanning it", text);
	hold_reconcile(m, &dropped, text);
	holds_changed(m);
	return 0;
}

void manager_holds_load(Manager *m)
{
	_cleanup_(json_putp) json_object *a = NULL;
	_cleanup_free_ uint8_t *buf = NULL;
	_cleanup_close_ int fd = -EBADF;
	size_t n;

	fd = openat(m->runfd, HOLDS_FILE, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return;
	if (sysfs_read_fd(fd, HOLDS_FILE_MAX, &buf, &n) >= 0)
		a = json_tokener_parse((const char *)buf);
	if (!a || !json_object_is_type(a, json_type_array)) {
		log_warning("%s/%s is damaged, no hold kept from before", m->run_dir, HOLDS_FILE);
		return;
	}
	pthread_mutex_lock(&m->excluded_lock);
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i), *s, *r, *u, *w;
		ScanSelector scope;

		if (!json_object_object_get_ex(o, "scope", &s) ||
		    !json_object_object_get_ex(o, "reason", &r) ||
		    !json_object_object_get_ex(o, "until", &u) ||
		    !json_object_object_get_ex(o, "since", &w) ||
		    !json_object_is_type(r, json_type_string) ||
		    scan_selector_parse(json_object_get_string(s), &scope) < 0 ||
		    holds_put(m, &scope, json_object_get_string(r), json_object_get_uint64(w),
		              json_object_get_uint64(u)) < 0)
			log_warning("%s/%s: a damaged entry, dropped", m->run_dir, HOLDS_FILE);
	}
	pthread_mutex_unlock(&m->excluded_lock);
	if (m->n_holds > 0)
		log_notice("%zu holds kept from before the restart", m->n_holds);
	holds_arm(m);
}

void manager_holds_free(Manager *m)
{
	m->hold_timer = sd_event_source_disable_unref(m->hold_timer);
	for (size_t i = 0; i < m->n_holds; i++)
		hold_done(&m->holds[i]);
	m->holds = mfree(m->holds);
	m->n_holds = 0;
}

json_object *manager_holds_json(Manager *m)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < m->n_holds; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "scope", json_object_new_string(m->holds[i].text));
		json_object_object_add(o, "reason", json_object_new_string(m->holds[i].reason));
		json_object_object_add(o, "since_usec", json_object_new_uint64(m->holds[i].since));
		json_object_object_add(o, "until_usec",
		                       m->holds[i].until ? json_object_new_uint64(m->holds[i].until)
		                                         : NULL);
		json_object_array_add(a, o);
	}
	return a;
}
