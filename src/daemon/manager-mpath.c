/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The Manager and dm-multipath (lund(8), PATHS): when multipathd stacks a map on an LU's block
 * node, the LU's by-id names for that node point at the map ("dm-3") instead of the path, so
 * that every path of the LU wants one target and the names follow the map, as udev's
 * 56-dm-mpath.rules gives the map the names of its paths. When the map goes, the names go back
 * to the path the collision rule picks.
 *
 * Driven by events only: an LU's holder is read (io/mpath.h, a few sysfs reads, no SCSI
 * command) when its nodes appear or change, and again for the LUs a device-mapper device's
 * add, change (a table loaded and resumed) or remove uevent concerns: the map's slaves, and
 * the LUs it held before.
 */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "log.h"
#include "macro.h"
#include "manager-private.h"
#include "mpath.h"
#include "sysfs.h"

/* Journal message ID (sd-id128) of a hand-over to or from a dm-multipath map. */
#define MESSAGE_MPATH_HANDOVER "d84a1c6e0f3b4e27a95c2b7d13e8f640"

/* At most this many slaves of one map are looked at (multipath-tools' paths of one LU). */
#define MPATH_MAX_SLAVES 1024

static void log_handover(Manager *m, const Lu *lu, const char *old, const char *old_uuid)
{
	_cleanup_free_ char *node = NULL;
	LogDevice dev = { .hctl = lu->hctl, .wwid = lu->naming.wwn };

	if (lu->block && asprintf(&node, "/dev/%s", lu->block) < 0)
		node = NULL;
	dev.devnode = node;
	if (lu_mpath(lu))
		log_full(LOG_NOTICE, 0, &dev, MESSAGE_MPATH_HANDOVER,
		         "/dev/%s is a path of dm-multipath map /dev/%s (%s): its by-id names "
		         "point at the map",
		         lu->block, lu_mpath(lu), lu_mpath_uuid(lu));
	else
		log_full(LOG_NOTICE, 0, &dev, MESSAGE_MPATH_HANDOVER,
		         "/dev/%s is no longer held by dm-multipath map /dev/%s (%s): its by-id "
		         "names go back to the paths",
		         lu->block ?: "?", old, old_uuid ?: "?");
	if (manager_want_events(m)) {
		json_object *o = manager_event_hctl(lu);

		json_object_object_add(o, "multipath", json_object_new_string(lu_mpath(lu) ?: old));
		json_object_object_add(o, "held", json_object_new_boolean(lu_mpath(lu) != NULL));
		manager_emit(m, "multipath", o);
	}
}

/* Is there, or was there, any device-mapper device? No map can hold a path without one, and
 * most hosts without multipath have none: their LUs' holders are then never read. */
static bool dm_seen(Manager *m)
{
	DIR *d = NULL;
	int r;

	if (m->dm_checked)
		return m->dm_seen;
	m->dm_checked = true;
	r = sysfs_opendir(m->rootfd, "sys/class/block", &d);
	if (r == -ENOENT)
		return false; /* no block device at all */
	if (r < 0)
		return (m->dm_seen = true); /* cannot tell: read the holders */
	for (struct dirent *de; !m->dm_seen && (de = readdir(d));)
		m->dm_seen = strneq(de->d_name, "dm-", 3);
	closedir(d);
	return m->dm_seen;
}

bool manager_mpath_update(Manager *m, Lu *lu)
{
	_cleanup_free_ char *dm = NULL, *uuid = NULL, *old = NULL, *old_uuid = NULL;
	int r = -ENOENT;

	if (lu->block && (lu_mpath(lu) || dm_seen(m)))
		r = mpath_holder(m->rootfd, lu->block, &dm, &uuid);
	if (r < 0 && r != -ENOENT && r != -EINVAL)
		log_debug_errno(r, "%s: cannot read the holders of /dev/%s, ignoring: %m", lu->hctl,
		                lu->block);
	if (streq_ptr(dm, lu_mpath(lu)) && streq_ptr(uuid, lu_mpath_uuid(lu)))
		return false;
	/* Without memory for the LU's rare fields, no map: what it was before any. */
	if (dm && !lu_rare_get(lu)) {
		log_warning_errno(-ENOMEM, "%s: cannot note its dm-multipath map, ignoring: %m",
		                  lu->hctl);
		dm = mfree(dm);
		uuid = mfree(uuid);
		if (!lu_mpath(lu))
			return false;
	}
	if (lu->rare) {
		old = TAKE_PTR(lu->rare->mpath);
		old_uuid = TAKE_PTR(lu->rare->mpath_uuid);
		lu->rare->mpath = TAKE_PTR(dm);
		lu->rare->mpath_uuid = TAKE_PTR(uuid);
	}
	if (lu_mpath(lu) || old)
		log_handover(m, lu, old, old_uuid);
	return true;
}

static bool in_list(char **v, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (streq(v[i], s))
			return true;
	return false;
}

int manager_react_holder(Manager *m, const Uevent *ev)
{
	_cleanup_free_ char *dir = NULL;
	const char *dm = uevent_devpath_dm(ev->devpath);
	char **slaves = NULL;
	size_t n = 0;
	DIR *d = NULL;

	if (!dm)
		return 0;
	m->dm_checked = m->dm_seen = true;
	/* The map's paths now; none once it is removed (its LUs are found by their record). */
	if (!streq(ev->action, "remove") && asprintf(&dir, "sys/class/block/%s/slaves", dm) >= 0 &&
	    sysfs_opendir(m->rootfd, dir, &d) >= 0) {
		for (struct dirent *de; n < MPATH_MAX_SLAVES && (de = readdir(d));) {
			if (de->d_name[0] == '.')
				continue;
			if (GREEDY_REALLOC_EXACT(slaves, n + 1) < 0)
				break;
			if (!(slaves[n] = strdup(de->d_name)))
				break;
			n++;
		}
		closedir(d);
	}
	for (Lu *lu = inventory_first_lu(m->inventory); lu; lu = inventory_next_lu(lu))
		if (lu->block && (streq_ptr(lu_mpath(lu), dm) || in_list(slaves, n, lu->block)) &&
		    manager_mpath_update(m, lu)) {
			manager_links_dirty(m, lu);
			manager_status_dirty(m);
		}
	for (size_t i = 0; i < n; i++)
		free(slaves[i]);
	free(slaves);
	return 0;
}
