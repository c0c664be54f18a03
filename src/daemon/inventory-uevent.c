/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inventory-private.h"
#include "luns.h"
#include "macro.h"
#include "sysfs.h"

static const char *const ua_table[_LU_UA_MAX] = {
	[LU_UA_REPORTED_LUNS_CHANGED] = "REPORTED_LUNS_DATA_HAS_CHANGED",
	[LU_UA_CAPACITY_CHANGED] = "CAPACITY_DATA_HAS_CHANGED",
	[LU_UA_INQUIRY_CHANGED] = "INQUIRY_DATA_HAS_CHANGED",
	[LU_UA_POWER_ON_RESET] = "POWER_ON_RESET_OCCURRED",
	[LU_UA_MODE_PARAMETERS_CHANGED] = "MODE_PARAMETERS_CHANGED",
	[LU_UA_THIN_PROVISIONING_THRESHOLD] = "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED",
	[LU_UA_ALUA_STATE_CHANGED] = "ASYMMETRIC_ACCESS_STATE_CHANGED",
	[LU_UA_OTHER] = "OTHER",
};

LuUnitAttention lu_unit_attention_from_string(const char *s)
{
	if (!s)
		return _LU_UA_INVALID;
	for (LuUnitAttention i = 0; i < LU_UA_OTHER; i++)
		if (streq(s, ua_table[i]))
			return i;
	return LU_UA_OTHER;
}

DEFINE_NAME_LOOKUP(lu_unit_attention_to_string, LuUnitAttention, ua_table)

static int default_rescan_target(Inventory *inv, Target *t)
{
	_cleanup_free_ char *path = NULL, *value = NULL;

	/* The kernel's own scan of one target: adds LUNs it reports, removes none. */
	if (asprintf(&path, "sys/class/scsi_host/host%u/scan", t->host->number) < 0 ||
	    asprintf(&value, "%u %u -", t->channel, t->id) < 0)
		return -ENOMEM;
	return sysfs_write_attr(inv->rootfd, path, value);
}

static int handle_unit_attention(Inventory *inv, const char *hctl, const char *ua_string)
{
	LuUnitAttention ua = lu_unit_attention_from_string(ua_string);
	_cleanup_free_ char *rescan = NULL;
	const char *action = "none", *left;
	Lu *lu;
	int r = 0;

	lu = inventory_find(inv, hctl);
	if (!lu) {
		r = inventory_refresh(inv, hctl, false);
		if (r < 0)
			return r;
		lu = inventory_find(inv, hctl);
		if (!lu)
			return 0;
	}

	/* an excluded LU's unit attentions are lund's to report, not to act on */
	left = inv->hooks.leave ? inv->hooks.leave(inv, lu, ua, inv->userdata) : NULL;

	switch (left ? _LU_UA_INVALID : ua) {
	case _LU_UA_INVALID:
		action = left ?: "none";
		break;
	case LU_UA_REPORTED_LUNS_CHANGED:
		action = "rescan-target";
		r = inv->hooks.rescan_target
		            ? inv->hooks.rescan_target(inv, lu->target, inv->userdata)
		            : default_rescan_target(inv, lu->target);
		break;
	case LU_UA_CAPACITY_CHANGED:
	case LU_UA_INQUIRY_CHANGED:
		/* CAPACITY: the rescan attribute makes the upper driver re-read the capacity.
		 * INQUIRY: the kernel names nothing: have it re-read its VPD cache
		 * (scsi_rescan_device()), then re-derive IDs and names from it. */
		if (inv->hooks.rescan_lu) {
			r = inv->hooks.rescan_lu(inv, lu, ua, inv->userdata);
			if (r >= 0)
				return 0; /* reported by inventory_rescan_done() */
			action = ua == LU_UA_CAPACITY_CHANGED ? "capacity-reread" : "reprobed";
			break;
		}
		if (asprintf(&rescan, "%s/rescan", lu->syspath) < 0)
			return -ENOMEM;
		return inventory_rescan_done(inv, hctl, ua,
		                             sysfs_write_attr(inv->rootfd, rescan, "1"));
	case LU_UA_POWER_ON_RESET:
		action = "policy";
		r = inv->hooks.apply_policy ? inv->hooks.apply_policy(inv, lu, inv->userdata) : 0;
		break;
	default:
		break;
	}

	if (lu && inv->hooks.unit_attention)
		inv->hooks.unit_attention(inv, lu, ua, action, r, inv->userdata);
	return r;
}

