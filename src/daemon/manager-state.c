/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The LUs' kernel state (sysfs "state"). With the companion patchset the kernel sends one
 * change uevent, SDEV_STATE=offline or SDEV_STATE=transport-offline, when a device goes offline
 * (error recovery gave up on it, its transport class did, or user space wrote "offline"): lund
 * logs it, shows it and keeps the LU's names. Nothing tells when a device comes back, nor, on a
 * stock kernel, when it went: every few seconds the state is read again of each LU that is not
 * running, and of each running path that holds names other paths of its LU want (claims.h:
 * claims_lu_wins_paths()), so that those names move to a running path when it stops (lund(8),
 * PATHS). One small sysfs read per such LU; none while every LU runs and no name has paths.
 * On a stock kernel the error tracker's rounds read the state of the LUs whose counters they
 * read (errors.h: error_tracker_set_state_fn()), so that a running LU the kernel offlines
 * without a word is seen within a round, or within the sweep when its disk is idle.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "manager-private.h"
#include "uevent.h"

#define MESSAGE_LU_STATE "4c7a1e93d25b4f08a6e1c3b5d7f90a24"
#define STATE_WATCH_USEC (2 * 1000 * 1000ULL)

/* One state change of @lu (from @old), logged and sent to monitors. @source: what told, "uevent"
 * (SDEV_STATE=) or "sysfs" (the watch). */
static void state_changed(Manager *m, Lu *lu, const char *old, const char *source)
{
	_cleanup_free_ char *node = NULL, *f_state = NULL, *f_source = NULL;
	const char *state = lu->state ?: "unknown";
	const char *extra[3] = {};
	LogDevice dev;
	json_object *o;

	if (lu->block && asprintf(&node, "/dev/%s", lu->block) < 0)
		node = NULL;
	if (asprintf(&f_state, "LUND_STATE=%s", state) >= 0)
		extra[0] = f_state;
	else
		f_state = NULL;
	if (asprintf(&f_source, "LUND_STATE_SOURCE=%s", source) >= 0)
		extra[extra[0] ? 1 : 0] = f_source;
	else
		f_source = NULL;
	dev = (LogDevice){
		.hctl = lu->hctl, .devnode = node, .wwid = lu->naming.wwn, .extra = extra
	};
	log_full(lu_running(lu) ? LOG_NOTICE : LOG_WARNING, 0, &dev, MESSAGE_LU_STATE,
	         "state %s -> %s (%s), names kept", old ?: "unknown", state, source);
	if (!manager_want_events(m))
		return;
	o = manager_event_hctl(lu);
	json_object_object_add(o, "state", json_object_new_string(state));
	json_object_object_add(o, "previous", old ? json_object_new_string(old) : NULL);
	json_object_object_add(o, "source", json_object_new_string(source));
	manager_emit(m, "lu-state", o);
}

/* Read @lu's state again; log a change. 1 when it changed. */
static int state_reread(Manager *m, Lu *lu, const char *source)
{
	_cleanup_free_ char *old = NULL;
	int r;

	if (lu->state) {
		old = strdup(lu->state);
		if (!old)
			return -ENOMEM;
	}
	r = inventory_reread_state(m->inventory, lu);
	if (r <= 0)
		return r;
	state_changed(m, lu, old, source);
	return 1;
}

void manager_state_seen(const char *hctl, void *userdata)
{
	Manager *m = userdata;
	Lu *lu = m->inventory ? inventory_find(m->inventory, hctl) : NULL;

	if (lu && state_reread(m, lu, "sysfs") > 0)
		manager_state_watch(m, lu);
}

/* Is @lu's state read again by the watch? */
static bool state_watched(const Lu *lu)
{
	return !lu_running(lu) || claims_lu_wins_paths(lu);
}

static int on_state_watch(sd_event_source *s, uint64_t usec, void *userdata)
{
	Manager *m = userdata;
	bool any = false;

	for (Lu *lu = inventory_first_lu(m->inventory), *next; lu; lu = next) {
		next = inventory_next_lu(lu);
		if (!state_watched(lu))
			continue;
		/* A path that stops hands its names on (manager.c: on_lu_changed()): the next
		 * one is watched from the next round on. */
		(void)state_reread(m, lu, "sysfs");
		any = any || state_watched(lu);
	}
	if (!any) {
		m->state_source = sd_event_source_disable_unref(m->state_source);
		return 0;
	}
	if (sd_event_source_set_time_relative(s, STATE_WATCH_USEC) < 0 ||
	    sd_event_source_set_enabled(s, SD_EVENT_ONESHOT) < 0)
		m->state_source = sd_event_source_disable_unref(m->state_source);
	return 0;
}

void manager_state_watch(Manager *m, const Lu *lu)
{
	if (!m->event || m->state_source || (lu && !state_watched(lu)))
		return;
	if (sd_event_add_time_relative(m->event, &m->state_source, CLOCK_MONOTONIC,
	                               STATE_WATCH_USEC, 0, on_state_watch, m) < 0)
		m->state_source = NULL;
}

void manager_state_free(Manager *m)
{
	m->state_source = sd_event_source_disable_unref(m->state_source);
}

int manager_state_event(Manager *m, const Uevent *ev)
{
	UeventSdevState st;
	const char *hctl;
	Lu *lu;
	int r;

	r = uevent_sdev_state_parse(ev->sdev_state, &st);
	if (r == -ENODATA)
		return 0;
	hctl = ev->devpath ? strrchr(ev->devpath, '/') : NULL;
	hctl = hctl ? hctl + 1 : ev->devpath;
	if (r < 0) {
		LogDevice dev = { .hctl = hctl };

		log_device_full(LOG_WARNING, r, &dev, "Malformed SDEV_STATE uevent, ignoring: %m");
		return 0;
	}
	lu = hctl ? inventory_find(m->inventory, hctl) : NULL;
	if (!lu)
		return 0;
	/* The event says which state the device went to; sysfs says where it is now (it may be
	 * running again already): lund shows the latter. */
	r = state_reread(m, lu, "uevent");
	if (r == 0) {
		LogDevice dev = { .hctl = lu->hctl, .wwid = lu->naming.wwn };

		log_device_full(LOG_INFO, 0, &dev, "the kernel reports state %s, sysfs says %s",
		                uevent_sdev_state_to_string(st), lu->state ?: "nothing");
	}
	manager_state_watch(m, lu);
	return r < 0 ? r : 0;
}

json_object *manager_state_json(Manager *m)
{
	json_object *o = json_object_new_object();

	for (Lu *lu = inventory_first_lu(m->inventory); o && lu; lu = inventory_next_lu(lu))
		if (!lu_running(lu))
			json_object_object_add(o, lu->hctl, json_object_new_string(lu->state));
	return o;
}
