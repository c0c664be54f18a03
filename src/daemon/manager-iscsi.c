/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * iSCSI sessions waiting for their login. The kernel creates a session (its iscsi_session add
 * uevent, and the SCSI host of an iscsi_tcp session) when open-iscsi starts to log in, and sends
 * nothing when the login completes: the session's "state" goes from FREE (or FAILED, while the
 * initiator retries) to LOGGED_IN without a uevent. A scan before then finds no target (the
 * transport's scan skips sessions not logged in), and under scsi_mod.scan=manual with
 * node.session.scan=manual nobody scans after it. So lund scans a new session's host once the
 * session is logged in: a session that is not yet is watched, its state read again 50 ms after
 * and then at doubling intervals up to 2 s, until it is LOGGED_IN (its host is scanned then) or
 * gone. One small sysfs read per waiting session and tick; nothing while none waits.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "log.h"
#include "macro.h"
#include "manager-private.h"
#include "sysfs.h"
#include "tportknob.h"
#include "uevent.h"

#define LOGIN_POLL_FIRST_USEC (50 * 1000ULL)
#define LOGIN_POLL_MAX_USEC   (2 * 1000 * 1000ULL)
/* Sessions watched at once; beyond that a new session's host is scanned when it appears, as
 * without the watch. */
#define LOGIN_WAITS_MAX 1024

struct LoginWait {
	char session[32]; /* "session12" */
	unsigned host;
	char state[16]; /* as last read */
	uint64_t since; /* CLOCK_MONOTONIC, when the watch began */
};

static const char iscsi_class[] = "sys/class/iscsi_session";

/* The session's state into @buf: 0, -ENOENT when the session is gone, -errno. */
static int session_state(Manager *m, const char *session, char *buf, size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s/state", iscsi_class, session);
	return sysfs_read_string_buf(m->rootfd, path, buf, size);
}

static LoginWait *wait_find(Manager *m, const char *session)
{
	for (size_t i = 0; i < m->n_login_waits; i++)
		if (streq(m->login_waits[i].session, session))
			return &m->login_waits[i];
	return NULL;
}

static void wait_drop(Manager *m, LoginWait *w)
{
	size_t i = (size_t)(w - m->login_waits);

	memmove(w, w + 1, (m->n_login_waits - i - 1) * sizeof(*w));
	if (--m->n_login_waits == 0)
		m->login_source = sd_event_source_disable_unref(m->login_source);
}

static int on_login_poll(sd_event_source *s, uint64_t usec, void *userdata);

/* Poll again @usec from now (the timer is one-shot). */
static int poll_arm(Manager *m, uint64_t usec)
{
	if (!m->login_source)
		return sd_event_add_time_relative(m->event, &m->login_source, CLOCK_MONOTONIC, usec,
		                                  0, on_login_poll, m);
	if (sd_event_source_set_time_relative(m->login_source, usec) >= 0 &&
	    sd_event_source_set_enabled(m->login_source, SD_EVENT_ONESHOT) >= 0)
		return 0;
	m->login_source = sd_event_source_disable_unref(m->login_source);
	return -ENOMEM;
}

static void logged_in(Manager *m, LoginWait *w, uint64_t now)
{
	uint64_t ms = (now - w->since) / 1000;

	log_info("host%u: iSCSI %s logged in (after %" PRIu64 ".%01" PRIu64
	         " s), scanning it for logical units",
	         w->host, w->session, ms / 1000, ms / 100 % 10);
	(void)manager_queue_host_scan(m, w->host, "iSCSI login");
}

static int on_login_poll(sd_event_source *s, uint64_t usec, void *userdata)
{
	Manager *m = userdata;
	uint64_t now = 0;

	sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	for (size_t i = 0; i < m->n_login_waits;) {
		LoginWait *w = &m->login_waits[i];
		char state[sizeof(w->state)];
		int r;

		r = session_state(m, w->session, state, sizeof(state));
		if (r == -ENOENT) {
			log_info("host%u: iSCSI %s went away before it logged in (last state %s)",
			         w->host, w->session, w->state);
			wait_drop(m, w);
			continue;
		}
		if (r >= 0 && streq(state, "LOGGED_IN")) {
			logged_in(m, w, now);
			wait_drop(m, w);
			continue;
		}
		if (r >= 0 && !streq(state, w->state)) {
			log_debug("host%u: iSCSI %s state %s -> %s", w->host, w->session, w->state,
			          state);
			snprintf(w->state, sizeof(w->state), "%s", state);
		}
		i++;
	}
	if (m->n_login_waits == 0)
		return 0;
	m->login_poll_usec = MIN(m->login_poll_usec * 2, LOGIN_POLL_MAX_USEC);
	(void)poll_arm(m, m->login_poll_usec);
	return 0;
}

/*
 * Watch @session of @host unless it is logged in already. True when it is watched (the caller
 * does not scan now), false when the caller scans: logged in, its state unreadable (an older
 * kernel, or the session gone: a scan is harmless), or no room to watch it.
 */
static bool login_watch(Manager *m, const char *session, unsigned host)
{
	char state[sizeof(((LoginWait *)NULL)->state)];
	LoginWait *w;
	uint64_t now = 0;

	if (strlen(session) >= sizeof(((LoginWait *)NULL)->session) ||
	    !tport_is_session(session, strlen(session)))
		return false;
	if (wait_find(m, session))
		return true;
	if (session_state(m, session, state, sizeof(state)) < 0 || streq(state, "LOGGED_IN"))
		return false;
	if (m->n_login_waits >= LOGIN_WAITS_MAX)
		return false;
	if (GREEDY_REALLOC_EXACT(m->login_waits, m->n_login_waits + 1) < 0)
		return false;
	sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	w = &m->login_waits[m->n_login_waits];
	*w = (LoginWait){ .host = host, .since = now };
	snprintf(w->session, sizeof(w->session), "%s", session);
	snprintf(w->state, sizeof(w->state), "%s", state);
	/* A new session restarts the backoff: logins take milliseconds to seconds. */
	m->login_poll_usec = LOGIN_POLL_FIRST_USEC;
	if (poll_arm(m, LOGIN_POLL_FIRST_USEC) < 0)
		return false;
	m->n_login_waits++;
	log_info("host%u: iSCSI %s not logged in yet (state %s), scanning it once it is", host,
	         session, state);
	return true;
}

bool manager_iscsi_login_wait(Manager *m, const Uevent *ev, unsigned host)
{
	const char *session;

	if (!ev->devpath || !streq_ptr(ev->subsystem, "iscsi_session"))
		return false;
	session = strrchr(ev->devpath, '/');
	return session && login_watch(m, session + 1, host);
}

static int watch_one(const char *name, void *userdata)
{
	Manager *m = userdata;
	char path[128], target[PATH_MAX];
	unsigned host;
	ssize_t k;

	snprintf(path, sizeof(path), "%s/%s", iscsi_class, name);
	k = readlinkat(m->rootfd, path, target, sizeof(target) - 1);
	if (k < 0)
		return 0;
	target[k] = 0;
	if (uevent_devpath_host(target, &host) >= 0)
		(void)login_watch(m, name, host);
	return 0;
}

void manager_iscsi_watch_all(Manager *m)
{
	(void)sysfs_for_each_entry(m->rootfd, iscsi_class, "session", watch_one, m);
}

json_object *manager_iscsi_json(Manager *m)
{
	json_object *o = json_object_new_object();
	uint64_t now = 0;

	sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	for (size_t i = 0; o && i < m->n_login_waits; i++) {
		const LoginWait *w = &m->login_waits[i];
		json_object *s = json_object_new_object();

		json_object_object_add(s, "host", json_object_new_int64(w->host));
		json_object_object_add(s, "state", json_object_new_string(w->state));
		json_object_object_add(s, "age_usec", json_object_new_uint64(now - w->since));
		json_object_object_add(o, w->session, s);
	}
	return o;
}

void manager_iscsi_free(Manager *m)
{
	m->login_source = sd_event_source_disable_unref(m->login_source);
	m->login_waits = mfree(m->login_waits);
	m->n_login_waits = 0;
}