int inventory_rescan_done(Inventory *inv, const char *hctl, LuUnitAttention ua, int error)
{
	const char *action = "capacity-reread";
	int r = error;
	Lu *lu;

	assert_return(inv && hctl, -EINVAL);
	if (ua == LU_UA_INQUIRY_CHANGED) {
		int k = inventory_reprobe(inv, hctl);

		action = "reprobed";
		if (r >= 0)
			r = k;
	}
	lu = inventory_find(inv, hctl);
	if (lu && inv->hooks.unit_attention)
		inv->hooks.unit_attention(inv, lu, ua, action, r, inv->userdata);
	return r;
}

static bool action_is(const Uevent *ev, const char *a)
{
	return ev->action && streq(ev->action, a);
}

/* A partition of the LU's disk appeared or went away (@disk/@part from the event's path). */
static int lu_partition_event(Inventory *inv, Lu *lu, bool add, const char *disk, size_t disk_len,
                              const char *part)
{
	_cleanup_free_ char *p = NULL;
	uint64_t num;
	size_t i;
	int r;

	if (!lu->block || strlen(lu->block) != disk_len || !strneq(lu->block, disk, disk_len))
		return 0;
	for (i = 0; i < lu_n_partitions(lu); i++)
		if (streq(lu_partitions(lu)[i].node, part))
			break;

	if (!add) {
		LuRare *rare = lu->rare;

		if (i == lu_n_partitions(lu))
			return 1; /* never knew it: nothing changes */
		free(rare->partitions[i].node);
		memmove(rare->partitions + i, rare->partitions + i + 1,
		        (rare->n_partitions - i - 1) * sizeof(*rare->partitions));
		rare->n_partitions--;
		lu_changed(inv, lu, LU_CHANGE_NODES);
		return 1;
	}

	if (i < lu_n_partitions(lu))
		return 1;
	if (asprintf(&p, "%s/block/%s/%s", lu->syspath, lu->block, part) < 0)
		return -ENOMEM;
	r = sysfs_attr_u64(inv->rootfd, p, "partition", &num);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || num == 0 || num > UINT32_MAX)
		return 0; /* not what the event said: let a full read decide */
	r = lu_partition_insert(lu, part, num);
	if (r < 0)
		return r;
	lu_changed(inv, lu, LU_CHANGE_NODES);
	return 1;
}

/*
 * A node of a known LU was added or removed: the event names it (the last component of
 * DEVPATH is the node's name; bsg nodes live in dev/bsg/), so update that one node instead of
 * reading the whole LU from sysfs again. Returns 1 when done, 0 when the event does not fit
 * what the inventory knows (or needs more than the node: a re-probe) and the caller must read
 * the LU in full, or -errno.
 */
static int lu_node_event(Inventory *inv, Lu *lu, const Uevent *ev, const char *base)
{
	bool add = action_is(ev, "add");
	_cleanup_free_ char *bsg = NULL;
	const char *name = base;
	char **slot;
	int r;

	if (!add && !action_is(ev, "remove"))
		return 0; /* change, move: read it all */

	if (streq(ev->subsystem, "block")) {
		if (ev->devtype && streq(ev->devtype, "partition")) {
			/* .../block/<disk>/<part> */
			const char *end = base - 1, *disk = end;

			while (disk > ev->devpath && disk[-1] != '/')
				disk--;
			if (disk == end || (size_t)(disk - ev->devpath) < strlen("/block/") ||
			    !strneq(disk - strlen("/block/"), "/block/", strlen("/block/")))
				return 0;
			return lu_partition_event(inv, lu, add, disk, (size_t)(end - disk), base);
		}
		if (!ev->devtype || !streq(ev->devtype, "disk"))
			return 0;
		slot = &lu->block;
	} else if (streq(ev->subsystem, "scsi_generic"))
		slot = &lu->sg;
	else if (streq(ev->subsystem, "bsg")) {
		if (asprintf(&bsg, "bsg/%s", base) < 0)
			return -ENOMEM;
		name = bsg;
		slot = &lu->bsg;
	} else
		return 0; /* st makes several nodes per LU (st0, nst0, st0l, ...): read them */

	if (add) {
		if (*slot)
			return streq(*slot, name) ? 1 : 0;
		/* Identification failed for want of a node to ask: a full read re-probes. */
		if (lu->naming_error < 0 || lu->probe_no_node)
			return 0;
	} else {
		if (!*slot)
			return 1;
		if (!streq(*slot, name))
			return 0;
		name = NULL;
	}
	r = lu_set_strings(lu, lu->syspath, slot == &lu->sg ? name : lu->sg,
	                   slot == &lu->block ? name : lu->block, lu_tape(lu),
	                   slot == &lu->bsg ? name : lu->bsg);
	if (r < 0)
		return r;
	if (!lu->block)
		lu_partitions_clear(lu); /* the disk went, and its partitions with it */
	lu_changed(inv, lu, LU_CHANGE_NODES);
	return 1;
}

/* @state (shared, NULL: unreadable) as @lu's: 1 when it changed (the lu_changed hook has been
 * called), 0 when not. */
static int lu_take_state(Inventory *inv, Lu *lu, const char *state)
{
	if (streq_ptr(state, lu->state)) {
		strpool_put(inv->strings, state);
		return 0;
	}
	strpool_put(inv->strings, lu->state);
	lu->state = state;
	lu_changed(inv, lu, LU_CHANGE_INFO);
	return 1;
}

/* bind/unbind of a known LU: an upper driver came or went. Its nodes have events of their own;
 * only the device's state may differ. */
static int lu_driver_event(Inventory *inv, Lu *lu)
{
	const char *state;

	if (lu->info_pending)
		return 1; /* its identification reads the state */
	state = inventory_attr_shared(inv, lu->syspath, "state");
	if (!state && faccessat(inv->rootfd, lu->syspath, F_OK, 0) < 0)
		return 0; /* gone: a full read removes it */
	(void)lu_take_state(inv, lu, state);
	return 1;
}

int inventory_reread_state(Inventory *inv, Lu *lu)
{
	const char *state;

	assert_return(inv && lu, -EINVAL);
	state = inventory_attr_shared(inv, lu->syspath, "state");
	return state ? lu_take_state(inv, lu, state) : 0;
}

/* UEVENT_LU: the scsi_device itself. */
static int react_lu(Inventory *inv, const Uevent *ev, const char *base)
{
	Lu *lu;
	int r;

	if (hctl_parse(base, NULL, NULL, NULL, NULL) < 0)
		return 0;
	if (action_is(ev, "remove"))
		return inventory_remove(inv, base) < 0 ? -EIO : 0;
	if (action_is(ev, "change") && ev->sdev_ua)
		return handle_unit_attention(inv, base, ev->sdev_ua);
	/* A scan found the device's identity changed and had the kernel re-read its VPD pages:
	 * derive the IDs and names again, as after INQUIRY DATA HAS CHANGED (the rescan is done
	 * already). */
	if (action_is(ev, "change") && ev->synth_lund && streq(ev->synth_lund, "ids"))
		return inventory_reprobe(inv, base);
	if (action_is(ev, "bind") || action_is(ev, "unbind")) {
		lu = inventory_find(inv, base);
		r = lu ? lu_driver_event(inv, lu) : 0;
		if (r != 0)
			return r < 0 ? r : 0;
	}
	/* add, change (state, media), move, online, offline */
	if (action_is(ev, "add")) {
		char devpath[PATH_MAX];

		/* The add uevent names the device's directory (identification need not resolve
		 * sys/bus/scsi/devices/H:C:T:L again: 5 system calls) and its type. */
		return inventory_refresh_at(
		        inv, base, uevent_lu_devpath(ev->devpath, devpath) ? devpath : NULL,
		        uevent_modalias_scsi_type(ev->modalias), true, true, !ev->synthetic);
	}
	return inventory_refresh(inv, base, false);
}

/* UEVENT_HOST_REMOVED: each LU gets its own remove event first; this catches any missed: re-read
 * the LUs below the host or target that went, which drops those sysfs lost. Only those: a SAN
 * taking its targets away one after the other must not have every LU read again each time. */
static int react_host_removed(Inventory *inv, const Uevent *ev, const char *base)
{
	unsigned host, channel = 0, id = 0;
	bool any = uevent_devpath_host(ev->devpath, &host) < 0, one_target = false;

	if (!any && ev->devtype && streq(ev->devtype, "scsi_target") && strneq(base, "target", 6)) {
		char hctl[64];
		unsigned h;

		/* "targetH:C:T" */
		if ((size_t)snprintf(hctl, sizeof(hctl), "%s:0", base + 6) < sizeof(hctl) &&
		    hctl_parse(hctl, &h, &channel, &id, NULL) >= 0 && h == host)
			one_target = true;
	}
	for (Lu *next, *x = inventory_first_lu(inv); x; x = next) {
		next = inventory_next_lu(x);
		if (any ||
		    (x->target->host->number == host &&
		     (!one_target || (x->target->channel == channel && x->target->id == id))))
			(void)inventory_refresh(inv, x->hctl, false);
	}
	return 0;
}

/* UEVENT_NODE: a node of an LU appeared, changed or went away: update that node, or re-read the
 * LU's nodes when the event alone does not say enough. */
static int react_node(Inventory *inv, const Uevent *ev, const char *base)
{
	_cleanup_free_ char *hctl = NULL;
	Lu *lu;
	int r;

	r = uevent_devpath_hctl(ev->devpath, &hctl);
	if (r < 0)
		return r == -ENOENT ? 0 : r; /* not a SCSI device's node (loop, nvme, ...) */
	lu = inventory_find(inv, hctl);
	if (!lu && action_is(ev, "remove"))
		return 0;
	if (lu) {
		r = lu_node_event(inv, lu, ev, base);
		if (r != 0)
			return r < 0 ? r : 0;
	}
	return inventory_refresh(inv, hctl, false);
}

static int (*const reactions[_UEVENT_REACTION_MAX])(Inventory *inv, const Uevent *ev,
                                                    const char *base) = {
	[UEVENT_LU] = react_lu,
	[UEVENT_HOST_REMOVED] = react_host_removed,
	[UEVENT_NODE] = react_node,
};

int inventory_handle_uevent(Inventory *inv, const Uevent *ev, UeventReactions what)
{
	const char *base;
	int ret = 0;

	assert_return(inv && ev, -EINVAL);

	what &= 1u << UEVENT_LU | 1u << UEVENT_HOST_REMOVED | 1u << UEVENT_NODE;
	if (what == 0 || !ev->action || !ev->subsystem || !ev->devpath)
		return 0;
	base = strrchr(ev->devpath, '/');
	base = base ? base + 1 : ev->devpath;
	for (UeventReaction i = UEVENT_LU; what != 0; i++)
		if (what & (1u << i)) {
			int r = reactions[i](inv, ev, base);

			what &= ~(1u << i);
			if (r < 0 && ret == 0)
				ret = r;
		}
	return ret;
}
